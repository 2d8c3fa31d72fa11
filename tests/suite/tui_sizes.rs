//! The TUI never falls over: every screen, tab and overlay is drawn at every
//! terminal size from 1×1 up (every width and height to 40, then steps to
//! 300), one size after another in the same terminal so each draw follows a
//! resize, from several traces — the sample run at the end and part-way
//! through, a run whose findings oscillate, a benchmark run, the sample run with hostile text (tabs, escape sequences,
//! bidirectional overrides, wide characters, emoji, very long ids), a
//! 25-node DAG and a consensus run's drafts; and the comparisons, the review and agreement screens and the run browser. Drawing is called directly, without the UI's panic
//! containment, so a panic fails the test.

use crate::common;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use eval_dag::run::{EngineEvent, RunState};
use eval_dag::tui::{App, Comparison, Replay, Theme, draw};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};

const SAMPLE: &str = "sample-data/traces/fraud-scripted.trace.jsonl";

use common::press;

/// Every size the sweep draws at, in an order that grows and shrinks.
fn sizes() -> Vec<(u16, u16)> {
    let mut sizes = Vec::new();
    for width in 1..=40u16 {
        // Alternate directions so consecutive draws both grow and shrink.
        let heights: Vec<u16> = if width % 2 == 0 { (1..=40).collect() } else { (1..=40).rev().collect() };
        sizes.extend(heights.into_iter().map(|h| (width, h)));
    }
    let big = [48u16, 60, 80, 100, 120, 160, 200, 240, 300];
    for &width in &big {
        sizes.extend((1..=40u16).step_by(3).map(|h| (width, h)));
        sizes.extend(big.iter().map(|&h| (width, h)));
    }
    for &height in &big {
        sizes.extend((1..=40u16).step_by(3).map(|w| (w, height)));
    }
    sizes
}

/// Fewer sizes for the screens that cost most to draw (the whole
/// conversation): still every width and every height up to 40, each with
/// every fourth size of the other side.
fn light(sizes: &[(u16, u16)]) -> Vec<(u16, u16)> {
    sizes.iter().copied().filter(|&(w, h)| w > 40 || h > 40 || w % 4 == 0 || h % 4 == 0).collect()
}

/// Draw `app` at every size (panics fail the test) and check that no cell
/// holds a character that must not reach a terminal.
fn sweep(name: &str, app: &App, sizes: &[(u16, u16)]) {
    let mut terminal = Terminal::new(TestBackend::new(1, 1)).unwrap();
    for &(width, height) in sizes {
        terminal.backend_mut().resize(width, height);
        // Caught only to name the screen and size, then failed.
        let drawn = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| terminal.draw(|f| draw(f, app)).is_ok()));
        assert!(matches!(drawn, Ok(true)), "{name} at {width}×{height}: drawing failed (see the panic above)");
        let buffer = terminal.backend().buffer();
        for cell in &buffer.content {
            let bad = cell.symbol().chars().find(|c| c.is_control() || ('\u{202a}'..='\u{202e}').contains(c));
            assert!(bad.is_none(), "{name} at {width}×{height}: {bad:?} reached the terminal");
        }
    }
}

/// The sample trace with hostile text written into it: ids, question text,
/// node code and replies with tabs, escape sequences, bidirectional
/// overrides, zero-width spaces, wide characters and emoji.
fn hostile_trace(dir: &std::path::Path) -> std::path::PathBuf {
    let text = std::fs::read_to_string(common::root().join(SAMPLE)).unwrap();
    let long_id = "q_01_\u{202e}evil\u{202c}_漢字_👍_an_identifier_far_longer_than_any_column_has_room_for_in_a_table";
    let text = text
        .replace("\"q_01\"", &serde_json::to_string(long_id).unwrap())
        .replace(
            "Which category has the highest fraud rate?",
            "Which 類別 🧮 has\\tthe \\u001b[2J highest\\u202e rate\\u200b?",
        )
        .replace("\\n    ", "\\n\\t")
        .replace("\"rates\"", "\"rates_\\u202e_漢字_😀_with_a_long_name\"");
    let path = dir.join("hostile.trace.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

fn event(value: Value) -> EngineEvent {
    serde_json::from_value(value).unwrap()
}

/// A run whose one question has a 25-node DAG over 6 layers (wide layers,
/// long ids, a node fed by four others), rejected with findings on nodes.
fn big_dag_state() -> RunState {
    let sizes = [1usize, 6, 8, 5, 4, 1];
    let mut nodes = Vec::new();
    let mut previous: Vec<String> = Vec::new();
    for (layer, &count) in sizes.iter().enumerate() {
        let mut ids = Vec::new();
        for i in 0..count {
            let id = format!("step_{layer}_{i}_with_a_rather_long_common_prefix");
            let inputs: serde_json::Map<String, Value> = if previous.is_empty() {
                [("rows".to_string(), json!("dataset.transactions"))].into_iter().collect()
            } else {
                previous
                    .iter()
                    .take(4)
                    .enumerate()
                    .map(|(k, p)| (format!("x{k}"), json!(format!("prev_node.{p}.output"))))
                    .collect()
            };
            let args: Vec<&String> = inputs.keys().collect();
            let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
            let code = format!("def f({}):\n\treturn {}\n", args.join(", "), args.first().unwrap_or(&"0"));
            nodes.push(json!({"node_id": id, "operation": "step", "function_name": "f", "inputs": inputs,
                "expected_output_type": "int", "layer": layer, "code": code}));
            ids.push(id);
        }
        previous = ids;
    }
    let dag = json!({"question_id": "q_big", "description": "big", "nodes": nodes, "edges": [],
        "final_answer_node": previous[0]});
    let finding = |node: &str| {
        json!({"node_id": node, "layer": 2, "rule": "semantic_issue", "source": "semantic",
        "message": "this node averages the wrong column; it should read the amount, not the count ".repeat(3)})
    };
    let feedback = json!({"is_approved": false, "overall_reasoning": "two layers are wrong",
        "findings": [finding("step_2_3_with_a_rather_long_common_prefix"), finding("step_3_0_with_a_rather_long_common_prefix")]});
    let mut state = RunState::default();
    let question = json!({"id": "q_big", "question": "A hard question over a big DAG?", "difficulty_rank": 1,
        "difficulty_level": "hard"});
    let events = [
        json!({"type": "questions_generated", "questions": [question]}),
        json!({"type": "question_started", "at": {"question_id": "q_big", "attempt": 1}}),
        json!({"type": "stage_started", "at": {"question_id": "q_big", "attempt": 1, "iteration": 1}, "stage": "build"}),
        json!({"type": "dag_built", "at": {"question_id": "q_big", "attempt": 1, "iteration": 1}, "dag": dag}),
        json!({"type": "critic_verdict", "at": {"question_id": "q_big", "attempt": 1, "iteration": 1}, "feedback": feedback}),
        json!({"type": "stage_started", "at": {"question_id": "q_big", "attempt": 1, "iteration": 2}, "stage": "build"}),
        json!({"type": "dag_built", "at": {"question_id": "q_big", "attempt": 1, "iteration": 2}, "dag": dag}),
    ];
    for (t, value) in events.into_iter().enumerate() {
        state.apply(t as u64, &event(value));
    }
    state
}

/// Every screen, tab and overlay of `app`'s run, each swept over `sizes`.
fn sweep_every_screen(name: &str, mut app: App, sizes: &[(u16, u16)]) {
    let fewer = light(sizes);
    sweep(&format!("{name} dashboard"), &app, sizes);
    press(&mut app, ":");
    sweep(&format!("{name} palette"), &app, sizes);
    press(&mut app, "q_0");
    sweep(&format!("{name} palette with a query"), &app, sizes);
    press(&mut app, "\x1b?");
    sweep(&format!("{name} help"), &app, sizes);
    press(&mut app, "?c");
    sweep(&format!("{name} critic scorecard"), &app, sizes);
    press(&mut app, "\x1bT");
    sweep(&format!("{name} findings taxonomy"), &app, sizes);
    press(&mut app, "j\n");
    sweep(&format!("{name} dashboard narrowed to a findings group"), &app, sizes);
    press(&mut app, "\x1b");
    // The benchmark screen in a benchmark run (elsewhere the key only says there is none).
    press(&mut app, "B");
    sweep(&format!("{name} benchmark"), &app, sizes);
    // With baselines, its list of the questions answerable without the data.
    press(&mut app, "f");
    sweep(&format!("{name} benchmark, the other list"), &app, sizes);
    press(&mut app, "\x1b");
    press(&mut app, "\x1bj\n");
    for (keys, what) in [
        ("", "question feedback"),
        ("h", "question, earlier iteration"),
        ("t", "question outputs"),
        ("t", "question conversation"),
        ("e", "conversation expanded"),
        ("\t\tz", "conversation zoomed"),
        ("zt\tl", "feedback, next iteration"),
        ("z", "graph zoomed"),
        ("]j[", "graph zoomed, moved along edges"),
        ("z\t", "code focused"),
        ("z", "code zoomed"),
        ("z\t\t", "graph focused"),
        (":", "palette of the question"),
        ("\x1bd", "diff"),
        ("?", "diff help"),
        ("?\x1bS", "schema"),
        ("\x1bN", "note box"),
        ("\x1bi", "inspector"),
        ("j→→*", "inspector opened"),
    ] {
        press(&mut app, keys);
        let costly = what.starts_with("conversation") || what == "question conversation";
        sweep(&format!("{name} {what}"), &app, if costly { &fewer } else { sizes });
    }
}

#[test]
fn every_screen_draws_at_every_size_from_every_trace() {
    let sizes = sizes();
    let dir = tempfile::tempdir().unwrap();
    let sample = common::root().join(SAMPLE);
    let hostile = hostile_trace(dir.path());
    let oscillation = common::root().join("sample-data/traces/oscillation-scripted.trace.jsonl");
    let benchmark = common::root().join("sample-data/traces/benchmark-scripted.trace.jsonl");
    let baselines = common::root().join(crate::suite::tui_baselines::BASELINES_TRACE);
    // One thread per trace: the sweeps are independent.
    std::thread::scope(|threads| {
        let traces = [
            ("sample", &sample),
            ("hostile", &hostile),
            ("oscillation", &oscillation),
            ("benchmark", &benchmark),
            ("baselines", &baselines),
        ];
        for (name, path) in traces {
            let sizes = &sizes;
            threads.spawn(move || {
                let (replay, state) = Replay::open(path, false).unwrap();
                sweep_every_screen(name, App::new(state, Theme::dark(), Some(replay), None), sizes);
            });
        }
        threads.spawn(|| sweep_every_screen("big DAG", App::new(big_dag_state(), Theme::dark(), None, None), &sizes));
        // A consensus run: the agreement column, then a draft flipped and two drafts' DAGs diffed.
        threads.spawn(|| {
            sweep_every_screen("consensus", crate::suite::tui_consensus::consensus_app(), &sizes);
            let mut app = crate::suite::tui_consensus::consensus_app();
            press(&mut app, "\n>");
            sweep("consensus, next draft", &app, &sizes);
            press(&mut app, "D");
            sweep("consensus, two drafts diffed", &app, &sizes);
        });
        // Part-way through the run: questions queued, building, streaming, rejected.
        threads.spawn(|| {
            let coarse: Vec<(u16, u16)> = sizes.iter().copied().step_by(11).collect();
            let len = Replay::open(&sample, true).unwrap().0.len();
            for position in [1, 3, 6, len / 4, len / 2, 3 * len / 4, len - 1] {
                let (mut replay, _) = Replay::open(&sample, true).unwrap();
                let state = replay.seek(position, std::time::Instant::now());
                let app = App::new(state, Theme::dark(), Some(replay), None);
                sweep_every_screen(&format!("sample at event {position}"), app, &coarse);
            }
        });
    });
}

#[test]
fn the_quit_question_and_the_comparison_draw_at_every_size() {
    let sizes = sizes();
    let (replay, _) = Replay::open(&common::root().join(SAMPLE), true).unwrap();
    let mut state = RunState::default();
    // Up to the middle of the run: questions are working.
    let records = eval_dag::trace::Trace::read(&common::root().join(SAMPLE)).unwrap().records;
    for record in &records[..replay.len() / 2] {
        state.apply(record.t_ms, &record.event);
    }
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let mut app =
        App::new(state, Theme::dark(), None, Some(tx)).with_resume("eval-dag run --resume runs/20261123-101500".into());
    app.handle_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    assert!(app.confirming_quit() && !app.quitting(), "Ctrl-C asks while questions work");
    sweep("quit question", &app, &sizes);

    let a = eval_dag::report::load_results(&common::root().join(SAMPLE)).unwrap();
    let rows = eval_dag::report::compare(&a, &a);
    let names = ["a/trace.jsonl".to_string(), "b/trace.jsonl".to_string()];
    let mut app = App::comparing(Comparison::new(names, rows, &a, &a), Theme::dark());
    sweep("compare", &app, &sizes);
    press(&mut app, "\n");
    sweep("compare detail", &app, &sizes);

    // Three runs, one of other questions: the matrix with each run set
    // against the baseline, and a pair opened from it.
    let mut app = crate::suite::tui_matrix::matrix_app();
    sweep("matrix", &app, &sizes);
    press(&mut app, "→jj");
    sweep("matrix, C against A, on C's own question", &app, &sizes);
    press(&mut app, "k\n");
    sweep("compare detail from the matrix", &app, &sizes);

    // A run's reviews: the review screen over the dashboard, then the agreement figures.
    let dir = tempfile::tempdir().unwrap();
    let people = |name: &str| eval_dag::tui::People::new(dir.path().to_path_buf(), Ok(name.parse().unwrap()));
    let mut app = common::tui::replay_app(SAMPLE).with_people(people("ann"));
    press(&mut app, "V");
    sweep("review screen from the dashboard", &app, &sizes);
    press(&mut app, "rw");
    sweep("review screen, every answer reviewed", &app, &sizes);
    press(&mut app, "A");
    sweep("agreement", &app, &sizes);
    press(&mut app, "\x1b\x1bA");
    sweep("agreement from the dashboard", &app, &sizes);

    // The run browser, its rows marked, then filtering.
    let mut app = common::tui::browser_app(true);
    press(&mut app, "  s");
    sweep("run browser", &app, &sizes);
    press(&mut app, "/fraud");
    sweep("run browser, filtering", &app, &sizes);
}
