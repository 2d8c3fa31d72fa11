//! Driving the real binary in a real terminal: tmux sessions, keys and screen captures.

use std::process::Command;
use std::time::{Duration, Instant};

/// Run tmux with `args` on the server of the session they name (`-t` or
/// `-s`); its standard output.
///
/// Each session has a server of its own (its socket is named after the
/// session, and removed with it): with one shared server, a test killing the last session makes
/// the server exit while another test's `new-session` is connecting to it,
/// and that session silently never exists (a capture then reads empty).
pub fn tmux(args: &[&str]) -> String {
    let out = command(args).output().expect("tmux runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The tmux command for `args`, on the socket of the session they name.
fn command(args: &[&str]) -> Command {
    let session = args.windows(2).find(|pair| pair[0] == "-t" || pair[0] == "-s").map(|pair| pair[1]);
    let session = session.expect("every tmux call here names its session").split(':').next().unwrap_or_default();
    on_server(session, args)
}

/// The tmux command for `args` on the server of `session`.
fn on_server(session: &str, args: &[&str]) -> Command {
    let mut command = Command::new("tmux");
    command.arg("-S").arg(socket(session)).args(["-f", "/dev/null"]).args(args);
    command
}

/// Where the server of `session` listens.
fn socket(session: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("{session}.tmux"))
}

/// The screen once it shows `needle`, or after 15 s.
pub fn wait_for(session: &str, needle: &str) -> String {
    wait_for_all(session, &[needle])
}

/// The screen once it shows every one of `needles` (a capture taken while a
/// frame is being written can show only part of it), or after 15 s.
pub fn wait_for_all(session: &str, needles: &[&str]) -> String {
    wait_until(session, |screen| needles.iter().all(|n| screen.contains(n)))
}

/// The screen once `done` holds for it, or after 15 s.
pub fn wait_until(session: &str, done: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let screen = tmux(&["capture-pane", "-p", "-t", session]);
        if done(&screen) || Instant::now() > deadline {
            return screen;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A tmux session, ended when dropped (a failed assertion leaves none behind).
pub struct Session(String);

impl Drop for Session {
    fn drop(&mut self) {
        let _ = on_server(&self.0, &["kill-server"]).output();
        let _ = std::fs::remove_file(socket(&self.0));
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
    let started = command(&["new-session", "-d", "-s", &session, "-x", "160", "-y", "48", "sh"]).output();
    let started = started.expect("tmux runs");
    assert!(started.status.success(), "tmux new-session: {}", String::from_utf8_lossy(&started.stderr));
    let cd = format!("cd {}", super::root().display());
    tmux(&["send-keys", "-t", &session, &cd, "Enter"]);
    Some(session)
}

/// Type `args` for the binary in `session`, then an exit-code marker.
pub fn run(session: &str, args: &str) {
    let command = format!("EVAL_DAG_LOG=/dev/null {} {args}; echo EXITED-$?", env!("CARGO_BIN_EXE_eval-dag"));
    tmux(&["send-keys", "-t", session, &command, "Enter"]);
}
