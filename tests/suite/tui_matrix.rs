//! The matrix screen of several runs, without a terminal: snapshots at both
//! sizes, the run set against the baseline, and the side-by-side detail of a
//! pair opened from it and left again.

use crate::common;

use common::press;
use common::runs::{names, three_runs};
use common::tui::screen;
use eval_dag::report::compare_runs;
use eval_dag::tui::{App, RunsMatrix, Screen, Theme};

/// The three runs of [`three_runs`] on the matrix screen.
pub fn matrix_app() -> App {
    let docs = three_runs();
    App::comparing_runs(RunsMatrix::new(compare_runs(&names(), &docs, 0.05), docs), Theme::dark())
}

#[test]
fn the_matrix_screen_at_both_sizes() {
    for (width, height) in [(80u16, 24u16), (160, 48)] {
        let app = matrix_app();
        insta::assert_snapshot!(format!("matrix_{width}x{height}"), screen(&app, width, height));
    }
}

#[test]
fn matrix_keys_pick_a_run_open_the_pair_and_go_back() {
    let mut app = matrix_app();
    let text = screen(&app, 160, 48);
    assert!(text.contains("run C: 3 questions not in the baseline, 1 baseline question missing"), "{text}");
    let ids: Vec<&str> = app.matrix().unwrap().matrix.questions.iter().map(|q| q.question_id.as_str()).collect();
    assert_eq!(ids, ["q_02", "q_01", "c_07", "c_08", "c_09"], "the regression, the disagreement, then C's own");

    press(&mut app, "\n");
    assert_eq!(app.screen(), Screen::CompareDetail);
    let text = screen(&app, 160, 48);
    assert!(text.contains("q_02 regression") && text.contains("B: runs/b/eval_results.json"), "{text}");
    press(&mut app, "\x1b");
    assert_eq!(app.screen(), Screen::Matrix, "back to the matrix, not the two-run table");
    press(&mut app, "→jj\n");
    assert!(screen(&app, 160, 48).contains("c_07 only in C"), "the pair's runs are named by their letters");
    press(&mut app, "\x1b←kk");

    let narrow = screen(&app, 44, 24);
    assert!(narrow.contains("▸ B (vs A)") && narrow.contains("(1 out of view: ←/→)"), "{narrow}");
    press(&mut app, "→→");
    assert_eq!(app.matrix().unwrap().column, 2, "C is the last run");
    let narrow = screen(&app, 44, 24);
    let header = narrow.lines().find(|l| l.starts_with("id")).unwrap();
    assert!(header.contains("A baseline") && header.contains("▸ C (vs A)") && !header.contains('B'), "{narrow}");
    press(&mut app, "j\n");
    let text = screen(&app, 160, 48);
    assert!(text.contains("C: runs/c/trace.jsonl") && text.contains("changes from A to C"), "{text}");
    assert!(text.contains("q_01") && text.contains("the final DAGs are the same"), "C's c_01 is A's q_01: {text}");
    press(&mut app, "b←j");
    assert_eq!((app.screen(), app.matrix().unwrap().column), (Screen::Matrix, 1));
    press(&mut app, "\n");
    assert_eq!(app.screen(), Screen::Matrix, "neither A nor B has c_07");
    assert!(screen(&app, 80, 24).contains("neither A nor B has this question"));

    press(&mut app, "?");
    let help = screen(&app, 80, 24);
    assert!(help.contains("set the next run against the baseline") && !help.contains("change filter"), "{help}");
    press(&mut app, "xq");
    assert!(app.quitting());
}

/// Four runs of the sample's two questions with known costs: A cheap and half
/// right, B dearer and right, C dearer still and as right (beaten by B), D
/// right with no price for its model.
fn frontier_app() -> App {
    let base = three_runs().remove(0);
    let run = |model: &str, cost: f64, right: [bool; 2], wall_ms: u64| {
        let mut doc = base.clone();
        doc.summary.cost_usd = cost;
        doc.summary.elapsed_ms = Some(wall_ms);
        doc.summary.settings.as_mut().unwrap().model = model.into();
        for (result, right) in doc.detailed_results.iter_mut().zip(right) {
            result.correct = Some(right);
        }
        let correct = right.iter().filter(|r| **r).count();
        doc.summary.grading = eval_dag::report::Grading { graded: 2, correct, accuracy: Some(correct as f64 / 2.0) };
        doc
    };
    let docs = vec![
        run("mini", 0.002, [true, false], 4_000),
        run("large", 0.02, [true, true], 9_000),
        run("larger", 0.2, [true, true], 2_000),
        run("house", 0.0, [true, true], 30_000),
    ];
    let names: Vec<String> = ["a", "b", "c", "d"].map(|n| format!("runs/{n}")).into();
    App::comparing_runs(RunsMatrix::new(compare_runs(&names, &docs, 0.05), docs), Theme::dark())
}

#[test]
fn the_frontier_in_braille_at_both_sizes_and_its_axis_key() {
    for (width, height) in [(80u16, 24u16), (160, 48)] {
        let mut app = frontier_app();
        press(&mut app, "p");
        insta::assert_snapshot!(format!("frontier_{width}x{height}"), screen(&app, width, height));
    }
    let mut app = frontier_app();
    press(&mut app, "p");
    let text = screen(&app, 160, 48);
    assert!(text.contains("accuracy against cost (USD) · 2 questions · x: axis · p: questions"), "{text}");
    assert!(text.contains("not placed: D (no price)") && text.contains("(log)"), "{text}");
    assert!(text.contains("$0.0020 · $0.0020/right") && text.contains("$0.0200 · $0.0100/right"), "{text}");
    assert!(text.contains('⠁') || text.chars().any(|c| ('\u{2801}'..='\u{28ff}').contains(&c)), "braille dots");
    press(&mut app, "x");
    let text = screen(&app, 160, 48);
    assert!(text.contains("accuracy against tokens") && !text.contains("not placed"), "tokens place all: {text}");
    press(&mut app, "x");
    assert!(screen(&app, 160, 48).contains("accuracy against wall time (s)"));
    press(&mut app, "xp");
    let text = screen(&app, 160, 48);
    assert!(text.contains("questions × 4 runs"), "p goes back to the questions: {text}");
    for (width, height) in [(20u16, 6u16), (40, 10), (60, 12), (200, 60)] {
        press(&mut app, "p");
        let _ = screen(&app, width, height);
        press(&mut app, "p");
    }
}
