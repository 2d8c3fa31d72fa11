//! The template worker: a worker process that builds the interpreter, loads
//! the prelude and converts the dataset like any other, and then, instead of
//! confining itself and running DAGs, clones itself into new workers on the
//! pool's request. A new worker starts from the loaded objects (the pages are
//! shared copy-on-write until written) instead of reading `data.json` again.
//!
//! The template never runs node code. Its threads are Landlocked (it opens no
//! file once loaded) and filtered by a seccomp allowlist of its own: the
//! worker's, plus receiving descriptors, `clone` with the flags below, the
//! set-up of the kernel layers and killing its own group (see
//! `kernel::confine_template`). Each clone applies every kernel layer itself
//! before it reports ready, exactly as a worker started from scratch does, its
//! filter on top of the template's. The clone is made from the interpreter's own
//! thread (only the cloning thread lives on in the new process, and the
//! interpreter's state belongs to it) with `CLONE_PARENT`, so the new worker
//! is the pool's child, not the template's: the pool waits for it, reads its
//! exit status and kills it like any worker it spawned, and its process id
//! cannot be reused before the pool has reaped it.
//!
//! Requests come on the template's stdin, a Unix socket (see `fork_channel`).

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use super::fork_channel::{self, PIPES};

/// Clone this process on each request read from stdin; returns in the new
/// workers only, their stdin, stdout and stderr then the pipes the pool sent.
/// Once the pool closes the socket (it ended, or was killed) the template
/// kills its process group — itself and every clone, which may be busy in a
/// DAG that would not notice — and exits.
pub fn serve_forks() -> anyhow::Result<()> {
    // SAFETY: stdin stays open for the life of the process.
    let control = unsafe { BorrowedFd::borrow_raw(libc::STDIN_FILENO) };
    while let Some(pipes) = fork_channel::receive_pipes(control)? {
        match clone_into_parent() {
            Ok(0) => {
                take_pipes(pipes)?;
                return Ok(());
            }
            outcome => {
                drop(pipes);
                fork_channel::send_outcome(control, outcome)?;
            }
        }
    }
    // SAFETY: a plain system call; the group is the template's own (the pool
    // starts it as a group's leader), holding only it and its clones.
    unsafe { libc::kill(0, libc::SIGKILL) };
    std::process::exit(0)
}

/// Clone the calling thread into a new process whose parent is this
/// process's parent; 0 in the new process, its id in this one.
fn clone_into_parent() -> io::Result<i32> {
    let flags = (libc::CLONE_PARENT | libc::SIGCHLD) as libc::c_ulong;
    // SAFETY: without a new stack the child runs on a copy of this thread's
    // stack, as after fork(2). The template's other thread only waits in
    // `join` (it holds no lock), so the new process's one thread finds every
    // lock it needs free.
    let pid = unsafe { libc::syscall(libc::SYS_clone, flags, 0usize, 0usize, 0usize, 0usize) };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    i32::try_from(pid).map_err(|_| io::Error::other("clone returned an impossible process id"))
}

/// Make `pipes` this process's stdin, stdout and stderr; every other
/// descriptor (the template's socket and pipes) is closed.
fn take_pipes(pipes: [OwnedFd; PIPES]) -> io::Result<()> {
    let [stdin, stdout, stderr] = pipes;
    rustix::stdio::dup2_stdin(stdin.as_fd())?;
    rustix::stdio::dup2_stdout(stdout.as_fd())?;
    rustix::stdio::dup2_stderr(stderr.as_fd())?;
    drop((stdin, stdout, stderr));
    // SAFETY: no descriptor above stderr is owned by anything still used in
    // this process: the received pipes were dropped above, and the template
    // holds none past start-up but its socket (now replaced as stdin).
    let closed = unsafe { libc::syscall(libc::SYS_close_range, 3u32, libc::c_uint::MAX, 0u32) };
    if closed != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
