//! Drawing the node inspector: the selected node's inputs and output as a
//! tree — each row with its Python type and size, containers opening in
//! place — and the path of the selected value as Python, ready to paste into
//! node code.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::InspectorScreen as Inspector;
use crate::run::NodeRun;
use crate::tui::component::Ctx;
use crate::tui::text::{clean, fit};
use crate::tui::theme::Ink;
use crate::tui::value_tree::TreeRow;

fn row_line(ctx: &Ctx, row: &TreeRow, selected: bool, width: usize) -> Line<'static> {
    let t = ctx.theme;
    let marker = match row.open {
        Some(true) => "▾ ",
        Some(false) => "▸ ",
        None => "  ",
    };
    let kind = match (row.kind, row.size) {
        ("", _) => String::new(),
        ("str", Some(chars)) => format!("  str, {chars} chars"),
        (kind, _) => format!("  {kind}"),
    };
    let indent = "  ".repeat(row.depth.min(width / 4));
    let head = format!("{indent}{marker}{}", clean(&row.label));
    let room = width.saturating_sub(head.chars().count() + kind.chars().count() + 2);
    let mut line = Line::from(vec![
        Span::styled(
            head,
            t.fg(Ink::Text).add_modifier(if row.open.is_some() { Modifier::BOLD } else { Modifier::empty() }),
        ),
        Span::styled(kind, t.fg(Ink::Muted)),
        Span::raw("  "),
        Span::styled(fit(&clean(&row.summary), room), t.fg(Ink::Accent)),
    ]);
    if selected {
        line = line.patch_style(t.selected());
    }
    line
}

/// The inspected node's latest run on its own, if any.
fn latest_run<'a>(ctx: &'a Ctx, inspector: &Inspector) -> Option<&'a NodeRun> {
    let at = &inspector.at;
    let it = ctx.state.question(&at.question_id)?.iteration_at(at)?;
    it.node_runs.iter().rev().find(|run| run.node_id == inspector.node_id)
}

/// What the node's latest run on its own gave.
fn draw_run(frame: &mut Frame, area: Rect, ctx: &Ctx, run: &NodeRun) {
    let t = ctx.theme;
    let how = if run.code.is_some() { "as edited" } else { "as recorded" };
    let ms = run.result.node_timings_ms.get(&run.node_id).copied().unwrap_or(run.result.execution_time_ms);
    let (title, text, ink) = match (&run.result.error, run.result.node_outputs.get(&run.node_id)) {
        (None, Some(output)) => {
            (format!(" ran on its own, {how}, in {ms:.0} ms "), crate::text::preview(output, 400), Ink::StatusPassed)
        }
        (error, _) => (
            format!(" ran on its own, {how}: failed "),
            error.clone().unwrap_or_else(|| "no output".into()),
            Ink::StatusFailed,
        ),
    };
    let block = Block::default().borders(Borders::ALL).title(title).border_style(t.fg(ink));
    let paragraph = Paragraph::new(clean(&text).into_owned()).wrap(ratatui::widgets::Wrap { trim: true });
    frame.render_widget(paragraph.style(t.fg(Ink::Text)).block(block), area);
}

impl Inspector {
    /// Draw the inspector into `area`.
    pub(super) fn draw_screen(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        let inspector = self;
        let t = ctx.theme;
        let run = latest_run(ctx, inspector);
        let run_height = if run.is_some() { 4 } else { 0 };
        let [header, body, ran] =
            Layout::vertical([Constraint::Length(2), Constraint::Min(1), Constraint::Length(run_height)]).areas(area);
        if let Some(run) = run {
            draw_run(frame, ran, ctx, run);
        }
        let at = &inspector.at;
        let search = match (&inspector.typing, inspector.tree.query(), inspector.tree.match_position()) {
            (Some(typing), _, _) => format!("search: {typing}▏ (enter finds, esc gives up)"),
            (None, Some(query), Some((current, total))) => format!("{query:?}: match {current} of {total}"),
            (None, Some(query), None) => format!("{query:?}: no match"),
            _ => String::new(),
        };
        let lines = vec![
            Line::from(vec![
                Span::styled(
                    clean(&format!("{} · attempt {}, iteration {} · ", inspector.node_id, at.attempt, at.iteration))
                        .into_owned(),
                    t.fg(Ink::Accent).add_modifier(Modifier::BOLD),
                ),
                Span::styled(clean(&inspector.sources.join(", ")).into_owned(), t.fg(Ink::Muted)),
            ]),
            Line::from(vec![
                Span::styled(clean(&inspector.tree.selected_path_text()).into_owned(), t.fg(Ink::Text)),
                Span::styled(format!("  {search}"), t.fg(Ink::Muted)),
            ]),
        ];
        frame.render_widget(Paragraph::new(lines), header);
        let block = Block::default().borders(Borders::ALL).title(" inputs and output ").border_style(t.fg(Ink::Accent));
        let inner = block.inner(body);
        frame.render_widget(block, body);
        let rows = inspector.tree.rows();
        let height = usize::from(inner.height).max(1);
        // Keep the selection on screen, a third of the way down when the tree scrolls.
        let selected = inspector.tree.selected();
        let first = if selected < height { 0 } else { selected - height * 2 / 3 };
        let shown: Vec<Line> = rows
            .iter()
            .enumerate()
            .skip(first)
            .take(height)
            .map(|(index, row)| row_line(ctx, row, index == selected, usize::from(inner.width)))
            .collect();
        frame.render_widget(Paragraph::new(shown), inner);
    }
}
