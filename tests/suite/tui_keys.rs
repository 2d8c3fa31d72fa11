//! Your own keys: `[keys]` in the config file, through the real binary (a
//! clash stops it with one line naming file and line, exit 2) and through the
//! TUI (a rebound key works, the key it replaced no longer does, the footer
//! and the `?` help show the user's keys, and quitting keeps its meaning
//! whatever keys it has; with batches in flight, the quit question offers to
//! cancel them by the user's key).

use crate::common;

use std::path::Path;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use eval_dag::config::Config;
use eval_dag::domain::AttemptAt;
use eval_dag::run::EngineEvent;
use eval_dag::tui::{Keymap, Screen};

use common::press;
use common::tui::{SAMPLE, live_app, replay_app, screen};

/// The keymap of a config file holding `text`.
fn keymap(text: &str) -> Keymap {
    Config::parse(text, Path::new("config.toml")).unwrap().keys
}

/// The rebinding the footer and help snapshots show.
const REBOUND: &str = "[keys.global]\nquit = \"ctrl-q\"\n\n[keys.dashboard]\nopen = [\"o\", \"enter\"]\n\n\
                       [keys.iterations]\nprev_iteration = [\"h\", \"ctrl-b\"]\n\n[keys.question]\nzoom = \"f\"\n";

#[test]
fn a_clash_in_the_config_file_stops_the_binary_with_its_file_and_line() {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join("my-keys.toml");
    std::fs::write(
        &path,
        "theme = \"dark\"\n\n[keys.global]\nhelp = \"?\"\n\n[keys.question]\nzoom = [\"Z\", \"?\"]\n",
    )
    .unwrap();
    let expected = format!(
        "error: config {}:7:1: `?` would be both [keys.global] help and [keys.question] zoom on the question \
         screen; give one of them another key",
        path.display()
    );
    let out = home.path().join("run");
    let runs = [
        vec!["run".into(), common::root().join("sample-data/fraud").display().to_string(), "--headless".into()],
        vec!["replay".into(), common::root().join(SAMPLE).display().to_string()],
    ];
    for args in runs {
        let output = common::eval_dag(home.path())
            .args(&args)
            .arg("--config")
            .arg(&path)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end(), expected, "{args:?}: one line");
        assert!(!out.exists(), "{args:?}: nothing ran");
    }
}

#[test]
fn a_rebound_key_works_and_the_key_it_replaced_does_not() {
    let mut app =
        replay_app(SAMPLE).with_keys(keymap("[keys.dashboard]\nopen = \"o\"\n\n[keys.question]\nzoom = \"f\"\n"));
    press(&mut app, "j\n");
    assert_eq!(app.screen(), Screen::Dashboard, "enter no longer opens the question");
    press(&mut app, "o");
    assert_eq!(app.screen(), Screen::Question, "o does");
    press(&mut app, "z");
    assert!(!app.question().unwrap().zoom, "z no longer zooms");
    press(&mut app, "f");
    assert!(app.question().unwrap().zoom, "f does");
    press(&mut app, "\x1b\n");
    assert_eq!(app.screen(), Screen::Dashboard, "the other screens keep their keys: esc goes back, enter does nothing");
}

#[test]
fn quit_asks_while_questions_work_and_quit_now_does_not_whatever_their_keys() {
    let keys = || keymap("[keys.global]\nquit = \"x\"\nquit_now = \"ctrl-x\"\n");
    let working = |app: &mut eval_dag::tui::App| {
        let started = EngineEvent::QuestionStarted { at: AttemptAt::new("q_01", 2), forked_from: None, by_hand: false };
        app.apply(1, started);
    };
    let ctrl_x = KeyEvent::new(KeyCode::Char('x'), KeyModifiers::CONTROL);

    let (app, _commands) = live_app(SAMPLE);
    let mut app = app.with_keys(keys());
    working(&mut app);
    press(&mut app, "q");
    assert!(!app.confirming_quit() && !app.quitting(), "q is no longer quit");
    press(&mut app, "x");
    assert!(app.confirming_quit() && !app.quitting(), "quit asks first while a question works");
    app.handle_key(ctrl_x);
    assert!(app.quitting(), "quit_now's key answers the question too");

    let (app, _commands) = live_app(SAMPLE);
    let mut app = app.with_keys(keys());
    working(&mut app);
    press(&mut app, "Q");
    assert!(!app.quitting() && !app.confirming_quit(), "Q is no longer quit_now");
    app.handle_key(ctrl_x);
    assert!(app.quitting() && !app.confirming_quit(), "quit_now never asks");
}

#[test]
fn with_batches_in_flight_the_quit_question_offers_to_cancel_them_by_the_users_key() {
    use eval_dag::domain::{CallKey, ChatMessage, LlmRole};
    let (app, _commands) = live_app(SAMPLE);
    let mut app = app.with_keys(keymap("[keys.quit_prompt]\ncancel_batches = \"k\"\n"));
    let at = AttemptAt::new("q_01", 2);
    app.apply(1, EngineEvent::QuestionStarted { at: at.clone(), forked_from: None, by_hand: false });
    press(&mut app, "q");
    assert!(!screen(&app, 120, 40).contains("in flight at the provider"), "no batch: today's question");
    press(&mut app, "k");
    assert!(!app.quitting() && !app.cancelling_batches(), "nothing to cancel: k keeps watching");

    let key = CallKey { question_id: Some(at.question_id.clone()), ..CallKey::run_wide(LlmRole::DagBuild) };
    let messages = vec![ChatMessage::user("build")];
    let (provider, model) = ("openai".into(), "m".to_string());
    app.apply(2, EngineEvent::LlmCallStarted { call_id: 9, key: key.clone(), provider, model, messages });
    let (batch_id, provider) = ("batch_1".into(), "openai".into());
    app.apply(3, EngineEvent::BatchSubmitted { batch_id, provider, role: LlmRole::DagBuild, calls: vec![key] });
    press(&mut app, "q");
    let text = screen(&app, 120, 40);
    assert!(text.contains("1 batch in flight at the provider with 1 call."), "{text}");
    assert!(text.contains("k cancel them there"), "the user's key is shown: {text}");
    press(&mut app, "c");
    assert!(!app.quitting(), "c is no longer cancel_batches");
    press(&mut app, "qk");
    assert!(app.quitting() && app.cancelling_batches(), "the user's key cancels the batches and quits");

    let (mut app, _commands) = live_app(SAMPLE);
    app.apply(1, EngineEvent::QuestionStarted { at, forked_from: None, by_hand: false });
    press(&mut app, "qy");
    assert!(app.quitting() && !app.cancelling_batches(), "y quits leaving any batch for --resume");
}

#[test]
fn the_footer_and_the_help_show_the_users_keys() {
    let mut app = replay_app(SAMPLE).with_keys(keymap(REBOUND));
    let footer = |app: &eval_dag::tui::App| screen(app, 100, 24).lines().last().unwrap_or_default().to_string();
    insta::assert_snapshot!("rebound_dashboard_footer", footer(&app));
    press(&mut app, "?");
    insta::assert_snapshot!("rebound_dashboard_help", screen(&app, 100, 30));
    press(&mut app, "?jo");
    assert_eq!(app.screen(), Screen::Question);
    insta::assert_snapshot!("rebound_question_footer", footer(&app));
    press(&mut app, "?");
    insta::assert_snapshot!("rebound_question_help", screen(&app, 120, 30));
}

#[test]
fn the_mouse_wheel_moves_whatever_keys_up_and_down_have() {
    use crossterm::event::{Event, MouseEvent, MouseEventKind};
    let wheel = |kind| Event::Mouse(MouseEvent { kind, column: 10, row: 10, modifiers: KeyModifiers::NONE });
    let mut app = replay_app(SAMPLE).with_keys(keymap("[keys.global]\nup = \"ctrl-k\"\ndown = \"ctrl-j\"\n"));
    let size = ratatui::layout::Size::new(100, 24);
    press(&mut app, "j");
    assert_eq!(app.dashboard().unwrap().row, 0, "j no longer moves down");
    eval_dag::tui::on_input(&mut app, wheel(MouseEventKind::ScrollDown), size);
    assert_eq!(app.dashboard().unwrap().row, 1, "the wheel still does");
    eval_dag::tui::on_input(&mut app, wheel(MouseEventKind::ScrollUp), size);
    assert_eq!(app.dashboard().unwrap().row, 0);
}
