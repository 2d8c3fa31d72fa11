//! Starting workers: from the program (`eval-dag sandbox-worker`), or — on
//! Linux — cloned from a template that loaded the dataset once (see
//! `template`). Either way a worker reports ready only once it has applied
//! every kernel layer itself.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, Lines};
use tokio::process::Command;

use super::config::{Interpreter, SandboxConfig};
use super::cpython;
use super::error::{SandboxError, WorkerStage};
use super::process::{StderrTail, WorkerProcess, death_report};
use super::protocol::Reply;

/// Variables a worker inherits (when set): none holds a secret.
const INHERITED_VARIABLES: &[&str] = &["TZ"];

/// A worker's stdout, read a line at a time.
pub(super) type ReplyLines = Lines<BufReader<Box<dyn AsyncRead + Unpin + Send>>>;

/// A ready worker: its process and its pipes.
pub(super) struct Worker {
    /// The process.
    pub process: WorkerProcess,
    /// Requests go here.
    pub stdin: Box<dyn AsyncWrite + Unpin + Send>,
    /// Replies come from here.
    pub stdout: ReplyLines,
    /// Its stderr's tail, for a crash report.
    pub stderr: StderrTail,
}

/// What a worker is started from: the program, the dataset and the limits.
#[derive(Clone, Copy)]
pub(super) struct Launch<'a> {
    /// The program serving `sandbox-worker`.
    pub executable: &'a Path,
    /// The dataset's directory.
    pub dataset_dir: &'a Path,
    /// The limits.
    pub config: &'a SandboxConfig,
}

impl Launch<'_> {
    /// The worker's command: a clean environment (no API keys), no log file,
    /// a fixed working directory it cannot write to, its resource limits, and
    /// no descriptor but its three standard ones. A RustPython worker is this
    /// program's `sandbox-worker`; a CPython one the worker script.
    fn command(self, extra: Option<&OsStr>) -> Command {
        let hash_seed = self.config.hash_seed.to_string();
        let mut command = match &self.config.interpreter {
            Interpreter::RustPython => {
                let mut command = Command::new(self.executable);
                command.arg("sandbox-worker").arg("--dataset").arg(self.dataset_dir).arg("--hash-seed").arg(&hash_seed);
                command.args(extra);
                command
            }
            Interpreter::CPython(python) => {
                let mut command = Command::new(&python.path);
                // The dataset's directory is only for people reading `ps`.
                command.args(["-s", "-S", "-B", "-X", "utf8", "-c", cpython::WORKER]).arg(self.dataset_dir);
                command
            }
        };
        command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env_clear()
            .envs(INHERITED_VARIABLES.iter().filter_map(|name| Some((name, std::env::var_os(name)?))))
            .current_dir("/")
            // A process group of their own: Ctrl-C and a closing terminal
            // signal the run, which cancels its work; they must not kill the
            // workers under a DAG first (the parent ends them when it is done).
            .process_group(0)
            .kill_on_drop(true);
        match self.config.interpreter {
            Interpreter::RustPython => command.env("EVAL_DAG_LOG", "").env("RUST_BACKTRACE", "0"),
            // Set and dict orders follow the run's seed, as RustPython's do.
            Interpreter::CPython(_) => command.env("PYTHONHASHSEED", &hash_seed),
        };
        #[cfg(feature = "sandbox-test-hooks")]
        if !self.config.kernel_layers {
            command.env(super::protocol::WITHOUT_KERNEL_LAYERS, "1");
        }
        #[cfg(feature = "sandbox-test-hooks")]
        if !self.config.landlock {
            command.env(super::protocol::WITHOUT_LANDLOCK, "1");
        }
        let (memory, cpu) = (self.config.memory_limit_bytes, self.config.cpu_limit_seconds);
        // SAFETY: only async-signal-safe calls (setrlimit, close_range) run between fork and exec.
        unsafe {
            command.pre_exec(move || {
                // The worker keeps only its three standard descriptors: every
                // other inherited one closes at exec (best effort: Linux 5.11 and later).
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
        command
    }

    /// Start a worker from the program and wait until it is ready.
    pub(super) async fn spawn(self) -> Result<Worker, SandboxError> {
        let mut command = self.command(None);
        let mut child = command.stdin(Stdio::piped()).spawn().map_err(|source| SandboxError::Spawn { source })?;
        let stdin = child.stdin.take().ok_or(SandboxError::NoPipe { pipe: "stdin" })?;
        let stdout = child.stdout.take().ok_or(SandboxError::NoPipe { pipe: "stdout" })?;
        let stderr = child.stderr.take().ok_or(SandboxError::NoPipe { pipe: "stderr" })?;
        let mut stdin: Box<dyn AsyncWrite + Unpin + Send> = Box::new(stdin);
        if matches!(self.config.interpreter, Interpreter::CPython(_)) {
            let boot = cpython::boot_line(self.dataset_dir, self.layers(), child.id().unwrap_or_default())?;
            // A worker that died at once is reported by `ready` below.
            let _ = stdin.write_all(boot.as_bytes()).await;
        }
        let worker = Worker {
            process: WorkerProcess::Spawned(child),
            stdin,
            stdout: reply_lines(stdout),
            stderr: StderrTail::follow(stderr),
        };
        self.ready(worker).await
    }

    /// The kernel layers a CPython worker applies (test builds may leave them off).
    fn layers(self) -> cpython::Layers {
        #[cfg(feature = "sandbox-test-hooks")]
        return cpython::Layers { kernel: self.config.kernel_layers, landlock: self.config.landlock };
        #[cfg(not(feature = "sandbox-test-hooks"))]
        cpython::Layers { kernel: true, landlock: true }
    }

    /// Wait until `worker` reports ready; why it did not, if it did not.
    pub(super) async fn ready(self, mut worker: Worker) -> Result<Worker, SandboxError> {
        let limit = self.config.startup_timeout;
        match first_reply(&mut worker.stdout, limit).await? {
            Some(Reply::Ready { confinement, complete }) => {
                let pid = worker.process.id().unwrap_or_default();
                let forked = !matches!(worker.process, WorkerProcess::Spawned(_));
                if complete {
                    tracing::info!(pid, forked, "sandbox worker ready: {confinement}");
                } else {
                    tracing::warn!(pid, forked, "sandbox worker ready, not fully confined: {confinement}");
                }
                Ok(worker)
            }
            _ => Err(death_report(&mut worker.process, &mut worker.stderr, WorkerStage::Starting).await),
        }
    }
}

/// Line-read a worker's stdout.
pub(super) fn reply_lines(stdout: impl AsyncRead + Unpin + Send + 'static) -> ReplyLines {
    BufReader::new(Box::new(stdout) as Box<dyn AsyncRead + Unpin + Send>).lines()
}

/// The first reply of a starting process (`None`: it ended or wrote
/// something else), or a time-out after `limit`.
async fn first_reply(stdout: &mut ReplyLines, limit: Duration) -> Result<Option<Reply>, SandboxError> {
    match tokio::time::timeout(limit, stdout.next_line()).await {
        Ok(Ok(Some(line))) => Ok(serde_json::from_str(&line).ok()),
        Ok(_) => Ok(None),
        Err(_) => Err(SandboxError::StartupTimeout { limit }),
    }
}

#[cfg(target_os = "linux")]
pub(super) use cloned::{ForkError, Template};

/// Workers cloned from a template (Linux).
#[cfg(target_os = "linux")]
mod cloned {
    use std::io;
    use std::os::fd::{AsFd, OwnedFd};
    use std::os::unix::net::UnixStream;
    use std::process::Stdio;
    use std::sync::Arc;

    use tokio::net::unix::pipe;

    use std::io::Write;

    use tokio::io::AsyncWriteExt;

    use super::{Interpreter, Launch, Worker, cpython, first_reply, reply_lines};
    use crate::sandbox::error::{SandboxError, WorkerStage};
    use crate::sandbox::fork_channel;
    use crate::sandbox::process::{ForkedProcess, StderrTail, WorkerProcess, death_report};
    use crate::sandbox::protocol::Reply;

    /// Why a template could not clone a worker.
    #[derive(Debug, thiserror::Error)]
    pub(in crate::sandbox) enum ForkError {
        /// The template is gone (its socket failed): start another.
        #[error("the template worker is gone: {0}")]
        TemplateGone(io::Error),
        /// This system does not let it clone (`clone` or `pidfd_open`
        /// refused): start workers from the program instead.
        #[error("workers cannot be cloned here: {0}")]
        Unavailable(io::Error),
    }

    /// A running template and the pool's end of its socket.
    pub(in crate::sandbox) struct Template {
        process: WorkerProcess,
        stderr: StderrTail,
        control: Arc<UnixStream>,
        /// A CPython template's kernel layers: each clone is sent its seccomp
        /// programs, compiled for its process id, before it reports ready.
        cpython: Option<cpython::Layers>,
    }

    impl Template {
        /// Start a template and wait until it has loaded the dataset.
        pub(in crate::sandbox) async fn start(launch: Launch<'_>) -> Result<Self, SandboxError> {
            let (control, theirs) = UnixStream::pair().map_err(|source| SandboxError::Spawn { source })?;
            control
                .set_read_timeout(Some(launch.config.startup_timeout))
                .map_err(|source| SandboxError::Spawn { source })?;
            let mut command = launch.command(Some("--template".as_ref()));
            let mut child = command
                .stdin(Stdio::from(OwnedFd::from(theirs)))
                .spawn()
                .map_err(|source| SandboxError::Spawn { source })?;
            let stdout = child.stdout.take().ok_or(SandboxError::NoPipe { pipe: "stdout" })?;
            let stderr = child.stderr.take().ok_or(SandboxError::NoPipe { pipe: "stderr" })?;
            let cpython = matches!(launch.config.interpreter, Interpreter::CPython(_)).then(|| launch.layers());
            if cpython.is_some() {
                // A CPython template reads its boot line from the socket; one
                // that died at once is reported below.
                let boot = cpython::boot_line(launch.dataset_dir, launch.layers(), child.id().unwrap_or_default())?;
                control
                    .set_write_timeout(Some(launch.config.startup_timeout))
                    .map_err(|source| SandboxError::Spawn { source })?;
                let _ = (&control).write_all(boot.as_bytes());
            }
            let mut template = Self {
                process: WorkerProcess::Spawned(child),
                stderr: StderrTail::follow(stderr),
                control: Arc::new(control),
                cpython,
            };
            match first_reply(&mut reply_lines(stdout), launch.config.startup_timeout).await? {
                Some(Reply::TemplateReady) => {
                    tracing::info!(pid = template.process.id().unwrap_or_default(), "sandbox template ready");
                    Ok(template)
                }
                _ => Err(death_report(&mut template.process, &mut template.stderr, WorkerStage::Starting).await),
            }
        }

        /// Whether it still runs.
        pub(in crate::sandbox) fn alive(&mut self) -> bool {
            let WorkerProcess::Spawned(child) = &mut self.process else { return false };
            matches!(child.try_wait(), Ok(None))
        }

        /// Clone a new worker (not yet ready: see [`Launch::ready`]).
        pub(in crate::sandbox) async fn fork(&self) -> Result<Worker, ForkError> {
            let gone = ForkError::TemplateGone;
            let (stdin_theirs, stdin_ours) = std::io::pipe().map_err(gone)?;
            let (stdout_ours, stdout_theirs) = std::io::pipe().map_err(gone)?;
            let (stderr_ours, stderr_theirs) = std::io::pipe().map_err(gone)?;
            let control = self.control.clone();
            let asked = tokio::task::spawn_blocking(move || {
                let pipes = [stdin_theirs.as_fd(), stdout_theirs.as_fd(), stderr_theirs.as_fd()];
                fork_channel::send_pipes(&control, pipes).map_err(ForkError::TemplateGone)?;
                // Its ends close here, once the template holds them: the
                // worker's death then closes the pipes the pool reads.
                fork_channel::receive_outcome(&*control)
                    .map_err(ForkError::TemplateGone)?
                    .map_err(ForkError::Unavailable)
            });
            let pid = asked.await.map_err(|err| ForkError::TemplateGone(io::Error::other(err)))??;
            let process = ForkedProcess::adopt(pid).map_err(|err| {
                // Not watched, so not kept: it is this process's child, not yet reaped.
                // SAFETY: plain system calls on a child this process has not reaped.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                    libc::waitpid(pid, std::ptr::null_mut(), 0);
                }
                ForkError::Unavailable(err)
            })?;
            let receiver = |end: std::io::PipeReader| pipe::Receiver::from_owned_fd(OwnedFd::from(end)).map_err(gone);
            let mut stdin = pipe::Sender::from_owned_fd(OwnedFd::from(stdin_ours)).map_err(gone)?;
            if let Some(layers) = self.cpython {
                let line = cpython::clone_line(layers, pid.unsigned_abs())
                    .map_err(|err| ForkError::TemplateGone(io::Error::other(err.to_string())))?;
                // A clone that died at once is reported when it is awaited ready.
                let _ = stdin.write_all(line.as_bytes()).await;
            }
            Ok(Worker {
                process: WorkerProcess::Forked(process),
                stdin: Box::new(stdin),
                stdout: reply_lines(receiver(stdout_ours)?),
                stderr: StderrTail::follow(receiver(stderr_ours)?),
            })
        }
    }
}
