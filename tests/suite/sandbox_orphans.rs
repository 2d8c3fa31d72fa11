//! Nothing outlives its run: every sandbox worker a command started, busy in a
//! DAG or idle, ends within a second of the command's process dying by
//! SIGKILL — `exec` (one spawned worker), `exec --metamorphic` (a worker per
//! transformed copy of the dataset), a `run` over several datasets (a pool
//! per dataset, cloned workers) and a `run --metamorphic`, each killed while
//! a worker spins in a DAG that never ends; on both engines (a CPython
//! worker's watcher process included). (A pool of cloned workers alone:
//! `sandbox_clones`.)

use crate::common;

use eval_dag::domain::Engine;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `/proc/PID/stat`'s fields after the command name: state, parent, ...
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    Some(rest.split_whitespace().map(str::to_string).collect())
}

/// Whether `pid` is gone or a zombie (it ended; only its parent's reaping is left).
fn ended(pid: u32) -> bool {
    stat_fields(pid).is_none_or(|fields| fields[0] == "Z")
}

/// Whether a process's command line is a sandbox worker's: RustPython's
/// `sandbox-worker` subcommand, or CPython running the worker's script.
fn is_worker(command: &[u8]) -> bool {
    command.split(|b| *b == 0).any(|arg| arg == b"sandbox-worker" || arg.starts_with(b"# The CPython sandbox worker"))
}

/// The sandbox worker processes descended from `ancestor` (a template's
/// clones are its children), alive.
fn workers_of(ancestor: u32) -> Vec<u32> {
    let mut parents: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    let mut workers = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Some(parent) = stat_fields(pid).and_then(|f| f[1].parse::<u32>().ok()) else { continue };
        parents.insert(pid, parent);
        let Ok(command) = std::fs::read(format!("/proc/{pid}/cmdline")) else { continue };
        if is_worker(&command) && !ended(pid) {
            workers.push(pid);
        }
    }
    let descends = |mut pid: u32| {
        while let Some(&parent) = parents.get(&pid) {
            if parent == ancestor {
                return true;
            }
            pid = parent;
        }
        false
    };
    workers.into_iter().filter(|pid| descends(*pid)).collect()
}

/// CPU time (clock ticks) `pid`'s threads have used.
fn cpu_ticks(pid: u32) -> u64 {
    stat_fields(pid).map_or(0, |f| f[11].parse::<u64>().unwrap_or(0) + f[12].parse::<u64>().unwrap_or(0))
}

/// The command-line flag choosing `engine`.
fn engine_flag(engine: Engine) -> [&'static str; 2] {
    ["--engine", if engine == Engine::CPython { "cpython" } else { "rustpython" }]
}

/// Start `eval-dag exec` of the one-node DAG `code` on `engine` with `extra` arguments.
fn exec(dir: &Path, engine: Engine, code: &str, extra: &[&str]) -> Child {
    let dag = dir.join("dag.json");
    std::fs::write(&dag, serde_json::to_string(&common::rows_dag(code)).unwrap()).unwrap();
    Command::new(env!("CARGO_BIN_EXE_eval-dag"))
        .arg("exec")
        .arg(&dag)
        .arg("--dataset")
        .arg(common::sandbox_dataset())
        .args(["--node-timeout", "120", "--dag-timeout", "240"])
        .args(engine_flag(engine))
        .args(extra)
        .env("HOME", dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Kill `command` once one of its workers has spun for a second of CPU in a
/// DAG; every worker it had must end within a second.
fn killed_mid_dag_leaves_no_worker(mut command: Child) {
    let parent = command.id();
    let deadline = Instant::now() + Duration::from_secs(60);
    let workers = loop {
        let workers = workers_of(parent);
        if workers.iter().any(|&pid| cpu_ticks(pid) > 100) {
            break workers;
        }
        assert!(Instant::now() < deadline, "no worker got busy");
        assert!(command.try_wait().unwrap().is_none(), "the command ended early");
        std::thread::sleep(Duration::from_millis(50));
    };
    command.kill().unwrap(); // SIGKILL
    command.wait().unwrap();
    let killed = Instant::now();
    while !workers.iter().all(|&pid| ended(pid)) {
        assert!(killed.elapsed() < Duration::from_secs(1), "workers {workers:?} outlived their run by a second");
        std::thread::sleep(Duration::from_millis(10));
    }
}

async fn exec_killed_mid_dag_leaves_no_worker_running(engine: Engine) {
    let dir = tempfile::tempdir().unwrap();
    let command = exec(dir.path(), engine, "def f(rows):\n    while True:\n        pass\n", &[]);
    tokio::task::spawn_blocking(move || killed_mid_dag_leaves_no_worker(command)).await.unwrap();
}

async fn a_long_call_in_c_killed_leaves_no_worker_running(engine: Engine) {
    // One call that never returns to the interpreter's loop: no thread of
    // the worker could run meanwhile.
    let dir = tempfile::tempdir().unwrap();
    let command = exec(dir.path(), engine, "def f(rows):\n    return sum(range(10 ** 15))\n", &[]);
    tokio::task::spawn_blocking(move || killed_mid_dag_leaves_no_worker(command)).await.unwrap();
}

async fn a_metamorphic_exec_killed_in_a_copy_leaves_no_worker_running(engine: Engine) {
    let dir = tempfile::tempdir().unwrap();
    // Quick on the dataset itself; endless on a copy with rows duplicated.
    let code = "def f(rows):\n    while len(rows) > 2000:\n        pass\n    return len(rows)\n";
    let command = exec(dir.path(), engine, code, &["--metamorphic"]);
    tokio::task::spawn_blocking(move || killed_mid_dag_leaves_no_worker(command)).await.unwrap();
}

/// A mock model approving every layer and building, for every question of
/// the benchmark, a DAG of `code` over `dataset.rows`.
async fn looping_model(code: &'static str) -> common::mock_llm::MockLlm {
    common::mock_llm::MockLlm::start(move |request, _| {
        let prompt = request.prompt();
        if prompt.contains("review one layer") {
            let approve = serde_json::json!({"is_valid": true, "issues": [], "reasoning": "reads the rows"});
            return common::mock_llm::Reply::Text(approve.to_string());
        }
        let id = super::benchmark_run::question_id(&prompt);
        let dag = serde_json::json!({"question_id": id, "description": "read the rows", "final_answer_node": "answer",
            "edges": [], "nodes": [{"node_id": "answer", "operation": "count", "function_name": "answer",
            "inputs": {"rows": "dataset.rows"}, "expected_output_type": "int", "layer": 0, "code": code}]});
        common::mock_llm::Reply::Text(dag.to_string())
    })
    .await
}

/// Start `eval-dag run` over the made-up benchmark of three datasets in `dir`, against `mock`, on `engine`.
fn run_over_datasets(dir: &Path, engine: Engine, mock: &common::mock_llm::MockLlm, extra: &[&str]) -> Child {
    let bench = dir.join("bench");
    super::benchmark_run::write_benchmark(&bench);
    Command::new(env!("CARGO_BIN_EXE_eval-dag"))
        .arg("run")
        .arg(&bench)
        .args(["--headless", "--llm", "openai", "--model", "scripted-model", "--node-timeout", "120", "--base-url"])
        .arg(mock.base_url())
        .arg("--out")
        .arg(dir.join("run"))
        .args(engine_flag(engine))
        .args(extra)
        .env("HOME", dir)
        .env("OPENAI_API_KEY", "test-key")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

async fn a_run_over_several_datasets_killed_mid_dag_leaves_no_worker_running(engine: Engine) {
    let mock = looping_model("def answer(rows):\n    while True:\n        pass\n").await;
    let dir = tempfile::tempdir().unwrap();
    let command = run_over_datasets(dir.path(), engine, &mock, &[]);
    tokio::task::spawn_blocking(move || killed_mid_dag_leaves_no_worker(command)).await.unwrap();
}

async fn a_metamorphic_run_killed_in_a_copy_leaves_no_worker_running(engine: Engine) {
    // Every dataset has at most 4 rows: quick on each, endless on a copy with rows duplicated.
    let mock = looping_model("def answer(rows):\n    while len(rows) > 4:\n        pass\n    return len(rows)\n").await;
    let dir = tempfile::tempdir().unwrap();
    let command = run_over_datasets(dir.path(), engine, &mock, &["--metamorphic"]);
    tokio::task::spawn_blocking(move || killed_mid_dag_leaves_no_worker(command)).await.unwrap();
}

common::on_both_engines!(
    exec_killed_mid_dag_leaves_no_worker_running,
    a_long_call_in_c_killed_leaves_no_worker_running,
    a_metamorphic_exec_killed_in_a_copy_leaves_no_worker_running,
    a_run_over_several_datasets_killed_mid_dag_leaves_no_worker_running,
    a_metamorphic_run_killed_in_a_copy_leaves_no_worker_running,
);
