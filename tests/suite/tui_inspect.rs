//! Looking closer from the question screen, without a terminal: the dataset
//! schema the builder saw, opened at the field a finding suggests, and the
//! node inspector — inputs read from the dataset or upstream outputs, the
//! node's output, walked, searched and written to a file — and the critic's
//! scorecard, at 80×24 and 160×48.

use crate::common;

use eval_dag::tui::Screen;

use common::press;
use common::tui::{SAMPLE, live_app, replay_app, screen};

#[test]
fn the_schema_opens_at_the_field_a_finding_suggests() {
    for (width, height) in [(80, 24), (160, 48)] {
        let mut app = replay_app(SAMPLE);
        // q_01, iteration 1: node `rates` reads 'fraud_rate'; did you mean 'is_fraud_rate'?
        press(&mut app, "j\nhhS");
        assert_eq!(app.screen(), Screen::Schema);
        let text = screen(&app, width, height);
        assert!(text.contains("at dataset.category_stats[\"is_fraud_rate\"]"), "{text}");
        let body: Vec<&str> = text.lines().skip(4).collect();
        let target =
            body.iter().position(|l| l.contains("- \"is_fraud_rate\": float")).expect("the field is on screen");
        let key = body.iter().position(|l| l.starts_with("│dataset.category_stats:"));
        assert!(key.is_some_and(|key| key < target), "its key is on screen above it: {text}");
        press(&mut app, "jjjJ");
        assert!(!screen(&app, width, height).contains("at dataset.overview"), "scrolling keeps the target");
        press(&mut app, "\x1b");
        assert_eq!(app.screen(), Screen::Question, "esc goes back to the question");
    }
    // A node that reads no dataset key and has no findings opens the schema at its top.
    let mut app = replay_app(SAMPLE);
    press(&mut app, "j\njS");
    let text = screen(&app, 160, 48);
    assert!(
        text.contains(" dataset schema the builder saw ─") && text.contains("Dataset: Prepared from fraud.csv"),
        "{text}"
    );
}

#[test]
fn the_inspector_shows_what_the_node_read_and_returned() {
    for (width, height) in [(80, 24), (160, 48)] {
        let mut app = replay_app(SAMPLE);
        // q_01's approved iteration, node `rates`: stats ← dataset.category_stats.
        press(&mut app, "j\ni");
        assert_eq!(app.screen(), Screen::Inspector);
        let text = screen(&app, width, height);
        assert!(
            text.contains("rates · attempt 1, iteration 3") && text.contains("stats ← dataset.category_stats"),
            "{text}"
        );
        assert!(text.contains("▾ rates") && text.contains("▸ inputs") && text.contains("▸ output"), "{text}");
        press(&mut app, "j→→→");
        let text = screen(&app, width, height);
        assert!(
            text.contains("▾ stats") && text.contains("grocery_pos"),
            "the dataset key as the node read it: {text}"
        );
    }
    let mut app = replay_app(SAMPLE);
    press(&mut app, "j\ni/GROCERY_POS\n");
    assert!(app.message().unwrap().contains("2 matches"), "{:?}", app.message());
    let text = screen(&app, 160, 48);
    assert!(text.contains("rates[\"inputs\"][\"stats\"][\"grocery_pos\"]"), "the path as Python: {text}");
    press(&mut app, "n");
    let text = screen(&app, 160, 48);
    assert!(text.contains("rates[\"output\"][\"grocery_pos\"]") && text.contains("match 2 of 2"), "{text}");
    let output = app.inspector().unwrap().tree.selected_value().as_f64().unwrap();
    let data: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(common::root().join("sample-data/fraud/data.json")).unwrap())
            .unwrap();
    let stats = &data["category_stats"]["grocery_pos"];
    let rate = stats["is_fraud_count"].as_f64().unwrap() / stats["count"].as_f64().unwrap();
    assert!((output - rate).abs() < 1e-12, "the recorded rate of grocery_pos is what its code computes: {output}");
    let dir = tempfile::tempdir().unwrap();
    let mut app = app.with_recording(dir.path().to_path_buf());
    press(&mut app, "←w");
    let written = dir.path().join("eval-dag-q_01-a1-it3-rates.json");
    let value: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&written).unwrap()).unwrap();
    assert_eq!(value.as_object().map(|o| o.len()), Some(14), "the whole output dict, one rate per category");
    press(&mut app, "w");
    assert!(dir.path().join("eval-dag-q_01-a1-it3-rates-2.json").exists(), "a second write never overwrites");
    press(&mut app, "\x1b");
    assert_eq!(app.screen(), Screen::Question);
}

#[test]
fn r_runs_the_inspected_node_and_its_result_shows_below_the_tree() {
    let (mut app, mut commands) = live_app(SAMPLE);
    press(&mut app, "j\nhiR");
    let at = eval_dag::domain::AttemptAt::new("q_01", 1).iteration(2);
    let command = commands.try_recv().unwrap();
    assert_eq!(command, eval_dag::run::Command::RunNode { at: at.clone(), node_id: "rates".into(), code: None });
    let failed = eval_dag::domain::ExecutionResult {
        error: Some("ZeroDivisionError: division by zero".into()),
        ..Default::default()
    };
    app.apply(
        1,
        eval_dag::run::EngineEvent::NodeRan { at: at.clone(), node_id: "rates".into(), code: None, result: failed },
    );
    let text = screen(&app, 80, 24);
    assert!(text.contains("ran on its own, as recorded: failed") && text.contains("ZeroDivisionError"), "{text}");
    let mut output = indexmap::IndexMap::new();
    output.insert("rates".into(), serde_json::json!({"home": 0.5}));
    let ok = eval_dag::domain::ExecutionResult { success: true, node_outputs: output, ..Default::default() };
    let code = Some("def rates(stats):\n    return {'home': 0.5}\n".to_string());
    app.apply(2, eval_dag::run::EngineEvent::NodeRan { at, node_id: "rates".into(), code, result: ok });
    let text = screen(&app, 160, 48);
    assert!(text.contains("ran on its own, as edited") && text.contains("{\"home\":0.5}"), "{text}");
    insta::assert_snapshot!("inspector_node_run_160x48", text);
}

#[test]
fn the_critic_scorecard_opens_from_the_dashboard() {
    for (width, height) in [(80, 24), (160, 48)] {
        let mut app = replay_app(SAMPLE);
        press(&mut app, "c");
        assert_eq!(app.screen(), Screen::Scorecard);
        let text = screen(&app, width, height);
        assert!(text.contains("critic scorecard") && text.contains("agreement 50% of 2 graded verdicts"), "{text}");
        press(&mut app, "\x1b");
        assert_eq!(app.screen(), Screen::Dashboard);
    }
}
