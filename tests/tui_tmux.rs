//! End to end in a real terminal: the binary replays the sample trace inside
//! tmux, the test navigates to the rejected question, opens the diff and the
//! conversation tab, checks the screen text, quits and checks the terminal was
//! restored.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

fn tmux(args: &[&str]) -> String {
    let out = Command::new("tmux").args(args).output().expect("tmux runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn wait_for(session: &str, needle: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let screen = tmux(&["capture-pane", "-p", "-t", session]);
        if screen.contains(needle) || Instant::now() > deadline {
            return screen;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A tmux session, ended when dropped (a failed assertion leaves none behind).
struct Session(String);

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
/// or none when tmux is not installed.
fn session(name: &str) -> Option<Session> {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("\n\n*** tmux is not installed: SKIPPING the end-to-end TUI test (CI installs tmux) ***\n\n");
        return None;
    }
    let session = Session(format!("eval-dag-e2e-{name}-{}", std::process::id()));
    tmux(&["new-session", "-d", "-s", &session, "-x", "160", "-y", "48", "sh"]);
    let cd = format!("cd {}", common::root().display());
    tmux(&["send-keys", "-t", &session, &cd, "Enter"]);
    Some(session)
}

/// Type `args` for the binary in `session`, then an exit-code marker.
fn run(session: &str, args: &str) {
    let command = format!("EVAL_DAG_LOG=/dev/null {} {args}; echo EXITED-$?", env!("CARGO_BIN_EXE_eval-dag"));
    tmux(&["send-keys", "-t", session, &command, "Enter"]);
}

const TRACE: &str = "sample-data/traces/fraud-scripted.trace.jsonl";

#[test]
fn compare_opens_its_view_on_a_terminal_and_headless_prints_the_table() {
    let Some(session) = session("compare") else { return };
    run(&session, &format!("compare {TRACE} {TRACE}"));
    let screen = wait_for(&session, "2 questions · 2 same");
    assert!(screen.contains(&format!("A: {TRACE}")) && screen.contains("q_01"), "{screen}");
    tmux(&["send-keys", "-t", &session, "Enter"]);
    let screen = wait_for(&session, "final DAG: changes from A to B");
    assert!(screen.contains("the final DAGs are the same"), "{screen}");
    tmux(&["send-keys", "-t", &session, "q"]);
    let screen = wait_for(&session, "EXITED-0");
    assert!(screen.contains("EXITED-0") && !screen.contains("2 questions · 2 same"), "left cleanly: {screen}");
    tmux(&["send-keys", "-t", &session, "clear", "Enter"]);
    run(&session, &format!("compare --headless {TRACE} {TRACE}"));
    let screen = wait_for(&session, "EXITED-0");
    assert!(screen.contains("0 regressions, 0 improvements") && screen.contains("question change"), "{screen}");
}

#[test]
fn replay_navigate_to_the_rejected_question_and_open_the_diff() {
    let Some(session) = session("replay") else { return };
    run(&session, &format!("replay {TRACE}"));
    let screen = wait_for(&session, "REPLAY");
    assert!(screen.contains("q_01") && screen.contains("Which category has the highest fraud rate?"), "{screen}");
    for key in ["j", "Enter", "h"] {
        tmux(&["send-keys", "-t", &session, key]);
    }
    let screen = wait_for(&session, "findings on this node");
    assert!(screen.contains("ZeroDivisionError"), "{screen}");
    tmux(&["send-keys", "-t", &session, "d"]);
    let screen = wait_for(&session, "iteration 1 → 2");
    assert!(
        screen.contains("resolved") && screen.contains("unknown_field") && screen.contains("~ changed rates"),
        "{screen}"
    );
    for key in ["Escape", "Tab", "Tab", "z"] {
        tmux(&["send-keys", "-t", &session, key]);
    }
    let screen = wait_for(&session, "changes since the last build");
    assert!(
        screen.contains("━━ attempt 1 · iteration 2")
            && screen.contains("Your previous DAG (iteration 1) was rejected"),
        "the conversation tab opens at the selected iteration and shows what the rebuild prompt added: {screen}"
    );
    tmux(&["send-keys", "-t", &session, "q"]);
    let screen = wait_for(&session, "EXITED-0");
    assert!(screen.contains("EXITED-0"), "the app quit cleanly: {screen}");
    assert!(!screen.contains("REPLAY"), "the alternate screen was left and the terminal restored: {screen}");
}
