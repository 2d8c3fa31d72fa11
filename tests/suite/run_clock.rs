//! The run's clock: node code's `datetime.now()`, `today()`, `utcnow()` and
//! `date.today()` read the instant the run recorded (`--now`, else when it
//! started), in the run's own offset — so a replay verifies without drift and
//! the answer does not depend on the machine's clock or time zone.

use crate::common;

use std::time::Duration;

use common::mock_llm::{MockLlm, Recorded, Reply};
use eval_dag::domain::RunClock;
use eval_dag::sandbox::SandboxPool;
use eval_dag::trace::Trace;
use serde_json::{Value, json};

/// Node code answering with every clock node code can read.
const CLOCKS: &str = "def f(overview):\n    return [datetime.datetime.now().isoformat(), \
                      datetime.date.today().isoformat(), datetime.datetime.today().isoformat(),\n            \
                      datetime.datetime.utcnow().isoformat(), \
                      datetime.datetime.now(datetime.timezone.utc).isoformat()]\n";

#[tokio::test(flavor = "multi_thread")]
async fn node_code_reads_the_runs_clock_in_the_runs_offset() {
    let clock = RunClock::parse("2024-02-29T23:30:00+09:00").unwrap();
    let config = common::sandbox_config(Duration::from_secs(10), Duration::from_secs(30)).for_run(0, Some(clock));
    let pool = SandboxPool::new(&common::sandbox_dataset(), config).unwrap();
    let mut dag = common::rows_dag(&CLOCKS.replace("overview", "rows"));
    dag.question_id = "clock".into();
    let result = pool.run(&dag, 0).await;
    assert_eq!(
        result.final_answer,
        Some(json!([
            "2024-02-29T23:30:00",
            "2024-02-29",
            "2024-02-29T23:30:00",
            "2024-02-29T14:30:00",
            "2024-02-29T14:30:00+00:00"
        ])),
        "{:?}",
        result.error
    );
    let machine = SandboxPool::new(
        &common::sandbox_dataset(),
        common::sandbox_config(Duration::from_secs(10), Duration::from_secs(30)),
    )
    .unwrap();
    let result = machine.run(&dag, 0).await;
    let year: u32 = result.final_answer.unwrap()[1].as_str().unwrap()[..4].parse().unwrap();
    assert!(year >= 2026, "with no clock recorded node code reads the machine's");
}

/// One question on the sample data, answered by [`CLOCKS`].
fn clock_reply(request: &Recorded) -> String {
    let prompt = request.prompt();
    if prompt.contains("evaluation questions") {
        return json!({"questions": [{"id": "q_01", "question": "What is the date today?", "difficulty_rank": 1,
            "difficulty_level": "easy", "reasoning": "the clock", "relevant_data_keys": ["overview"]}]})
        .to_string();
    }
    if prompt.contains("review one layer") {
        return json!({"is_valid": true, "issues": [], "reasoning": "reads the clock"}).to_string();
    }
    json!({"question_id": "q_01", "description": "read the clock", "final_answer_node": "clock", "edges": [],
        "nodes": [{"node_id": "clock", "operation": "read the clock", "function_name": "f",
            "inputs": {"overview": "dataset.overview"}, "expected_output_type": "list", "layer": 0, "code": CLOCKS}]})
    .to_string()
}

/// `eval-dag run sample-data/fraud` against `mock` with `extra` arguments,
/// writing to `out`; its exit code and stderr.
fn run(home: &std::path::Path, mock: &MockLlm, out: &std::path::Path, extra: &[&str]) -> (Option<i32>, String) {
    let output = common::eval_dag(home)
        .current_dir(common::root())
        .args(["run", "sample-data/fraud", "--llm", "openai", "--model", "scripted-model", "--base-url"])
        .arg(mock.base_url())
        .args(["--questions", "1", "--headless", "--out"])
        .arg(out)
        .args(extra)
        .env("OPENAI_API_KEY", "test-key")
        .output()
        .unwrap();
    (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
}

fn answer(out: &std::path::Path) -> Value {
    let results: Value = serde_json::from_slice(&std::fs::read(out.join("eval_results.json")).unwrap()).unwrap();
    results["detailed_results"][0]["final_answer"].clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_records_its_clock_and_its_replay_verifies_without_drift() {
    let mock = MockLlm::start(|request, _| Reply::Text(clock_reply(request))).await;
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("pinned");
    let (code, stderr) = run(home.path(), &mock, &out, &["--now", "2024-02-29T23:30:00+09:00"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(answer(&out)[0], "2024-02-29T23:30:00");
    let trace = Trace::read(&out.join("trace.jsonl")).unwrap();
    assert_eq!(trace.header.version, eval_dag::trace::TRACE_VERSION);
    assert_eq!(trace.header.settings.now.map(|now| now.rfc3339()).as_deref(), Some("2024-02-29T23:30:00+09:00"));
    let verify =
        common::eval_dag(home.path()).args(["replay", "--verify"]).arg(out.join("trace.jsonl")).output().unwrap();
    let said = String::from_utf8_lossy(&verify.stdout).into_owned() + &String::from_utf8_lossy(&verify.stderr);
    assert_eq!(verify.status.code(), Some(0), "replay --verify of a DAG reading the clock: {said}");

    // Without --now the run's clock is when it started, recorded; a second later
    // its replay still reads that instant.
    let started = out.with_file_name("started");
    let (code, stderr) = run(home.path(), &mock, &started, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let recorded = Trace::read(&started.join("trace.jsonl")).unwrap().header.settings.now.expect("the start recorded");
    let local = recorded.rfc3339();
    assert_eq!(answer(&started)[0], local[..19], "node code read the recorded start, in its offset");
    std::thread::sleep(Duration::from_millis(1_100));
    let verify =
        common::eval_dag(home.path()).args(["replay", "--verify"]).arg(started.join("trace.jsonl")).output().unwrap();
    assert_eq!(verify.status.code(), Some(0), "{}", String::from_utf8_lossy(&verify.stdout));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_clock_that_is_no_instant_is_refused_before_any_call() {
    let mock = MockLlm::start(|request, _| Reply::Text(clock_reply(request))).await;
    let home = tempfile::tempdir().unwrap();
    for bad in ["yesterday", "2024-02-29T23:30:00"] {
        let (code, stderr) = run(home.path(), &mock, &home.path().join("bad"), &["--now", bad]);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains("RFC 3339"), "{stderr}");
    }
    assert!(mock.requests().is_empty(), "no model was asked");
}
