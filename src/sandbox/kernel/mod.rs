//! The kernel's layers behind the language policy. A worker applies them once
//! start-up is over (interpreter built, prelude loaded, dataset converted) and
//! before it reads its first request, so they hold if the policy ever falls:
//!
//! - **Landlock** (best effort: kernels from 5.13 have it, later ones more of
//!   it): no file may be opened, created or changed, no TCP port bound or
//!   connected, no signal sent and no abstract Unix socket reached outside the
//!   worker. It does not hide metadata (`stat` of a path still answers).
//! - **seccomp-bpf** (required on Linux: a worker that cannot install it does
//!   not start): only an allowlist of system calls passes (see `seccomp`).
//!   Any other call traps and ends the worker by SIGSYS; the parent reports a
//!   sandbox violation naming the call and starts a new worker. Opening a file
//!   for reading fails (EACCES) as under Landlock, so no file is read on a
//!   kernel without Landlock either: a ready worker needs none (its dataset is
//!   loaded and the standard library frozen into the program).
//!
//! Both are Linux features; elsewhere a worker runs under the language policy
//! and its resource limits only, and says so.

mod outcome;
#[cfg(target_os = "linux")]
mod seccomp;

pub use outcome::{ConfineError, Confinement, Landlock};

/// Confine the calling thread, and threads it starts later, with Landlock:
/// no file-system access at all, no TCP, no signals or abstract Unix sockets
/// outside the worker. Best effort; sets `PR_SET_NO_NEW_PRIVS`. Landlock
/// binds threads (before its ABI 8), so every thread of a worker calls this.
#[cfg(target_os = "linux")]
pub fn restrict_thread() -> Landlock {
    use landlock::{ABI, Access, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetStatus, Scope};
    // The newest ABI whose restrictions are asked for; older kernels enforce what they know.
    const ABI: ABI = ABI::V6;
    let status = Ruleset::default()
        .handle_access(AccessFs::from_all(ABI))
        .and_then(|r| r.handle_access(AccessNet::from_all(ABI)))
        .and_then(|r| r.scope(Scope::from_all(ABI)))
        .and_then(|r| r.create())
        .and_then(|r| r.restrict_self());
    match status.map(|s| s.ruleset) {
        Ok(RulesetStatus::FullyEnforced) => Landlock::Full,
        Ok(RulesetStatus::PartiallyEnforced) => Landlock::Partial,
        Ok(RulesetStatus::NotEnforced) | Err(_) => Landlock::Unavailable,
    }
}

/// Without Linux: no Landlock.
#[cfg(not(target_os = "linux"))]
pub fn restrict_thread() -> Landlock {
    Landlock::Unavailable
}

/// Install the seccomp filter on every thread of the process. `landlock` is
/// how far Landlock confines the process's threads (see [`restrict_thread`]).
#[cfg(target_os = "linux")]
pub fn confine(landlock: Landlock) -> Result<Confinement, ConfineError> {
    seccomp::install()?;
    Ok(Confinement {
        description: format!("seccomp allowlist installed (no file opens), {landlock}"),
        complete: landlock == Landlock::Full,
    })
}

/// Install the template's seccomp filter on every thread of the process: the
/// worker's allowlist plus what cloning workers takes (see `seccomp`). Its
/// clones install the worker's filter on top of it.
#[cfg(target_os = "linux")]
pub fn confine_template() -> Result<(), ConfineError> {
    seccomp::install_template()
}

/// The seccomp programs of the CPython worker whose process id is `pid`, as
/// bytes it installs itself (see `seccomp`).
#[cfg(target_os = "linux")]
pub fn cpython_programs(pid: u32) -> Result<Vec<Vec<u8>>, ConfineError> {
    seccomp::cpython_programs(pid)
}

/// Without Linux: no seccomp programs.
#[cfg(not(target_os = "linux"))]
pub fn cpython_programs(_pid: u32) -> Result<Vec<Vec<u8>>, ConfineError> {
    Ok(Vec::new())
}

/// Without Linux: no kernel layers.
#[cfg(not(target_os = "linux"))]
pub fn confine(_landlock: Landlock) -> Result<Confinement, ConfineError> {
    Ok(Confinement { description: "no kernel layers (they need Linux)".into(), complete: false })
}
