//! A worker ends with its parent: the main thread of a spawned worker, idle
//! once the interpreter thread runs, watches the pipe of its stdout and ends
//! the process when the parent (the only reader) is gone — killed by SIGKILL
//! included, and whether or not the interpreter thread is busy in a DAG that
//! would never write again. (A template's clones end with the template,
//! which kills its process group when the pool's socket closes.)

use std::thread::JoinHandle;
use std::time::Duration;

/// How often the main thread looks at whether the interpreter thread ended.
const PARENT_WATCH: Duration = Duration::from_millis(100);

/// Wait until `interpreter` finishes, ending the whole process at once if the
/// parent goes first.
pub fn until_finished<T>(interpreter: &JoinHandle<T>) {
    while !interpreter.is_finished() {
        if parent_gone(PARENT_WATCH) {
            // SAFETY: ends the process at once; nothing it holds needs saving.
            unsafe { libc::_exit(1) };
        }
    }
}

/// Whether the parent is gone, waiting up to `wait` for it to go: the read end
/// of stdout (held by the parent alone) closed, which `poll` reports on the
/// write end as an error, whether or not the worker is writing.
fn parent_gone(wait: Duration) -> bool {
    let mut stdout = libc::pollfd { fd: libc::STDOUT_FILENO, events: 0, revents: 0 };
    let millis = libc::c_int::try_from(wait.as_millis()).unwrap_or(libc::c_int::MAX);
    // SAFETY: one valid pollfd, for the duration of the call.
    let ready = unsafe { libc::poll(&mut stdout, 1, millis) };
    ready > 0 && stdout.revents & (libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0
}
