//! The parent side: a pool of warm worker processes, started with a clean
//! environment, deadlines enforced by killing, failures (a forbidden system
//! call among them) reported as the node's error.
//!
//! A worker runs one DAG and ends, so every DAG starts from the state a fresh
//! worker has (the prelude, the dataset, the modules and their contexts),
//! whatever earlier DAGs did. Where workers are cloned, taking one starts its
//! replacement at once, so the next DAG finds a worker ready (CPython workers
//! too, when memory holds a spare); other spawned workers are started when a
//! DAG needs one.
//!
//! On Linux a pool keeps a template (see `template`): a process that loaded
//! the dataset once, which every worker of the pool is cloned from, so a
//! further worker or a replacement is ready in milliseconds instead of
//! reading the data again. Where cloning is refused, workers are spawned.

use std::path::{Path, PathBuf};
#[cfg(target_os = "linux")]
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use tokio::io::AsyncWriteExt;
use tokio::sync::Semaphore;

use super::config::{Interpreter, SandboxConfig};
use super::cpython;
use super::error::{SandboxError, WorkerStage};
use super::outcome::first_refusal;
use super::process::death_report;
use super::protocol::{InputSize, Reply, Request};
#[cfg(target_os = "linux")]
use super::start::{ForkError, Template};
use super::start::{Launch, Worker};
use crate::dag::DagExecutor;
use crate::domain::{ExecutionResult, FailureKind, GeneratedDag, NodeId};

struct Inner {
    executable: PathBuf,
    dataset_dir: PathBuf,
    config: SandboxConfig,
    idle: Mutex<Vec<Worker>>,
    slots: Semaphore,
    /// The template workers are cloned from, once started.
    #[cfg(target_os = "linux")]
    template: tokio::sync::Mutex<Option<Template>>,
    /// Set once cloning was refused: workers are spawned from then on.
    #[cfg(target_os = "linux")]
    spawn_only: AtomicBool,
}

/// Warm RustPython workers serving DAG executions; cheap to clone.
#[derive(Clone)]
pub struct SandboxPool {
    inner: Arc<Inner>,
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
        Ok(Self {
            inner: Arc::new(Inner {
                executable,
                dataset_dir,
                config,
                idle: Mutex::new(Vec::new()),
                slots,
                #[cfg(target_os = "linux")]
                template: tokio::sync::Mutex::new(None),
                #[cfg(target_os = "linux")]
                spawn_only: AtomicBool::new(false),
            }),
        })
    }

    fn launch(&self) -> Launch<'_> {
        let inner = &self.inner;
        Launch { executable: &inner.executable, dataset_dir: &inner.dataset_dir, config: &inner.config }
    }

    /// A new ready worker: cloned from the template where it can be, else spawned.
    async fn spawn(&self) -> Result<Worker, SandboxError> {
        #[cfg(target_os = "linux")]
        if self.clones() {
            match self.clone_worker().await {
                Ok(started) => return started,
                Err(err) => {
                    tracing::warn!("{err}; sandbox workers are started from the program instead");
                    self.inner.spawn_only.store(true, Ordering::Relaxed);
                }
            }
        }
        self.launch().spawn().await
    }

    /// Clone a worker from the template (started, or started again if it is
    /// gone); the worker's start, or why this system cannot clone.
    #[cfg(target_os = "linux")]
    async fn clone_worker(&self) -> Result<Result<Worker, SandboxError>, ForkError> {
        let mut slot = self.inner.template.lock().await;
        let mut attempts = 0;
        let worker = loop {
            attempts += 1;
            if !slot.as_mut().is_some_and(Template::alive) {
                match Template::start(self.launch()).await {
                    Ok(template) => *slot = Some(template),
                    Err(err) => return Ok(Err(err)),
                }
            }
            let Some(template) = slot.as_ref() else { continue };
            match template.fork().await {
                Ok(worker) => break worker,
                Err(ForkError::TemplateGone(err)) if attempts < 2 => {
                    tracing::warn!("the sandbox template is gone ({err}); starting another");
                    *slot = None;
                }
                Err(ForkError::TemplateGone(source)) => return Ok(Err(SandboxError::Spawn { source })),
                Err(unavailable) => return Err(unavailable),
            }
        };
        drop(slot);
        Ok(self.launch().ready(worker).await)
    }

    /// A ready worker for one DAG: an idle one, else a new one; where workers
    /// are cloned, its replacement is started in the background.
    async fn checkout(&self) -> Result<Worker, SandboxError> {
        let idle = self.inner.idle.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let worker = match idle {
            Some(worker) => worker,
            None => self.spawn().await?,
        };
        if self.keeps_a_spare() {
            let pool = self.clone();
            tokio::spawn(async move { pool.replenish().await });
        }
        Ok(worker)
    }

    /// Whether taking a worker starts its replacement at once: where workers
    /// are cloned (cheap), and for CPython workers spawned because cloning was
    /// refused, where memory holds one more process (`clone_workers`), each
    /// loading the data itself meanwhile.
    fn keeps_a_spare(&self) -> bool {
        match self.inner.config.interpreter {
            Interpreter::CPython(_) => self.inner.config.clone_workers,
            Interpreter::RustPython => self.clones(),
        }
    }

    /// Whether workers are cloned from a template (cheap to start in advance).
    fn clones(&self) -> bool {
        #[cfg(target_os = "linux")]
        return self.inner.config.clone_workers && !self.inner.spawn_only.load(Ordering::Relaxed);
        #[cfg(not(target_os = "linux"))]
        false
    }

    /// Start one worker and keep it idle, unless as many as the pool's
    /// size are idle already; a worker that fails to start is left for the
    /// next DAG to report.
    async fn replenish(&self) {
        let workers = self.inner.config.workers.max(1);
        if self.inner.idle.lock().unwrap_or_else(PoisonError::into_inner).len() >= workers {
            return;
        }
        if let Ok(worker) = self.spawn().await {
            self.inner.idle.lock().unwrap_or_else(PoisonError::into_inner).push(worker);
        }
    }

    /// Start the pool's workers now, in parallel, so that the first executions
    /// do not wait for start-up (as many as the pool's size, counting those
    /// already idle); a worker that fails to start is left for the first
    /// execution to report.
    pub async fn warm(&self) {
        futures::future::join_all((0..self.inner.config.workers.max(1)).map(|_| self.replenish())).await;
    }

    /// Run `dag` with `seed`; failures of any kind are inside the result.
    pub async fn run(&self, dag: &GeneratedDag, seed: u64) -> ExecutionResult {
        let now = self.inner.config.now;
        #[cfg(feature = "sandbox-test-hooks")]
        let request = Request { dag: dag.clone(), seed, now, unchecked: false };
        #[cfg(not(feature = "sandbox-test-hooks"))]
        let request = Request { dag: dag.clone(), seed, now };
        self.submit(request).await
    }

    /// Run `dag` without the language policy, its nodes holding every builtin
    /// and host access (`read_file`, `write_file`, `environ`, `connect`,
    /// `spawn`): what code that escaped the policy could do, for tests of the
    /// kernel layers behind it. Test builds only.
    #[cfg(feature = "sandbox-test-hooks")]
    pub async fn run_unchecked(&self, dag: &GeneratedDag, seed: u64) -> ExecutionResult {
        self.submit(Request { dag: dag.clone(), seed, now: self.inner.config.now, unchecked: true }).await
    }

    /// The line that asks a worker to run `request`: RustPython's workers
    /// check the language policy themselves; for CPython's it is checked here,
    /// before any code is sent.
    fn request_line(&self, request: &Request) -> Result<Line, SandboxError> {
        #[cfg(feature = "sandbox-test-hooks")]
        let unchecked = request.unchecked;
        #[cfg(not(feature = "sandbox-test-hooks"))]
        let unchecked = false;
        match self.inner.config.interpreter {
            Interpreter::RustPython => serde_json::to_string(request)
                .map(|line| Line::Send(line + "\n"))
                .map_err(|source| SandboxError::Request { source }),
            Interpreter::CPython(_) => match first_refusal(&request.dag).filter(|_| !unchecked) {
                Some((node, message)) => Ok(Line::Refused(node, message)),
                None => cpython::request_line(&request.dag, request.seed, request.now, unchecked).map(Line::Send),
            },
        }
    }

    /// Run `request` on a worker; the result names this pool's engine.
    async fn submit(&self, request: Request) -> ExecutionResult {
        ExecutionResult { engine: self.inner.config.interpreter.engine(), ..self.exchange(request).await }
    }

    async fn exchange(&self, request: Request) -> ExecutionResult {
        let dag = &request.dag;
        let started = Instant::now();
        let Ok(_slot) = self.inner.slots.acquire().await else {
            return failure(dag, None, SandboxError::ShuttingDown, started);
        };
        let line = match self.request_line(&request) {
            Ok(Line::Send(line)) => line,
            Ok(Line::Refused(node, message)) => return refused(dag, node, message, started),
            Err(error) => return failure(dag, None, error, started),
        };
        let mut worker = match self.checkout().await {
            Ok(worker) => worker,
            Err(error) => return failure(dag, None, error, started),
        };
        if let Err(err) = worker.stdin.write_all(line.as_bytes()).await {
            let report = death_report(&mut worker.process, &mut worker.stderr, WorkerStage::Sending(err)).await;
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
                    let _ = worker.process.kill().await;
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
                    Ok(Reply::Result { mut result, failure, cut }) => {
                        retire(worker);
                        result = match config.interpreter {
                            Interpreter::RustPython => ExecutionResult { failure, ..result },
                            Interpreter::CPython(_) => cpython::finish(result, dag, &cut),
                        };
                        if result.question_id.is_empty() {
                            result.question_id = dag.question_id.clone();
                        }
                        return result;
                    }
                    Ok(Reply::Ready { .. } | Reply::TemplateReady) | Err(_) => {}
                },
                Ok(_) => {
                    let report = death_report(&mut worker.process, &mut worker.stderr, WorkerStage::Running).await;
                    return failure(dag, current, report, started);
                }
            }
        }
    }
}

/// How long a worker that sent its result has to end on its own before it is killed.
const RETIRE_GRACE: Duration = Duration::from_secs(1);

/// Let a worker that ran its DAG end, and reap it, in the background.
fn retire(mut worker: Worker) {
    tokio::spawn(async move {
        if tokio::time::timeout(RETIRE_GRACE, worker.process.wait()).await.is_err() {
            let _ = worker.process.kill().await;
        }
    });
}

/// What to do with a request.
enum Line {
    /// Send this line to a worker.
    Send(String),
    /// Refused by the language policy at this node, with this message.
    Refused(NodeId, String),
}

/// A DAG the language policy refused before any worker ran it.
fn refused(dag: &GeneratedDag, node: NodeId, message: String, started: Instant) -> ExecutionResult {
    ExecutionResult {
        question_id: dag.question_id.clone(),
        error: Some(format!("node {node}: {message}")),
        error_node: Some(node),
        execution_time_ms: started.elapsed().as_secs_f64() * 1000.0,
        failure: Some(FailureKind::Policy),
        ..Default::default()
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
