//! Repeats (`run --repeat R`): every question asked in R independent epochs,
//! the majority answer speaking for it, accuracy's mean and spread over
//! epochs and pass@k — from a hand-built run with exact figures, and through
//! the real binary, killed in the middle of epoch 2 and resumed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

use eval_dag::report::{eval_results, fold_trace};
use eval_dag::run::{EngineEvent, Outcome, QuestionStatus, RunState};
use eval_dag::trace::Trace;
use serde_json::{Value, json};

use crate::common;

fn event(value: Value) -> EngineEvent {
    serde_json::from_value(value).unwrap()
}

/// Three questions in three epochs, graded against the answer 1: q1 answers
/// [1, 1, 1], q2 [1, 2, 2], q3 [2, 2, 2].
fn graded_epochs() -> RunState {
    let mut state = RunState::default();
    let settings = json!({"dataset_dir": "d", "dataset_hash": "h", "provider": "openai", "model": "m",
        "questions": 3, "max_iterations": 3, "concurrency": 3, "seed": 0, "step": false, "repeat": 3});
    state.apply(0, &event(json!({"type": "run_started", "settings": settings})));
    let questions: Vec<Value> = (1..=3)
        .map(|i| json!({"id": format!("q{i}"), "question": "?", "difficulty_rank": i, "difficulty_level": "easy"}))
        .collect();
    state.apply(0, &event(json!({"type": "questions_generated", "questions": questions})));
    let answers = [("q1", [1, 1, 1]), ("q2", [1, 2, 2]), ("q3", [2, 2, 2])];
    for (id, given) in answers {
        for (index, answer) in given.into_iter().enumerate() {
            let at = json!({"question_id": id, "epoch": index + 1, "attempt": 1});
            state.apply(1, &event(json!({"type": "question_started", "at": at})));
            state.apply(
                2,
                &event(json!({"type": "question_finished", "at": at, "outcome": "passed",
                "iterations": 1, "final_answer": answer})),
            );
            let grade = json!({"method": "ground_truth", "score": f64::from(u8::from(answer == 1)),
                "passed": answer == 1, "threshold": 1.0, "reason": "against 1"});
            state.apply(3, &event(json!({"type": "graded", "at": at, "grades": [grade]})));
        }
    }
    state
}

#[test]
fn the_majority_answer_speaks_and_mean_spread_and_pass_at_k_are_exact() {
    let state = graded_epochs();
    let q2 = state.question("q2").unwrap();
    assert_eq!(q2.epochs().len(), 3);
    let (majority, agreeing) = q2.majority_epoch().unwrap();
    assert_eq!((majority.final_answer.clone(), agreeing), (Some(json!(2)), 2));
    assert_eq!(q2.correct(), Some(false), "the majority answer is graded, not the last epoch's");
    assert!(state.questions.iter().all(|q| q.status == QuestionStatus::Done(Outcome::Passed)));

    let doc = serde_json::to_value(eval_results(&state, "2026-11-25T00:00:00Z")).unwrap();
    let repeats = &doc["summary"]["repeats"];
    let close = |value: &Value, expected: f64| (value.as_f64().unwrap() - expected).abs() < 1e-12;
    assert_eq!(repeats["r"], 3);
    assert!(close(&repeats["accuracy_mean"], 4.0 / 9.0), "{repeats}");
    assert!(close(&repeats["accuracy_std"], 3f64.sqrt() / 9.0), "sample std of 2/3, 1/3, 1/3: {repeats}");
    assert!(close(&repeats["pass_at_k"]["1"], 4.0 / 9.0), "{repeats}");
    assert!(close(&repeats["pass_at_k"]["2"], 5.0 / 9.0), "{repeats}");
    assert!(close(&repeats["pass_at_k"]["3"], 2.0 / 3.0), "{repeats}");
    assert!(close(&repeats["pass_all_k"], 1.0 / 3.0), "{repeats}");
    let rows = doc["detailed_results"].as_array().unwrap();
    assert_eq!(rows[1]["final_answer"], 2, "the top-level answer is the majority's");
    let epoch_answers: Vec<&Value> = rows[1]["epochs"].as_array().unwrap().iter().map(|e| &e["answer"]).collect();
    assert_eq!(epoch_answers, [&json!(1), &json!(2), &json!(2)]);
    let epoch_correct: Vec<&Value> = rows[1]["epochs"].as_array().unwrap().iter().map(|e| &e["correct"]).collect();
    assert_eq!(epoch_correct, [&json!(true), &json!(false), &json!(false)]);

    let app = eval_dag::tui::App::new(state, eval_dag::tui::Theme::dark(), None, None);
    let frame = common::tui::screen(&app, 120, 20);
    let row = |id: &str| frame.lines().find(|l| l.trim_start().starts_with(id)).unwrap_or_default().to_string();
    assert!(row("q1").contains("3/3 ✓ 1"), "{frame}");
    assert!(row("q2").contains("1/3 ✗ 2"), "{frame}");
    assert!(row("q3").contains("0/3 ✗ 2"), "{frame}");
}

#[test]
fn a_run_without_repeats_writes_no_repeat_figures() {
    let mut state = graded_epochs();
    let mut settings = state.settings.clone().unwrap();
    settings.repeat = 1;
    state.settings = Some(settings);
    let doc = serde_json::to_value(eval_results(&state, "t")).unwrap();
    assert!(doc["summary"].get("repeats").is_none());
}

fn results(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("eval_results.json")).unwrap()).unwrap()
}

/// (question, epoch) of every attempt started in the trace, with how often.
fn starts(trace: &Trace) -> BTreeMap<(String, u32), usize> {
    let mut starts = BTreeMap::new();
    for record in &trace.records {
        if let EngineEvent::QuestionStarted { at, .. } = &record.event {
            *starts.entry((at.question_id.to_string(), at.epoch)).or_default() += 1;
        }
    }
    starts
}

#[test]
fn a_repeated_offline_run_killed_in_epoch_2_resumes_only_what_did_not_finish() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let child = common::eval_dag(dir.path())
        .arg("run")
        .arg(common::root().join("sample-data/fraud"))
        .args(["--headless", "--concurrency", "1", "--questions", "3", "--repeat", "2", "--offline-delay", "0"])
        .arg("--out")
        .arg(&out)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let trace_path = out.join("trace.jsonl");
    // With one loop at a time, questions start in order, epoch 1 then 2: the
    // fourth finish is a question's epoch 2.
    let finished =
        |path: &Path| std::fs::read_to_string(path).unwrap_or_default().matches("\"question_finished\"").count();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while finished(&trace_path) < 4 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(2));
    }
    // SAFETY: signalling a child process this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGKILL) }, 0);
    child.wait_with_output().unwrap();
    let before = Trace::read(&trace_path).unwrap();
    let done_before: BTreeSet<(String, u32)> = before
        .records
        .iter()
        .filter_map(|r| match &r.event {
            EngineEvent::QuestionFinished { at, .. } => Some((at.question_id.to_string(), at.epoch)),
            _ => None,
        })
        .collect();
    assert!(done_before.iter().any(|(_, epoch)| *epoch == 2), "the kill came in epoch 2: {done_before:?}");
    assert!(done_before.len() < 6, "the kill came before the end: {done_before:?}");

    let resumed = common::eval_dag(dir.path()).arg("run").arg("--resume").arg(&out).arg("--headless").output().unwrap();
    assert_eq!(resumed.status.code(), Some(0), "{}", String::from_utf8_lossy(&resumed.stderr));
    let after = Trace::read(&trace_path).unwrap();
    let (starts_before, starts_after) = (starts(&before), starts(&after));
    for place in &done_before {
        assert_eq!(starts_after.get(place), starts_before.get(place), "{place:?} finished before and was not re-run");
    }
    assert_eq!(starts_after.len(), 6, "three questions in two epochs: {starts_after:?}");
    let state = fold_trace(&after);
    assert!(state.questions.iter().all(|q| q.epochs().len() == 2 && q.status == QuestionStatus::Done(Outcome::Passed)));
    let doc = results(&out);
    assert_eq!(doc["summary"]["repeats"]["r"], 2);
    assert_eq!(doc["summary"]["repeats"]["accuracy_std"], 0.0, "the offline planner answers alike every epoch");
    assert_eq!(doc["summary"]["repeats"]["pass_at_k"]["2"], 1.0);
    for row in doc["detailed_results"].as_array().unwrap() {
        assert_eq!(row["epochs"].as_array().unwrap().len(), 2, "{row}");
    }
}

#[test]
fn a_repeat_of_0_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let output = common::eval_dag(dir.path())
        .arg("run")
        .arg(common::root().join("sample-data/fraud"))
        .args(["--headless", "--repeat", "0", "--out"])
        .arg(dir.path().join("run"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.lines().next().unwrap_or_default().contains("--repeat"), "{stderr}");
    assert!(!dir.path().join("run").exists(), "nothing is started");
}
