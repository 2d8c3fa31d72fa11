//! Sandbox speed against CPython on the differential suite (one run measures
//! both): per-DAG and total medians of 5 runs, worker start-up, and per-node
//! overhead once warm. Run: `cargo bench --bench sandbox`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use eval_dag::model::GeneratedDag;
use eval_dag::sandbox::{SandboxConfig, SandboxPool};

const RUNS: usize = 5;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// CPython: per-DAG seconds for every run, timed inside one interpreter after loading the data.
fn cpython(root: &Path, dags: &str) -> Vec<Vec<f64>> {
    let script = format!(
        "import json, sys, time\nsys.path.insert(0, {runner:?})\nimport run_dag\ndata = json.load(open({data:?}))\ndags = json.load(sys.stdin)\nout = []\nfor _ in range({RUNS}):\n    row = []\n    for d in dags:\n        t = time.perf_counter(); run_dag.run(d, data); row.append(time.perf_counter() - t)\n    out.append(row)\nprint(json.dumps(out))\n",
        runner = root.join("tests/python").display().to_string(),
        data = root.join("tests/fixtures/sandbox/dataset/data.json").display().to_string(),
    );
    let mut child = Command::new("python3")
        .arg("-c")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    child.stdin.take().unwrap().write_all(dags.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let runs: Vec<Vec<f64>> = serde_json::from_slice(&out.stdout).expect("CPython timings");
    (0..runs[0].len()).map(|i| runs.iter().map(|r| r[i]).collect()).collect()
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("tests/fixtures/sandbox/differential_dags.json")).unwrap();
    let dags: Vec<GeneratedDag> = serde_json::from_str(&text).unwrap();
    let config = SandboxConfig {
        workers: 1,
        node_timeout: Duration::from_secs(60),
        dag_timeout: Duration::from_secs(120),
        executable: Some(PathBuf::from(env!("CARGO_BIN_EXE_eval-dag"))),
        ..SandboxConfig::default()
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let pool = SandboxPool::new(&root.join("tests/fixtures/sandbox/dataset"), config).unwrap();
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
    let theirs = cpython(&root, &text);
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
}
