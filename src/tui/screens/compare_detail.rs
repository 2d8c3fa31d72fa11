//! One question of two runs side by side: status, iterations, tokens, the
//! final answer and the final DAG's nodes of A and of B, then what changed
//! from A's DAG to B's (scrolls when long).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use super::SCROLL_STEP;
use crate::domain::{GeneratedDag, IterationDiff};
use crate::report::{Change, Row, Side};
use crate::tui::comparison::Comparison;
use crate::tui::component::{Component, Ctx, Effect, Handled};
use crate::tui::keymap::Action;
use crate::tui::keymap::Screen;
use crate::tui::screens::diff::node_lines;
use crate::tui::scroll::Scroll;
use crate::tui::text::{clean, clean_line};
use crate::tui::theme::{Ink, Theme};

/// Colour of a change.
pub fn change_style(t: &Theme, change: Change) -> Style {
    match change {
        Change::Regression => t.fg(Ink::StatusFailed).add_modifier(Modifier::BOLD),
        Change::Improvement => t.fg(Ink::StatusPassed).add_modifier(Modifier::BOLD),
        Change::AnswerChanged => t.fg(Ink::NodeFlagged),
        Change::FixedByHand | Change::OnlyInA | Change::OnlyInB => t.fg(Ink::Accent),
        Change::Unchanged => t.fg(Ink::Muted),
    }
}

/// Colour of a side's status.
pub fn side_style(t: &Theme, side: Option<&Side>) -> Style {
    match side {
        Some(s) if s.success => t.fg(Ink::StatusPassed),
        Some(_) => t.fg(Ink::StatusFailed),
        None => t.fg(Ink::Muted),
    }
}

fn side_lines(t: &Theme, side: Option<&Side>, dag: Option<&GeneratedDag>) -> Vec<Line<'static>> {
    let Some(s) = side else { return vec![Line::from(Span::styled("not in this run", t.fg(Ink::Muted)))] };
    let field = |name: &str, value: String| {
        Line::from(vec![Span::styled(format!("{name:<11}"), t.fg(Ink::Muted)), Span::styled(value, t.fg(Ink::Text))])
    };
    let mut lines = vec![
        Line::from(vec![
            Span::styled(format!("{:<11}", "status"), t.fg(Ink::Muted)),
            Span::styled(s.status.to_string(), side_style(t, side)),
        ]),
        field("iterations", s.iterations.to_string()),
        field("tokens", s.tokens.to_string()),
        Line::from(Span::styled("answer", t.fg(Ink::Muted))),
    ];
    let answer = serde_json::to_string_pretty(&s.answer).unwrap_or_default();
    lines.extend(answer.lines().map(|l| Line::from(Span::styled(format!("  {l}"), t.fg(Ink::Text)))));
    match dag {
        Some(dag) => {
            lines.push(Line::from(Span::styled(format!("final DAG ({} nodes)", dag.nodes.len()), t.fg(Ink::Muted))));
            for node in &dag.nodes {
                let star = if node.node_id == dag.final_answer_node { " ★" } else { "" };
                // `prev_node.<id>.output` reads as the node id.
                let inputs: Vec<&str> = node
                    .inputs
                    .values()
                    .map(|r| r.strip_prefix("prev_node.").and_then(|r| r.strip_suffix(".output")).unwrap_or(r))
                    .collect();
                lines.push(Line::from(vec![
                    Span::styled(format!("  L{} {}{star}", node.layer, node.node_id), t.fg(Ink::Accent)),
                    Span::styled(format!(" ← {}", inputs.join(", ")), t.fg(Ink::Muted)),
                ]));
            }
        }
        None => lines.push(Line::from(Span::styled("no DAG recorded", t.fg(Ink::Muted)))),
    }
    lines.into_iter().map(clean_line).collect()
}

/// Every line of the DAG changes from A's final DAG to B's, for the selected row.
fn lines(ctx: &Ctx, comparison: &Comparison) -> Vec<Line<'static>> {
    let t = ctx.theme;
    let Some(row) = comparison.selected() else {
        return Vec::new();
    };
    let (Some(a), Some(b)) = (&row.a, &row.b) else {
        return vec![Line::from(Span::styled("only one run has this question", t.fg(Ink::Muted)))];
    };
    match (comparison.dags[0].get(&a.question_id), comparison.dags[1].get(&b.question_id)) {
        (Some(a), Some(b)) => {
            let diff = IterationDiff::between(a, None, b, None);
            if diff.nodes.iter().all(|n| matches!(n, crate::domain::NodeChange::Unchanged { .. })) {
                vec![Line::from(Span::styled("the final DAGs are the same", t.fg(Ink::Muted)))]
            } else {
                node_lines(t, &diff.nodes).into_iter().map(clean_line).collect()
            }
        }
        _ => vec![Line::from(Span::styled(
            "no DAG diff: the inputs do not record both final DAGs (traces and eval_results.json written by eval-dag do)",
            t.fg(Ink::Muted),
        ))],
    }
}

/// The question, its change (named with the runs' letters: a pair opened
/// from the matrix may be A and C) and its text.
fn heading(t: &Theme, row: &Row, [a, b]: &[String; 2]) -> Line<'static> {
    let change = match row.change {
        Change::OnlyInA => format!("only in {a}"),
        Change::OnlyInB => format!("only in {b}"),
        other => other.label().to_string(),
    };
    clean_line(Line::from(vec![
        Span::styled(format!(" {} ", row.question_id), t.fg(Ink::Accent).add_modifier(Modifier::BOLD)),
        Span::styled(change, change_style(t, row.change)),
        Span::styled(format!("  {}", row.question.replace('\n', " ")), t.fg(Ink::Text)),
    ]))
}

/// The comparison detail: one question of two runs side by side. Over the
/// comparison table it shows (and moves) the table's selection; from the
/// matrix it holds the pair it was opened with.
pub struct CompareDetailScreen {
    /// The pair from the matrix; none over the comparison table.
    pair: Option<Comparison>,
    /// The changes' scroll.
    scroll: Scroll,
}

impl CompareDetailScreen {
    /// The detail of the comparison table's selected row.
    pub fn over_table() -> Self {
        Self { pair: None, scroll: Scroll::default() }
    }

    /// The detail of `pair`, at its selected row.
    pub fn of(pair: Comparison) -> Self {
        Self { pair: Some(pair), scroll: Scroll::default() }
    }

    /// The comparison shown: the pair, else the table's below.
    fn shown<'a>(&'a self, ctx: &'a Ctx) -> Option<&'a Comparison> {
        self.pair.as_ref().or_else(|| ctx.comparison())
    }
}

impl Component for CompareDetailScreen {
    fn screen(&self) -> Screen {
        Screen::CompareDetail
    }

    fn handle(&mut self, action: Action, _ctx: &Ctx) -> Handled {
        match action {
            Action::Up | Action::Down => {
                let down = action == Action::Down;
                self.scroll.top();
                match &mut self.pair {
                    Some(pair) => pair.move_selection(down),
                    None => return Handled::with(Effect::MoveComparison { down }),
                }
            }
            Action::ScrollDown => self.scroll.down(SCROLL_STEP),
            Action::ScrollUp => self.scroll.up(SCROLL_STEP),
            _ => return Handled::Ignored,
        }
        Handled::done()
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        let Some(comparison) = self.shown(ctx) else { return };
        draw(comparison, &self.scroll, frame, area, ctx);
    }

    fn comparison(&self) -> Option<&Comparison> {
        self.pair.as_ref()
    }
}

/// Draw the selected question of both runs into `area`.
fn draw(comparison: &Comparison, scroll: &Scroll, frame: &mut Frame, area: Rect, ctx: &Ctx) {
    let t = ctx.theme;
    let Some(row) = comparison.selected() else { return };
    let dag = |run: usize, side: Option<&Side>| side.and_then(|s| comparison.dags[run].get(&s.question_id));
    let sides =
        [side_lines(t, row.a.as_ref(), dag(0, row.a.as_ref())), side_lines(t, row.b.as_ref(), dag(1, row.b.as_ref()))];
    // Borders, and a row for a wrapped answer or node line.
    let tallest = u16::try_from(sides.iter().map(Vec::len).max().unwrap_or(0)).unwrap_or(u16::MAX).saturating_add(3);
    let [title, top, bottom] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(tallest.min(area.height.saturating_sub(1) / 3 * 2)),
        Constraint::Min(3),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(heading(t, row, &comparison.labels)), title);
    let columns: [Rect; 2] = Layout::horizontal([Constraint::Percentage(50); 2]).areas(top);
    for ((lines, column), (name, path)) in
        sides.into_iter().zip(columns).zip(comparison.labels.iter().zip(&comparison.names))
    {
        let block = Block::default()
            .borders(Borders::ALL)
            .title(clean(&format!(" {name}: {path} ")).into_owned())
            .border_style(t.fg(Ink::Border));
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }).block(block), column);
    }
    let lines = lines(ctx, comparison);
    let first = scroll.place(lines.len(), || 0);
    let [a, b] = &comparison.labels;
    let mut title = format!(" final DAG: changes from {a} to {b} ");
    if first > 0 {
        title.push_str(&format!("· line {} of {} ", first + 1, lines.len()));
    }
    let block = Block::default().borders(Borders::ALL).title(title).border_style(t.fg(Ink::Border));
    let shown: Vec<Line> = lines.into_iter().skip(first).collect();
    frame.render_widget(Paragraph::new(shown).wrap(Wrap { trim: false }).block(block), bottom);
}

#[cfg(test)]
mod tests {
    use crate::tui::frame_text::SNAPSHOT_SIZES;
    use crate::tui::screens::compare::tests::comparison;
    use crate::tui::{App, Screen, Theme, frame_text, press_keys};

    /// q_02, the regression, opened from the compare table.
    #[test]
    fn snapshots_at_both_sizes() {
        for (width, height) in SNAPSHOT_SIZES {
            let mut app = App::comparing(comparison(), Theme::dark());
            press_keys(&mut app, "j\n");
            assert_eq!(app.screen(), Screen::CompareDetail);
            insta::assert_snapshot!(format!("compare_detail_{width}x{height}"), frame_text(&app, width, height));
        }
    }
}
