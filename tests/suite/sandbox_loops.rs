//! Row loops in the sandbox against CPython, over the interpreter paths the
//! patched `rustpython-vm` changes (`patches/rustpython-vm/PATCHED.md`): dict
//! lookups of equal but distinct `str` keys (`d[k]`, `get`, `in`, `pop`,
//! `setdefault`, missing keys, `Counter`, sets); calls through method
//! descriptors with no, one and several arguments, and wrong ones; floats,
//! ints, tuples of 0 to 22 items, lists, dicts, slices, ranges and complex
//! numbers made and dropped per row (the free lists); and the benchmark's
//! loop shapes (group-by with `dict.get`, a join on tuple keys, streaks).
//! The rows are built by `tests/fixtures/sandbox/loop_cases.py` from integer
//! arithmetic alone. Node code may not define classes: the keys that must
//! not take the exact-`str` path are tested on the bare interpreter
//! (`src/sandbox/native/vm_patch.rs`).

use super::sandbox_differential::cpython_answers;
use super::sandbox_sort::differences;
use crate::common;

use std::time::Duration;

use eval_dag::domain::Engine;
use serde_json::{Value, json};

common::on_both_engines!(row_loops_match_cpython);

/// (seed, rows) of each run: none, one, a few, enough for every key and tuple size.
const RUNS: [(u64, usize); 4] = [(1, 0), (2, 1), (3, 30), (4, 2_000)];

fn dag(seed: u64, size: usize) -> Value {
    let code = common::seeded_cases("loop_cases.py");
    json!({
        "question_id": format!("seed {seed}, {size} rows"),
        "final_answer_node": "loops",
        "nodes": [{"node_id": "loops", "function_name": "run", "layer": 0, "inputs": {},
                   "code": format!("{code}\n\ndef run():\n    return cases({seed}, {size})\n")}],
    })
}

async fn row_loops_match_cpython(engine: Engine) {
    let dags: Vec<Value> = RUNS.iter().map(|(seed, size)| dag(*seed, *size)).collect();
    let Some(expected) = cpython_answers(&Value::Array(dags.clone()).to_string()) else { return };
    let pool = common::pool_on(engine, Duration::from_secs(30), Duration::from_secs(60));
    let mismatches = differences(&pool, &dags, &expected).await;
    assert!(mismatches.is_empty(), "{mismatches:#?}");
}
