//! A published benchmark's own figures for the run as it stands: its three
//! metrics over the questions answered, over every scored question and on the
//! first DAGs' answers; the critic's lift over those questions (first DAG's
//! answer → final answer) overall, per level and per dataset, with the tokens
//! and cost of each extra right answer; and the questions the loop fixed and
//! broke, which Enter opens.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, TableState};

use super::question::QuestionScreen;
use crate::domain::Scorer;
use crate::report::{
    BenchmarkMetrics, BenchmarkSummary, Lift, LiftQuestion, LiftTally, benchmark_lift, benchmark_summary,
    per_extra_right_line,
};
use crate::run::RunState;
use crate::text::percent;
use crate::tui::component::{Component, Ctx, Handled};
use crate::tui::keymap::Action;
use crate::tui::keymap::Screen;
use crate::tui::text::{clean, fit, preview};
use crate::tui::theme::Ink;

/// Whether a question of `state` is scored by a published benchmark's rules
/// (it names a benchmark's scorer and has an expected answer).
pub fn has_benchmark_questions(state: &RunState) -> bool {
    state
        .questions
        .iter()
        .any(|q| q.question.scorer.is_some_and(|s| s != Scorer::Builtin) && q.question.expected_answer.is_some())
}

/// The benchmark screen when the run has benchmark-scored questions; else
/// the status line says there are none.
pub fn open(ctx: &Ctx) -> Handled {
    if has_benchmark_questions(ctx.state) {
        return Handled::open(Box::<BenchmarkScreen>::default());
    }
    Handled::message("no question of this run is scored by a published benchmark's rules")
}

/// A question the loop changed: fixed (wrong on its first DAG's answer, right
/// at the end) or broken.
struct Changed {
    question: LiftQuestion,
    fixed: bool,
}

/// The fixed questions, then the broken ones.
fn changed(lift: Option<&Lift>) -> Vec<Changed> {
    let Some(lift) = lift else { return Vec::new() };
    let fixed = lift.fixed.iter().map(|q| Changed { question: q.clone(), fixed: true });
    fixed.chain(lift.broken.iter().map(|q| Changed { question: q.clone(), fixed: false })).collect()
}

/// The benchmark screen: its figures for the run as it stands, worked out
/// when the run changed, and the selected fixed or broken question.
#[derive(Default)]
pub struct BenchmarkScreen {
    /// The selected row of the fixed and broken questions.
    row: usize,
    /// The benchmark's metrics over the run.
    summary: Option<BenchmarkSummary>,
    /// The critic's lift within the run over the benchmark's questions.
    lift: Option<Lift>,
    /// The questions the loop fixed, then those it broke.
    changed: Vec<Changed>,
}

impl Component for BenchmarkScreen {
    fn screen(&self) -> Screen {
        Screen::Benchmark
    }

    fn handle(&mut self, action: Action, ctx: &Ctx) -> Handled {
        match action {
            Action::Up => self.row = self.row.saturating_sub(1),
            Action::Down => self.row = (self.row + 1).min(self.changed.len().saturating_sub(1)),
            Action::Open => {
                let Some(row) = self.changed.get(self.row) else {
                    return Handled::message("the loop neither fixed nor broke a question");
                };
                let Some(q) = ctx.state.question(&row.question.question_id) else { return Handled::done() };
                return Handled::open(Box::new(QuestionScreen::open(q)));
            }
            _ => return Handled::Ignored,
        }
        Handled::done()
    }

    fn refresh(&mut self, ctx: &Ctx) {
        if ctx.run_changed {
            self.summary = benchmark_summary(ctx.state.questions.iter());
            self.lift = benchmark_lift(ctx.state);
            self.changed = changed(self.lift.as_ref());
        }
        self.row = self.row.min(self.changed.len().saturating_sub(1));
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        draw(self, frame, area, ctx);
    }
}

/// Width of the first column of the figures.
const LABEL: usize = 30;

/// The benchmark's metrics: a header, then a row per set of questions.
fn metrics_lines(ctx: &Ctx, summary: &BenchmarkSummary) -> Vec<Line<'static>> {
    let t = ctx.theme;
    let row = |over: &str, m: &BenchmarkMetrics| {
        Line::from(vec![
            Span::styled(format!("{over:<LABEL$}"), t.fg(Ink::Text)),
            Span::styled(
                format!(
                    " {:>9} {:>13} {:>13}",
                    percent(m.accuracy_by_question),
                    percent(m.accuracy_by_sub_question),
                    percent(m.proportional_accuracy_by_sub_question)
                ),
                t.fg(Ink::Accent),
            ),
        ])
    };
    let own = BenchmarkMetrics {
        accuracy_by_question: summary.accuracy_by_question,
        accuracy_by_sub_question: summary.accuracy_by_sub_question,
        proportional_accuracy_by_sub_question: summary.proportional_accuracy_by_sub_question,
    };
    let mut lines = vec![
        Line::from(vec![
            Span::styled(clean(&summary.name).into_owned(), t.fg(Ink::Accent).add_modifier(Modifier::BOLD)),
            Span::styled(
                format!(" · {} of {} scored questions answered", summary.answered, summary.questions),
                t.fg(Ink::Muted),
            ),
        ]),
        Line::styled(
            format!("{:<LABEL$} {:>9} {:>13} {:>13}", "accuracy by", "question", "sub-question", "proportional"),
            t.fg(Ink::Muted),
        ),
        row("answered (its own figures)", &own),
    ];
    lines.extend(summary.over_all_questions.as_ref().map(|m| row("every scored question", m)));
    lines.extend(summary.first_iteration.as_ref().map(|m| row("first DAGs' answers", m)));
    lines
}

/// The lift: a row for the run, each level and each dataset, then what an
/// extra right answer cost.
fn lift_lines(ctx: &Ctx, lift: &Lift) -> Vec<Line<'static>> {
    let t = ctx.theme;
    let row = |name: &str, tally: &LiftTally| {
        let ink = |n: usize, bad: bool| match (n, bad) {
            (0, _) => t.fg(Ink::Text),
            (_, true) => t.fg(Ink::StatusFailed),
            (_, false) => t.fg(Ink::StatusPassed),
        };
        Line::from(vec![
            Span::styled(format!("{:<LABEL$}", fit(&clean(name), LABEL)), t.fg(Ink::Text)),
            Span::styled(
                format!(" {:>4} → {:<4}", percent(tally.accuracy_before), percent(tally.accuracy_after)),
                t.fg(Ink::Accent),
            ),
            Span::styled(
                format!(" {:>3}/{} → {}/{}", tally.right_before, tally.questions, tally.right_after, tally.questions),
                t.fg(Ink::Muted),
            ),
            Span::styled(format!("  fixed {}", tally.fixed), ink(tally.fixed, false)),
            Span::styled(format!("  broken {}", tally.broken), ink(tally.broken, true)),
        ])
    };
    let mut lines = vec![
        Line::default(),
        Line::styled(
            "the critic's lift: first DAG's answer → final answer",
            t.fg(Ink::Accent).add_modifier(Modifier::BOLD),
        ),
        row("every scored question", &lift.overall),
    ];
    lines.extend(lift.by_level.iter().map(|(level, tally)| row(&format!("  {}", level.as_str()), tally)));
    lines.extend(lift.by_dataset.iter().map(|(dataset, tally)| row(&format!("  {dataset}"), tally)));
    lines.push(Line::styled(per_extra_right_line(lift), t.fg(Ink::Muted)));
    lines
}

/// The fixed and broken questions as a table, the selected one highlighted.
fn changed_table(frame: &mut Frame, area: Rect, ctx: &Ctx, rows: &[Changed], selected: usize) {
    let t = ctx.theme;
    let several = rows.iter().any(|r| r.question.dataset.is_some());
    let id_width = rows.iter().map(|r| r.question.question_id.chars().count()).max().unwrap_or(0).clamp(6, 16);
    let dataset_width = if several { 13 } else { 0 };
    let question_width = (area.width as usize).saturating_sub(id_width + 8 + 7 + dataset_width + 4).max(8);
    let table_rows: Vec<Row> = rows
        .iter()
        .map(|r| {
            let (tag, ink) = if r.fixed { ("fixed", Ink::StatusPassed) } else { ("broken", Ink::StatusFailed) };
            let q = &r.question;
            let text = serde_json::Value::String(q.question.clone());
            let cells = [
                Some(Cell::from(Span::styled(fit(&clean(&q.question_id), id_width), t.fg(Ink::Accent)))),
                Some(Cell::from(Span::styled(tag, t.fg(ink)))),
                Some(Cell::from(Span::styled(q.level.as_str().to_string(), t.fg(Ink::Muted)))),
                several.then(|| {
                    Cell::from(Span::styled(fit(q.dataset.as_deref().unwrap_or_default(), 12), t.fg(Ink::Muted)))
                }),
                Some(Cell::from(Span::styled(preview(&text, question_width), t.fg(Ink::Text)))),
            ];
            Row::new(cells.into_iter().flatten())
        })
        .collect();
    let mut widths = vec![Constraint::Length(id_width as u16), Constraint::Length(7), Constraint::Length(6)];
    if several {
        widths.push(Constraint::Length(12));
    }
    widths.push(Constraint::Min(8));
    let fixed = rows.iter().filter(|r| r.fixed).count();
    let title = format!(" fixed {fixed} · broken {} · enter: open the question ", rows.len() - fixed);
    let table = Table::new(table_rows, widths)
        .row_highlight_style(t.selected())
        .block(Block::default().borders(Borders::TOP).title(title).border_style(t.fg(Ink::Border)));
    let selection = (!rows.is_empty()).then(|| selected.min(rows.len() - 1));
    frame.render_stateful_widget(table, area, &mut TableState::default().with_selected(selection));
    if rows.is_empty() {
        let note = Rect { y: area.y + 1, height: 1.min(area.height.saturating_sub(1)), ..area };
        let text = "  none yet: the loop has neither fixed nor broken a scored question";
        frame.render_widget(Paragraph::new(Span::styled(text, t.fg(Ink::Muted))), note);
    }
}

/// Draw `screen` into `area`.
fn draw(screen: &BenchmarkScreen, frame: &mut Frame, area: Rect, ctx: &Ctx) {
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" benchmark: its own figures and the critic's lift ")
        .border_style(ctx.theme.fg(Ink::Accent));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let lift = screen.lift.as_ref();
    let mut top = match &screen.summary {
        Some(summary) => metrics_lines(ctx, summary),
        None => vec![Line::styled("no answer scored by a benchmark's rules yet", ctx.theme.fg(Ink::Muted))],
    };
    top.extend(lift.map(|lift| lift_lines(ctx, lift)).unwrap_or_default());
    // The list keeps three rows (its title and two questions) however small the screen.
    let top_height = (top.len() as u16 + 1).min(inner.height.saturating_sub(3));
    let [top_area, list_area] = Layout::vertical([Constraint::Length(top_height), Constraint::Min(0)]).areas(inner);
    frame.render_widget(Paragraph::new(top), top_area);
    changed_table(frame, list_area, ctx, &screen.changed, screen.row);
}

#[cfg(test)]
mod tests {
    use crate::tui::Screen;
    use crate::tui::frame_text::assert_screen_snapshots;

    /// The scripted benchmark run: one question fixed by the loop, one broken,
    /// over two datasets and three levels.
    #[test]
    fn snapshots_at_both_sizes() {
        assert_screen_snapshots!(
            "sample-data/traces/benchmark-scripted.trace.jsonl",
            "B",
            Screen::Benchmark,
            "benchmark"
        );
    }
}
