//! The sandbox against CPython: DAGs of the kind LLMs write give the same final
//! answers in `eval-dag`'s workers, on either engine, as in a bare CPython 3
//! (`tests/python/run_dag.py`), and the two engines' results compare equal.

use crate::common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use eval_dag::domain::{Engine, GeneratedDag};
use eval_dag::engine::differential::compare;
use eval_dag::grade::MatchOptions;
use serde_json::Value;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(common::root().join("tests/fixtures/sandbox").join(name)).unwrap()
}

fn dags_text() -> String {
    fixture("differential_dags.json")
}

/// What `tests/python/run_dag.py` answers for each DAG of `text` in CPython
/// (`{"answer": ...}` or `{"error": ...}`), or `None` when python3 is
/// missing (under CI the test fails: see `tools`).
pub(crate) fn cpython_answers(text: &str) -> Option<Vec<Value>> {
    if !common::tools::require(common::tools::Tool::Python3) {
        return None;
    }
    let mut child = Command::new("python3")
        .arg(common::root().join("tests/python/run_dag.py"))
        .arg(common::sandbox_dataset())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 is installed");
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "the CPython runner failed");
    Some(serde_json::from_slice(&output.stdout).unwrap())
}

/// Run every DAG of `text` in the sandbox on `engine` and in CPython; the
/// final answers must agree (floats within `tolerance`, relative; 0 means the
/// same JSON text, key order included).
async fn assert_same_answers_as_cpython(engine: Engine, text: &str, tolerance: f64) {
    let dags: Vec<GeneratedDag> = serde_json::from_str(text).unwrap();
    let Some(expected) = cpython_answers(text) else { return };
    let pool = common::pool_on(engine, Duration::from_secs(10), Duration::from_secs(30));
    let mut mismatches = Vec::new();
    for (dag, reference) in dags.iter().zip(&expected) {
        let result = pool.run(dag, 0).await;
        let Some(want) = reference.get("answer") else {
            mismatches.push(format!("{}: CPython failed: {}", dag.question_id, reference["error"]));
            continue;
        };
        if !result.success {
            mismatches.push(format!("{}: {engine} failed: {:?}", dag.question_id, result.error));
        } else if !(if tolerance == 0.0 {
            serde_json::to_string(result.final_answer.as_ref().unwrap()).ok() == serde_json::to_string(want).ok()
        } else {
            common::json_close(result.final_answer.as_ref().unwrap(), want, tolerance)
        }) {
            mismatches.push(format!(
                "{}: {engine} {} vs CPython {want}",
                dag.question_id,
                result.final_answer.unwrap()
            ));
        }
    }
    assert!(mismatches.is_empty(), "{mismatches:#?}");
}

common::on_both_engines!(final_answers_match_cpython, fast_path_edge_cases_match_cpython);

async fn final_answers_match_cpython(engine: Engine) {
    let text = dags_text();
    let dags: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert!(dags.len() >= 20, "the suite has at least 20 DAGs");
    assert_same_answers_as_cpython(engine, &text, 1e-9).await;
}

/// Edge cases of the native fast paths (`strptime`, result conversion, ...):
/// exactly CPython's answers.
async fn fast_path_edge_cases_match_cpython(engine: Engine) {
    assert_same_answers_as_cpython(engine, &fixture("edge_case_dags.json"), 0.0).await;
}

/// A final node that returns None succeeds on both engines, with the answer
/// JSON's null reads back as (a trace read again holds the same).
#[tokio::test(flavor = "multi_thread")]
async fn none_is_an_answer_on_both_engines() {
    let dag = common::rows_dag("def f(rows):\n    return None\n");
    let deadlines = (Duration::from_secs(10), Duration::from_secs(30));
    let (rustpython, cpython) = (
        common::pool_on(Engine::RustPython, deadlines.0, deadlines.1),
        common::pool_on(Engine::CPython, deadlines.0, deadlines.1),
    );
    let (a, b) = (rustpython.run(&dag, 0).await, cpython.run(&dag, 0).await);
    assert!(a.success && b.success, "{:?} / {:?}", a.error, b.error);
    assert_eq!((a.final_answer, b.final_answer.clone()), (None, None));
    assert_eq!(compare(&rustpython.run(&dag, 0).await, &b, &MatchOptions::default()), None);
}

/// Every fixture DAG on both engines: the differential check finds no
/// divergence, node outputs included.
#[tokio::test(flavor = "multi_thread")]
async fn the_two_engines_agree_on_every_fixture_dag() {
    let deadlines = (Duration::from_secs(10), Duration::from_secs(30));
    let rustpython = common::pool_on(Engine::RustPython, deadlines.0, deadlines.1);
    let cpython = common::pool_on(Engine::CPython, deadlines.0, deadlines.1);
    let mut diverged = Vec::new();
    let mut checked = 0;
    for text in [dags_text(), fixture("edge_case_dags.json")] {
        let dags: Vec<GeneratedDag> = serde_json::from_str(&text).unwrap();
        for dag in &dags {
            let (a, b) = (rustpython.run(dag, 0).await, cpython.run(dag, 0).await);
            assert_eq!((a.engine, b.engine), (Engine::RustPython, Engine::CPython));
            checked += 1;
            if let Some(divergence) = compare(&a, &b, &MatchOptions::default()) {
                diverged.push((dag.question_id.clone(), divergence));
            }
        }
    }
    assert!(checked >= 30, "{checked} DAGs");
    assert!(diverged.is_empty(), "{diverged:#?}");
}

#[test]
fn exec_prints_the_result_and_exits_by_success() {
    let dir = tempfile::tempdir().unwrap();
    let dags: Vec<Value> = serde_json::from_str(&dags_text()).unwrap();
    let path = dir.path().join("dag.json");
    std::fs::write(&path, dags[0].to_string()).unwrap();
    let binary = env!("CARGO_BIN_EXE_eval-dag");
    let out =
        Command::new(binary).arg("exec").arg(&path).arg("--dataset").arg(common::sandbox_dataset()).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    for field in
        ["question_id", "success", "final_answer", "node_outputs", "error", "execution_time_ms", "node_timings_ms"]
    {
        assert!(result.get(field).is_some(), "missing {field}");
    }
    let mut failing = dags[0].clone();
    failing["nodes"][0]["code"] = Value::String("def count(rows):\n    return rows[0]['no_such_field']\n".into());
    std::fs::write(&path, failing.to_string()).unwrap();
    let out =
        Command::new(binary).arg("exec").arg(&path).arg("--dataset").arg(common::sandbox_dataset()).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["error_node"], "a");
    assert!(result["traceback"].as_str().unwrap().contains("KeyError"));
    std::fs::write(&path, "{not json").unwrap();
    let out =
        Command::new(binary).arg("exec").arg(&path).arg("--dataset").arg(common::sandbox_dataset()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}
