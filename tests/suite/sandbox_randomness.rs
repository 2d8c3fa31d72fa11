//! Randomness in node code: the `random` module is seeded per node from the
//! run's seed, so a run replays; entropy from the system (`os.urandom`,
//! `random.SystemRandom`) is refused with an error that names it.

use crate::common;

use std::time::Duration;

use eval_dag::domain::Engine;
use eval_dag::domain::{ExecutionResult, GeneratedDag};
use serde_json::json;

common::on_both_engines!(
    the_random_module_follows_the_runs_seed,
    system_randomness_is_refused_naming_the_seeded_random_module
);

fn dag(code: &str) -> GeneratedDag {
    serde_json::from_value(json!({
        "question_id": "random", "final_answer_node": "a",
        "nodes": [{"node_id": "a", "function_name": "f", "inputs": {}, "layer": 0, "code": code}]
    }))
    .unwrap()
}

async fn run(engine: Engine, code: &str, seed: u64) -> ExecutionResult {
    common::pool_on(engine, Duration::from_secs(10), Duration::from_secs(20)).run(&dag(code), seed).await
}

async fn the_random_module_follows_the_runs_seed(engine: Engine) {
    let draw = "def f():\n    return [random.random(), random.randint(0, 10**9)]\n";
    let (first, again, other) = (run(engine, draw, 7).await, run(engine, draw, 7).await, run(engine, draw, 8).await);
    assert!(first.success, "{:?}", first.error);
    assert_eq!(first.final_answer, again.final_answer, "the same seed draws the same numbers");
    assert_ne!(first.final_answer, other.final_answer, "another seed draws others");
}

async fn system_randomness_is_refused_naming_the_seeded_random_module(engine: Engine) {
    for call in ["random.SystemRandom().random()", "random.SystemRandom().getrandbits(8)"] {
        let result = run(engine, &format!("def f():\n    return {call}\n"), 7).await;
        assert!(!result.success, "{call} gave {:?}", result.final_answer);
        let error = result.error.unwrap_or_default();
        assert!(error.contains("NotImplementedError: os.urandom is not available in the sandbox"), "{call}: {error}");
        assert!(error.contains("use the random module, which is seeded per node from the run's seed"), "{error}");
    }
}
