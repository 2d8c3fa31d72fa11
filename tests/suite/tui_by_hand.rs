//! Work by hand in the TUI without a terminal: the keys that edit, note and
//! accept send the matching commands to a live run; a replay without an LLM
//! explains what needs one; and snapshots of what a derived run shows — an
//! iteration written by hand, one that was no DAG, the user's note pinned to
//! its node, the note box, the hand-fixed row — at 80×24 and 160×48, from a
//! derived trace recorded through the binary (`v3-by-hand.trace.jsonl`).

use crate::common;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use eval_dag::domain::AttemptAt;
use eval_dag::run::Command;
use eval_dag::tui::{App, Deriver};
use tokio::sync::mpsc::unbounded_channel;

use common::press;
use common::tui::{SAMPLE, live_app, replay_app, screen};

const BY_HAND: &str = "tests/fixtures/traces/v3-by-hand.trace.jsonl";

fn ctrl_s(app: &mut App) {
    app.handle_key(KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL));
}

#[test]
fn a_note_is_sent_as_a_command_and_ctrl_s_sends_the_iteration_back() {
    let (mut app, mut commands) = live_app(SAMPLE);
    // q_01, its rejected second iteration; the selected node is `rates`.
    press(&mut app, "j\nhN");
    assert!(app.text_box_open(), "N opens the note box");
    press(&mut app, "qhjk use the median");
    assert!(!app.quitting(), "letters are text while the box is open");
    press(&mut app, "\n");
    let at = AttemptAt::new("q_01", 1).iteration(2);
    let note = Command::Note { at: at.clone(), node_id: Some("rates".into()), text: "qhjk use the median".into() };
    assert_eq!(commands.try_recv().unwrap(), note);
    assert!(commands.try_recv().is_err(), "Enter only notes");
    press(&mut app, "N\tkeep the layers");
    ctrl_s(&mut app);
    assert_eq!(
        commands.try_recv().unwrap(),
        Command::Note { at: at.clone(), node_id: None, text: "keep the layers".into() }
    );
    assert_eq!(commands.try_recv().unwrap(), Command::Fork { from: at });
    assert!(app.message().unwrap().contains("sent back"), "{:?}", app.message());
    press(&mut app, "N  \n");
    assert!(commands.try_recv().is_err(), "an empty note records nothing");
    press(&mut app, "Nx\x1b");
    assert!(commands.try_recv().is_err() && !app.text_box_open(), "Esc cancels");
}

#[test]
fn accepting_sends_the_iteration_and_the_answer_itself_is_refused() {
    let (mut app, mut commands) = live_app(SAMPLE);
    press(&mut app, "j\nA");
    assert!(app.message().unwrap().contains("already the answer"));
    assert!(commands.try_recv().is_err());
    press(&mut app, "hA");
    assert_eq!(commands.try_recv().unwrap(), Command::Accept { at: AttemptAt::new("q_01", 1).iteration(2) });
}

#[test]
fn a_replay_without_an_llm_notes_and_accepts_but_does_not_send_back() {
    let app = replay_app(SAMPLE);
    let (tx, mut commands) = unbounded_channel();
    let (_events_tx, events) = unbounded_channel();
    let mut parts = Some((tx, events));
    let start: eval_dag::tui::DeriveFn = Box::new(move |_| {
        let (commands, events) = parts.take().ok_or_else(|| anyhow::anyhow!("started twice"))?;
        Ok(eval_dag::tui::Derived { events, commands, dir: "derived-run".into() })
    });
    let mut app = app.with_deriver(Deriver { llm: false, start });
    press(&mut app, "j\nhr");
    assert!(app.message().unwrap().contains("no LLM is connected"), "{:?}", app.message());
    assert!(app.recording().is_none(), "refusing starts no derived run");
    press(&mut app, "Nwrong denominator");
    ctrl_s(&mut app);
    assert!(matches!(commands.try_recv().unwrap(), Command::Note { .. }), "the note is recorded");
    assert!(commands.try_recv().is_err(), "but not sent back");
    assert!(app.message().unwrap().contains("not sent back"), "{:?}", app.message());
    assert_eq!(app.recording(), Some(std::path::Path::new("derived-run")));
    press(&mut app, "A");
    assert!(matches!(commands.try_recv().unwrap(), Command::Accept { .. }));
}

#[test]
fn a_derived_run_at_both_sizes() {
    for (width, height) in [(80, 24), (160, 48)] {
        let mut app = replay_app(BY_HAND);
        let text = screen(&app, width, height);
        assert!(text.contains("fixed by hand"), "{text}");
        insta::assert_snapshot!(format!("by_hand_dashboard_{width}x{height}"), text);
        press(&mut app, "j\n");
        insta::assert_snapshot!(format!("by_hand_accepted_{width}x{height}"), screen(&app, width, height));
        press(&mut app, "h");
        insta::assert_snapshot!(format!("by_hand_unreadable_{width}x{height}"), screen(&app, width, height));
        press(&mut app, "Nthe count is right");
        insta::assert_snapshot!(format!("by_hand_note_box_{width}x{height}"), screen(&app, width, height));
    }
}

#[test]
fn l_writes_a_review_of_the_answer_beside_the_run_never_a_command() {
    let dir = tempfile::tempdir().unwrap();
    let (app, mut commands) = live_app(SAMPLE);
    let people = eval_dag::tui::People::new(dir.path().to_path_buf(), Ok("ann".parse().unwrap()));
    let mut app = app.with_people(people);
    press(&mut app, "j\nL");
    let text = screen(&app, 80, 24);
    assert!(text.contains("iteration 3 is RIGHT") && text.contains("tab right / wrong"), "{text}");
    press(&mut app, "\tchecked against the CSV\n");
    assert!(commands.try_recv().is_err(), "a review is not a command of the run");
    let written = std::fs::read_to_string(dir.path().join("reviews/ann.jsonl")).unwrap();
    let review: serde_json::Value = serde_json::from_str(written.trim()).unwrap();
    assert_eq!(review["reviewer"], "ann");
    assert_eq!(review["verdict"], "wrong");
    assert_eq!(review["reason"], "checked against the CSV");
    assert_eq!(review["item"], serde_json::json!({"question_id": "q_01", "epoch": 1, "draft": 1}), "the final answer");
    assert_eq!(review["shown_sha256"].as_str().map(str::len), Some(64));
    assert!(app.message().unwrap().contains("reviewed wrong as ann"), "{:?}", app.message());
    press(&mut app, "t");
    let text = screen(&app, 120, 40);
    assert!(text.contains("✗ wrong (people) reviewed by 1 person"), "the verdict shows at once: {text}");
    press(&mut app, "t");
    press(&mut app, "L\n");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("reviews/ann.jsonl")).unwrap(),
        written,
        "a review needs a reason"
    );
    press(&mut app, "hhL");
    assert!(app.message().unwrap().contains("no answer to label"), "{:?}", app.message());
    assert!(!app.text_box_open());
}
