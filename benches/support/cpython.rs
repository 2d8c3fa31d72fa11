//! The CPython side of the sandbox benchmarks: DAGs run by
//! `tests/python/run_dag.py` in one `python3` process on the same data.
#![allow(dead_code)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use eval_dag::domain::GeneratedDag;
use serde_json::Value;

/// The answers of `dags` on the JSON object in `data` (one untimed run each),
/// then each DAG's seconds over `runs` runs, timed inside one interpreter
/// after loading the data. `root` is the repository.
pub fn cpython(root: &Path, data: &Path, dags: &[GeneratedDag], runs: usize) -> (Vec<Value>, Vec<Vec<f64>>) {
    let script = format!(
        "import json, sys, time\nsys.path.insert(0, {runner:?})\nimport run_dag\ndata = json.load(open({data:?}))\ndags = json.load(sys.stdin)\nanswers = [run_dag.run(d, data) for d in dags]\ntimes = []\nfor d in dags:\n    row = []\n    for _ in range({runs}):\n        t = time.perf_counter(); run_dag.run(d, data); row.append(time.perf_counter() - t)\n    times.append(row)\nprint(json.dumps([answers, times]))\n",
        runner = root.join("tests/python").display().to_string(),
        data = data.display().to_string(),
    );
    let mut child = Command::new("python3")
        .arg("-c")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    child.stdin.take().unwrap().write_all(serde_json::to_string(dags).unwrap().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    serde_json::from_slice(&out.stdout).expect("CPython answers and timings")
}
