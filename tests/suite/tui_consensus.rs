//! A consensus run in the TUI (`run --consensus 3`): the dashboard's
//! agreement column, the question screen flipping drafts, and the diff of two
//! drafts' DAGs — snapshots at 80×24 and 160×48.

use crate::common;

use common::press;
use common::tui::screen;
use eval_dag::run::{Command, EngineEvent, RunState};
use eval_dag::tui::{App, Screen, Theme};
use serde_json::{Value, json};

/// A one-node DAG of `question_id` whose node `answer` runs `code` over the transactions.
pub fn one_node(question_id: &str, code: &str) -> Value {
    json!({"question_id": question_id, "description": "count the rows",
        "nodes": [{"node_id": "answer", "operation": "count", "function_name": "answer",
            "inputs": {"rows": "dataset.transactions"}, "expected_output_type": "int", "layer": 0, "code": code}],
        "edges": [], "final_answer_node": "answer"})
}

/// A two-node DAG: the rows filtered, then counted.
fn two_nodes(question_id: &str) -> Value {
    json!({"question_id": question_id, "description": "keep the rows, then count them",
        "nodes": [
            {"node_id": "kept", "operation": "filter", "function_name": "kept",
                "inputs": {"rows": "dataset.transactions"}, "expected_output_type": "list", "layer": 0,
                "code": "def kept(rows):\n    return [r for r in rows if r['amt'] >= 0]\n"},
            {"node_id": "answer", "operation": "count", "function_name": "answer",
                "inputs": {"kept": "prev_node.kept.output"}, "expected_output_type": "int", "layer": 1,
                "code": "def answer(kept):\n    return len(kept) + 1\n"}],
        "edges": [{"source": "kept", "target": "answer"}], "final_answer_node": "answer"})
}

/// The events of draft `draft` of `question_id` building `dag`, approved, answering `answer`.
fn approved_draft(question_id: &str, draft: u32, dag: Value, answer: Value) -> Vec<Value> {
    let at = json!({"question_id": question_id, "attempt": 1, "draft": draft});
    let it = json!({"question_id": question_id, "attempt": 1, "draft": draft, "iteration": 1});
    let result = json!({"question_id": question_id, "success": true, "final_answer": answer, "node_outputs": {}});
    vec![
        json!({"type": "question_started", "at": at}),
        json!({"type": "dag_built", "at": it, "dag": dag}),
        json!({"type": "executed", "at": it, "trial": true, "result": result}),
        json!({"type": "critic_verdict", "at": it, "feedback": {"is_approved": true, "overall_reasoning": "sound"}}),
        json!({"type": "executed", "at": it, "trial": false, "result": result}),
        json!({"type": "question_finished", "at": at, "outcome": "passed", "iterations": 1, "final_answer": answer}),
    ]
}

/// The consensus recorded for `question_id` from its drafts' answers and which are in the majority.
fn consensus(question_id: &str, answers: &[(Value, bool)]) -> Value {
    let agreeing = answers.iter().filter(|(_, majority)| *majority).count();
    let answers: Vec<Value> = answers
        .iter()
        .enumerate()
        .map(|(i, (answer, majority))| json!({"draft": i + 1, "answer": answer, "in_majority": majority}))
        .collect();
    json!({"type": "consensus_reached", "question_id": question_id,
        "consensus": {"answers": answers, "agreement": agreeing as f64 / answers.len() as f64}})
}

/// The events of a finished run of three drafts per question: q_01's third
/// draft builds another DAG with another answer (2 of 3 agree, the majority
/// graded right), q_02's drafts all agree.
pub fn consensus_events() -> Vec<Value> {
    consensus_events_of([2000, 2000, 2001])
}

/// The events of a finished run of three drafts per question: q_01's drafts
/// answer `answers` (2000 by counting the rows, 2001 by another DAG; the
/// answer most drafts gave speaks, graded against 2000), q_02's all agree.
pub fn consensus_events_of(answers: [i64; 3]) -> Vec<Value> {
    let settings = json!({"dataset_dir": "sample-data/fraud", "dataset_hash": "h", "provider": "openai",
        "model": "scripted-model", "questions": 2, "max_iterations": 3, "concurrency": 4, "seed": 0,
        "step": false, "consensus": 3});
    let question = |id: &str, text: &str| json!({"id": id, "question": text, "difficulty_rank": 1, "difficulty_level": "easy", "expected_answer": 2000});
    let mut events = vec![
        json!({"type": "run_started", "settings": settings}),
        json!({"type": "questions_generated", "questions": [
            question("q_01", "How many transactions does the sample hold?"),
            question("q_02", "How many rows are there?")]}),
    ];
    let count = "def answer(rows):\n    return len(rows)\n";
    for (draft, answer) in (1..).zip(answers) {
        let dag = if answer == 2000 { one_node("q_01", count) } else { two_nodes("q_01") };
        events.extend(approved_draft("q_01", draft, dag, json!(answer)));
    }
    let majority = answers.iter().copied().max_by_key(|a| answers.iter().filter(|b| *b == a).count()).unwrap_or(0);
    let drafts: Vec<(Value, bool)> = answers.iter().map(|&a| (json!(a), a == majority)).collect();
    events.push(consensus("q_01", &drafts));
    let speaking = answers.iter().position(|&a| a == majority).unwrap_or(0) + 1;
    let right = majority == 2000;
    let grade = json!([{"method": "ground_truth", "score": if right { 1.0 } else { 0.0 }, "passed": right,
        "threshold": 1.0, "reason": "match"}]);
    let at = json!({"question_id": "q_01", "attempt": 1, "draft": speaking});
    events.push(json!({"type": "graded", "at": at, "grades": grade}));
    for draft in 1..=3 {
        events.extend(approved_draft("q_02", draft, one_node("q_02", count), json!(2000)));
    }
    events.push(consensus("q_02", &[(json!(2000), true), (json!(2000), true), (json!(2000), true)]));
    events
}

/// The run of [`consensus_events`], folded.
pub fn consensus_state() -> RunState {
    let mut state = RunState::default();
    let events = consensus_events();
    for (t, value) in events.into_iter().enumerate() {
        state.apply(t as u64, &serde_json::from_value::<EngineEvent>(value).unwrap());
    }
    state
}

/// The consensus run as a finished live run would show it.
pub fn consensus_app() -> App {
    App::new(consensus_state(), Theme::dark(), None, None)
}

#[test]
fn the_dashboard_shows_agreement_and_the_question_screen_flips_and_diffs_drafts() {
    for (width, height) in [(80u16, 24u16), (160, 48)] {
        let mut app = consensus_app();
        let text = screen(&app, width, height);
        assert!(text.contains("agree") && text.contains("2/3") && text.contains("3/3"), "{text}");
        insta::assert_snapshot!(format!("consensus_dashboard_{width}x{height}"), text);
        press(&mut app, "\n");
        assert_eq!(app.screen(), Screen::Question);
        let draft =
            |app: &App| app.question().and_then(|q| q.selection.current_iteration(app.state())).map(|(a, _)| a.draft);
        assert_eq!(draft(&app), Some(3), "opened at the last iteration: draft 3's");
        insta::assert_snapshot!(format!("consensus_question_draft_3_{width}x{height}"), screen(&app, width, height));
        press(&mut app, ">");
        assert_eq!(draft(&app), Some(1), "round the drafts");
        insta::assert_snapshot!(format!("consensus_question_draft_1_{width}x{height}"), screen(&app, width, height));
        press(&mut app, "<<");
        assert_eq!(draft(&app), Some(2));
        press(&mut app, ">");
        assert_eq!(draft(&app), Some(3));
        press(&mut app, "D");
        assert_eq!(app.screen(), Screen::Diff);
        let text = screen(&app, width, height);
        assert!(text.contains("draft 1 a1 it1 → draft 3 a1 it1"), "against the majority's draft: {text}");
        insta::assert_snapshot!(format!("consensus_draft_diff_{width}x{height}"), text);
        press(&mut app, "<");
        let text = screen(&app, width, height);
        assert!(text.contains("draft 1 a1 it1 → draft 2 a1 it1"), "the draft flipped in the diff: {text}");
        press(&mut app, "<");
        let text = screen(&app, width, height);
        assert!(text.contains("draft 2 a1 it1 → draft 1 a1 it1"), "the majority's draft against the next: {text}");
    }
}

#[test]
fn the_scorecard_sets_disagreement_against_the_grades() {
    let mut app = consensus_app();
    press(&mut app, "c");
    let text = screen(&app, 160, 48);
    assert!(text.contains("label-free signals against the grades"), "{text}");
    assert!(
        text.contains("drafts disagree            1         0           0           0             0%              —"),
        "q_01's split vote was graded right: {text}"
    );
    let mut single = common::tui::replay_app(common::tui::SAMPLE);
    press(&mut single, "c");
    assert!(!screen(&single, 160, 48).contains("label-free"), "no signal, no table");
}

#[test]
fn the_iteration_column_counts_the_majority_drafts_own_attempts() {
    let mut state = consensus_state();
    let rerun = approved_draft("q_02", 1, one_node("q_02", "def answer(rows):\n    return len(rows)\n"), json!(2000));
    for (t, mut value) in (100..).zip(rerun) {
        value["at"]["attempt"] = json!(2);
        state.apply(t, &serde_json::from_value::<EngineEvent>(value).unwrap());
    }
    let text = screen(&App::new(state, Theme::dark(), None, None), 160, 48);
    let row = |id: &str| text.lines().find(|l| l.starts_with(id)).unwrap_or_default().to_string();
    assert!(row("q_01").contains(" 1/3     "), "three drafts of one attempt each: no ×3: {text}");
    assert!(row("q_02").contains(" 1/3 ×2 "), "the speaking draft was run twice: {text}");
}

#[test]
fn a_single_run_has_no_drafts_to_flip() {
    let mut app = common::tui::replay_app(common::tui::SAMPLE);
    let dashboard = screen(&app, 160, 48);
    let header = dashboard.lines().find(|l| l.starts_with("id ")).unwrap_or_default();
    assert!(!header.is_empty() && !header.contains("agree"), "no agreement column: {dashboard}");
    press(&mut app, "j\n>");
    assert_eq!(app.message(), Some("this run built one DAG per question (run --consensus K builds K)"));
    press(&mut app, "D");
    assert_eq!(app.screen(), Screen::Question, "no draft diff");
    let footer = screen(&app, 400, 48);
    assert!(!footer.contains("draft"), "the draft keys' hints only in a consensus run: {footer}");
}

#[test]
fn rerun_and_fork_apply_to_the_draft_on_screen() {
    let (tx, mut commands) = tokio::sync::mpsc::unbounded_channel();
    let mut app = App::new(consensus_state(), Theme::dark(), None, Some(tx));
    press(&mut app, "\n<");
    press(&mut app, "F");
    let from = eval_dag::domain::AttemptAt::new("q_01", 1).in_epoch(1, 2).iteration(1);
    assert_eq!(commands.try_recv().unwrap(), Command::Fork { from });
    assert_eq!(app.message(), Some("forking q_01 from draft 2 · attempt 1, iteration 1"));
    press(&mut app, "r");
    assert_eq!(commands.try_recv().unwrap(), Command::Rerun { question_id: "q_01".into(), epoch: 1, draft: 2 });
    press(&mut app, "\x1br");
    assert_eq!(
        commands.try_recv().unwrap(),
        Command::Rerun { question_id: "q_01".into(), epoch: 1, draft: 1 },
        "from the dashboard: the first draft"
    );
}
