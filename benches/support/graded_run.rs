//! A finished run of graded questions built in memory, for the benchmarks
//! that compare runs and review them.
#![allow(dead_code)]

use eval_dag::report::{EvalResults, eval_results};
use eval_dag::run::{EngineEvent, RunState};
use serde_json::{Value, json};

fn event(value: Value) -> EngineEvent {
    serde_json::from_value(value).unwrap()
}

/// A finished run of `questions` graded questions.
pub fn base_run(questions: usize) -> EvalResults {
    let mut state = RunState::default();
    let settings = json!({"dataset_dir": "d", "dataset_hash": "h", "provider": "openai", "model": "m",
        "questions": questions, "max_iterations": 3, "concurrency": 3, "seed": 0, "step": false});
    state.apply(0, &event(json!({"type": "run_started", "settings": settings})));
    let levels = ["easy", "medium", "hard"];
    let list: Vec<Value> = (1..=questions)
        .map(|i| {
            let level = levels[i % 3];
            json!({"id": format!("q{i}"), "question": format!("question {i}?"), "difficulty_rank": i % 10 + 1,
                "difficulty_level": level})
        })
        .collect();
    state.apply(0, &event(json!({"type": "questions_generated", "questions": list})));
    for i in 1..=questions {
        let at = json!({"question_id": format!("q{i}"), "epoch": 1, "attempt": 1});
        state.apply(1, &event(json!({"type": "question_started", "at": at})));
        let finished =
            json!({"type": "question_finished", "at": at, "outcome": "passed", "iterations": 1, "final_answer": 1});
        state.apply(2, &event(finished));
        let grade = json!({"method": "ground_truth", "score": 1.0, "passed": true, "threshold": 1.0, "reason": "1"});
        state.apply(3, &event(json!({"type": "graded", "at": at, "grades": [grade]})));
    }
    eval_results(&state, "2026-12-05T00:00:00Z")
}
