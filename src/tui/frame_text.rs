//! A frame as text: what a terminal of a given size shows, and keys pressed
//! from a script — for the snapshot tests beside each screen and the
//! end-to-end tests in `tests/`.

use crate::tui::{App, draw};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// The text of one frame of `app` at `width`×`height`, trailing spaces cut.
pub fn frame_text(app: &App, width: u16, height: u16) -> String {
    let Ok(mut terminal) = Terminal::new(TestBackend::new(width, height));
    let Ok(_) = terminal.draw(|frame| draw(frame, app));
    let buffer = terminal.backend().buffer();
    (0..height)
        .map(|y| (0..width).map(|x| buffer[(x, y)].symbol()).collect::<String>().trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Press the keys of `script` in order: a character is its key, and `\n`,
/// `\x1b`, `\t`, `⇤`, `←`, `→`, `↑`, `↓`, `⇟` and `⇞` stand for Enter, Esc,
/// Tab, BackTab, the arrows, PageDown and PageUp.
pub fn press_keys(app: &mut App, script: &str) {
    for c in script.chars() {
        let code = match c {
            '\n' => KeyCode::Enter,
            '\x1b' => KeyCode::Esc,
            '\t' => KeyCode::Tab,
            '⇤' => KeyCode::BackTab,
            '←' => KeyCode::Left,
            '→' => KeyCode::Right,
            '↑' => KeyCode::Up,
            '↓' => KeyCode::Down,
            '⇟' => KeyCode::PageDown,
            '⇞' => KeyCode::PageUp,
            c => KeyCode::Char(c),
        };
        app.handle_key(KeyEvent::from(code));
    }
}

/// The scripted sample run's trace, from the repository's root.
#[cfg(test)]
pub(crate) const SAMPLE_TRACE: &str = "sample-data/traces/fraud-scripted.trace.jsonl";

/// The two terminal sizes every screen's snapshots are taken at.
#[cfg(test)]
pub(crate) const SNAPSHOT_SIZES: [(u16, u16); 2] = [(80, 24), (160, 48)];

/// The trace at `path` (from the repository's root) replayed to its end, for
/// the screens' snapshot tests.
#[cfg(test)]
pub(crate) fn replayed(path: &str) -> App {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let (replay, state) = crate::tui::Replay::open(&path, false).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    App::new(state, crate::tui::Theme::dark(), Some(replay), None)
}

/// Snapshots of the screen that the trace at `$trace` shows after the keys of
/// `$keys`, at both [`SNAPSHOT_SIZES`], named `$name_{width}x{height}` and kept
/// beside the module that calls it (the macro expands there).
#[cfg(test)]
macro_rules! assert_screen_snapshots {
    ($trace:expr, $keys:expr, $screen:expr, $name:literal) => {
        for (width, height) in $crate::tui::frame_text::SNAPSHOT_SIZES {
            let mut app = $crate::tui::frame_text::replayed($trace);
            $crate::tui::press_keys(&mut app, $keys);
            assert_eq!(app.screen(), $screen);
            insta::assert_snapshot!(
                format!("{}_{width}x{height}", $name),
                $crate::tui::frame_text(&app, width, height)
            );
        }
    };
}
#[cfg(test)]
pub(crate) use assert_screen_snapshots;
