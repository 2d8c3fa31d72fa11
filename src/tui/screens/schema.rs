//! The dataset schema the builder saw — keys, shapes, fields, types, example
//! values and notes, as recorded in its prompt — opened at the field (or key)
//! the selected node's findings point at.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::tui::app::App;
use crate::tui::schema_text::{SchemaLine, SchemaLineKind, SchemaTarget, line_of, recorded_schema, schema_lines};
use crate::tui::text::clean;
use crate::tui::theme::Ink;

/// Lines shown above a target far below its key, for context.
const CONTEXT: usize = 2;

fn styled(app: &App, line: &SchemaLine, target: bool) -> Line<'static> {
    let t = &app.theme;
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

/// Draw the schema into `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let t = &app.theme;
    let Some(schema) = recorded_schema(&app.state) else {
        let note = "No DAG-building prompt is recorded yet: the schema shows once the builder has been asked.";
        let block = Block::default().borders(Borders::ALL).title(" dataset schema ").border_style(t.fg(Ink::Border));
        frame.render_widget(Paragraph::new(note).wrap(Wrap { trim: true }).block(block), area);
        return;
    };
    let lines = schema_lines(&schema);
    let target = app.schema_target.as_ref();
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
    let first = app.scrolls.schema.place(lines.len(), || anchor);
    let shown: Vec<Line> =
        lines.iter().enumerate().skip(first).map(|(index, line)| styled(app, line, Some(index) == at)).collect();
    let block =
        Block::default().borders(Borders::ALL).title(clean(&title).into_owned()).border_style(t.fg(Ink::Accent));
    frame.render_widget(Paragraph::new(shown).wrap(Wrap { trim: false }).block(block), area);
}
