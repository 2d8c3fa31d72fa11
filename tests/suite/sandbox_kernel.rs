//! The kernel layers behind the language policy, each proven on its own with
//! node code run as if the policy had fallen (`run_unchecked`: no policy, every
//! builtin, and host access standing in for an escape into native code; test
//! builds only). Each attempt first succeeds on a worker without the kernel
//! layers, so the refusal that follows is the kernel's: a forbidden system
//! call ends the worker, which is reported by name and replaced, and the next
//! DAG on the same pool runs normally. A real run's worker is checked from the
//! outside through `/proc`.

use crate::common;

use std::io::ErrorKind;
use std::path::Path;
use std::time::{Duration, Instant};

use eval_dag::domain::{Engine, ExecutionResult, GeneratedDag};
use eval_dag::sandbox::{SandboxConfig, SandboxPool};
use serde_json::json;

fn dag(code: &str) -> GeneratedDag {
    serde_json::from_value(json!({
        "question_id": "escape", "final_answer_node": "a",
        "nodes": [{"node_id": "a", "function_name": "f", "inputs": {}, "layer": 0, "code": code}]
    }))
    .unwrap()
}

/// How far a pool's workers are confined.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Layers {
    /// No kernel layers.
    None,
    /// Every kernel layer but Landlock: a kernel without it.
    WithoutLandlock,
    /// Every kernel layer.
    All,
}

fn pool_with(engine: Engine, layers: Layers) -> SandboxPool {
    let config = SandboxConfig {
        kernel_layers: layers != Layers::None,
        landlock: layers == Layers::All,
        ..common::sandbox_config_on(engine, Duration::from_secs(10), Duration::from_secs(20))
    };
    SandboxPool::new(&common::sandbox_dataset(), config).unwrap()
}

fn pool(engine: Engine, kernel_layers: bool) -> SandboxPool {
    pool_with(engine, if kernel_layers { Layers::All } else { Layers::None })
}

/// `code` reaches the host on a worker without the kernel layers, and what a
/// pool confined by `layers` makes of it (the pool is returned for the next DAG).
async fn escape_from(engine: Engine, layers: Layers, code: &str) -> (ExecutionResult, SandboxPool) {
    let open = pool(engine, false).run_unchecked(&dag(code), 0).await;
    assert!(open.success, "{engine}: without the kernel layers `{code}` should work: {:?}", open.error);
    let confined = pool_with(engine, layers);
    let result = confined.run_unchecked(&dag(code), 0).await;
    assert!(!result.success, "{engine}: `{code}` got through: {:?}", result.final_answer);
    (result, confined)
}

/// [`escape_from`] a pool with every kernel layer.
async fn escape(engine: Engine, code: &str) -> (ExecutionResult, SandboxPool) {
    escape_from(engine, Layers::All, code).await
}

/// What the error of a worker ended for the forbidden system call `call`
/// says: RustPython's handler names the call; a CPython worker, which has
/// none, is reported unnamed.
fn violation(engine: Engine, call: &str) -> String {
    match engine {
        Engine::RustPython => format!("sandbox violation: forbidden system call {call}"),
        Engine::CPython => "sandbox violation: forbidden system call (unnamed".into(),
    }
}

common::on_both_engines!(
    reading_files_is_refused_with_or_without_landlock,
    writing_a_file_without_landlock_ends_the_worker,
    the_environment_holds_only_what_the_worker_needs,
    opening_a_socket_ends_the_worker,
    spawning_a_process_ends_the_worker,
    writing_a_file_ends_the_worker,
);

/// The pool still runs ordinary DAGs over the intact dataset.
async fn assert_next_dag_runs(pool: &SandboxPool) {
    let next: GeneratedDag = serde_json::from_value(json!({
        "question_id": "next", "final_answer_node": "a",
        "nodes": [{"node_id": "a", "function_name": "f", "inputs": {"rows": "dataset.transactions"}, "layer": 0,
                   "code": "def f(rows):\n    return len(rows)\n"}]
    }))
    .unwrap();
    let result = pool.run(&next, 0).await;
    assert_eq!(result.final_answer, Some(json!(2000)), "the next DAG failed: {:?}", result.error);
}

fn error(result: &ExecutionResult) -> &str {
    result.error.as_deref().unwrap_or_default()
}

/// Landlock refuses the open where the kernel has it; seccomp refuses it
/// too, so a worker without Landlock (on a kernel without it, or left off
/// here) reads no file either.
async fn reading_files_is_refused_with_or_without_landlock(engine: Engine) {
    let data = common::sandbox_dataset().join("data.json");
    for layers in [Layers::All, Layers::WithoutLandlock] {
        for path in [Path::new("/etc/hostname"), Path::new("/proc/self/environ"), &data] {
            assert!(std::fs::read(path).is_ok(), "the test itself can read {}", path.display());
            let code = format!("def f():\n    return read_file({:?})\n", path.display());
            let (result, pool) = escape_from(engine, layers, &code).await;
            let refused = error(&result).contains("Permission denied");
            assert!(refused, "{engine}, {layers:?}, {}: {:?}", path.display(), result.error);
            assert_next_dag_runs(&pool).await;
        }
    }
}

async fn writing_a_file_without_landlock_ends_the_worker(engine: Engine) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("written.txt");
    let code = format!("def f():\n    write_file({:?}, 'x')\n    return 1\n", path.display());
    let (result, pool) = escape_from(engine, Layers::WithoutLandlock, &code).await;
    assert!(error(&result).contains(&violation(engine, "openat")), "{:?}", result.error);
    std::fs::remove_file(&path).expect("the unconfined worker wrote the file");
    let after = pool.run_unchecked(&dag(&code), 0).await;
    assert!(error(&after).contains(&violation(engine, "openat")), "a new worker is confined too: {:?}", after.error);
    assert!(!path.exists(), "a worker without Landlock wrote the file");
    assert_next_dag_runs(&pool).await;
}

async fn the_environment_holds_only_what_the_worker_needs(engine: Engine) {
    assert!(std::env::var_os("PATH").is_some(), "the test's own environment is not empty");
    let result = pool(engine, true).run_unchecked(&dag("def f():\n    return sorted(environ())\n"), 0).await;
    let names: Vec<String> = serde_json::from_value(result.final_answer.clone().expect("environ() runs")).unwrap();
    // CPython coerces the C locale to UTF-8 by setting LC_CTYPE itself.
    let (needed, allowed): (&str, &[&str]) = match engine {
        Engine::RustPython => ("RUST_BACKTRACE", &["EVAL_DAG_LOG", "RUST_BACKTRACE", "TZ"]),
        Engine::CPython => ("PYTHONHASHSEED", &["PYTHONHASHSEED", "LC_CTYPE", "TZ"]),
    };
    assert!(names.contains(&needed.to_string()), "{names:?}");
    assert!(names.iter().all(|name| allowed.contains(&name.as_str())), "{names:?}");
}

async fn opening_a_socket_ends_the_worker(engine: Engine) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let (result, pool) = escape(engine, &format!("def f():\n    connect({port})\n    return 1\n")).await;
    assert!(error(&result).contains(&violation(engine, "socket")), "{:?}", result.error);
    // The unconfined attempt connected once; the confined one never did.
    assert!(listener.accept().is_ok(), "the unconfined worker connected");
    assert_eq!(listener.accept().map(drop).unwrap_err().kind(), ErrorKind::WouldBlock);
    assert_next_dag_runs(&pool).await;
}

async fn spawning_a_process_ends_the_worker(engine: Engine) {
    let dir = tempfile::tempdir().unwrap();
    let (open, confined) = (dir.path().join("open"), dir.path().join("confined"));
    let touch = |marker: &Path| format!("def f():\n    return spawn('/usr/bin/touch', {:?})\n", marker.display());
    let unconfined = pool(engine, false).run_unchecked(&dag(&touch(&open)), 0).await;
    assert_eq!(unconfined.final_answer, Some(json!(0)), "{:?}", unconfined.error);
    assert!(open.exists(), "the unconfined worker ran touch");
    let pool = pool(engine, true);
    let result = pool.run_unchecked(&dag(&touch(&confined)), 0).await;
    assert!(error(&result).contains(&violation(engine, "clone")), "{:?}", result.error);
    assert!(!confined.exists(), "the confined worker ran touch");
    assert_next_dag_runs(&pool).await;
}

async fn writing_a_file_ends_the_worker(engine: Engine) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("written.txt");
    let code = format!("def f():\n    write_file({:?}, 'x')\n    return 1\n", path.display());
    let (result, pool) = escape(engine, &code).await;
    assert!(error(&result).contains(&violation(engine, "openat")), "{:?}", result.error);
    std::fs::remove_file(&path).expect("the unconfined worker wrote the file");
    let after = pool.run_unchecked(&dag(&format!("def f():\n    write_file({:?}, 'x')\n", path.display())), 0).await;
    assert!(error(&after).contains(&violation(engine, "openat")), "a new worker is confined too: {:?}", after.error);
    assert!(!path.exists(), "a confined worker wrote the file");
    assert_next_dag_runs(&pool).await;
}

/// The pid of `pid`'s parent.
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the command name in parentheses: state, then the parent's pid.
    stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()
}

/// The pid of the first worker the log in `home` reports ready.
fn ready_worker(home: &Path) -> Option<u32> {
    let log = std::fs::read_to_string(home.join("log.txt")).ok()?;
    let line = log.lines().find(|line| line.contains("sandbox worker ready"))?;
    line.split_whitespace().find_map(|field| field.strip_prefix("pid=")?.parse().ok())
}

fn status_field(pid: u32, field: &str) -> Option<String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|line| Some(line.strip_prefix(field)?.strip_prefix(':')?.trim().to_string()))
}

#[test]
fn a_running_rustpython_worker_is_confined_and_holds_no_api_key() {
    a_running_worker_is_confined_and_holds_no_api_key(Engine::RustPython);
}

#[test]
fn a_running_cpython_worker_is_confined_and_holds_no_api_key() {
    a_running_worker_is_confined_and_holds_no_api_key(Engine::CPython);
}

fn a_running_worker_is_confined_and_holds_no_api_key(engine: Engine) {
    const SECRET: &str = "sk-test-must-not-reach-the-worker";
    let home = tempfile::tempdir().unwrap();
    let dag_file = home.path().join("dag.json");
    // Busy for a second or more (node code's clock is the run's and stands still).
    let wait = "def f():\n    total = 0\n    for i in range(20_000_000):\n        total += i\n    return 1\n";
    std::fs::write(&dag_file, serde_json::to_string(&dag(wait)).unwrap()).unwrap();
    let exec = common::eval_dag(home.path())
        .args(["exec", "--node-timeout", "30", "--engine", engine.name(), "--dataset"])
        .arg(common::sandbox_dataset())
        .arg(&dag_file)
        .env("OPENAI_API_KEY", SECRET)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let worker = loop {
        if let Some(pid) = ready_worker(home.path()) {
            break pid;
        }
        assert!(Instant::now() < deadline, "no worker was reported ready");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(parent_of(worker), Some(exec.id()), "worker {worker} is the run's");
    let command = std::fs::read(format!("/proc/{worker}/cmdline")).unwrap();
    let program = match engine {
        Engine::RustPython => "sandbox-worker",
        Engine::CPython => "CPython sandbox worker",
    };
    assert!(String::from_utf8_lossy(&command).contains(program), "{command:?}");
    // A container runtime may filter every process (`Seccomp: 2` everywhere):
    // the worker holds its three filters on top of what the run holds.
    assert_eq!(status_field(worker, "Seccomp").as_deref(), Some("2"));
    let filters = |pid: u32| status_field(pid, "Seccomp_filters").and_then(|n| n.parse::<u32>().ok());
    let run_filters = filters(exec.id()).expect("the kernel counts seccomp filters");
    assert_eq!(filters(worker), Some(run_filters + 3), "the worker's seccomp filters");
    let parent_environ = std::fs::read(format!("/proc/{}/environ", exec.id())).unwrap();
    assert!(String::from_utf8_lossy(&parent_environ).contains(SECRET), "the parent holds the key");
    assert_eq!(status_field(worker, "NoNewPrivs").as_deref(), Some("1"));
    let environ = String::from_utf8_lossy(&std::fs::read(format!("/proc/{worker}/environ")).unwrap()).into_owned();
    assert!(!environ.contains("OPENAI_API_KEY") && !environ.contains(SECRET), "{environ:?}");
    assert_eq!(std::fs::read_link(format!("/proc/{worker}/cwd")).unwrap(), Path::new("/"));
    let mut fds: Vec<String> = std::fs::read_dir(format!("/proc/{worker}/fd"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    fds.sort();
    assert_eq!(fds, ["0", "1", "2"], "the worker holds its three pipes only");
    let output = exec.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stdout));
}

/// The allocator maps fresh memory under the allowlist, naming each mapping
/// with `prctl(PR_SET_VMA)`: a confined RustPython worker whose objects
/// outgrow the allocator's first arena (reserved at start, 1 GiB) gets its
/// answer. The buffers are zeros the allocator never writes, so they take
/// address space, not memory.
#[tokio::test]
async fn a_confined_worker_maps_fresh_memory_past_its_first_arena() {
    let config = SandboxConfig {
        memory_limit_bytes: 6 << 30,
        ..common::sandbox_config_on(Engine::RustPython, Duration::from_secs(10), Duration::from_secs(20))
    };
    let pool = SandboxPool::new(&common::sandbox_dataset(), config).unwrap();
    let code =
        "def f():\n    chunks = [bytearray(700 << 20) for _ in range(3)]\n    return sum(len(c) for c in chunks)\n";
    let result = pool.run_unchecked(&dag(code), 0).await;
    assert_eq!(result.final_answer, Some(json!(3_u64 * (700 << 20))), "{:?}", result.error);
}
