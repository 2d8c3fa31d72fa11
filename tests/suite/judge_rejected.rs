//! `run --judge-rejected`, through the real binary against a scripted server:
//! a question without expected answer whose first DAG (answer 50,000) the
//! critic rejects and whose rebuild (25,000) it approves, and a rubric judge
//! that calls 50,000 right. Without the flag no judge sees a rejected answer
//! and the scorecard leaves the rejection ungraded; with it, one judge call
//! per rejected iteration, and the rejection counts as wrong, judged by an
//! LLM. Killed after that call and resumed, the run does not ask it again.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::mock_llm::{MockLlm, Recorded, Reply};
use crossterm::event::{KeyCode, KeyEvent};
use eval_dag::report::{GradedBy, VerdictFate, critic_scorecard};
use eval_dag::run::{EngineEvent, RunState};
use eval_dag::trace::Trace;
use eval_dag::tui::{App, Theme, draw};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};

const RUBRIC: &str = r#"name = "plausible"
kind = "rubric"
criteria = "Is the count plausible for the dataset?"
level = [{ score = 0, description = "implausible" }, { score = 4, description = "plausible" }]
"#;

/// What the judge sees of the rejected iteration's answer.
const REJECTED_ANSWER: &str = "Answer (JSON):\n50000";

/// A reply the way models write one: prose around a fenced JSON object.
fn fenced(value: Value) -> Reply {
    Reply::Text(format!("Here is my answer.\n\n```json\n{value:#}\n```\n\nLet me know if you need more."))
}

/// The script: the review of the first DAG rejects it; the judge gives 4/4 to
/// 50,000 and 0/4 to 25,000. With `slow_second_review`, the rebuild's review
/// waits, so that the run can be killed there.
fn script(slow_second_review: bool) -> impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static {
    move |request, _| {
        let prompt = request.prompt();
        if prompt.contains("evaluation questions") {
            return fenced(
                json!({"questions": [{"id": "q_01", "question": "How many transactions does the dataset hold?",
                "difficulty_level": "easy"}]}),
            );
        }
        if prompt.contains("Is the count plausible") {
            return Reply::Text(if prompt.contains(REJECTED_ANSWER) { "4" } else { "0" }.into());
        }
        if prompt.contains("review one layer") {
            if !prompt.contains("// 2") {
                return fenced(
                    json!({"is_valid": false, "issues": [{"node_id": "count", "message": "counts every row, refunds too"}],
                    "reasoning": "the count should leave refunds out"}),
                );
            }
            let approve = fenced(json!({"is_valid": true, "issues": [], "reasoning": "fine"}));
            return if slow_second_review {
                Reply::Delayed(Duration::from_secs(3), Box::new(approve))
            } else {
                approve
            };
        }
        if prompt.contains("You design small") {
            let code = if prompt.contains("was rejected") {
                "def count(overview):\n    return overview['row_count'] // 2\n"
            } else {
                "def count(overview):\n    return overview['row_count']\n"
            };
            return fenced(json!({"question_id": "q_01", "description": "read the row count",
                "nodes": [{"node_id": "count", "operation": "read", "function_name": "count",
                    "inputs": {"overview": "dataset.overview"}, "expected_output_type": "int", "layer": 0, "code": code}],
                "edges": [], "final_answer_node": "count"}));
        }
        Reply::Status(400, vec![], format!("unexpected prompt: {prompt}"))
    }
}

/// `eval-dag run` of one question against `mock`, judged by the rubric, into `dir/run`.
fn run_command(mock: &MockLlm, dir: &Path, flags: &[&str]) -> tokio::process::Command {
    let rubric = dir.join("plausible.toml");
    std::fs::write(&rubric, RUBRIC).unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_eval-dag"));
    command
        .current_dir(common::root())
        .args(["run", "sample-data/fraud", "--headless", "--llm", "openai", "--questions", "1"])
        .args(["--max-iterations", "3", "--judge"])
        .arg(&rubric)
        .args(flags)
        .arg("--base-url")
        .arg(mock.base_url())
        .arg("--out")
        .arg(dir.join("run"))
        .env("OPENAI_API_KEY", "test-key")
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env("EVAL_DAG_LOG", dir.join("log.txt"));
    command
}

fn state_of(run: &Path) -> RunState {
    let trace = Trace::read(&run.join("trace.jsonl")).unwrap();
    let mut state = RunState::default();
    for record in &trace.records {
        state.apply(record.t_ms, &record.event);
    }
    state
}

/// Requests that asked the judge about the rejected answer.
fn judged_rejected(mock: &MockLlm) -> usize {
    mock.requests()
        .iter()
        .filter(|r| r.prompt().contains("Is the count plausible") && r.prompt().contains(REJECTED_ANSWER))
        .count()
}

fn grade_stdout(run: &Path, dir: &Path) -> String {
    let output = common::eval_dag(dir).current_dir(common::root()).arg("grade").arg(run).output().unwrap();
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn without_the_flag_no_judge_sees_a_rejected_answer_and_the_rejection_stays_ungraded() {
    let mock = MockLlm::start(script(false)).await;
    let dir = tempfile::tempdir().unwrap();
    let output = run_command(&mock, dir.path(), &[]).output().await.unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.code().is_some_and(|c| c <= 1), "{stderr}");
    assert_eq!(judged_rejected(&mock), 0, "no judge call for the rejected iteration");
    let run = dir.path().join("run");
    let card = critic_scorecard(&state_of(&run));
    let first = &card.iterations[0];
    assert_eq!((first.iteration, first.approved, first.fate), (1, false, VerdictFate::UngradedRejection));
    assert_eq!(first.graded_by, None);
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("eval_results.json")).unwrap()).unwrap();
    assert_eq!(results["critic_scorecard"]["iterations"][0]["grade"], "ungraded");
    assert_eq!(results["critic_scorecard"]["iterations"][0]["graded_by"], Value::Null);
}

#[tokio::test(flavor = "multi_thread")]
async fn with_the_flag_one_judge_call_per_rejected_iteration_grades_the_rejection_wrong() {
    let mock = MockLlm::start(script(false)).await;
    let dir = tempfile::tempdir().unwrap();
    let output = run_command(&mock, dir.path(), &["--judge-rejected"]).output().await.unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.code().is_some_and(|c| c <= 1), "{stderr}");
    assert_eq!(judged_rejected(&mock), 1, "exactly one judge call for the one rejected iteration");
    let run = dir.path().join("run");
    assert_judged_wrong_rejection(&run, dir.path());
}

/// The run's first iteration is a wrong rejection, judged by an LLM, in the
/// state, eval_results.json, the HTML report and `eval-dag grade`.
fn assert_judged_wrong_rejection(run: &Path, dir: &Path) {
    let state = state_of(run);
    let it = &state.question("q_01").unwrap().latest().unwrap().iterations[0];
    assert_eq!(it.judge_grades.len(), 1);
    assert!(it.judge_grades[0].passed, "{:?}", it.judge_grades);
    let card = critic_scorecard(&state);
    let first = &card.iterations[0];
    assert_eq!((first.iteration, first.fate, first.graded_by), (1, VerdictFate::WrongRejection, Some(GradedBy::Judge)));
    assert_eq!(card.total.wrong_rejections, 1);
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("eval_results.json")).unwrap()).unwrap();
    let judged = &results["critic_scorecard"]["iterations"][0];
    assert_eq!((judged["fate"].as_str(), judged["graded_by"].as_str()), (Some("wrong_rejection"), Some("judge")));
    assert_eq!(results["summary"]["settings"]["grading"]["judge_rejected"], true, "{}", results["summary"]);
    let html = std::fs::read_to_string(run.join("eval_report.html")).unwrap();
    assert!(html.contains("1 judged by an LLM") && html.contains("rejected a right answer <i>(judged by an LLM)</i>"));
    let stdout = grade_stdout(run, dir);
    assert!(stdout.contains("of 1 graded verdicts (1 judged by an LLM)"), "{stdout}");
    let screen = scorecard_screen(state);
    assert!(screen.contains("of 1 graded verdicts (1 judged by an LLM)"), "{screen}");
    let row = screen.lines().find(|l| l.contains("rejected a right answer")).expect("the misjudged iteration");
    assert!(row.contains("[judged by an LLM]"), "{row}");
}

/// The TUI's scorecard screen (`c` on the dashboard), 160×60.
fn scorecard_screen(state: RunState) -> String {
    let mut app = App::new(state, Theme::dark(), None, None);
    app.handle_key(KeyEvent::from(KeyCode::Char('c')));
    let mut terminal = Terminal::new(TestBackend::new(160, 60)).unwrap();
    terminal.draw(|frame| draw(frame, &app)).unwrap();
    let buffer = terminal.backend().buffer();
    (0..60).map(|y| (0..160).map(|x| buffer[(x, y)].symbol().to_string()).collect::<String>() + "\n").collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn killed_after_the_judge_call_and_resumed_it_does_not_ask_the_judge_again() {
    let mock = MockLlm::start(script(true)).await;
    let dir = tempfile::tempdir().unwrap();
    let run: PathBuf = dir.path().join("run");
    let trace = run.join("trace.jsonl");
    let child = run_command(&mock, dir.path(), &["--judge-rejected"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let graded =
        |path: &Path| std::fs::read_to_string(path).unwrap_or_default().contains("\"type\":\"iteration_graded\"");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while !graded(&trace) {
        assert!(tokio::time::Instant::now() < deadline, "the rejected iteration is judged within a minute");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // SAFETY: signalling our own child process, which has not been waited for.
    assert_eq!(unsafe { libc::kill(child.id().unwrap() as i32, libc::SIGKILL) }, 0);
    child.wait_with_output().await.unwrap();
    assert_eq!(judged_rejected(&mock), 1);
    let killed = Trace::read(&trace).unwrap();
    assert!(
        !killed.records.iter().any(|r| matches!(r.event, EngineEvent::RunFinished { .. })),
        "killed before the run finished"
    );

    let home = dir.path().join("config");
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_eval-dag"))
        .current_dir(common::root())
        .args(["run", "--headless", "--llm", "openai", "--base-url"])
        .arg(mock.base_url())
        .arg("--resume")
        .arg(&run)
        .env("OPENAI_API_KEY", "test-key")
        .env("XDG_CONFIG_HOME", &home)
        .env("XDG_CACHE_HOME", dir.path().join("cache"))
        .env("EVAL_DAG_LOG", dir.path().join("log.txt"))
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.code().is_some_and(|c| c <= 1), "{stderr}");
    assert_eq!(judged_rejected(&mock), 1, "the recorded judge call is reused, not asked again");
    assert_judged_wrong_rejection(&run, dir.path());
}

#[test]
fn the_flag_without_a_judge_is_a_one_line_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let output = common::eval_dag(dir.path())
        .current_dir(common::root())
        .args(["run", "sample-data/fraud", "--headless", "--judge-rejected"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--judge-rejected needs at least one --judge"), "{stderr}");
}
