//! The footer: key hints of the current screen from the one keymap, as many
//! as fit (`? keys` lists them all).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::app::App;
use crate::tui::theme::Ink;

/// Draw the key hints into `area` (1 line).
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let mut spans = Vec::new();
    let mut width = 0;
    for binding in app.keys.active(app.screen(), app.replay.is_some()).filter(|b| !b.binding.hint.is_empty()) {
        let keys = format!(" {} ", binding.label);
        let hint = format!("{} ", binding.binding.hint);
        width += keys.chars().count() + hint.chars().count();
        if width > area.width as usize {
            break;
        }
        spans.push(Span::styled(keys, app.theme.fg(Ink::Accent)));
        spans.push(Span::styled(hint, app.theme.fg(Ink::Muted)));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
