//! `run --differential` through the binary against a scripted server: every
//! approved DAG's final execution runs on both engines; an answer built from
//! a set (whose order RustPython keeps by insertion and CPython by hash) is
//! recorded as an `order` divergence with the node it starts at, in the trace,
//! the summary and the question's results; an answer both engines agree on is
//! checked and not flagged. `--engine cpython` runs the DAGs in CPython and
//! says so on each execution; a missing or old Python is one line and exit 2.

use std::path::Path;

use crate::common;

use common::dags::node;
use common::mock_llm::{MockLlm, Reply};
use eval_dag::domain::{DivergenceKind, Engine};
use eval_dag::run::EngineEvent;
use eval_dag::trace::Trace;
use serde_json::{Value, json};

/// Two questions: the row count (both engines agree) and the categories as a
/// list built from a set (their order differs). Replies wrap the JSON in
/// prose and a fence, as models do.
async fn scripted() -> MockLlm {
    MockLlm::start(|request, _| {
        let prompt = request.prompt();
        let fenced = |value: Value| Reply::Text(format!("Here it is:\n```json\n{value}\n```\nDone."));
        if prompt.contains("evaluation questions") {
            return fenced(json!({"questions": [
                {"id": "q_01", "question": "How many transactions are there?", "difficulty_rank": 1,
                 "difficulty_level": "easy", "expected_answer": 2000},
                {"id": "q_02", "question": "Which categories occur?", "difficulty_rank": 2,
                 "difficulty_level": "easy"}]}));
        }
        if prompt.contains("review one layer") {
            return fenced(json!({"is_valid": true, "issues": [], "reasoning": "fine"}));
        }
        let (question, code) = if prompt.contains("Question q_02") {
            ("q_02", "def answer(rows):\n    return list({r['category'] for r in rows})\n")
        } else {
            ("q_01", "def answer(rows):\n    return len(rows)\n")
        };
        fenced(json!({"question_id": question, "description": "one step",
            "nodes": [node("answer", 0, json!({"rows": "dataset.transactions"}), code, "list")],
            "edges": [], "final_answer_node": "answer"}))
    })
    .await
}

/// `eval-dag run` of the two questions against `mock` into `run`, with `extra` flags.
async fn run_with(home: &Path, mock: &MockLlm, run: &Path, extra: &[&str]) -> std::process::Output {
    let mut command = tokio::process::Command::from(common::eval_dag(home));
    command
        .current_dir(common::root())
        .args(["run", "sample-data/fraud", "--headless", "--llm", "openai", "--questions", "2"])
        .args(["--no-cache", "--concurrency", "2", "--base-url", mock.base_url().as_str()])
        .args(extra)
        .arg("--out")
        .arg(run)
        .env("OPENAI_API_KEY", "test-key");
    command.output().await.unwrap()
}

fn results(run: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(run.join("eval_results.json")).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_set_order_is_flagged_and_an_agreed_answer_is_not() {
    let mock = scripted().await;
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let output = run_with(dir.path(), &mock, &run, &["--differential"]).await;
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));

    let trace = Trace::read(&run.join("trace.jsonl")).unwrap();
    let settings = &trace.header.settings;
    assert!(settings.differential && settings.engine == Engine::RustPython);
    let python = settings.python.as_ref().expect("the CPython checked against is recorded");
    assert!(python.version.starts_with("3.") && Path::new(&python.path).is_file(), "{python:?}");
    let divergences: Vec<_> = trace
        .records
        .iter()
        .filter_map(|record| match &record.event {
            EngineEvent::EngineDivergence { at, divergence } => Some((at.clone(), divergence.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(divergences.len(), 1, "{divergences:#?}");
    let (at, divergence) = &divergences[0];
    assert_eq!((at.question_id.as_str(), at.iteration), ("q_02", 1));
    assert_eq!(divergence.kind, DivergenceKind::Order);
    assert_eq!(divergence.first_node.as_deref(), Some("answer"));
    assert_eq!((divergence.primary.engine, divergence.other.engine), (Engine::RustPython, Engine::CPython));
    let (ours, theirs) = (divergence.primary.answer.clone().unwrap(), divergence.other.answer.clone().unwrap());
    assert_ne!(ours, theirs);
    let sorted = |value: &Value| {
        let mut items: Vec<String> = value.as_array().unwrap().iter().map(Value::to_string).collect();
        items.sort();
        items
    };
    assert_eq!(sorted(&ours), sorted(&theirs), "the same categories in another order");

    let results = results(&run);
    assert_eq!(
        results["summary"]["differential"],
        json!({"checked": 2, "diverged": 1, "kinds": {"answer": 0, "order": 1, "error_text": 0, "outcome": 0}})
    );
    let detailed = results["detailed_results"].as_array().unwrap();
    let q = |id: &str| detailed.iter().find(|d| d["question_id"] == id).unwrap();
    assert_eq!(q("q_02")["divergence"]["kind"], "order");
    assert_eq!(q("q_02")["final_answer"], ours, "the question keeps the run's engine's answer");
    assert!(q("q_01").get("divergence").is_none());
    assert_eq!(q("q_01")["final_answer"], 2000);

    let report = std::fs::read_to_string(run.join("eval_report.html")).unwrap();
    assert!(report.contains("<th>engines</th>"), "the trust section has an engines column");
    assert!(report.contains(&format!("Engines (CPython {}): 1 of 2 approved DAGs", python.version)));
    assert!(report.contains("differ (order from node answer)") && report.contains("both engines agree"));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cpython_engine_runs_every_dag_and_says_so() {
    let mock = scripted().await;
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let output = run_with(dir.path(), &mock, &run, &["--engine", "cpython"]).await;
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let trace = Trace::read(&run.join("trace.jsonl")).unwrap();
    assert_eq!(trace.header.settings.engine, Engine::CPython);
    let executions: Vec<_> = trace
        .records
        .iter()
        .filter_map(|record| match &record.event {
            EngineEvent::Executed { result, .. } => Some(result.engine),
            _ => None,
        })
        .collect();
    assert!(executions.len() >= 4, "a trial and a final run per question: {executions:?}");
    assert!(executions.iter().all(|engine| *engine == Engine::CPython), "{executions:?}");
    let text = std::fs::read_to_string(run.join("trace.jsonl")).unwrap();
    assert!(text.contains(r#""engine":"cpython""#));
    let results = results(&run);
    assert_eq!(results["summary"]["settings"]["engine"], "cpython");
    let detailed = results["detailed_results"].as_array().unwrap();
    assert!(detailed.iter().any(|d| d["final_answer"] == 2000), "{detailed:#?}");
}

#[test]
fn a_missing_or_old_python_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("python3.9");
    std::fs::write(&old, "#!/bin/sh\necho cpython 3.9.18 /usr/bin/python3.9\n").unwrap();
    let not_python = dir.path().join("not-python");
    std::fs::write(&not_python, "#!/bin/sh\necho hello\n").unwrap();
    for script in [&old, &not_python] {
        std::fs::set_permissions(script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }
    let cases = [
        (dir.path().join("absent"), "cannot run"),
        (old, "is Python 3.9.18; the cpython engine needs 3.10 or newer"),
        (not_python, "is not a working CPython"),
    ];
    for (python, expected) in cases {
        for flags in [&["--engine", "cpython"][..], &["--differential"][..]] {
            let output = common::eval_dag(dir.path())
                .current_dir(common::root())
                .args(["run", "sample-data/fraud", "--headless", "--llm", "offline", "--questions", "1"])
                .args(flags)
                .arg("--python")
                .arg(&python)
                .arg("--out")
                .arg(dir.path().join("run"))
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(2), "{flags:?} {}: {stderr}", python.display());
            assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
            assert!(stderr.contains(expected), "{stderr}");
        }
    }
    assert!(!dir.path().join("run").exists(), "nothing is written before the engine is checked");
}

#[tokio::test(flavor = "multi_thread")]
async fn verify_replays_on_the_recorded_engine_or_the_one_asked_for() {
    let mock = scripted().await;
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let output = run_with(dir.path(), &mock, &run, &["--engine", "cpython"]).await;
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let trace = run.join("trace.jsonl");
    let verify = |extra: &[&str], trace: &Path| {
        let output = common::eval_dag(dir.path())
            .current_dir(common::root())
            .arg("replay")
            .arg(trace)
            .arg("--verify")
            .args(extra)
            .output()
            .unwrap();
        (output.status.code(), String::from_utf8_lossy(&output.stdout).into_owned())
    };
    // The same CPython and the run's hash seed: the set's order replays.
    let (code, stdout) = verify(&[], &trace);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("no drift") && !stdout.contains("NOTE"), "{stdout}");
    // On RustPython the set keeps insertion order: q_02's answer drifts.
    let (code, stdout) = verify(&["--engine", "rustpython"], &trace);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(stdout.contains("NOTE re-executing on rustpython; the run used cpython"), "{stdout}");
    assert!(stdout.contains("DRIFT q_02") && !stdout.contains("DRIFT q_01"), "{stdout}");
    // A trace recorded with another Python says so.
    let text = std::fs::read_to_string(&trace).unwrap();
    let version = Trace::read(&trace).unwrap().header.settings.python.unwrap().version;
    let moved = dir.path().join("moved.jsonl");
    std::fs::write(&moved, text.replacen(&format!("\"version\":\"{version}\""), "\"version\":\"3.10.0\"", 1)).unwrap();
    let (code, stdout) = verify(&[], &moved);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("is not the run's (") && stdout.contains("3.10.0)"), "{stdout}");
}

#[test]
fn exec_differential_prints_both_results_and_exits_1_on_a_difference() {
    let dir = tempfile::tempdir().unwrap();
    let exec = |code: &str| {
        let dag = json!({"question_id": "q", "description": "one step", "final_answer_node": "answer", "edges": [],
            "nodes": [node("answer", 0, json!({"rows": "dataset.transactions"}), code, "list")]});
        let path = dir.path().join("dag.json");
        std::fs::write(&path, dag.to_string()).unwrap();
        let output = common::eval_dag(dir.path())
            .current_dir(common::root())
            .args(["exec", "--differential", "--dataset", "sample-data/fraud"])
            .arg(&path)
            .output()
            .unwrap();
        let printed: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
        (output.status.code(), printed)
    };
    let (code, printed) = exec("def answer(rows):\n    return sorted({r['category'] for r in rows})\n");
    assert_eq!(code, Some(0), "{printed}");
    assert_eq!(printed["divergence"], Value::Null);
    assert_eq!(printed["execution"]["final_answer"], printed["other"]["final_answer"]);
    assert_eq!(printed["other"]["engine"], "cpython");
    let (code, printed) = exec("def answer(rows):\n    return list({r['category'] for r in rows})\n");
    assert_eq!(code, Some(1), "{printed}");
    assert_eq!(printed["divergence"]["kind"], "order");
    assert_eq!(printed["divergence"]["first_node"], "answer");
}
