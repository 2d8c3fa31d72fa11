//! The dataset schema the builder saw — keys, shapes, fields, types, example
//! values and notes, as recorded in its prompt — opened at the field (or key)
//! the selected node's findings point at.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use super::scroll_pane;
use crate::run::RunState;
use crate::tui::component::{Component, Ctx, Handled};
use crate::tui::keymap::Action;
use crate::tui::keymap::Screen;
use crate::tui::schema_text::{
    SchemaLine, SchemaLineKind, SchemaTarget, line_of, recorded_schema, schema_lines, target,
};
use crate::tui::scroll::Scroll;
use crate::tui::selection::Selection;
use crate::tui::text::clean;
use crate::tui::theme::Ink;

/// Lines shown above a target far below its key, for context.
const CONTEXT: usize = 2;

fn styled(ctx: &Ctx, line: &SchemaLine, target: bool) -> Line<'static> {
    let t = ctx.theme;
    let text = clean(&line.text).into_owned();
    let line = match &line.kind {
        SchemaLineKind::Key(_) => Line::styled(text, t.fg(Ink::Accent).add_modifier(Modifier::BOLD)),
        SchemaLineKind::Field { name, .. } => {
            // `    - "name": type — notes`: the name stands out.
            let quoted = format!("\"{}\"", clean(name));
            match text.split_once(&quoted) {
                Some((before, after)) => Line::from(vec![
                    Span::styled(before.to_string(), t.fg(Ink::Muted)),
                    Span::styled(quoted.clone(), t.fg(Ink::Text).add_modifier(Modifier::BOLD)),
                    Span::styled(after.to_string(), t.fg(Ink::Muted)),
                ]),
                None => Line::styled(text, t.fg(Ink::Text)),
            }
        }
        SchemaLineKind::Text => Line::styled(text, t.fg(Ink::Text)),
    };
    if target { line.patch_style(t.selected()) } else { line }
}

/// The schema screen: the dataset schema the builder saw, opened where the
/// selected node's trouble lies.
pub struct SchemaScreen {
    /// What the selected node's findings name, if anything.
    target: Option<SchemaTarget>,
    /// The schema's scroll.
    scroll: Scroll,
}

impl SchemaScreen {
    /// The schema at the field (or key) the findings of the selected node name.
    pub fn open(state: &RunState, selection: &Selection) -> Self {
        let target = selection.current_iteration(state).and_then(|(_, it)| {
            let node = it.dag.as_ref()?.nodes.get(selection.node)?;
            let lines = schema_lines(&recorded_schema(state)?);
            target(&lines, node, it.feedback.as_ref())
        });
        let mut scroll = Scroll::default();
        scroll.jump_to_anchor();
        Self { target, scroll }
    }
}

impl Component for SchemaScreen {
    fn screen(&self) -> Screen {
        Screen::Schema
    }

    fn handle(&mut self, action: Action, _ctx: &Ctx) -> Handled {
        scroll_pane(&mut self.scroll, action)
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        draw(self, frame, area, ctx);
    }
}

/// Draw `screen`'s schema into `area`.
fn draw(screen: &SchemaScreen, frame: &mut Frame, area: Rect, ctx: &Ctx) {
    let t = ctx.theme;
    let Some(schema) = recorded_schema(ctx.state) else {
        let note = "No DAG-building prompt is recorded yet: the schema shows once the builder has been asked.";
        let block = Block::default().borders(Borders::ALL).title(" dataset schema ").border_style(t.fg(Ink::Border));
        frame.render_widget(Paragraph::new(note).wrap(Wrap { trim: true }).block(block), area);
        return;
    };
    let lines = schema_lines(&schema);
    let target = screen.target.as_ref();
    let at = target.and_then(|target| line_of(&lines, target));
    let title = match (target, at) {
        (Some(target), Some(_)) => {
            let field = target.field.as_deref().map(|f| format!("[\"{f}\"]")).unwrap_or_default();
            format!(" dataset schema the builder saw · at dataset.{}{field} ", target.key)
        }
        (Some(target), None) => format!(" dataset schema the builder saw · dataset.{} is not in it ", target.key),
        (None, _) => " dataset schema the builder saw ".to_string(),
    };
    // From the target's key line when it fits in half the pane, else a little above the target.
    let key_line = target.and_then(|target| line_of(&lines, &SchemaTarget { key: target.key.clone(), field: None }));
    let anchor = match (at, key_line) {
        (Some(at), Some(key)) if at - key.min(at) < usize::from(area.height / 2) => key,
        (Some(at), _) => at.saturating_sub(CONTEXT),
        (None, _) => 0,
    };
    let first = screen.scroll.place(lines.len(), || anchor);
    let shown: Vec<Line> =
        lines.iter().enumerate().skip(first).map(|(index, line)| styled(ctx, line, Some(index) == at)).collect();
    let block =
        Block::default().borders(Borders::ALL).title(clean(&title).into_owned()).border_style(t.fg(Ink::Accent));
    frame.render_widget(Paragraph::new(shown).wrap(Wrap { trim: false }).block(block), area);
}

#[cfg(test)]
mod tests {
    use crate::tui::Screen;
    use crate::tui::frame_text::{SAMPLE_TRACE, assert_screen_snapshots};

    /// Opened from q_01's first iteration, at the field its finding suggests.
    #[test]
    fn snapshots_at_both_sizes() {
        assert_screen_snapshots!(SAMPLE_TRACE, "j\nhhS", Screen::Schema, "schema");
    }
}
