//! The text box over the screen: a note on an iteration, or the in-app
//! editor (see `tui::text_box`).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::tui::component::{Ctx, Effect, Overlay, OverlayKey};
use crate::tui::text::clean;
use crate::tui::text_box::TextBox;
use crate::tui::theme::Ink;

impl Overlay for TextBox {
    /// Every key but Ctrl-C (which quits from here too); what the box asks
    /// for when it closes is carried out.
    fn key(&mut self, key: KeyEvent, _ctx: &Ctx) -> OverlayKey {
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            return OverlayKey::Passed;
        }
        match TextBox::key(self, key) {
            Some(closed) => OverlayKey::Closed(vec![Effect::Closed(closed)]),
            None => OverlayKey::Kept,
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        draw(frame, area, ctx, self);
    }
}

/// Draw `text_box` over `area` (the body of the screen): a note takes a few
/// lines in the middle, an edit nearly all of it.
fn draw(frame: &mut Frame, area: Rect, ctx: &Ctx, text_box: &TextBox) {
    let t = ctx.theme;
    let (width, height) = if text_box.wraps() {
        (area.width.min(90), area.height.min(9))
    } else {
        (area.width.saturating_sub(4).max(area.width.min(20)), area.height.saturating_sub(2).max(area.height.min(5)))
    };
    let [row] = Layout::vertical([Constraint::Length(height)]).flex(Flex::Center).areas(area);
    let [popup] = Layout::horizontal([Constraint::Length(width)]).flex(Flex::Center).areas(row);
    frame.render_widget(Clear, popup);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(clean(&text_box.title()).into_owned())
        .border_style(t.fg(Ink::Accent));
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    let [text, hints] = Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(inner);
    let mut editor = text_box.area.clone();
    editor.set_style(t.fg(Ink::Text));
    editor.set_cursor_line_style(ratatui::style::Style::default());
    editor.set_placeholder_style(t.fg(Ink::Muted));
    frame.render_widget(&editor, text);
    frame.render_widget(Paragraph::new(Line::styled(text_box.hints(), t.fg(Ink::Muted))), hints);
}
