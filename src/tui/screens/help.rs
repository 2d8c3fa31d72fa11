//! The help overlay: every key of the current screen from the one keymap, in
//! as many columns as the height needs.

use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crossterm::event::KeyEvent;

use crate::tui::component::{Ctx, Overlay, OverlayKey};
use crate::tui::keymap::Action;
use crate::tui::theme::Ink;

/// The help overlay; any key closes it but a key that quits.
pub struct Help;

impl Overlay for Help {
    fn key(&mut self, key: KeyEvent, ctx: &Ctx) -> OverlayKey {
        match ctx.action_for(key) {
            Some(Action::Quit | Action::QuitNow) => OverlayKey::Passed,
            _ => OverlayKey::Closed(Vec::new()),
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        draw(frame, area, ctx);
    }
}

/// Narrowest key column (wider when a label is longer).
const KEY_WIDTH: usize = 8;

/// Draw the help popup over `area`.
fn draw(frame: &mut Frame, area: Rect, ctx: &Ctx) {
    let t = ctx.theme;
    let bindings: Vec<_> = ctx.keys.active(ctx.screen, ctx.replay.is_some()).collect();
    let text_width = bindings.iter().map(|b| b.binding.help.chars().count()).max().unwrap_or(0);
    let key_width = bindings.iter().map(|b| b.label.chars().count()).max().unwrap_or(0).max(KEY_WIDTH);
    let rows = (area.height.saturating_sub(2) as usize).max(1);
    let columns = bindings.len().div_ceil(rows).max(1);
    let rows = bindings.len().div_ceil(columns);
    let column_width = key_width + 2 + text_width + 1;
    let lines: Vec<Line> = (0..rows)
        .map(|row| {
            let mut spans = Vec::new();
            for b in bindings.iter().skip(row).step_by(rows) {
                spans.push(Span::styled(format!("{:>key_width$}  ", b.label), t.fg(Ink::Accent)));
                spans.push(Span::styled(format!("{:<text_width$} ", b.binding.help), t.fg(Ink::Text)));
            }
            Line::from(spans)
        })
        .collect();
    let width = (columns * column_width + 2) as u16;
    let [row] = Layout::vertical([Constraint::Length(rows as u16 + 2)]).flex(Flex::Center).areas(area);
    let [popup] = Layout::horizontal([Constraint::Length(width.min(area.width))]).flex(Flex::Center).areas(row);
    frame.render_widget(Clear, popup);
    let block = Block::default().borders(Borders::ALL).title(" keys (any key closes) ").border_style(t.fg(Ink::Accent));
    frame.render_widget(Paragraph::new(lines).block(block), popup);
}

#[cfg(test)]
mod tests {
    use crate::tui::Screen;
    use crate::tui::frame_text::{SAMPLE_TRACE, assert_screen_snapshots};

    /// The help over the diff screen: its keys first, then the global ones.
    #[test]
    fn snapshots_at_both_sizes() {
        assert_screen_snapshots!(SAMPLE_TRACE, "j\nhtt\t\tzzd?", Screen::Diff, "help");
    }
}
