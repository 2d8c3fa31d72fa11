//! Iteration N−1 versus N: nodes added, removed and changed (with a unified
//! diff of the code), and each earlier finding marked resolved, persisting or
//! new. Scrolls when longer than the screen.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::domain::{FindingFate, IterationDiff, NodeChange};
use crate::tui::app::App;
use crate::tui::text::clean_line;
use crate::tui::theme::{Ink, Theme};
use crate::tui::widgets::code_view::source_color;

/// Lines of the node changes `nodes` (shared with the comparison detail).
pub fn node_lines(t: &Theme, nodes: &[NodeChange]) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for change in nodes {
        match change {
            NodeChange::Added { node } => {
                lines.push(Line::from(Span::styled(format!("+ added {}", node.node_id), t.fg(Ink::DiffLineAdd))))
            }
            NodeChange::Removed { node } => {
                lines.push(Line::from(Span::styled(format!("- removed {}", node.node_id), t.fg(Ink::DiffLineRemove))))
            }
            NodeChange::Unchanged { node_id } => {
                lines.push(Line::from(Span::styled(format!("  unchanged {node_id}"), t.fg(Ink::Muted))))
            }
            NodeChange::Changed { after, code_diff, .. } => {
                lines.push(Line::from(Span::styled(format!("~ changed {}", after.node_id), t.fg(Ink::NodeFlagged))));
                for line in code_diff.lines().filter(|l| !l.starts_with("+++") && !l.starts_with("---")) {
                    let style = match line.chars().next() {
                        Some('+') => t.fg(Ink::DiffLineAdd),
                        Some('-') => t.fg(Ink::DiffLineRemove),
                        Some('@') => t.fg(Ink::Accent),
                        _ => t.fg(Ink::Text),
                    };
                    lines.push(Line::from(Span::styled(format!("    {line}"), style)));
                }
            }
        }
    }
    lines
}

/// Every line of the diff of the selected iteration against the one before it.
fn lines(app: &App) -> Vec<Line<'static>> {
    let t = &app.theme;
    let all = app.iterations();
    let index = app.question.iteration.min(all.len().saturating_sub(1));
    let (Some((_, before)), Some((_, after))) = (index.checked_sub(1).and_then(|i| all.get(i)), all.get(index)) else {
        return vec![Line::from("no earlier iteration to compare with")];
    };
    let (Some(old), Some(new)) = (&before.dag, &after.dag) else {
        return vec![Line::from("one of the iterations has no DAG (its reply could not be read)")];
    };
    let diff = IterationDiff::between(old, before.feedback.as_ref(), new, after.feedback.as_ref());
    let mut lines = vec![Line::from(Span::styled("findings", t.fg(Ink::Accent).add_modifier(Modifier::BOLD)))];
    for (fate, finding) in &diff.findings {
        let (label, color) = match fate {
            FindingFate::Resolved => ("resolved  ", Ink::FindingResolved),
            FindingFate::Persisting => ("persisting", Ink::FindingPersisting),
            FindingFate::New => ("new       ", Ink::FindingNew),
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{label} "), t.fg(color).add_modifier(Modifier::BOLD)),
            Span::styled(format!("[{}] ", finding.source.label()), t.fg(source_color(finding.source))),
            Span::styled(
                format!("{} {}: ", finding.node_id.as_deref().unwrap_or("DAG"), finding.rule),
                t.fg(Ink::Text),
            ),
            Span::styled(finding.message.lines().next().unwrap_or_default().to_string(), t.fg(Ink::Muted)),
        ]));
    }
    lines.push(Line::from(""));
    lines.push(Line::from(Span::styled("nodes", t.fg(Ink::Accent).add_modifier(Modifier::BOLD))));
    lines.extend(node_lines(t, &diff.nodes));
    lines.into_iter().map(clean_line).collect()
}

/// Draw the diff of the selected iteration against the one before it.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let all = app.iterations();
    let index = app.question.iteration.min(all.len().saturating_sub(1));
    let title = match (index.checked_sub(1).and_then(|i| all.get(i)), all.get(index)) {
        (Some((_, before)), Some((_, after))) => format!(" iteration {} → {} ", before.number, after.number),
        _ => " diff ".into(),
    };
    let lines = lines(app);
    let first = app.scrolls.diff.place(lines.len(), || 0);
    let title = if first > 0 { format!("{title}· line {} of {} ", first + 1, lines.len()) } else { title };
    let block = Block::default().borders(Borders::ALL).title(title).border_style(app.theme.fg(Ink::Border));
    let shown: Vec<Line> = lines.into_iter().skip(first).collect();
    frame.render_widget(Paragraph::new(shown).wrap(Wrap { trim: false }).block(block), area);
}
