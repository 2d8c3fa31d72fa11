//! Grading inside runs, through the real binary: a user's questions file with
//! a planted wrong expected answer (offline planner), judges answering over
//! HTTP from a scripted server, and `eval-dag grade` re-grading a finished run
//! from its trace without calling the server again.

use crate::common;

use std::path::Path;
use std::process::Output;

use common::mock_llm::{MockLlm, Recorded, Reply};
use crossterm::event::{KeyCode, KeyEvent};
use eval_dag::domain::LlmRole;
use eval_dag::run::{EngineEvent, RunState};
use eval_dag::trace::Trace;
use eval_dag::tui::{App, Tab, Theme, draw};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};

fn eval_dag(args: &[&str], dir: &Path) -> Output {
    common::eval_dag(dir).current_dir(common::root()).args(args).output().unwrap()
}

fn text(output: &Output) -> (String, String) {
    (String::from_utf8_lossy(&output.stdout).into_owned(), String::from_utf8_lossy(&output.stderr).into_owned())
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn state_of(run: &Path) -> RunState {
    let trace = Trace::read(&run.join("trace.jsonl")).unwrap();
    let mut state = RunState::default();
    for record in &trace.records {
        state.apply(record.t_ms, &record.event);
    }
    state
}

/// The screen `app` draws at `width`×`height`, one line per row.
fn render(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| draw(frame, app)).unwrap();
    let buffer = terminal.backend().buffer();
    (0..height).map(|y| (0..width).map(|x| buffer[(x, y)].symbol().to_string()).collect::<String>() + "\n").collect()
}

fn dashboard(state: RunState) -> String {
    render(&App::new(state, Theme::dark(), None, None), 160, 30)
}

/// `eval-dag run` of the fraud sample with the questions in `file`, into `out`.
fn run_with_questions(file: &Path, out: &Path, dir: &Path) -> Output {
    let (file, out) = (file.to_str().unwrap(), out.to_str().unwrap());
    eval_dag(&["run", "sample-data/fraud", "--headless", "--questions-file", file, "--out", out], dir)
}

/// The question view's conversation tab of the only question, zoomed, 160×300.
fn conversation_screen(state: RunState) -> String {
    let mut app = App::new(state, Theme::dark(), None, None);
    for code in [KeyCode::Enter, KeyCode::Char('t'), KeyCode::Char('t'), KeyCode::Tab, KeyCode::Tab, KeyCode::Char('z')]
    {
        app.handle_key(KeyEvent::from(code));
    }
    assert_eq!(app.question().unwrap().tab, Tab::Conversation);
    render(&app, 160, 300)
}

/// The questions an offline run of the fraud sample writes, as a questions file:
/// the second one's expected answer planted wrong, the third's slightly off but
/// within the tolerance its own `match` field allows.
fn questions_file(dir: &Path) -> (std::path::PathBuf, String) {
    let first = dir.join("first");
    let output = eval_dag(
        &["run", "sample-data/fraud", "--headless", "--questions", "3", "--out", first.to_str().unwrap()],
        dir,
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output).1);
    let questions = state_of(&first).questions;
    let mut lines = String::new();
    let mut planted = String::new();
    for (index, q) in questions.iter().enumerate() {
        let expected = q.question.expected_answer.clone().unwrap();
        let mut line = json!({"id": q.question.id, "question": q.question.question,
                              "difficulty": q.question.difficulty_level.as_str()});
        match index {
            1 => {
                planted = q.question.id.to_string();
                line["expected_answer"] = json!("certainly not this");
            }
            2 => {
                let off = expected.as_f64().map_or(expected.clone(), |x| json!(x + 0.4));
                line["expected_answer"] = off;
                line["match"] = json!({"abs_tol": 0.5});
            }
            _ => line["expected_answer"] = expected,
        }
        lines.push_str(&format!("{line}\n"));
    }
    let path = dir.join("questions.jsonl");
    std::fs::write(&path, lines).unwrap();
    (path, planted)
}

#[test]
fn a_questions_file_replaces_generation_and_a_planted_wrong_answer_is_graded_wrong_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let (file, planted) = questions_file(dir.path());
    let run = dir.path().join("graded");
    let output = run_with_questions(&file, &run, dir.path());
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(1), "a wrong answer makes the run exit 1: {stderr}");
    assert!(stderr.contains("accuracy 67% (2/3 graded)"), "{stderr}");

    let trace = Trace::read(&run.join("trace.jsonl")).unwrap();
    let generation_calls = trace
        .records
        .iter()
        .filter(
            |r| matches!(&r.event, EngineEvent::LlmCallStarted { key, .. } if key.role == LlmRole::QuestionGeneration),
        )
        .count();
    assert_eq!(generation_calls, 0, "questions from a file are not generated");

    let results = read_json(&run.join("eval_results.json"));
    assert_eq!(results["summary"]["grading"], json!({"graded": 3, "correct": 2, "accuracy": 2.0 / 3.0}));
    let detailed = results["detailed_results"].as_array().unwrap();
    assert!(detailed.iter().all(|r| r["status"] == "passed"), "every DAG ran: {detailed:?}");
    let wrong: Vec<&Value> = detailed.iter().filter(|r| r["correct"] == json!(false)).collect();
    assert_eq!(wrong.len(), 1);
    assert_eq!(wrong[0]["question_id"], json!(planted));

    let html = std::fs::read_to_string(run.join("eval_report.html")).unwrap();
    assert!(html.contains("✗ wrong") && html.contains("67% (2&#x2f;3)"), "the report shows the wrong answer");

    let screen = dashboard(state_of(&run));
    let row = screen.lines().find(|l| l.contains(&planted)).expect("the planted question is listed");
    assert!(row.contains('✗'), "the dashboard marks the wrong answer: {row}");
    let rows: Vec<&str> = screen.lines().filter(|l| l.contains("q_0")).collect();
    assert_eq!(rows.iter().filter(|row| row.contains('✓')).count(), 2, "two rows marked right: {screen}");

    // Re-grading: the same verdicts from the trace; a looser global tolerance
    // does not rescue a string, and exits 1 again.
    let output = eval_dag(&["grade", run.to_str().unwrap()], dir.path());
    let (stdout, _) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("ground_truth: 2/3 (67%)"), "{stdout}");
    let wrong_line = stdout.lines().find(|l| l.starts_with(&planted)).unwrap();
    assert!(wrong_line.contains('✗') && wrong_line.contains("certainly not this"), "{wrong_line}");
    let output = eval_dag(&["grade", run.to_str().unwrap(), "--match", r#"{"abs_tol": 1000}"#], dir.path());
    let (stdout, _) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("ground_truth: 2/3 (67%)"), "{stdout}");
}

#[test]
fn the_offline_planner_refuses_questions_it_cannot_plan_and_judges_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("questions.jsonl");
    std::fs::write(&file, "{\"question\": \"What is the meaning of life?\", \"difficulty\": \"easy\"}\n").unwrap();
    let out = dir.path().join("out");
    let output = run_with_questions(&file, &out, dir.path());
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("q_01") && stderr.contains("--llm openai"), "{stderr}");

    let output = eval_dag(&["run", "sample-data/fraud", "--headless", "--judge", "well_formed_value"], dir.path());
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("judges need an LLM"), "{stderr}");

    let output = eval_dag(
        &[
            "run",
            "sample-data/fraud",
            "--headless",
            "--judge",
            "no_such_judge",
            "--llm",
            "openai",
            "--base-url",
            "http://127.0.0.1:9",
        ],
        dir.path(),
    );
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no_such_judge") && stderr.contains("well_formed_value"), "{stderr}");

    let output = eval_dag(&["run", "sample-data/fraud", "--headless", "--match", "{\"abs_tol\": -1}"], dir.path());
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("abs_tol must be a non-negative number"), "{stderr}");
}

const RUBRIC: &str = r#"
name = "plausible_count"
kind = "rubric"
criteria = "Is the count plausible for the dataset?"
level = [{ score = 0, description = "implausible" }, { score = 4, description = "plausible" }]
"#;

fn judged_script(request: &Recorded, _index: usize) -> Reply {
    let prompt = request.prompt();
    let reply = if prompt.contains("Write one sentence that answers") {
        return Reply::Text(" The dataset holds 50,000 transactions, as the overview's row count shows.\n".into());
    } else if prompt.contains("List the factual claims") {
        assert!(prompt.contains("Answer: The dataset holds 50,000 transactions"), "the narrative is judged: {prompt}");
        json!({"claims": ["The dataset holds 50,000 transactions."]})
    } else if prompt.contains("List the facts these outputs establish") {
        json!({"truths": ["count computed 50000."]})
    } else if prompt.contains("For each claim") {
        json!({"verdicts": [{"reason": "count says 50000", "verdict": "supported"}]})
    } else if prompt.contains("evaluation questions") {
        json!({"questions": [{"id": "q_01", "question": "How many transactions does the dataset hold?",
            "difficulty_level": "easy", "expected_answer": 50_000}]})
    } else if prompt.contains("review one layer") {
        json!({"is_valid": true, "issues": [], "reasoning": "reads the count"})
    } else if prompt.contains("You design small") {
        json!({"question_id": "q_01", "description": "read the row count",
            "nodes": [{"node_id": "count", "operation": "read", "function_name": "count",
                "inputs": {"overview": "dataset.overview"}, "expected_output_type": "int", "layer": 0,
                "code": "def count(overview):\n    return overview['row_count']\n"}],
            "edges": [], "final_answer_node": "count"})
    } else if prompt.contains("Is the count plausible") {
        return Reply::Text("3".into());
    } else if prompt.contains("Task:") {
        json!({"output": "a count of transactions"})
    } else if prompt.contains("Choose exactly one verdict") {
        json!({"reason": "a count was asked and a count was given", "verdict": "matches"})
    } else if prompt.contains("Criterion:") {
        json!({"reason": "a single integer", "verdict": true})
    } else {
        return Reply::Status(400, vec![], format!("unexpected prompt: {prompt}"));
    };
    Reply::Text(reply.to_string())
}

#[tokio::test(flavor = "multi_thread")]
async fn judges_grade_answers_in_a_run_their_calls_are_traced_and_grade_reuses_them() {
    let mock = MockLlm::start(judged_script).await;
    let dir = tempfile::tempdir().unwrap();
    let rubric = dir.path().join("plausible.toml");
    std::fs::write(&rubric, RUBRIC).unwrap();
    let faithful = dir.path().join("faithful.toml");
    std::fs::write(&faithful, "name = \"faithful\"\nkind = \"faithfulness\"\n").unwrap();
    let run = dir.path().join("run");
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_eval-dag"))
        .current_dir(common::root())
        .args(["run", "sample-data/fraud", "--headless", "--llm", "openai", "--questions", "1"])
        .args(["--judge", "well_formed_value", "--judge"])
        .arg(&rubric)
        .arg("--judge")
        .arg(&faithful)
        .arg("--base-url")
        .arg(mock.base_url())
        .arg("--out")
        .arg(&run)
        .env("OPENAI_API_KEY", "test-key")
        .env("XDG_CONFIG_HOME", dir.path().join("config"))
        .env("XDG_CACHE_HOME", dir.path().join("cache"))
        .env("EVAL_DAG_LOG", dir.path().join("log.txt"))
        .output()
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));

    let trace = Trace::read(&run.join("trace.jsonl")).unwrap();
    let judge_calls = trace
        .records
        .iter()
        .filter(
            |r| matches!(&r.event, EngineEvent::LlmCallFinished { key, error: None, .. } if key.role == LlmRole::Judge),
        )
        .count();
    assert_eq!(
        judge_calls, 7,
        "three decision-tree steps, one rubric call and three faithfulness steps, each recorded"
    );
    let state = state_of(&run);
    let attempt = state.question("q_01").unwrap().latest().unwrap();
    assert_eq!(attempt.iterations.len(), 1, "judge calls do not open iterations");
    assert_eq!(attempt.judge_calls.len(), 7);
    assert_eq!(
        attempt.narrative.as_deref(),
        Some("The dataset holds 50,000 transactions, as the overview's row count shows.")
    );
    let narrative_call = attempt.iterations[0].calls.iter().map(|id| &state.calls[id]);
    assert_eq!(
        narrative_call.filter(|c| c.key.role == LlmRole::Narrative).count(),
        1,
        "the narrative call belongs to the approved iteration"
    );
    let grades = attempt.grades.clone();
    let conversation = conversation_screen(state.clone());
    let order = [
        "▸ build",
        "▸ review layer 0",
        "▸ narrative",
        "■ attempt 1 passed",
        "━━ attempt 1 · grading",
        "▸ judge 1 step 0",
        "▸ judge 3 step 2",
    ];
    let mut from = 0;
    for needle in order {
        let at =
            conversation[from..].find(needle).unwrap_or_else(|| panic!("{needle:?} after byte {from}: {conversation}"));
        from += at + needle.len();
    }
    let summary: Vec<(&str, Option<f64>, bool)> = grades.iter().map(|g| (g.method.name(), g.score, g.passed)).collect();
    assert_eq!(
        summary,
        vec![
            ("ground_truth", Some(1.0), true),
            ("well_formed_value", Some(1.0), true),
            ("plausible_count", Some(0.75), true),
            ("faithful", Some(1.0), true),
        ]
    );
    let results = read_json(&run.join("eval_results.json"));
    assert_eq!(results["detailed_results"][0]["grades"].as_array().unwrap().len(), 4);
    assert_eq!(
        results["detailed_results"][0]["narrative"],
        json!("The dataset holds 50,000 transactions, as the overview's row count shows.")
    );
    let errors = common::schema_errors(&results);
    assert!(errors.is_empty(), "a judged run's results follow the schema: {errors:#?}");
    let log = results["question_traces"][0]["llm_exchanges"].as_array().unwrap();
    let judged = log.iter().filter(|m| m["meta"]["call"] == "judge" && m["role"] == "assistant").count();
    assert_eq!(judged, 7, "the exchange list ends with the judges' exchanges");

    // Re-grading reuses every recorded judge call: no server is configured at all.
    let requests_before = mock.requests().len();
    let output = eval_dag(&["grade", run.to_str().unwrap()], dir.path());
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    for line in [
        "ground_truth: 1/1 (100%)",
        "well_formed_value: 1/1 (100%)",
        "plausible_count: 1/1 (100%)",
        "faithful: 1/1 (100%)",
    ] {
        assert!(stdout.contains(line), "{line} in {stdout}");
    }
    assert_eq!(mock.requests().len(), requests_before, "no judge call went to the server");
    let html = std::fs::read_to_string(run.join("eval_report.html")).unwrap();
    assert!(
        html.contains("“The dataset holds 50,000 transactions, as the overview&#x27;s row count shows.”"),
        "the report shows the narrative"
    );
}
