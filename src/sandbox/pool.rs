//! The parent side: a pool of warm worker processes, started with a clean
//! environment, deadlines enforced by killing, dead workers replaced, failures
//! (a forbidden system call among them) reported as the node's error.

use std::fmt;
use std::io;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::Semaphore;

use super::limits::{DataLimits, TooBig};
use super::protocol::{InputSize, Reply, Request, VIOLATION};
use crate::dag::DagExecutor;
use crate::domain::{ExecutionResult, FailureKind, GeneratedDag, NodeId};

/// Bytes of a worker's stderr kept for crash reports.
const STDERR_TAIL: usize = 4096;
/// Variables a worker inherits (when set): none holds a secret.
const INHERITED_VARIABLES: &[&str] = &["TZ"];

/// Limits and size of the pool.
#[derive(Debug, Clone)]
pub struct SandboxConfig {
    /// Worker processes (default: the machine's cores).
    pub workers: usize,
    /// Longest a single node may run.
    pub node_timeout: Duration,
    /// Longest a whole DAG may run.
    pub dag_timeout: Duration,
    /// Longest a worker may take to start (build the interpreter, convert the data).
    pub startup_timeout: Duration,
    /// Address-space limit of each worker.
    pub memory_limit_bytes: u64,
    /// CPU-seconds limit over a worker's life (a backstop; wall-clock kills come first).
    pub cpu_limit_seconds: u64,
    /// The executable that serves `sandbox-worker` (default: this program).
    pub executable: Option<PathBuf>,
    /// Whether workers apply the kernel layers (test builds can leave them
    /// off, to measure their cost).
    #[cfg(feature = "sandbox-test-hooks")]
    pub kernel_layers: bool,
    /// Whether workers apply Landlock among the kernel layers (test builds
    /// can leave it off, to stand for a kernel without it).
    #[cfg(feature = "sandbox-test-hooks")]
    pub landlock: bool,
}

impl SandboxConfig {
    /// The limits of workers over `limits`' dataset (see `limits`): as many
    /// workers as the machine has cores and `available` bytes of memory
    /// hold, with the node limit `node_timeout` or the size's default; an
    /// error when not even one worker fits.
    pub fn for_data(
        limits: DataLimits,
        node_timeout: Option<Duration>,
        available: Option<u64>,
    ) -> Result<Self, TooBig> {
        let defaults = Self::default();
        let workers = match available {
            Some(available) => limits.workers_that_fit(defaults.workers, available)?,
            None => defaults.workers,
        };
        let node_timeout = node_timeout.unwrap_or_else(|| limits.default_node_timeout());
        Ok(Self {
            workers,
            node_timeout,
            dag_timeout: DataLimits::dag_timeout(node_timeout),
            startup_timeout: limits.startup(),
            memory_limit_bytes: limits.address_space(),
            ..defaults
        })
    }
}

impl Default for SandboxConfig {
    fn default() -> Self {
        Self {
            workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
            node_timeout: Duration::from_secs(5),
            dag_timeout: Duration::from_secs(30),
            startup_timeout: Duration::from_secs(60),
            memory_limit_bytes: 2 << 30,
            cpu_limit_seconds: 3600,
            executable: None,
            #[cfg(feature = "sandbox-test-hooks")]
            kernel_layers: true,
            #[cfg(feature = "sandbox-test-hooks")]
            landlock: true,
        }
    }
}

/// What the pool reports: it could not be set up (the `sandbox:` errors of
/// [`SandboxPool::new`]), or a worker failed to start or to finish a DAG (put
/// into the run's [`ExecutionResult`]).
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// This program's path is unknown.
    #[error("sandbox: cannot find this program: {source}")]
    Executable {
        /// The cause.
        source: io::Error,
    },
    /// A path could not be made absolute.
    #[error("sandbox: cannot resolve {}: {source}", path.display())]
    Resolve {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// The worker process could not be started.
    #[error("cannot start a sandbox worker: {source}")]
    Spawn {
        /// The cause.
        source: io::Error,
    },
    /// The worker process lacks one of its pipes.
    #[error("worker has no {pipe}")]
    NoPipe {
        /// `stdin` or `stdout`.
        pipe: &'static str,
    },
    /// The worker did not report ready in time.
    #[error("the sandbox worker did not start within {}", seconds(*limit))]
    StartupTimeout {
        /// How long it was given.
        limit: Duration,
    },
    /// The kernel stopped the worker for a forbidden system call.
    #[error(
        "sandbox violation: forbidden system call {} (the kernel stopped the worker; a new one replaces it)",
        call.as_deref().unwrap_or("(unnamed: the worker could not report it)")
    )]
    Violation {
        /// The call's name (or `number N`), as the worker reported it.
        call: Option<String>,
    },
    /// The worker ran out of memory.
    #[error("memory limit exceeded")]
    MemoryLimit,
    /// The worker used up its CPU time.
    #[error("CPU time limit exceeded")]
    CpuLimit,
    /// The worker aborted or faulted.
    #[error("worker crashed: {status}{}", last_words(last_line))]
    Crashed {
        /// How it ended.
        status: ExitStatus,
        /// The last line it wrote to stderr.
        last_line: Option<String>,
    },
    /// The worker ended otherwise while the pool was at `stage`.
    #[error("{stage}: worker crashed: {status}{}", last_words(last_line))]
    Ended {
        /// What the pool was doing.
        stage: WorkerStage,
        /// How it ended.
        status: ExitStatus,
        /// The last line it wrote to stderr.
        last_line: Option<String>,
    },
    /// The worker is gone, how is unknown (it could not be waited for).
    #[error("{stage}: worker crashed")]
    Lost {
        /// What the pool was doing.
        stage: WorkerStage,
    },
    /// A node ran past its deadline.
    #[error("node timed out after {}{}", seconds(*limit), input_sizes(inputs))]
    NodeTimeout {
        /// The node deadline.
        limit: Duration,
        /// How many items (rows) each of its collection inputs held.
        inputs: Vec<InputSize>,
    },
    /// The DAG ran past its deadline.
    #[error("DAG timed out after {}", seconds(*limit))]
    DagTimeout {
        /// The DAG deadline.
        limit: Duration,
    },
    /// The pool is closing.
    #[error("the sandbox is shutting down")]
    ShuttingDown,
    /// The DAG could not be written as a request line.
    #[error("cannot send the DAG to a worker: {source}")]
    Request {
        /// The cause.
        source: serde_json::Error,
    },
}

impl SandboxError {
    /// The kind of failure this is, for the execution result it ends.
    pub fn kind(&self) -> FailureKind {
        match self {
            Self::NodeTimeout { .. } | Self::DagTimeout { .. } | Self::CpuLimit => FailureKind::TimeOut,
            Self::MemoryLimit => FailureKind::Memory,
            Self::Violation { .. } => FailureKind::Policy,
            _ => FailureKind::Error,
        }
    }
}

/// What the pool was doing with a worker when it died.
#[derive(Debug)]
pub enum WorkerStage {
    /// Starting it.
    Starting,
    /// Sending it a DAG, which failed.
    Sending(io::Error),
    /// Waiting for a DAG's result.
    Running,
}

impl fmt::Display for WorkerStage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Starting => f.write_str("the sandbox worker failed to start"),
            Self::Sending(err) => write!(f, "sending the DAG failed ({err})"),
            Self::Running => f.write_str("the DAG stopped the worker"),
        }
    }
}

/// ` on its inputs rows (200000 items), ...`, or nothing.
fn input_sizes(inputs: &[InputSize]) -> String {
    if inputs.is_empty() {
        return String::new();
    }
    let sizes: Vec<String> = inputs.iter().map(|input| format!("{} ({} items)", input.param, input.items)).collect();
    format!(" on its inputs {}", sizes.join(", "))
}

/// ` (last line)`, or nothing.
fn last_words(last_line: &Option<String>) -> String {
    last_line.as_ref().map_or_else(String::new, |last| format!(" ({last})"))
}

struct Worker {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    stderr: Arc<Mutex<String>>,
    /// The task copying stderr into `stderr`; done once the worker's stderr closes.
    stderr_reader: Option<tokio::task::JoinHandle<()>>,
}

struct Inner {
    executable: PathBuf,
    dataset_dir: PathBuf,
    config: SandboxConfig,
    idle: Mutex<Vec<Worker>>,
    slots: Semaphore,
}

/// Warm RustPython workers serving DAG executions; cheap to clone.
#[derive(Clone)]
pub struct SandboxPool {
    inner: Arc<Inner>,
}

fn seconds(duration: Duration) -> String {
    let s = duration.as_secs_f64();
    if s.fract() == 0.0 { format!("{s:.0} s") } else { format!("{s:.1} s") }
}

impl SandboxPool {
    /// A pool over the dataset in `dataset_dir`; workers start on first use.
    pub fn new(dataset_dir: &Path, config: SandboxConfig) -> Result<Self, SandboxError> {
        let executable = match &config.executable {
            Some(path) => path.clone(),
            None => std::env::current_exe().map_err(|source| SandboxError::Executable { source })?,
        };
        // Workers run from `/`: paths relative to this directory are resolved here.
        let absolute = |path: &Path| {
            std::path::absolute(path).map_err(|source| SandboxError::Resolve { path: path.to_path_buf(), source })
        };
        let (executable, dataset_dir) = (absolute(&executable)?, absolute(dataset_dir)?);
        let slots = Semaphore::new(config.workers.max(1));
        Ok(Self { inner: Arc::new(Inner { executable, dataset_dir, config, idle: Mutex::new(Vec::new()), slots }) })
    }

    async fn spawn(&self) -> Result<Worker, SandboxError> {
        let inner = &self.inner;
        let mut command = Command::new(&inner.executable);
        // A clean environment (no API keys), no log file, a fixed working
        // directory it cannot write to (the kernel layers refuse any write).
        command
            .arg("sandbox-worker")
            .arg("--dataset")
            .arg(&inner.dataset_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env_clear()
            .envs(INHERITED_VARIABLES.iter().filter_map(|name| Some((name, std::env::var_os(name)?))))
            .env("EVAL_DAG_LOG", "")
            .env("RUST_BACKTRACE", "0")
            .current_dir("/")
            // A process group of their own: Ctrl-C and a closing terminal
            // signal the run, which cancels its work; they must not kill the
            // workers under a DAG first (the parent ends them when it is done).
            .process_group(0)
            .kill_on_drop(true);
        #[cfg(feature = "sandbox-test-hooks")]
        if !inner.config.kernel_layers {
            command.env(super::protocol::WITHOUT_KERNEL_LAYERS, "1");
        }
        #[cfg(feature = "sandbox-test-hooks")]
        if !inner.config.landlock {
            command.env(super::protocol::WITHOUT_LANDLOCK, "1");
        }
        let (memory, cpu) = (inner.config.memory_limit_bytes, inner.config.cpu_limit_seconds);
        // SAFETY: only async-signal-safe calls (setrlimit, close_range) run between fork and exec.
        unsafe {
            command.pre_exec(move || {
                // The worker keeps only its three pipes: every other inherited
                // descriptor closes at exec (best effort: Linux 5.11 and later).
                #[cfg(target_os = "linux")]
                libc::syscall(libc::SYS_close_range, 3, libc::c_uint::MAX, libc::CLOSE_RANGE_CLOEXEC);
                let limit = |resource, value: u64| {
                    let rlim = libc::rlimit { rlim_cur: value as libc::rlim_t, rlim_max: value as libc::rlim_t };
                    if libc::setrlimit(resource, &rlim) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                };
                limit(libc::RLIMIT_AS, memory)?;
                limit(libc::RLIMIT_CPU, cpu)?;
                limit(libc::RLIMIT_CORE, 0)
            });
        }
        let mut child = command.spawn().map_err(|source| SandboxError::Spawn { source })?;
        let stdin = child.stdin.take().ok_or(SandboxError::NoPipe { pipe: "stdin" })?;
        let stdout = BufReader::new(child.stdout.take().ok_or(SandboxError::NoPipe { pipe: "stdout" })?).lines();
        let stderr = Arc::new(Mutex::new(String::new()));
        let stderr_reader = child.stderr.take().map(|mut pipe| {
            let tail = stderr.clone();
            tokio::spawn(async move {
                let mut buffer = [0u8; 1024];
                while let Ok(n) = pipe.read(&mut buffer).await {
                    if n == 0 {
                        break;
                    }
                    let mut tail = tail.lock().unwrap_or_else(PoisonError::into_inner);
                    tail.push_str(&String::from_utf8_lossy(&buffer[..n]));
                    if tail.len() > STDERR_TAIL {
                        let cut = tail.len() - STDERR_TAIL;
                        let cut = (cut..tail.len()).find(|i| tail.is_char_boundary(*i)).unwrap_or(0);
                        tail.drain(..cut);
                    }
                }
            })
        });
        let mut worker = Worker { child, stdin, stdout, stderr, stderr_reader };
        let startup_timeout = inner.config.startup_timeout;
        match tokio::time::timeout(startup_timeout, worker.stdout.next_line()).await {
            Ok(Ok(Some(line))) => match serde_json::from_str(&line) {
                Ok(Reply::Ready { confinement, complete }) => {
                    let pid = worker.child.id().unwrap_or_default();
                    if complete {
                        tracing::info!(pid, "sandbox worker ready: {confinement}");
                    } else {
                        tracing::warn!(pid, "sandbox worker ready, not fully confined: {confinement}");
                    }
                    Ok(worker)
                }
                _ => Err(self.death_report(&mut worker, WorkerStage::Starting).await),
            },
            Ok(_) => Err(self.death_report(&mut worker, WorkerStage::Starting).await),
            Err(_) => Err(SandboxError::StartupTimeout { limit: startup_timeout }),
        }
    }

    /// Why a worker died (at `stage`), from its exit status and stderr.
    async fn death_report(&self, worker: &mut Worker, stage: WorkerStage) -> SandboxError {
        let status = tokio::time::timeout(Duration::from_secs(2), worker.child.wait()).await;
        // The last words (an allocation failure, say) may still be in the pipe.
        if let Some(reader) = worker.stderr_reader.take() {
            let _ = tokio::time::timeout(Duration::from_secs(1), reader).await;
        }
        let stderr = worker.stderr.lock().unwrap_or_else(PoisonError::into_inner).clone();
        if matches!(&status, Ok(Ok(status)) if status.signal() == Some(libc::SIGSYS)) {
            let call = stderr.lines().rev().find_map(|line| line.trim().strip_prefix(VIOLATION));
            return SandboxError::Violation { call: call.map(str::to_string) };
        }
        let memory =
            stderr.contains("memory allocation") || stderr.contains("MemoryError") || stderr.contains("out of memory");
        if memory {
            return SandboxError::MemoryLimit;
        }
        let last_line = stderr.lines().rev().map(str::trim).find(|l| !l.is_empty()).map(str::to_string);
        match status {
            Ok(Ok(status)) if status.signal() == Some(libc::SIGXCPU) => SandboxError::CpuLimit,
            Ok(Ok(status)) if status.signal() == Some(libc::SIGABRT) || status.signal() == Some(libc::SIGSEGV) => {
                SandboxError::Crashed { status, last_line }
            }
            Ok(Ok(status)) => SandboxError::Ended { stage, status, last_line },
            _ => SandboxError::Lost { stage },
        }
    }

    async fn checkout(&self) -> Result<Worker, SandboxError> {
        let idle = self.inner.idle.lock().unwrap_or_else(PoisonError::into_inner).pop();
        match idle {
            Some(worker) => Ok(worker),
            None => self.spawn().await,
        }
    }

    /// Start the pool's workers now, in parallel, so that the first executions
    /// do not wait for start-up. A slot whose worker is already idle is skipped;
    /// a worker that fails to start is left for the first execution to report.
    pub async fn warm(&self) {
        let starts = (0..self.inner.config.workers.max(1)).map(|_| async {
            let Ok(_slot) = self.inner.slots.acquire().await else { return };
            if !self.inner.idle.lock().unwrap_or_else(PoisonError::into_inner).is_empty() {
                return;
            }
            if let Ok(worker) = self.spawn().await {
                self.inner.idle.lock().unwrap_or_else(PoisonError::into_inner).push(worker);
            }
        });
        futures::future::join_all(starts).await;
    }

    /// Run `dag` with `seed`; failures of any kind are inside the result.
    pub async fn run(&self, dag: &GeneratedDag, seed: u64) -> ExecutionResult {
        #[cfg(feature = "sandbox-test-hooks")]
        let request = Request { dag: dag.clone(), seed, unchecked: false };
        #[cfg(not(feature = "sandbox-test-hooks"))]
        let request = Request { dag: dag.clone(), seed };
        self.submit(request).await
    }

    /// Run `dag` without the language policy, its nodes holding every builtin
    /// and host access (`read_file`, `write_file`, `environ`, `connect`,
    /// `spawn`): what code that escaped the policy could do, for tests of the
    /// kernel layers behind it. Test builds only.
    #[cfg(feature = "sandbox-test-hooks")]
    pub async fn run_unchecked(&self, dag: &GeneratedDag, seed: u64) -> ExecutionResult {
        self.submit(Request { dag: dag.clone(), seed, unchecked: true }).await
    }

    async fn submit(&self, request: Request) -> ExecutionResult {
        let dag = &request.dag;
        let started = Instant::now();
        let Ok(_slot) = self.inner.slots.acquire().await else {
            return failure(dag, None, SandboxError::ShuttingDown, started);
        };
        let line = match serde_json::to_string(&request) {
            Ok(line) => line + "\n",
            Err(source) => return failure(dag, None, SandboxError::Request { source }, started),
        };
        let mut worker = match self.checkout().await {
            Ok(worker) => worker,
            Err(error) => return failure(dag, None, error, started),
        };
        if let Err(err) = worker.stdin.write_all(line.as_bytes()).await {
            let report = self.death_report(&mut worker, WorkerStage::Sending(err)).await;
            return failure(dag, None, report, started);
        }
        let config = &self.inner.config;
        let dag_deadline = Instant::now() + config.dag_timeout;
        let mut node_deadline = dag_deadline;
        let mut current: Option<NodeId> = None;
        let mut current_inputs: Vec<InputSize> = Vec::new();
        loop {
            let deadline = node_deadline.min(dag_deadline);
            let wait = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(wait, worker.stdout.next_line()).await {
                Err(_) => {
                    let _ = worker.child.kill().await;
                    let error = if node_deadline <= dag_deadline {
                        SandboxError::NodeTimeout { limit: config.node_timeout, inputs: current_inputs }
                    } else {
                        SandboxError::DagTimeout { limit: config.dag_timeout }
                    };
                    return failure(dag, current, error, started);
                }
                Ok(Ok(Some(line))) => match serde_json::from_str::<Reply>(&line) {
                    Ok(Reply::Node { node_id, inputs }) => {
                        current = Some(node_id);
                        current_inputs = inputs;
                        node_deadline = Instant::now() + config.node_timeout;
                    }
                    Ok(Reply::Result { mut result }) => {
                        self.inner.idle.lock().unwrap_or_else(PoisonError::into_inner).push(worker);
                        if result.question_id.is_empty() {
                            result.question_id = dag.question_id.clone();
                        }
                        return result;
                    }
                    Ok(Reply::Ready { .. }) | Err(_) => {}
                },
                Ok(_) => {
                    let report = self.death_report(&mut worker, WorkerStage::Running).await;
                    return failure(dag, current, report, started);
                }
            }
        }
    }
}

fn failure(dag: &GeneratedDag, node: Option<NodeId>, error: SandboxError, started: Instant) -> ExecutionResult {
    ExecutionResult {
        question_id: dag.question_id.clone(),
        success: false,
        error: Some(match &node {
            Some(node) => format!("node {node}: {error}"),
            None => error.to_string(),
        }),
        error_node: node,
        execution_time_ms: started.elapsed().as_secs_f64() * 1000.0,
        failure: Some(error.kind()),
        ..Default::default()
    }
}

impl DagExecutor for SandboxPool {
    fn execute<'a>(&'a self, dag: &'a GeneratedDag, seed: u64) -> BoxFuture<'a, ExecutionResult> {
        Box::pin(self.run(dag, seed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_read_as_they_always_have() {
        let exited = |code: i32| ExitStatus::from_raw(code << 8);
        let cases = [
            (
                SandboxError::StartupTimeout { limit: SandboxConfig::default().startup_timeout },
                "the sandbox worker did not start within 60 s",
            ),
            (
                SandboxError::NodeTimeout { limit: Duration::from_millis(2500), inputs: vec![] },
                "node timed out after 2.5 s",
            ),
            (
                SandboxError::NodeTimeout {
                    limit: Duration::from_secs(5),
                    inputs: vec![
                        InputSize { param: "rows".into(), items: 200_000 },
                        InputSize { param: "totals".into(), items: 14 },
                    ],
                },
                "node timed out after 5 s on its inputs rows (200000 items), totals (14 items)",
            ),
            (SandboxError::DagTimeout { limit: Duration::from_secs(30) }, "DAG timed out after 30 s"),
            (
                SandboxError::Violation { call: None },
                "sandbox violation: forbidden system call (unnamed: the worker could not report it) \
                 (the kernel stopped the worker; a new one replaces it)",
            ),
            (
                SandboxError::Crashed { status: ExitStatus::from_raw(libc::SIGSEGV), last_line: None },
                "worker crashed: signal: 11 (SIGSEGV)",
            ),
            (
                SandboxError::Ended { stage: WorkerStage::Starting, status: exited(1), last_line: Some("boom".into()) },
                "the sandbox worker failed to start: worker crashed: exit status: 1 (boom)",
            ),
            (
                SandboxError::Lost { stage: WorkerStage::Sending(io::Error::other("broken pipe")) },
                "sending the DAG failed (broken pipe): worker crashed",
            ),
            (SandboxError::NoPipe { pipe: "stdin" }, "worker has no stdin"),
        ];
        for (error, message) in cases {
            assert_eq!(error.to_string(), message);
        }
    }
}
