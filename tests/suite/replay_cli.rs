//! `replay --headless`, `replay --verify`, `report` and `compare` through the
//! real binary, on the scripted sample trace and on edited copies of it.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn eval_dag(args: &[&str], paths: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_eval-dag")).current_dir(common::root()).args(args).args(paths).output().unwrap()
}

pub(super) fn sample_trace() -> PathBuf {
    common::root().join("sample-data/traces/fraud-scripted.trace.jsonl")
}

/// A copy of the sample trace with `from` replaced by `to` in every line that contains `marker`.
pub(super) fn edited_trace(dir: &Path, marker: &str, from: &str, to: &str) -> PathBuf {
    edited(&sample_trace(), dir, marker, from, to)
}

/// `trace` with `from` replaced by `to` in its lines holding `marker`, written into `dir`.
fn edited(trace: &Path, dir: &Path, marker: &str, from: &str, to: &str) -> PathBuf {
    let text = std::fs::read_to_string(trace).unwrap();
    let edited: Vec<String> =
        text.lines().map(|l| if l.contains(marker) { l.replace(from, to) } else { l.to_string() }).collect();
    assert_ne!(edited.join("\n"), text.trim_end(), "the edit changed something");
    let path = dir.join("edited.trace.jsonl");
    std::fs::write(&path, edited.join("\n") + "\n").unwrap();
    path
}

#[test]
fn headless_replay_prints_the_story_and_exits_like_the_run() {
    let out = eval_dag(&["replay", "--headless"], &[&sample_trace()]);
    assert_eq!(out.status.code(), Some(1), "the run graded one answer wrong, so it exited 1");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("q_01 iteration 1 rejected") && stdout.contains("did you mean 'is_fraud_rate'"));
    assert!(stdout.contains("q_01 iteration 2 rejected") && stdout.contains("ZeroDivisionError"));
    let last = stdout.lines().last().unwrap();
    assert!(last.contains("2 passed") && last.contains("accuracy 50% (1/2 graded)"), "{last}");
}

#[test]
fn verify_finds_no_drift_in_an_unchanged_trace_and_drift_in_an_edited_one() {
    let out = eval_dag(&["replay", "--verify"], &[&sample_trace()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no drift"));

    let dir = tempfile::tempdir().unwrap();
    let edited = edited_trace(dir.path(), "\"trial\":false", "\"final_answer\":50000", "\"final_answer\":49999");
    let out = eval_dag(&["replay", "--verify"], &[&edited]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("DRIFT q_02 attempt 1: final_answer"), "{stdout}");
    assert!(stdout.contains("-49999") && stdout.contains("+50000"), "the diff shows recorded and today: {stdout}");
    assert!(
        stdout.contains("DRIFT q_02 attempt 1: grade") && stdout.contains("right → wrong"),
        "the recorded answer matched the expected 49999, today's does not: {stdout}"
    );
}

#[test]
fn verify_re_executes_an_answer_accepted_by_hand() {
    let derived = common::root().join("tests/fixtures/traces/v3-by-hand.trace.jsonl");
    let out = eval_dag(&["replay", "--verify"], &[&derived]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("verified 3 executed DAGs: no drift"), "two by the model and one by hand: {stdout}");

    let dir = tempfile::tempdir().unwrap();
    let marker = "\"attempt\":3,\"iteration\":1},\"trial\":false";
    let edited =
        edited(&derived, dir.path(), marker, "\"final_answer\":\"grocery_pos\"", "\"final_answer\":\"travel\"");
    let out = eval_dag(&["replay", "--verify"], &[&edited]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("DRIFT q_01 attempt 3: final_answer"), "the hand-written DAG ran again: {stdout}");
}

#[test]
fn compare_tells_a_hand_fix_from_the_models_pass() {
    let derived = common::root().join("tests/fixtures/traces/v3-by-hand.trace.jsonl");
    let out = eval_dag(&["compare", "--json"], &[&sample_trace(), &derived]);
    assert_eq!(out.status.code(), Some(0), "a hand fix is no regression");
    let compared: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let q_01 = compared["rows"].as_array().unwrap().iter().find(|r| r["question_id"] == "q_01").unwrap();
    assert_eq!(q_01["change"], "fixed_by_hand", "{q_01}");
    assert_eq!((q_01["a"]["fixed_by_hand"].as_bool(), q_01["b"]["fixed_by_hand"].as_bool()), (Some(false), Some(true)));
    let out = eval_dag(&["compare", "--headless"], &[&sample_trace(), &derived]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("1 fixed by hand, 1 unchanged") && table.contains("fixed by hand grocery_pos"), "{table}");
}

#[test]
fn report_writes_a_self_contained_page_for_a_trace_or_a_results_file() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("new/dir/r.html");
    let out = eval_dag(&["report", "--out"], &[&html, &sample_trace()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("id=\"q_01\"") && page.contains("id=\"q_02\""));
    assert!(
        page.contains("Iteration 3") && page.contains("<code>rates</code>") && page.contains("<code>highest</code>")
    );
    assert!(page.contains("resolved") && page.contains("did you mean"), "the diff marks resolved findings");
    let lonely = dir.path().join("eval_results.json");
    std::fs::write(&lonely, "{\"detailed_results\": []}").unwrap();
    let out = eval_dag(&["report", "--out"], &[&html, &lonely]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no trace.jsonl lies beside it"));
}

#[test]
fn compare_puts_regressions_first_and_leaves_the_exit_code_to_the_paired_test() {
    let out = eval_dag(&["compare"], &[&sample_trace(), &sample_trace()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("0 regressions"));
    let dir = tempfile::tempdir().unwrap();
    let failed = edited_trace(
        dir.path(),
        "\"type\":\"question_finished\",\"at\":{\"question_id\":\"q_02\"",
        "\"outcome\":\"passed\"",
        "\"outcome\":\"failed\"",
    );
    let out = eval_dag(&["compare"], &[&sample_trace(), &failed]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    // q_02 was graded wrong in A as well: accuracy is 1/2 on both sides.
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.lines().last().unwrap().ends_with("not significant at 0.05"), "{stdout}");
    let first_row = stdout.lines().nth(1).unwrap();
    assert!(first_row.starts_with("q_02") && first_row.contains("REGRESSION"), "{stdout}");
}

#[test]
fn bad_traces_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    std::fs::write(&path, "not a trace\n").unwrap();
    for args in [&["replay", "--headless"][..], &["replay", "--verify"][..]] {
        let out = eval_dag(args, &[&path]);
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(String::from_utf8_lossy(&out.stderr).trim().lines().count(), 1);
    }
}

#[test]
fn a_reader_that_went_away_ends_the_output_quietly_never_a_panic() {
    let trace = sample_trace();
    let cases: [&[&str]; 4] =
        [&["replay", "--headless"], &["compare", "--json"], &["compare", "--headless"], &["replay", "--verify"]];
    for args in cases {
        let mut command = Command::new(env!("CARGO_BIN_EXE_eval-dag"));
        command.current_dir(common::root()).args(args).arg(&trace);
        if args[0] == "compare" {
            command.arg(&trace);
        }
        // The read end of stdout is closed before the command writes anything (`… | head -0`).
        let mut child =
            command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{args:?} ends quietly: {stderr}");
    }
}
