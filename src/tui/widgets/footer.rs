//! The footer: key hints from the one keymap.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::app::{App, Screen};
use crate::tui::keymap::footer;

/// Draw the key hints into `area` (1 line).
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let mut spans = Vec::new();
    for (keys, help) in footer(app.screen != Screen::Dashboard, app.replay.is_some()) {
        spans.push(Span::styled(format!(" {keys} "), app.theme.fg("accent")));
        spans.push(Span::styled(format!("{help} "), app.theme.fg("muted")));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
