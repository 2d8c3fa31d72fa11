//! A person's labels of answers: recorded as commands of the run, ground
//! truth wherever a question has no expected answer — in the accuracy, the
//! critic's scorecard and `grade` — and read back from the trace by replay
//! and `grade`; the latest label counts, the history stays.

use crate::common;

use std::path::Path;

use eval_dag::domain::AttemptAt;
use eval_dag::report::{eval_results, fold_trace};
use eval_dag::run::{Command, EngineEvent};
use eval_dag::trace::Trace;
use serde_json::Value;

const TRACE: &str = "sample-data/traces/fraud-scripted.trace.jsonl";

/// The sample trace with no expected answers, and `labels` of q_01's final
/// answer (attempt 1, iteration 3) appended as the run's commands.
fn labelled_trace(dir: &Path, labels: &[(bool, &str)]) -> std::path::PathBuf {
    let text = std::fs::read_to_string(common::root().join(TRACE)).unwrap();
    // Without expected answers the run would have had nothing to grade: its grades go too.
    let mut lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["event"]["type"] != "graded")
        .collect();
    for (seq, line) in lines.iter_mut().skip(1).enumerate() {
        line["seq"] = seq.into();
    }
    for line in &mut lines {
        if line["event"]["type"] == "questions_generated" {
            for question in line["event"]["questions"].as_array_mut().unwrap() {
                question.as_object_mut().unwrap().remove("expected_answer");
            }
        }
    }
    let (mut seq, t_ms) = (lines.last().unwrap()["seq"].as_u64().unwrap(), 1000);
    for (right, reason) in labels {
        seq += 1;
        let at = AttemptAt::new("q_01", 1).iteration(3);
        let event = EngineEvent::Control(Command::Label { at, right: *right, reason: reason.to_string() });
        lines.push(serde_json::json!({"seq": seq, "t_ms": t_ms + seq, "event": event}));
    }
    let path = dir.join("labelled.trace.jsonl");
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(&path, text.join("\n") + "\n").unwrap();
    path
}

#[test]
fn the_latest_label_is_the_ground_truth_of_a_question_without_an_expected_answer() {
    let dir = tempfile::tempdir().unwrap();
    let unlabelled = fold_trace(&Trace::read(&labelled_trace(dir.path(), &[])).unwrap());
    let doc = eval_results(&unlabelled, "2026-01-01T00:00:00Z");
    assert_eq!(doc.summary.grading.graded, 0, "nothing to grade against");

    let path = labelled_trace(dir.path(), &[(false, "first look"), (true, "checked against the CSV: grocery_pos")]);
    let state = fold_trace(&Trace::read(&path).unwrap());
    let it = state.question("q_01").unwrap().attempt(1).unwrap().iteration(3).unwrap();
    assert_eq!(it.labels.len(), 2, "the history stays");
    assert!(it.label().unwrap().right, "the latest label counts");
    let doc = eval_results(&state, "2026-01-01T00:00:00Z");
    assert_eq!((doc.summary.grading.graded, doc.summary.grading.correct), (1, 1));
    let card = &doc.critic_scorecard;
    let judged = card.iterations.iter().find(|i| i.question_id == "q_01" && i.iteration == 3).unwrap();
    assert!(judged.labelled, "the scorecard says the grade is a person's");
    assert_eq!(card.total.correct_approvals, 1);
    let value = serde_json::to_value(&doc).unwrap();
    let labels = &value["question_traces"][1]["attempts"][0]["iterations"][2]["labels"];
    assert_eq!(labels.as_array().map(Vec::len), Some(2), "{labels}");

    let out = common::eval_dag(dir.path()).args(["grade"]).arg(&path).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("✓ label") && stdout.contains("labelled by a person: checked against the CSV"), "{stdout}");
    assert!(stdout.contains("label: 1/1 (100%)"), "{stdout}");
    assert_eq!(out.status.code(), Some(0), "{stdout}");

    let wrong = labelled_trace(dir.path(), &[(false, "the rate should exclude refunds")]);
    let out = common::eval_dag(dir.path()).args(["grade"]).arg(&wrong).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "a wrong label makes the answer wrong");
    let out = common::eval_dag(dir.path()).args(["replay", "--headless"]).arg(&wrong).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("labelled wrong") && stdout.contains("accuracy 0% (0/1 graded)"), "{stdout}");
}
