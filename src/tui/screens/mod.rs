//! One file per screen; each is a pure function of the app state.

pub mod compare;
pub mod compare_detail;
pub mod dashboard;
pub mod diff;
pub mod help;
pub mod question;

use crate::tui::app::{App, Screen};

/// The last logical line the detail of the current screen can scroll to.
pub fn scroll_limit(app: &App) -> usize {
    let lines = match app.screen {
        Screen::Question => question::detail_lines(app).len(),
        Screen::Diff => diff::lines(app).len(),
        Screen::CompareDetail => compare_detail::lines(app).len(),
        Screen::Dashboard | Screen::Compare => 0,
    };
    lines.saturating_sub(1)
}
