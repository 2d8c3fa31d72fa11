//! The palette as drawn: a box in the upper middle of the screen with the
//! query on its first line and, below, the matches that fit — each with its
//! kind, its keys (an action's), its label with the matched characters
//! highlighted, and its detail dimmer.

use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::Palette;
use crate::tui::component::Ctx;
use crate::tui::text::clean;
use crate::tui::theme::Ink;

/// Widest the box gets.
const MAX_WIDTH: u16 = 110;
/// Tallest the box gets.
const MAX_HEIGHT: u16 = 22;
/// Width of the kind column.
const KIND_WIDTH: usize = 9;
/// Width of the keys column.
const KEYS_WIDTH: usize = 12;

impl Palette {
    /// Draw the palette over `area`.
    pub(super) fn draw_over(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        let palette = self;
        let t = ctx.theme;
        let total = palette.entries.len();
        let found = palette.matcher.matches().len();
        // As tall as the matches need (the query line and the borders besides), within the screen.
        let height = (found.max(1) + 3).min(MAX_HEIGHT as usize) as u16;
        let [row] = Layout::vertical([Constraint::Length(height.min(area.height))]).flex(Flex::Start).areas(area);
        let [popup] = Layout::horizontal([Constraint::Length(area.width.min(MAX_WIDTH))]).flex(Flex::Center).areas(row);
        frame.render_widget(Clear, popup);
        let title = format!(" palette · {found} of {total} · enter does it · esc closes ");
        let block = Block::default().borders(Borders::ALL).title(title).border_style(t.fg(Ink::Accent));
        let inner = block.inner(popup);
        frame.render_widget(block, popup);
        let query = Line::from(vec![
            Span::styled(": ", t.fg(Ink::Accent)),
            Span::styled(format!("{}▏", clean(&palette.query)), t.fg(Ink::Text)),
        ]);
        let height = inner.height.saturating_sub(1) as usize;
        let first = palette.row.saturating_sub(height.saturating_sub(1));
        let width = inner.width as usize;
        let mut lines = vec![query];
        for (offset, &index) in palette.matcher.matches().iter().enumerate().skip(first).take(height) {
            lines.push(entry_line(palette, index, width, offset == palette.row, ctx));
        }
        if found == 0 {
            lines.push(Line::styled("  nothing matches", t.fg(Ink::Muted)));
        }
        frame.render_widget(Paragraph::new(lines), inner);
    }
}

/// One match's line, `width` wide, its matched characters highlighted.
fn entry_line(palette: &Palette, index: usize, width: usize, selected: bool, ctx: &Ctx) -> Line<'static> {
    let t = ctx.theme;
    let entry = &palette.entries[index];
    let positions = palette.matcher.positions(index);
    let keys = entry.keys.as_deref().unwrap_or("");
    let mut spans = vec![
        Span::styled(format!("{:<KIND_WIDTH$}", entry.kind.label()), t.fg(Ink::Muted)),
        Span::styled(format!("{:<KEYS_WIDTH$} ", clean(keys)), t.fg(Ink::Accent)),
    ];
    let room = width.saturating_sub(KIND_WIDTH + KEYS_WIDTH + 1);
    // The matched text is the label, a space, then the detail: positions count through both.
    let label_len = entry.label.chars().count();
    let text = format!("{} {}", entry.label, entry.detail.replace('\n', " "));
    for (at, c) in clean(&text).chars().take(room).enumerate() {
        let base = if at < label_len { t.fg(Ink::Text) } else { t.fg(Ink::Muted) };
        let style = if positions.contains(&at) { t.fg(Ink::Accent).add_modifier(Modifier::BOLD) } else { base };
        spans.push(Span::styled(c.to_string(), style));
    }
    let line = Line::from(spans);
    if selected { line.style(t.selected()) } else { line }
}
