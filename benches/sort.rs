//! Sort-heavy DAGs in the sandbox against CPython on the same data, in one
//! run: `sorted` over ints, floats and strings, `key=` on dict rows, `reverse=`,
//! `list.sort`, `statistics.median`/`quantiles`, a top-k, `max` with `key` and
//! `Counter.most_common`, at 10,000 / 200,000 / 1,000,000 items (sizes as
//! arguments to run fewer). Times are medians of 5 warm runs per DAG: the
//! sandbox through a one-worker pool (the pipe round trip included), CPython
//! in one process after loading the data, via `tests/python/run_dag.py`; the
//! answers must agree. Run: `cargo bench --bench sort [-- 10000 200000]`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark stops at its first failure")]

#[path = "support/cpython.rs"]
mod cpython;
#[path = "support/measure.rs"]
mod measure;

use cpython::cpython;
use measure::median;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use eval_dag::domain::{Engine, GeneratedDag};
use eval_dag::sandbox::{DataLimits, SandboxConfig, SandboxPool};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

const RUNS: usize = 5;
const SIZES: [usize; 3] = [10_000, 200_000, 1_000_000];

/// (name, input, body of `def f(data):`) of each DAG.
const DAGS: [(&str, &str, &str); 12] = [
    ("sorted ints", "ints", "s = sorted(data)\n    return [s[0], s[len(s) // 2], s[-1]]"),
    ("sorted floats", "floats", "s = sorted(data)\n    return [s[0], s[len(s) // 2], s[-1]]"),
    ("sorted strs", "strs", "s = sorted(data)\n    return [s[0], s[len(s) // 2], s[-1]]"),
    ("rows key=amount", "rows", "s = sorted(data, key=lambda r: r['amount'])\n    return [r['id'] for r in s[:5]]"),
    (
        "rows key=(group, amount) reverse",
        "rows",
        "s = sorted(data, key=lambda r: (r['group'], r['amount']), reverse=True)\n    return [r['id'] for r in s[:5]]",
    ),
    ("floats list.sort reverse", "floats", "s = list(data)\n    s.sort(reverse=True)\n    return s[:5]"),
    ("statistics.median", "floats", "return statistics.median(data)"),
    ("statistics.quantiles n=100", "floats", "return statistics.quantiles(data, n=100)"),
    (
        "top 10 rows (sorted reverse)",
        "rows",
        "return [r['id'] for r in sorted(data, key=lambda r: r['amount'], reverse=True)[:10]]",
    ),
    ("max key=amount", "rows", "return max(data, key=lambda r: r['amount'])['id']"),
    ("Counter(ints).most_common(10)", "ints", "return collections.Counter(data).most_common(10)"),
    ("Counter(groups).most_common()", "rows", "return collections.Counter(r['group'] for r in data).most_common()"),
];

/// The dataset of `size` items: `ints` (many repeats), `floats` (cents),
/// `strs` (short, some non-ASCII) and `rows` (`id`, `amount`, `group`).
fn dataset(size: usize) -> Value {
    let mut rng = ChaCha8Rng::seed_from_u64(size as u64);
    let letters: Vec<char> = "abcdefghijklmnopqrstuvwxyzéüßøΩЖ中".chars().collect();
    let ints: Vec<i64> = (0..size).map(|_| rng.random_range(0..(size as i64 / 4).max(1))).collect();
    let floats: Vec<f64> = (0..size).map(|_| f64::from(rng.random_range(0..10_000_000)) / 100.0).collect();
    let strs: Vec<String> = (0..size)
        .map(|_| (0..rng.random_range(3..10)).map(|_| letters[rng.random_range(0..letters.len())]).collect())
        .collect();
    let rows: Vec<Value> = (0..size)
        .map(|id| json!({"id": id, "amount": f64::from(rng.random_range(0..1_000_000)) / 100.0, "group": format!("g{}", rng.random_range(0..50))}))
        .collect();
    json!({"ints": ints, "floats": floats, "strs": strs, "rows": rows})
}

fn dags() -> Vec<GeneratedDag> {
    DAGS.iter()
        .map(|(name, input, body)| {
            serde_json::from_value(json!({"question_id": name, "final_answer_node": "a", "nodes": [{
                "node_id": "a", "function_name": "f", "layer": 0, "inputs": {"data": format!("dataset.{input}")},
                "code": format!("def f(data):\n    {body}\n")}]}))
            .unwrap()
        })
        .collect()
}

/// A one-worker pool over `dir`, under the limits its data's size gives.
fn pool(dir: &Path) -> SandboxPool {
    let data_bytes = std::fs::metadata(dir.join("data.json")).unwrap().len();
    let config = SandboxConfig {
        workers: 1,
        node_timeout: Duration::from_secs(120),
        dag_timeout: Duration::from_secs(300),
        executable: Some(PathBuf::from(env!("CARGO_BIN_EXE_eval-dag"))),
        ..SandboxConfig::for_data(DataLimits { data_bytes }, None, None, Engine::RustPython).unwrap()
    };
    SandboxPool::new(dir, config).unwrap()
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { SIZES.to_vec() } else { sizes };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dags = dags();
    for size in sizes {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("data.json"), dataset(size).to_string()).unwrap();
        let (answers, theirs) = cpython(&root, &dir.path().join("data.json"), &dags, RUNS);
        let pool = pool(dir.path());
        println!("\n{size} items: medians of {RUNS} runs");
        println!("{:<36} {:>12} {:>12} {:>7}", "DAG", "eval-dag ms", "CPython ms", "ratio");
        for ((dag, answer), theirs) in dags.iter().zip(&answers).zip(theirs) {
            // The first run converts the dataset key in the worker; it is not timed.
            let first = runtime.block_on(pool.run(dag, 0));
            if !first.success || first.final_answer.as_ref() != Some(answer) {
                println!(
                    "{:<36} FAILED: {:?} (CPython: {answer})",
                    dag.question_id,
                    first.error.or(first.final_answer.map(|a| a.to_string()))
                );
                continue;
            }
            let ours = median(
                (0..RUNS)
                    .map(|_| {
                        let t = Instant::now();
                        assert!(runtime.block_on(pool.run(dag, 0)).success);
                        t.elapsed().as_secs_f64()
                    })
                    .collect(),
            );
            let theirs = median(theirs);
            println!("{:<36} {:>12.1} {:>12.1} {:>7.2}", dag.question_id, ours * 1e3, theirs * 1e3, ours / theirs);
        }
    }
}
