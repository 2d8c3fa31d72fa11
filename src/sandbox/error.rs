//! What goes wrong in the sandbox, as the pool reports it: set-up errors,
//! and a worker's failures, each of a [`FailureKind`] for the execution result.

use std::fmt;
use std::io;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Duration;

use super::protocol::InputSize;
use crate::domain::FailureKind;

/// What the pool reports: it could not be set up (the `sandbox:` errors of
/// [`super::SandboxPool::new`]), or a worker failed to start or to finish a DAG (put
/// into the run's [`crate::domain::ExecutionResult`]).
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

/// A duration as whole or tenth seconds: `5 s`, `2.5 s`.
fn seconds(duration: Duration) -> String {
    let s = duration.as_secs_f64();
    if s.fract() == 0.0 { format!("{s:.0} s") } else { format!("{s:.1} s") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::config::SandboxConfig;
    use std::os::unix::process::ExitStatusExt;

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
