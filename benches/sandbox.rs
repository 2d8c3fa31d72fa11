//! Sandbox speed against CPython on the differential suite (one run measures
//! both): per-DAG and total medians of 5 runs, worker start-up, and per-node
//! overhead once warm; then what the kernel layers (Landlock, seccomp) cost:
//! start-up, the warm round trip and the suite's total, each against workers
//! without the layers measured alternately in the same run (benchmarks build
//! with the test hooks that can leave them off). Run: `cargo bench --bench sandbox`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark stops at its first failure")]

#[path = "support/cpython.rs"]
mod cpython;
#[path = "support/measure.rs"]
mod measure;

use cpython::cpython;
use measure::median;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use eval_dag::domain::GeneratedDag;
use eval_dag::sandbox::{SandboxConfig, SandboxPool};

const RUNS: usize = 5;
/// Worker starts per side when costing the kernel layers.
const STARTS: usize = 15;
/// Warm round trips per side when costing the kernel layers.
const TRIPS: usize = 200;
/// Runs of the whole suite per side when costing the kernel layers.
const SUITES: usize = 9;

/// A one-worker pool over the differential suite's dataset.
fn pool(root: &Path, kernel_layers: bool) -> SandboxPool {
    let config = SandboxConfig {
        workers: 1,
        node_timeout: Duration::from_secs(60),
        dag_timeout: Duration::from_secs(120),
        executable: Some(PathBuf::from(env!("CARGO_BIN_EXE_eval-dag"))),
        kernel_layers,
        ..SandboxConfig::default()
    };
    SandboxPool::new(&root.join("tests/fixtures/sandbox/dataset"), config).unwrap()
}

/// Seconds `f` takes.
fn time(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

/// Medians of the samples `measure(kernel_layers)` takes, `n` per side,
/// alternating sides: (with the layers, without).
fn alternating(n: usize, mut measure: impl FnMut(bool) -> f64) -> (f64, f64) {
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for _ in 0..n {
        with.push(measure(true));
        without.push(measure(false));
    }
    (median(with), median(without))
}

/// What the kernel layers cost, against workers without them in the same run.
fn kernel_layers_cost(root: &Path, runtime: &tokio::runtime::Runtime, trivial: &GeneratedDag, dags: &[GeneratedDag]) {
    let (start_with, start_without) = alternating(STARTS, |layers| {
        let pool = pool(root, layers);
        time(|| runtime.block_on(pool.warm()))
    });
    let pools = [pool(root, true), pool(root, false)];
    let warm = |layers: bool| &pools[usize::from(!layers)];
    let (trip_with, trip_without) =
        alternating(TRIPS, |layers| time(|| assert!(runtime.block_on(warm(layers).run(trivial, 0)).success)));
    let (suite_with, suite_without) = alternating(SUITES, |layers| {
        time(|| dags.iter().for_each(|dag| assert!(runtime.block_on(warm(layers).run(dag, 0)).success)))
    });
    println!("kernel layers (medians, alternating with workers without them):");
    for (what, with, without) in [
        (format!("worker start-up ({STARTS} each)"), start_with, start_without),
        (format!("warm one-node round trip ({TRIPS} each)"), trip_with, trip_without),
        (format!("differential suite, {} DAGs ({SUITES} each)", dags.len()), suite_with, suite_without),
    ] {
        println!("  {what:<42} {:>9.3} ms {:>9.3} ms without  ratio {:.3}", with * 1e3, without * 1e3, with / without);
    }
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("tests/fixtures/sandbox/differential_dags.json")).unwrap();
    let dags: Vec<GeneratedDag> = serde_json::from_str(&text).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let pool = pool(&root, true);
    let trivial: GeneratedDag =
        serde_json::from_value(serde_json::json!({"question_id": "t", "final_answer_node": "a",
        "nodes": [{"node_id": "a", "function_name": "f", "layer": 0, "code": "def f():\n    return 1\n"}]}))
        .unwrap();
    let started = Instant::now();
    runtime.block_on(pool.run(&trivial, 0));
    let startup = started.elapsed().as_secs_f64();
    let overhead = median(
        (0..20)
            .map(|_| {
                let t = Instant::now();
                runtime.block_on(pool.run(&trivial, 0));
                t.elapsed().as_secs_f64()
            })
            .collect(),
    );
    let ours: Vec<Vec<f64>> = dags
        .iter()
        .map(|dag| {
            (0..RUNS)
                .map(|_| {
                    let t = Instant::now();
                    let result = runtime.block_on(pool.run(dag, 0));
                    assert!(result.success, "{}: {:?}", dag.question_id, result.error);
                    t.elapsed().as_secs_f64()
                })
                .collect()
        })
        .collect();
    let (_, theirs) = cpython(&root, &root.join("tests/fixtures/sandbox/dataset/data.json"), &dags, RUNS);
    println!("{:<34} {:>12} {:>12} {:>7}", "DAG", "eval-dag ms", "CPython ms", "ratio");
    let (mut total_ours, mut total_theirs) = (0.0, 0.0);
    for ((dag, a), b) in dags.iter().zip(&ours).zip(&theirs) {
        let (a, b) = (median(a.clone()), median(b.clone()));
        total_ours += a;
        total_theirs += b;
        println!("{:<34} {:>12.2} {:>12.2} {:>7.1}", dag.question_id, a * 1e3, b * 1e3, a / b);
    }
    println!(
        "{:<34} {:>12.1} {:>12.1} {:>7.1}",
        "TOTAL (sum of medians)",
        total_ours * 1e3,
        total_theirs * 1e3,
        total_ours / total_theirs
    );
    println!("worker start-up (build interpreter, prelude): {:.1} ms", startup * 1e3);
    println!("warm one-node DAG round trip (median of 20): {:.2} ms", overhead * 1e3);
    kernel_layers_cost(&root, &runtime, &trivial, &dags);
}
