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

#[test]
fn replay_navigate_to_the_rejected_question_and_open_the_diff() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("\n\n*** tmux is not installed: SKIPPING the end-to-end TUI test (CI installs tmux) ***\n\n");
        return;
    }
    let session = format!("eval-dag-e2e-{}", std::process::id());
    tmux(&["new-session", "-d", "-s", &session, "-x", "160", "-y", "48", "sh"]);
    let command = format!(
        "cd {} && EVAL_DAG_LOG=/dev/null {} replay sample-data/traces/fraud-scripted.trace.jsonl; echo EXITED-$?",
        common::root().display(),
        env!("CARGO_BIN_EXE_eval-dag")
    );
    tmux(&["send-keys", "-t", &session, &command, "Enter"]);
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
    tmux(&["kill-session", "-t", &session]);
    assert!(screen.contains("EXITED-0"), "the app quit cleanly: {screen}");
    assert!(!screen.contains("REPLAY"), "the alternate screen was left and the terminal restored: {screen}");
}
