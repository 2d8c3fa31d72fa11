//! `compare` says whether a difference is larger than chance: the exact
//! McNemar test between runs without repeats, a seeded paired bootstrap
//! between repeated runs — with p values known in closed form, through the
//! real binary.

use std::path::{Path, PathBuf};
use std::process::Output;

use eval_dag::report::eval_results;
use eval_dag::run::{EngineEvent, RunState};
use serde_json::{Value, json};

use crate::common;

fn event(value: Value) -> EngineEvent {
    serde_json::from_value(value).unwrap()
}

/// A finished run whose question `i` gave the answers `answers[i]`, one per
/// epoch, each graded against the expected answer 1.
fn graded_run(answers: &[Vec<i64>]) -> RunState {
    let repeat = answers[0].len();
    let mut state = RunState::default();
    let settings = json!({"dataset_dir": "d", "dataset_hash": "h", "provider": "openai", "model": "m",
        "questions": answers.len(), "max_iterations": 3, "concurrency": 3, "seed": 0, "step": false,
        "repeat": repeat});
    state.apply(0, &event(json!({"type": "run_started", "settings": settings})));
    let questions: Vec<Value> = (1..=answers.len())
        .map(|i| {
            json!({"id": format!("q{i}"), "question": format!("question {i}?"), "difficulty_rank": i,
            "difficulty_level": "easy"})
        })
        .collect();
    state.apply(0, &event(json!({"type": "questions_generated", "questions": questions})));
    for (index, given) in answers.iter().enumerate() {
        for (epoch, answer) in given.iter().enumerate() {
            let at = json!({"question_id": format!("q{}", index + 1), "epoch": epoch + 1, "attempt": 1});
            state.apply(1, &event(json!({"type": "question_started", "at": at})));
            let finished = json!({"type": "question_finished", "at": at, "outcome": "passed", "iterations": 1,
                "final_answer": answer});
            state.apply(2, &event(finished));
            let grade = json!({"method": "ground_truth", "score": f64::from(u8::from(*answer == 1)),
                "passed": *answer == 1, "threshold": 1.0, "reason": "against 1"});
            state.apply(3, &event(json!({"type": "graded", "at": at, "grades": [grade]})));
        }
    }
    state
}

/// `state`'s results document written as `name` under `dir`.
fn results_file(dir: &Path, name: &str, state: &RunState) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string(&eval_results(state, "2026-11-25T00:00:00Z")).unwrap()).unwrap();
    path
}

fn compare(dir: &Path, flags: &[&str], runs: &[&Path]) -> Output {
    common::eval_dag(dir).arg("compare").args(flags).args(runs).output().unwrap()
}

#[test]
fn without_repeats_the_exact_mcnemar_test_decides() {
    let dir = tempfile::tempdir().unwrap();
    // A: ten right. B: six of them wrong — p = 2 * (1/2)^6 = 0.03125.
    let a = results_file(dir.path(), "a.json", &graded_run(&vec![vec![1]; 10]));
    let b_answers: Vec<Vec<i64>> = (0..10).map(|i| vec![if i < 6 { 2 } else { 1 }]).collect();
    let b = results_file(dir.path(), "b.json", &graded_run(&b_answers));

    let out = compare(dir.path(), &["--json"], &[&a, &b]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "p 0.03125 ≤ 0.05: worse: {stderr}");
    assert!(stderr.contains("B vs A: accuracy 1.000 → 0.400 (-0.600, 95% CI "), "{stderr}");
    assert!(
        stderr.contains(
            "over 10 paired questions, p = 0.0313 (exact McNemar, 6 right only in the baseline, 0 only here): worse"
        ),
        "{stderr}"
    );
    let out = compare(dir.path(), &["--json", "--significance", "0.01"], &[&a, &b]);
    assert_eq!(out.status.code(), Some(0), "not below 0.01: {}", String::from_utf8_lossy(&out.stderr));

    // Three runs: the matrix's JSON carries each later run's test; the exact p value.
    let out = compare(dir.path(), &["--json"], &[&a, &b, &a]);
    assert_eq!(out.status.code(), Some(1));
    let matrix: Value = serde_json::from_slice(&out.stdout).unwrap();
    let b_test = &matrix["runs"][1]["significance"];
    assert!((b_test["p_value"].as_f64().unwrap() - 0.03125).abs() < 1e-12, "{b_test}");
    let [low, high] = [0, 1].map(|i| b_test["interval"][i].as_f64().unwrap());
    assert!((-1.0..-0.6).contains(&low) && high > -0.6 && high < 0.0, "the interval holds -0.6 and not 0: {b_test}");
    assert_eq!((b_test["measure"].as_str(), b_test["paired"].as_u64()), (Some("accuracy"), Some(10)));
    assert_eq!(matrix["runs"][2]["significance"]["p_value"].as_f64(), Some(1.0), "A against itself");

    // B better than A is no regression, however significant.
    let out = compare(dir.path(), &["--headless"], &[&b, &a]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("p = 0.0313 (exact McNemar, 0 right only in the baseline, 6 only here): better"),
        "{stdout}"
    );
}

#[test]
fn repeated_runs_take_the_seeded_paired_bootstrap() {
    let dir = tempfile::tempdir().unwrap();
    // Every question: A right in 3 of 3 epochs, B in 2 of 3. Every resample's
    // mean difference is -1/3, so none reaches zero: p = 2 / (2,000 + 1),
    // the report's one resample count.
    let a = results_file(dir.path(), "a.json", &graded_run(&vec![vec![1, 1, 1]; 8]));
    let b = results_file(dir.path(), "b.json", &graded_run(&vec![vec![1, 2, 1]; 8]));
    let out = compare(dir.path(), &["--json"], &[&a, &b, &b]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let matrix: Value = serde_json::from_slice(&out.stdout).unwrap();
    let test = &matrix["runs"][1]["significance"];
    assert_eq!(
        test["test"],
        json!({"name": "bootstrap", "resamples": eval_dag::report::RESAMPLES, "seed": eval_dag::report::SEED})
    );
    assert_eq!(eval_dag::report::RESAMPLES, 2_000);
    assert!((test["p_value"].as_f64().unwrap() - 2.0 / 2_001.0).abs() < 1e-15, "{test}");
    let third = -1.0 / 3.0;
    let interval: Vec<f64> = test["interval"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert!(interval.iter().all(|x| (x - third).abs() < 1e-12), "{interval:?}");

    // Differences that cancel out: q1 loses an epoch, q2 gains one — p = 1.
    let c = results_file(dir.path(), "c.json", &graded_run(&[vec![1, 2, 1], vec![1, 1, 1]]));
    let d = results_file(dir.path(), "d.json", &graded_run(&[vec![1, 1, 1], vec![1, 2, 1]]));
    let out = compare(dir.path(), &["--headless", "--significance", "1"], &[&c, &d]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("accuracy 0.833 → 0.833 (+0.000")
            && stdout.contains("p = 1.0000 (paired bootstrap, 2000 resamples)"),
        "{stdout}"
    );
}
