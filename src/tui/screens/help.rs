//! The help overlay, listing the one keymap.

use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::tui::app::App;
use crate::tui::keymap::{BINDINGS, Context};

/// Draw the help popup over `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let t = &app.theme;
    let lines: Vec<Line> = BINDINGS
        .iter()
        .map(|b| {
            let scope = match b.context {
                Context::Global => "",
                Context::Dashboard => " (questions)",
                Context::Question => " (question)",
                Context::Replay => " (replay)",
                Context::Live => " (live run)",
            };
            Line::from(vec![
                Span::styled(format!("{:>8}  ", b.label), t.fg("accent")),
                Span::styled(format!("{}{scope}", b.help), t.fg("text")),
            ])
        })
        .collect();
    let height = (lines.len() as u16 + 2).min(area.height);
    let [row] = Layout::vertical([Constraint::Length(height)]).flex(Flex::Center).areas(area);
    let [popup] = Layout::horizontal([Constraint::Length(52.min(area.width))]).flex(Flex::Center).areas(row);
    frame.render_widget(Clear, popup);
    let block = Block::default().borders(Borders::ALL).title(" keys (any key closes) ").border_style(t.fg("accent"));
    frame.render_widget(Paragraph::new(lines).block(block), popup);
}
