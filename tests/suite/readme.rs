//! The README and the guide show the product as it is: the guide's keys table
//! (`docs/src/tui.md`) is the keymap and the README's screenshots are frames
//! the terminal UI draws today (of a committed trace).
//! `UPDATE_README=1 cargo test --locked --test all readme` rewrites both.

use crate::common;

use std::path::Path;

use common::press;
use common::svg::buffer_svg;
use eval_dag::run::{Outcome, QuestionStatus, RunState};
use eval_dag::trace::Trace;
use eval_dag::tui::{App, BINDINGS, Theme, draw};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// The trace the screenshots are drawn from: an offline run on the sample data.
const TRACE: &str = "sample-data/traces/fraud-offline.trace.jsonl";
/// The guide's page holding the keys table.
const KEYS_PAGE: &str = "docs/src/tui.md";
const KEYS_START: &str = "<!-- keys: generated from src/tui/keymap.rs -->";
const KEYS_END: &str = "<!-- keys end -->";
const WIDTH: u16 = 120;
const HEIGHT: u16 = 32;

fn updating() -> bool {
    std::env::var_os("UPDATE_README").is_some_and(|v| !v.is_empty())
}

/// `expected` is what `path` holds, or — when updating — becomes it.
fn check_or_write(path: &Path, expected: &str) {
    if updating() {
        std::fs::write(path, expected).unwrap();
        return;
    }
    let actual = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        actual == expected,
        "{} is not what the code makes today; run UPDATE_README=1 cargo test --locked --test all readme",
        path.display()
    );
}

/// The keys table as the guide shows it, from the one keymap: its default
/// keys, and the name that rebinds them in the config file.
fn keys_table() -> String {
    let mut table = String::from("| keys | what they do | where | in `[keys]` |\n| --- | --- | --- | --- |\n");
    for binding in BINDINGS {
        let keys = binding.keys.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(" ");
        let name = format!("`[keys.{}]` {}", binding.context.section(), binding.action.name());
        table.push_str(&format!("| {keys} | {} | {} | {name} |\n", binding.help, binding.context.name()));
    }
    table
}

#[test]
fn the_keys_table_in_the_guide_is_the_keymap() {
    let path = common::root().join(KEYS_PAGE);
    let page = std::fs::read_to_string(&path).unwrap();
    let start = page.find(KEYS_START).expect("the guide has the keys table's start marker") + KEYS_START.len();
    let end = page[start..].find(KEYS_END).expect("the guide has the keys table's end marker") + start;
    let expected = format!("{}\n{}{}", &page[..start], keys_table(), &page[end..]);
    check_or_write(&path, &expected);
}

/// The trace's first `events` events folded as a live run's engine would.
fn live_app_at(events: usize) -> App {
    let mut state = RunState::default();
    for record in Trace::read(&common::root().join(TRACE)).unwrap().records.iter().take(events) {
        state.apply(record.t_ms, &record.event);
    }
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    App::new(state, Theme::dark(), None, Some(tx))
}

/// The moment of the run with the most questions at work (the first such).
fn busiest_moment() -> usize {
    let records = Trace::read(&common::root().join(TRACE)).unwrap().records;
    let mut state = RunState::default();
    let mut best = (0, 0);
    for (index, record) in records.iter().enumerate() {
        state.apply(record.t_ms, &record.event);
        let working = state.questions.iter().filter(|q| q.status.is_active()).count();
        let passed = state.questions.iter().filter(|q| q.status == QuestionStatus::Done(Outcome::Passed)).count();
        // Some at work and some already through reads best.
        if passed > 0 && working > best.1 {
            best = (index + 1, working);
        }
    }
    best.0
}

fn frame_svg(app: &App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT)).unwrap();
    terminal.draw(|frame| draw(frame, app)).unwrap();
    buffer_svg(terminal.backend().buffer())
}

#[test]
fn the_readme_screenshots_are_what_the_terminal_ui_draws() {
    let dir = common::root().join("tests/screenshots");
    let dashboard = live_app_at(busiest_moment());
    let svg = frame_svg(&dashboard);
    assert!(["building", "checking", "trial run", "reviewing"].iter().any(|s| svg.contains(s)), "questions at work");
    check_or_write(&dir.join("dashboard.svg"), &svg);

    // The first question's first draft, rejected by the structural check, with
    // the finding beside the code it blames.
    let mut app = live_app_at(usize::MAX);
    press(&mut app, "\nh");
    let svg = frame_svg(&app);
    assert!(svg.contains("findings on this node"), "the question screen pins findings to the node");
    check_or_write(&dir.join("question.svg"), &svg);

    press(&mut app, "ld");
    let svg = frame_svg(&app);
    assert!(svg.contains("resolved"), "the diff says which findings the rebuild resolved");
    check_or_write(&dir.join("diff.svg"), &svg);

    // The palette over the dashboard: the questions and actions a query finds, the keys beside them.
    let mut app = live_app_at(usize::MAX);
    press(&mut app, ":rate");
    let svg = frame_svg(&app);
    assert!(svg.contains("palette ·") && svg.contains("question"), "the palette lists what `rate` finds");
    check_or_write(&dir.join("palette.svg"), &svg);

    let svg = frame_svg(&common::tui::browser_app(false));
    assert!(svg.contains("interrupted") && svg.contains("results unreadable"), "the browser's statuses and problems");
    check_or_write(&dir.join("runs.svg"), &svg);

    for name in ["dashboard", "question", "diff", "palette", "runs"] {
        let readme = std::fs::read_to_string(common::root().join("README.md")).unwrap();
        assert!(readme.contains(&format!("(tests/screenshots/{name}.svg)")), "the README shows {name}.svg");
    }
}
