//! What confining a worker comes to: how far Landlock binds it, what the
//! kernel enforces, and why the seccomp filter could not be installed.

/// How far Landlock confines a thread, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Landlock {
    /// Not at all: no Landlock in this kernel (or system), or it refused the ruleset.
    Unavailable,
    /// Partly: the kernel knows an older Landlock ABI than the one asked for.
    Partial,
    /// Every restriction asked for.
    Full,
}

impl std::fmt::Display for Landlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Full => "Landlock fully enforced",
            Self::Partial => "Landlock partly enforced (older kernel ABI)",
            Self::Unavailable => "Landlock unavailable",
        })
    }
}

/// What the kernel enforces on a confined worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confinement {
    /// One line for the log.
    pub description: String,
    /// Whether every layer is in force.
    pub complete: bool,
}

/// The seccomp filter could not be installed.
#[derive(Debug, thiserror::Error)]
pub enum ConfineError {
    /// This architecture has no seccomp filter here.
    #[cfg(target_os = "linux")]
    #[error("no seccomp filter for this architecture: {0}")]
    Architecture(seccompiler::BackendError),
    /// The filter could not be built.
    #[cfg(target_os = "linux")]
    #[error("cannot build the seccomp filter: {0}")]
    Filter(seccompiler::BackendError),
    /// The kernel refused the filter.
    #[cfg(target_os = "linux")]
    #[error("cannot install the seccomp filter: {0}")]
    Install(seccompiler::Error),
    /// The SIGSYS handler could not be installed.
    #[cfg(target_os = "linux")]
    #[error("cannot install the SIGSYS handler: {0}")]
    Handler(std::io::Error),
}
