//! A worker process as the pool holds it: spawned by the pool, or cloned from
//! a template (see `template`) yet the pool's child all the same, so it is
//! waited for, killed and its exit read the same way; its stderr's tail; and
//! why it died, from both.

use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Child;

use super::error::{SandboxError, WorkerStage};
use super::protocol::VIOLATION;

/// Bytes of a worker's stderr kept for crash reports.
const STDERR_TAIL: usize = 4096;

/// A worker process, however it was started.
pub(super) enum WorkerProcess {
    /// Spawned from the program.
    Spawned(Child),
    /// Cloned from a template.
    #[cfg(target_os = "linux")]
    Forked(ForkedProcess),
}

impl WorkerProcess {
    /// Its process id, while it runs.
    pub(super) fn id(&self) -> Option<u32> {
        match self {
            Self::Spawned(child) => child.id(),
            #[cfg(target_os = "linux")]
            Self::Forked(forked) => forked.status.is_none().then_some(forked.pid.as_raw_nonzero().get().unsigned_abs()),
        }
    }

    /// Kill it and wait for it.
    pub(super) async fn kill(&mut self) -> io::Result<()> {
        match self {
            Self::Spawned(child) => child.kill().await,
            #[cfg(target_os = "linux")]
            Self::Forked(forked) => forked.kill().await,
        }
    }

    /// Wait for it to end.
    pub(super) async fn wait(&mut self) -> io::Result<ExitStatus> {
        match self {
            Self::Spawned(child) => child.wait().await,
            #[cfg(target_os = "linux")]
            Self::Forked(forked) => forked.wait().await,
        }
    }
}

/// A worker cloned from a template with this process as its parent, watched
/// through a pidfd; killed and reaped when dropped before it ended.
#[cfg(target_os = "linux")]
pub(super) struct ForkedProcess {
    pid: rustix::process::Pid,
    pidfd: AsyncFd<OwnedFd>,
    status: Option<ExitStatus>,
}

#[cfg(target_os = "linux")]
impl ForkedProcess {
    /// Take charge of `pid`, a child of this process not yet reaped (so the
    /// id is still its own).
    pub(super) fn adopt(pid: i32) -> io::Result<Self> {
        let pid = rustix::process::Pid::from_raw(pid).ok_or_else(|| io::Error::other("process id 0"))?;
        let pidfd = rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::NONBLOCK)?;
        // SAFETY: the descriptor is owned by the `OwnedFd` moved in, open until the `AsyncFd` drops it.
        let pidfd = unsafe { AsyncFd::register_with_interest(pidfd, tokio::io::Interest::READABLE) }?;
        Ok(Self { pid, pidfd, status: None })
    }

    async fn wait(&mut self) -> io::Result<ExitStatus> {
        loop {
            if let Some(status) = self.status {
                return Ok(status);
            }
            let mut ready = self.pidfd.readable().await?;
            match rustix::process::waitpid(Some(self.pid), rustix::process::WaitOptions::NOHANG)? {
                Some((_, status)) => self.status = Some(ExitStatus::from_raw(status.as_raw())),
                None => ready.clear_ready(),
            }
        }
    }

    async fn kill(&mut self) -> io::Result<()> {
        if self.status.is_none() {
            // A worker that has already ended (not yet reaped) cannot be
            // signalled: waiting below reads how it ended.
            match rustix::process::pidfd_send_signal(self.pidfd.get_ref(), rustix::process::Signal::KILL) {
                Ok(()) | Err(rustix::io::Errno::SRCH) => {}
                Err(err) => return Err(err.into()),
            }
        }
        self.wait().await.map(drop)
    }
}

#[cfg(target_os = "linux")]
impl Drop for ForkedProcess {
    fn drop(&mut self) {
        if self.status.is_some() {
            return;
        }
        let _ = rustix::process::pidfd_send_signal(self.pidfd.get_ref(), rustix::process::Signal::KILL);
        // Reap it off the async threads: a killed process ends at once, but
        // not always before this returns.
        let pid = self.pid;
        let _ = std::thread::Builder::new()
            .name("reap-worker".into())
            .spawn(move || rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::empty()));
    }
}

/// The last bytes a worker wrote to stderr, copied as they come.
pub(super) struct StderrTail {
    text: Arc<Mutex<String>>,
    /// The task copying; done once the worker's stderr closes.
    reader: Option<tokio::task::JoinHandle<()>>,
}

impl StderrTail {
    /// Start copying the tail of `pipe`.
    pub(super) fn follow(mut pipe: impl AsyncRead + Unpin + Send + 'static) -> Self {
        let text = Arc::new(Mutex::new(String::new()));
        let tail = text.clone();
        let reader = tokio::spawn(async move {
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
        });
        Self { text, reader: Some(reader) }
    }

    /// The tail, once the pipe has closed (or a second has passed).
    async fn last_words(&mut self) -> String {
        if let Some(reader) = self.reader.take() {
            let _ = tokio::time::timeout(Duration::from_secs(1), reader).await;
        }
        self.text.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

/// Why a worker died (at `stage`), from its exit status and stderr.
pub(super) async fn death_report(
    process: &mut WorkerProcess,
    stderr: &mut StderrTail,
    stage: WorkerStage,
) -> SandboxError {
    let status = tokio::time::timeout(Duration::from_secs(2), process.wait()).await;
    // The last words (an allocation failure, say) may still be in the pipe.
    let stderr = stderr.last_words().await;
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
