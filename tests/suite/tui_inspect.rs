//! Looking closer from the question screen, without a terminal: the dataset
//! schema the builder saw, opened at the field a finding suggests, at 80×24
//! and 160×48.

use crate::common;

use eval_dag::tui::{App, Replay, Screen, Theme, draw};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use common::press;

const SAMPLE: &str = "sample-data/traces/fraud-scripted.trace.jsonl";

fn replay_app() -> App {
    let (replay, state) = Replay::open(&common::root().join(SAMPLE), false).unwrap();
    App::new(state, Theme::dark(), Some(replay), None)
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
fn the_schema_opens_at_the_field_a_finding_suggests() {
    for (width, height) in [(80, 24), (160, 48)] {
        let mut app = replay_app();
        // q_01, iteration 1: node `rates` reads 'fraud_rate'; did you mean 'is_fraud_rate'?
        press(&mut app, "j\nhhS");
        assert_eq!(app.screen, Screen::Schema);
        let text = screen(&app, width, height);
        assert!(text.contains("at dataset.category_stats[\"is_fraud_rate\"]"), "{text}");
        let body: Vec<&str> = text.lines().skip(4).collect();
        let target =
            body.iter().position(|l| l.contains("- \"is_fraud_rate\": float")).expect("the field is on screen");
        let key = body.iter().position(|l| l.starts_with("│dataset.category_stats:"));
        assert!(key.is_some_and(|key| key < target), "its key is on screen above it: {text}");
        insta::assert_snapshot!(format!("schema_{width}x{height}"), text);
        press(&mut app, "jjjJ");
        assert!(!screen(&app, width, height).contains("at dataset.overview"), "scrolling keeps the target");
        press(&mut app, "\x1b");
        assert_eq!(app.screen, Screen::Question, "esc goes back to the question");
    }
    // A node that reads no dataset key and has no findings opens the schema at its top.
    let mut app = replay_app();
    press(&mut app, "j\njS");
    let text = screen(&app, 160, 48);
    assert!(
        text.contains(" dataset schema the builder saw ─") && text.contains("Dataset: Prepared from fraud.csv"),
        "{text}"
    );
}
