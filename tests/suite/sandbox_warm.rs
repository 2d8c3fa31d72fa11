//! A warmed sandbox pool has its workers running before the first DAG arrives:
//! `run` starts warming at once so that the first trial runs (which follow two
//! LLM calls) do not wait for worker start-up. On both engines.

use crate::common;

use std::time::{Duration, Instant};

use eval_dag::domain::{Engine, GeneratedDag};

fn trivial() -> GeneratedDag {
    serde_json::from_value(serde_json::json!({"question_id": "t", "final_answer_node": "a",
        "nodes": [{"node_id": "a", "function_name": "f", "layer": 0, "code": "def f():\n    return 1\n"}]}))
    .unwrap()
}

async fn a_warmed_pool_runs_its_first_dag_without_waiting_for_start_up(engine: Engine) {
    let limits = (Duration::from_secs(30), Duration::from_secs(60));
    let cold = common::pool_on(engine, limits.0, limits.1);
    let started = Instant::now();
    assert!(cold.run(&trivial(), 0).await.success);
    let cold_first = started.elapsed();

    let warmed = common::pool_on(engine, limits.0, limits.1);
    warmed.warm().await;
    let started = Instant::now();
    let result = warmed.run(&trivial(), 0).await;
    let warm_first = started.elapsed();
    assert!(result.success, "{:?}", result.error);
    assert!(warm_first * 4 < cold_first, "warmed first run {warm_first:?}, cold first run {cold_first:?}");
}

common::on_both_engines!(a_warmed_pool_runs_its_first_dag_without_waiting_for_start_up);
