//! Workers cloned from a template, on both engines: the template loads the
//! dataset once and runs no DAG (RustPython's under a seccomp filter of its
//! own, CPython's under Landlock); every worker is a clone of it, confined by
//! itself, and a child of the pool's process (so the pool reaps it). Each DAG
//! runs in a fresh clone, so it starts from the template's clean state, not
//! from what an earlier DAG left; a template that dies is started again; with
//! cloning off, workers are spawned as before. (A CPython worker's watcher,
//! its child, is counted apart.)

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use eval_dag::domain::Engine;
use eval_dag::sandbox::{SandboxConfig, SandboxPool};
use serde_json::json;

/// A copy of the sandbox dataset in a directory of its own, so that this
/// test's processes can be told from other tests' by their command line.
fn own_dataset() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let dataset = dir.path().join("dataset");
    std::fs::create_dir(&dataset).unwrap();
    for file in ["data.json", "metadata.json"] {
        std::fs::copy(common::sandbox_dataset().join(file), dataset.join(file)).unwrap();
    }
    (dir, dataset)
}

fn pool(engine: Engine, dataset: &Path, workers: usize, clone_workers: bool) -> SandboxPool {
    let config = SandboxConfig {
        workers,
        clone_workers,
        ..common::sandbox_config_on(engine, Duration::from_secs(2), Duration::from_secs(10))
    };
    SandboxPool::new(dataset, config).unwrap()
}

/// A process serving `dataset`, as `/proc` shows it.
#[derive(Debug, Clone, PartialEq)]
struct Process {
    pid: u32,
    parent: u32,
    /// The name of its first thread: a RustPython clone's only thread is the interpreter's.
    comm: String,
    /// A template: its stdin is the pool's socket (a clone's command line is its template's).
    template: bool,
    seccomp: String,
}

impl Process {
    /// Whether it is a CPython worker's watcher: a child of another process serving the dataset.
    fn watcher_in(&self, seen: &[Process]) -> bool {
        seen.iter().any(|other| other.pid == self.parent)
    }
}

/// Whether `pid`'s stdin is a socket.
fn reads_a_socket(pid: u32) -> bool {
    std::fs::read_link(format!("/proc/{pid}/fd/0")).is_ok_and(|target| target.to_string_lossy().starts_with("socket:"))
}

fn field(status: &str, name: &str) -> String {
    status
        .lines()
        .find_map(|line| Some(line.strip_prefix(name)?.strip_prefix(':')?.trim().to_string()))
        .unwrap_or_default()
}

/// The live (not zombie) processes whose command line names `dataset`.
fn processes(dataset: &Path) -> Vec<Process> {
    let needle = dataset.to_string_lossy().into_owned();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(command) = std::fs::read(format!("/proc/{pid}/cmdline")) else { continue };
        let command = String::from_utf8_lossy(&command).replace('\0', " ");
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else { continue };
        if !command.contains(&needle) || field(&status, "State").starts_with('Z') {
            continue;
        }
        found.push(Process {
            pid,
            parent: field(&status, "PPid").parse().unwrap(),
            comm: field(&status, "Name"),
            template: reads_a_socket(pid),
            seccomp: field(&status, "Seccomp"),
        });
    }
    found.sort_by_key(|process| (!process.template, process.pid));
    found
}

/// The processes serving `dataset` but CPython workers' watchers.
fn servers(dataset: &Path) -> Vec<Process> {
    let seen = processes(dataset);
    seen.iter().filter(|process| !process.watcher_in(&seen)).cloned().collect()
}

/// Whether `pid` has been reaped (no zombie left behind).
fn reaped(pid: u32) -> bool {
    !Path::new(&format!("/proc/{pid}")).exists()
}

/// Wait (letting the runtime reap its children) until `done`.
async fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn workers_are_confined_clones_of_one_template_and_children_of_the_pool(engine: Engine) {
    let (_dir, dataset) = own_dataset();
    let pool = pool(engine, &dataset, 2, true);
    pool.warm().await;
    let all = processes(&dataset);
    let seen = servers(&dataset);
    assert_eq!(seen.len(), 3, "one template and two workers: {all:#?}");
    let watchers = all.len() - seen.len();
    assert_eq!(watchers, if engine == Engine::CPython { 2 } else { 0 }, "a watcher per CPython worker: {all:#?}");
    let (template, workers) = (&seen[0], &seen[1..]);
    assert!(template.template, "{seen:#?}");
    let ours = std::fs::read_to_string("/proc/self/status").unwrap();
    let filters = |status: &str| field(status, "Seccomp_filters").parse::<u32>().unwrap();
    for worker in workers {
        if engine == Engine::RustPython {
            assert_eq!(worker.comm, "sandbox", "a clone runs on the interpreter's thread: {seen:#?}");
        }
        assert!(!worker.template, "{seen:#?}");
        assert_eq!(worker.parent, std::process::id(), "the pool's child, not the template's: {seen:#?}");
        assert_eq!(worker.seccomp, "2", "a clone applies seccomp itself: {seen:#?}");
        let fds = std::fs::read_dir(format!("/proc/{}/fd", worker.pid)).unwrap().count();
        assert_eq!(fds, 3, "a clone holds its three pipes only");
        let status = std::fs::read_to_string(format!("/proc/{}/status", worker.pid)).unwrap();
        assert_eq!(field(&status, "NoNewPrivs"), "1");
        // RustPython's clone: its three filters on top of the template's
        // three; CPython's template has none.
        let template_filters = if engine == Engine::RustPython { 3 } else { 0 };
        assert_eq!(filters(&status), filters(&ours) + template_filters + 3, "the clone's filters");
        assert_eq!(std::fs::read_link(format!("/proc/{}/cwd", worker.pid)).unwrap(), Path::new("/"));
        let environ = std::fs::read(format!("/proc/{}/environ", worker.pid)).unwrap();
        let names: Vec<String> = String::from_utf8_lossy(&environ)
            .split('\0')
            .filter_map(|entry| Some(entry.split_once('=')?.0.to_string()))
            .collect();
        let allowed = ["RUST_BACKTRACE", "EVAL_DAG_LOG", "TZ", "PYTHONHASHSEED", "LC_CTYPE"];
        assert!(names.iter().all(|name| allowed.contains(&name.as_str())), "{names:?}");
    }
    assert_eq!(template.parent, std::process::id());
    let status = std::fs::read_to_string(format!("/proc/{}/status", template.pid)).unwrap();
    assert_eq!(field(&status, "NoNewPrivs"), "1", "the template is confined too: {seen:#?}");
    if engine == Engine::RustPython {
        assert_eq!(template.seccomp, "2", "RustPython's template is filtered: {seen:#?}");
    }
    let result = pool.run(&common::rows_dag("def f(rows):\n    return len(rows)\n"), 0).await;
    assert_eq!(result.final_answer, Some(json!(2000)), "{:?}", result.error);
    drop(pool);
    for process in &all {
        wait_until(&format!("{process:?} is gone"), || {
            reaped(process.pid) || processes(&dataset).iter().all(|p| p.pid != process.pid)
        })
        .await;
    }
}

async fn every_dag_starts_from_the_template_not_from_what_an_earlier_dag_left(engine: Engine) {
    let (_dir, dataset) = own_dataset();
    let pool = pool(engine, &dataset, 1, true);
    let spoil =
        "def f(rows):\n    decimal.setcontext(decimal.Context(prec=3))\n    return str(decimal.Decimal(1) / 3)\n";
    assert_eq!(pool.run(&common::rows_dag(spoil), 0).await.final_answer, Some(json!("0.333")));
    let read = "def f(rows):\n    return [str(decimal.Decimal(1) / 3), len(rows)]\n";
    let next = pool.run(&common::rows_dag(read), 0).await;
    assert_eq!(
        next.final_answer,
        Some(json!(["0.3333333333333333333333333333", 2000])),
        "the next DAG sees a fresh context: {:?}",
        next.error
    );
    let hang = "def f(rows):\n    while True:\n        pass\n";
    let timed_out = pool.run(&common::rows_dag(hang), 0).await;
    assert!(timed_out.error.as_deref().unwrap_or_default().contains("timed out"), "{:?}", timed_out.error);
    let fresh = pool.run(&common::rows_dag(read), 0).await;
    assert_eq!(fresh.final_answer, Some(json!(["0.3333333333333333333333333333", 2000])), "{:?}", fresh.error);
}

async fn a_template_that_dies_is_started_again(engine: Engine) {
    let (_dir, dataset) = own_dataset();
    let pool = pool(engine, &dataset, 1, true);
    let count = "def f(rows):\n    return len(rows)\n";
    assert!(pool.run(&common::rows_dag(count), 0).await.success);
    let template = processes(&dataset).into_iter().find(|p| p.template).expect("a template");
    // SAFETY: a plain system call; the template is a child of this process, not yet reaped.
    assert_eq!(unsafe { libc::kill(template.pid as i32, libc::SIGKILL) }, 0);
    let hang = "def f(rows):\n    while True:\n        pass\n";
    assert!(!pool.run(&common::rows_dag(hang), 0).await.success, "the worker is killed and must be replaced");
    let result = pool.run(&common::rows_dag(count), 0).await;
    assert_eq!(result.final_answer, Some(json!(2000)), "{:?}", result.error);
    let again = processes(&dataset).into_iter().find(|p| p.template).expect("a new template");
    assert_ne!(again.pid, template.pid);
}

async fn without_cloning_each_worker_is_spawned_from_the_program(engine: Engine) {
    let (_dir, dataset) = own_dataset();
    let pool = pool(engine, &dataset, 2, false);
    pool.warm().await;
    let seen = servers(&dataset);
    assert_eq!(seen.len(), 2, "two workers, no template: {seen:#?}");
    let spawned = |p: &Process| p.parent == std::process::id() && !p.template && p.seccomp == "2";
    assert!(seen.iter().all(spawned), "{seen:#?}");
    let result = pool.run(&common::rows_dag("def f(rows):\n    return len(rows)\n"), 0).await;
    assert_eq!(result.final_answer, Some(json!(2000)), "{:?}", result.error);
}

/// Set to a dataset directory, [`holds_a_pool_running_a_dag_that_never_ends`]
/// serves it (in a process of its own, to be killed).
const HOLDER_DATASET: &str = "EVAL_DAG_TEST_HOLDER_DATASET";
/// Set, the holder's pool runs CPython workers.
const HOLDER_ON_CPYTHON: &str = "EVAL_DAG_TEST_HOLDER_ON_CPYTHON";

/// Not a test of its own: the process [`a_pool_killed_mid_dag_leaves_no_worker_running`]
/// kills, holding a pool whose clone runs a DAG that never ends.
#[tokio::test]
#[ignore = "run by a_pool_killed_mid_dag_leaves_no_worker_running in a process of its own"]
async fn holds_a_pool_running_a_dag_that_never_ends() {
    let Some(dataset) = std::env::var_os(HOLDER_DATASET) else { return };
    let engine = if std::env::var_os(HOLDER_ON_CPYTHON).is_some() { Engine::CPython } else { Engine::RustPython };
    let pool = SandboxPool::new(
        Path::new(&dataset),
        SandboxConfig {
            clone_workers: true,
            ..common::sandbox_config_on(engine, Duration::from_secs(600), Duration::from_secs(600))
        },
    )
    .unwrap();
    let result = pool.run(&common::rows_dag("def f(rows):\n    while True:\n        pass\n"), 0).await;
    panic!("the DAG should never end: {result:?}");
}

async fn a_pool_killed_mid_dag_leaves_no_worker_running(engine: Engine) {
    let (_dir, dataset) = own_dataset();
    let mut holder = std::process::Command::new(std::env::current_exe().unwrap());
    holder
        .args(["--exact", "suite::sandbox_clones::holds_a_pool_running_a_dag_that_never_ends", "--ignored"])
        .env(HOLDER_DATASET, &dataset)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    if engine == Engine::CPython {
        holder.env(HOLDER_ON_CPYTHON, "1");
    }
    let mut holder = holder.spawn().unwrap();
    let busy = |seen: &[Process]| seen.iter().any(|p| !p.template && p.parent == holder.id() && cpu_ticks(p.pid) > 50);
    wait_until("a clone runs the DAG", || busy(&processes(&dataset))).await;
    holder.kill().unwrap(); // SIGKILL
    holder.wait().unwrap();
    // The template sees its socket close and kills its group: itself and the busy clone.
    wait_until("no process serves the dataset", || processes(&dataset).is_empty()).await;
}

/// CPU time (clock ticks) `pid` has used.
fn cpu_ticks(pid: u32) -> u64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return 0 };
    let Some((_, rest)) = stat.rsplit_once(')') else { return 0 };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    fields[11].parse::<u64>().unwrap_or(0) + fields[12].parse::<u64>().unwrap_or(0)
}

common::on_both_engines!(
    workers_are_confined_clones_of_one_template_and_children_of_the_pool,
    every_dag_starts_from_the_template_not_from_what_an_earlier_dag_left,
    a_template_that_dies_is_started_again,
    without_cloning_each_worker_is_spawned_from_the_program,
    a_pool_killed_mid_dag_leaves_no_worker_running,
);
