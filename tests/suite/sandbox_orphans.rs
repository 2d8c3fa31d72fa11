//! Nothing outlives its run: every sandbox worker a command started, busy in a
//! DAG or idle, ends within a second of the command's process dying by
//! SIGKILL — `exec` (one spawned worker) and `exec --metamorphic` (a worker
//! per transformed copy of the dataset), each killed while a worker spins in
//! a DAG that never ends. (A pool of cloned workers: `sandbox_clones`.)

use crate::common;

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

/// The `sandbox-worker` processes whose parent is `parent`.
fn workers_of(parent: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(command) = std::fs::read(format!("/proc/{pid}/cmdline")) else { continue };
        let is_worker = command.split(|b| *b == 0).any(|arg| arg == b"sandbox-worker");
        let child = stat_fields(pid).is_some_and(|fields| fields[1] == parent.to_string());
        if is_worker && child && !ended(pid) {
            found.push(pid);
        }
    }
    found
}

/// CPU time (clock ticks) `pid`'s threads have used.
fn cpu_ticks(pid: u32) -> u64 {
    stat_fields(pid).map_or(0, |f| f[11].parse::<u64>().unwrap_or(0) + f[12].parse::<u64>().unwrap_or(0))
}

/// Start `eval-dag exec` of the one-node DAG `code` with `extra` arguments.
fn exec(dir: &Path, code: &str, extra: &[&str]) -> Child {
    let dag = dir.join("dag.json");
    std::fs::write(&dag, serde_json::to_string(&common::rows_dag(code)).unwrap()).unwrap();
    Command::new(env!("CARGO_BIN_EXE_eval-dag"))
        .arg("exec")
        .arg(&dag)
        .arg("--dataset")
        .arg(common::sandbox_dataset())
        .args(["--node-timeout", "120", "--dag-timeout", "240"])
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

#[test]
fn exec_killed_mid_dag_leaves_no_worker_running() {
    let dir = tempfile::tempdir().unwrap();
    let command = exec(dir.path(), "def f(rows):\n    while True:\n        pass\n", &[]);
    killed_mid_dag_leaves_no_worker(command);
}

#[test]
fn a_metamorphic_exec_killed_in_a_copy_leaves_no_worker_running() {
    let dir = tempfile::tempdir().unwrap();
    // Quick on the dataset itself; endless on a copy with rows duplicated.
    let code = "def f(rows):\n    while len(rows) > 2000:\n        pass\n    return len(rows)\n";
    let command = exec(dir.path(), code, &["--metamorphic"]);
    killed_mid_dag_leaves_no_worker(command);
}
