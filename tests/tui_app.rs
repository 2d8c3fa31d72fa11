//! The TUI as a whole, without a terminal: events through the reducer, keys
//! through the keymap, commands to the engine, and snapshots of every screen
//! (insta + ratatui's TestBackend) from the scripted sample trace.

mod common;

use crossterm::event::{KeyCode, KeyEvent};
use eval_dag::engine::{Command, RunState};
use eval_dag::trace::Trace;
use eval_dag::tui::{App, Replay, Screen, Theme, draw};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

const SAMPLE: &str = "sample-data/traces/fraud-scripted.trace.jsonl";

fn records() -> Vec<eval_dag::trace::TraceRecord> {
    Trace::read(&common::root().join(SAMPLE)).unwrap().records
}

fn replay_app() -> App {
    let (replay, state) = Replay::open(&common::root().join(SAMPLE), false).unwrap();
    App::new(state, Theme::dark(), Some(replay), None)
}

fn live_app() -> (App, UnboundedReceiver<Command>) {
    let mut state = RunState::default();
    for record in records() {
        state.apply(record.t_ms, &record.event);
    }
    let (tx, rx) = unbounded_channel();
    (App::new(state, Theme::dark(), None, Some(tx)), rx)
}

fn press(app: &mut App, keys: &str) {
    for c in keys.chars() {
        let code = match c {
            '\n' => KeyCode::Enter,
            '\x1b' => KeyCode::Esc,
            '\t' => KeyCode::Tab,
            c => KeyCode::Char(c),
        };
        app.handle_key(KeyEvent::from(code));
    }
}

fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| draw(frame, app)).unwrap();
    let buffer = terminal.backend().buffer();
    (0..height)
        .map(|y| (0..width).map(|x| buffer[(x, y)].symbol().to_string()).collect::<String>().trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_screen_at_both_sizes() {
    for (width, height) in [(80u16, 24u16), (160, 48)] {
        let mut app = replay_app();
        insta::assert_snapshot!(format!("dashboard_{width}x{height}"), screen(&app, width, height));
        press(&mut app, "j\n");
        assert_eq!(app.screen, Screen::Question);
        insta::assert_snapshot!(format!("question_approved_{width}x{height}"), screen(&app, width, height));
        press(&mut app, "h");
        insta::assert_snapshot!(format!("question_runtime_error_{width}x{height}"), screen(&app, width, height));
        press(&mut app, "\t");
        insta::assert_snapshot!(format!("question_outputs_{width}x{height}"), screen(&app, width, height));
        press(&mut app, "\t");
        insta::assert_snapshot!(format!("question_llm_{width}x{height}"), screen(&app, width, height));
        press(&mut app, "d");
        assert_eq!(app.screen, Screen::Diff);
        insta::assert_snapshot!(format!("diff_{width}x{height}"), screen(&app, width, height));
        press(&mut app, "?");
        insta::assert_snapshot!(format!("help_{width}x{height}"), screen(&app, width, height));
    }
}

#[test]
fn the_question_screen_pins_findings_to_the_blamed_node_and_the_diff_marks_fates() {
    let mut app = replay_app();
    press(&mut app, "j\nhh");
    let text = screen(&app, 160, 48);
    assert!(text.contains("findings on this node") && text.contains("unknown_field"), "{text}");
    press(&mut app, "l");
    let text = screen(&app, 160, 48);
    assert!(text.contains("ZeroDivisionError"), "{text}");
    press(&mut app, "d");
    let text = screen(&app, 160, 48);
    assert!(text.contains("resolved") && text.contains("new") && text.contains("~ changed rates"), "{text}");
}

#[test]
fn filters_sorting_and_replay_scrubbing() {
    let mut app = replay_app();
    press(&mut app, "/grocery\x1b");
    assert_eq!(app.visible().len(), 0);
    press(&mut app, "/");
    app.handle_key(KeyEvent::from(KeyCode::Backspace));
    for _ in 0..7 {
        app.handle_key(KeyEvent::from(KeyCode::Backspace));
    }
    press(&mut app, "fraud\n");
    assert_eq!(app.visible().len(), 1, "the text filter matches the question text");
    let total = app.replay.as_ref().unwrap().len();
    press(&mut app, "g");
    assert_eq!((app.replay.as_ref().unwrap().position, app.state.questions.len()), (0, 0));
    press(&mut app, "....");
    assert_eq!(app.replay.as_ref().unwrap().position, 4);
    assert_eq!(app.state.questions.len(), 2, "questions appear once generated");
    press(&mut app, ",");
    assert_eq!(app.replay.as_ref().unwrap().position, 3);
    assert_eq!(app.state.questions.len(), 0, "stepping back undoes the event");
    press(&mut app, "G");
    assert_eq!(app.replay.as_ref().unwrap().position, total);
    assert_eq!(app.state.summary.as_ref().unwrap().passed, 2);
    press(&mut app, "+ ");
    assert!(app.replay.as_ref().unwrap().playing && app.replay.as_ref().unwrap().speed == 2.0);
}

#[test]
fn live_keys_send_the_matching_commands() {
    let (mut app, mut commands) = live_app();
    press(&mut app, "p");
    assert_eq!(commands.try_recv().unwrap(), Command::Pause);
    press(&mut app, "n");
    assert_eq!(commands.try_recv().unwrap(), Command::Step { question_id: None });
    press(&mut app, "jr");
    assert_eq!(commands.try_recv().unwrap(), Command::Rerun { question_id: "q_01".into() });
    press(&mut app, "\nhn");
    assert_eq!(commands.try_recv().unwrap(), Command::Step { question_id: Some("q_01".into()) });
    press(&mut app, "F");
    assert_eq!(commands.try_recv().unwrap(), Command::Fork { question_id: "q_01".into(), attempt: 1, iteration: 2 });
    assert!(app.message.as_deref().unwrap_or_default().contains("forking q_01"));
    assert!(commands.try_recv().is_err(), "one command per key");
}

#[test]
fn wrong_answers_are_marked_in_the_table_and_the_outputs_tab() {
    let mut app = replay_app();
    let text = screen(&app, 160, 48);
    assert!(text.contains("✗ 50000") && text.contains("✓ grocery_pos"), "{text}");
    press(
        &mut app, "
	",
    );
    let text = screen(&app, 160, 48);
    assert!(text.contains("✗ wrong (ground_truth)"), "{text}");
}

#[test]
fn replays_explain_why_they_cannot_rerun() {
    let mut app = replay_app();
    press(&mut app, "r");
    assert!(app.message.as_deref().unwrap().contains("need a live run"));
}

#[test]
fn the_table_scrolls_to_keep_the_selected_row_on_screen() {
    let mut app = replay_app();
    let text = screen(&app, 80, 10);
    assert!(text.contains("q_02") && !text.contains("q_01"), "one row fits: {text}");
    press(&mut app, "j");
    let text = screen(&app, 80, 10);
    assert!(text.contains("q_01") && !text.contains("q_02"), "the selection scrolled into view: {text}");
}
