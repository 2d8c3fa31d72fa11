//! Driving the real binary in a real terminal: tmux sessions, keys and screen captures.

use std::process::Command;
use std::time::{Duration, Instant};

/// Run tmux with `args`; its standard output.
pub fn tmux(args: &[&str]) -> String {
    let out = Command::new("tmux").args(args).output().expect("tmux runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The screen once it shows `needle`, or after 15 s.
pub fn wait_for(session: &str, needle: &str) -> String {
    wait_for_all(session, &[needle])
}

/// The screen once it shows every one of `needles` (a capture taken while a
/// frame is being written can show only part of it), or after 15 s.
pub fn wait_for_all(session: &str, needles: &[&str]) -> String {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let screen = tmux(&["capture-pane", "-p", "-t", session]);
        if needles.iter().all(|n| screen.contains(n)) || Instant::now() > deadline {
            return screen;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A tmux session, ended when dropped (a failed assertion leaves none behind).
pub struct Session(String);

impl Drop for Session {
    fn drop(&mut self) {
        tmux(&["kill-session", "-t", &self.0]);
    }
}

impl std::ops::Deref for Session {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

/// A 160×48 tmux session named after `name` with a shell in the repository,
/// or none when tmux is not installed (under CI the test fails: see `tools`).
pub fn session(name: &str) -> Option<Session> {
    if !super::tools::require(super::tools::Tool::Tmux) {
        return None;
    }
    let session = Session(format!("eval-dag-e2e-{name}-{}", std::process::id()));
    tmux(&["new-session", "-d", "-s", &session, "-x", "160", "-y", "48", "sh"]);
    let cd = format!("cd {}", super::root().display());
    tmux(&["send-keys", "-t", &session, &cd, "Enter"]);
    Some(session)
}

/// Type `args` for the binary in `session`, then an exit-code marker.
pub fn run(session: &str, args: &str) {
    let command = format!("EVAL_DAG_LOG=/dev/null {} {args}; echo EXITED-$?", env!("CARGO_BIN_EXE_eval-dag"));
    tmux(&["send-keys", "-t", session, &command, "Enter"]);
}
