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
    BaselineFloors, BaselineTally, BenchmarkMetrics, BenchmarkSummary, Lift, LiftQuestion, LiftTally, benchmark_lift,
    benchmark_summary, per_extra_right_line, tally_text,
};
use crate::run::RunState;
use crate::text::percent;
use crate::tui::baselines::BaselineFlags;
use crate::tui::component::{Component, Ctx, Handled};
use crate::tui::keymap::Action;
use crate::tui::keymap::Screen;
use crate::tui::text::{clean, fit, preview};
use crate::tui::theme::Ink;

/// Whether a question of `state` is scored by a published benchmark's rules
/// (it names a benchmark's scorer and has an expected answer).
fn has_benchmark_questions(state: &RunState) -> bool {
    state
        .questions
        .iter()
        .any(|q| q.question.scorer.is_some_and(|s| s != Scorer::Builtin) && q.question.expected_answer.is_some())
}

/// Whether the benchmark screen has something to show: benchmark-scored
/// questions, or the baselines of a run that asked for them.
pub fn has_benchmark_figures(state: &RunState) -> bool {
    has_benchmark_questions(state) || state.settings.as_ref().is_some_and(|s| s.baselines)
}

/// The benchmark screen when the run has benchmark-scored questions or
/// baselines; else the status line says there are none.
pub fn open(ctx: &Ctx) -> Handled {
    if has_benchmark_figures(ctx.state) {
        return Handled::open(Box::<BenchmarkScreen>::default());
    }
    Handled::message("no question of this run is scored by a published benchmark's rules")
}

/// Why a question is listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Why {
    /// Wrong on its first DAG's answer, right at the end.
    Fixed,
    /// Right on its first DAG's answer, wrong at the end.
    Broken,
    /// A model answers it right without the data (its `no_data` baseline).
    WithoutData,
}

/// A question the list shows, with its baseline flags in a run with baselines.
struct Listed {
    question: LiftQuestion,
    why: Why,
    flags: Option<BaselineFlags>,
}

/// Which questions the list shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Listing {
    /// The questions the loop fixed, then those it broke.
    #[default]
    Changed,
    /// The questions answerable without the data.
    WithoutData,
}

/// The list's questions: the fixed, then the broken (from `lift`), and those
/// answerable without the data (from `flags`, by question index).
fn listed(state: &RunState, lift: Option<&Lift>, flags: Option<&[BaselineFlags]>) -> (Vec<Listed>, Vec<Listed>) {
    let flags_of = |id: &str| {
        let index = state.questions.iter().position(|q| *q.question.id == *id)?;
        flags?.get(index).copied()
    };
    let entry = |question: &LiftQuestion, why| Listed {
        question: question.clone(),
        why,
        flags: flags_of(&question.question_id),
    };
    let changed = lift.map_or_else(Vec::new, |lift| {
        let fixed = lift.fixed.iter().map(|q| entry(q, Why::Fixed));
        fixed.chain(lift.broken.iter().map(|q| entry(q, Why::Broken))).collect()
    });
    let without_data = state
        .questions
        .iter()
        .zip(flags.unwrap_or_default())
        .filter(|(_, flags)| flags.answerable_without_data())
        .map(|(q, flags)| Listed {
            question: LiftQuestion {
                question_id: q.question.id.to_string(),
                question: q.question.question.clone(),
                level: q.question.difficulty_level,
                dataset: q.question.dataset.clone(),
            },
            why: Why::WithoutData,
            flags: Some(*flags),
        })
        .collect();
    (changed, without_data)
}

/// The benchmark screen: its figures for the run as it stands, worked out
/// when the run changed, and the selected question of its list.
#[derive(Default)]
pub struct BenchmarkScreen {
    /// The selected row of the list.
    row: usize,
    /// Which questions the list shows.
    listing: Listing,
    /// The benchmark's metrics over the run.
    summary: Option<BenchmarkSummary>,
    /// The critic's lift within the run over the benchmark's questions.
    lift: Option<Lift>,
    /// The run's baselines beside the loop, in a run with baselines.
    baselines: Option<Vec<Line<'static>>>,
    /// The questions the loop fixed, then those it broke.
    changed: Vec<Listed>,
    /// The questions answerable without the data.
    without_data: Vec<Listed>,
}

impl BenchmarkScreen {
    /// The questions the list shows now.
    fn rows(&self) -> &[Listed] {
        match self.listing {
            Listing::Changed => &self.changed,
            Listing::WithoutData => &self.without_data,
        }
    }
}

impl Component for BenchmarkScreen {
    fn screen(&self) -> Screen {
        Screen::Benchmark
    }

    fn handle(&mut self, action: Action, ctx: &Ctx) -> Handled {
        match action {
            Action::Up => self.row = self.row.saturating_sub(1),
            Action::Down => self.row = (self.row + 1).min(self.rows().len().saturating_sub(1)),
            Action::ChangeFilter if self.baselines.is_none() => {
                return Handled::message("this run has no baselines (run --baselines answers each question directly)");
            }
            Action::ChangeFilter => {
                self.listing = match self.listing {
                    Listing::Changed => Listing::WithoutData,
                    Listing::WithoutData => Listing::Changed,
                };
                self.row = 0;
            }
            Action::Open => {
                let Some(row) = self.rows().get(self.row) else {
                    return Handled::message(match self.listing {
                        Listing::Changed => "the loop neither fixed nor broke a question",
                        Listing::WithoutData => "no question is answerable without the data",
                    });
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
            let baselines = ctx.baselines();
            self.baselines = baselines.as_ref().map(|b| baselines_lines(ctx, &b.floors));
            let flags = baselines.as_ref().map(|b| b.flags.as_slice());
            (self.changed, self.without_data) = listed(ctx.state, self.lift.as_ref(), flags);
        }
        self.row = self.row.min(self.rows().len().saturating_sub(1));
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

/// The baselines: each one's accuracy over the run beside the loop's, and
/// the loop's where the data is needed.
fn baselines_lines(ctx: &Ctx, floors: &BaselineFloors) -> Vec<Line<'static>> {
    let t = ctx.theme;
    let row = |name: &str, tally: &BaselineTally| {
        let lift = tally.lift.as_ref().map_or(String::new(), |l| format!("  the loop +{} −{}", l.gained, l.lost));
        Line::from(vec![
            Span::styled(format!("{name:<LABEL$}"), t.fg(Ink::Text)),
            Span::styled(format!(" {:>12}", tally_text(tally)), t.fg(Ink::Accent)),
            Span::styled(lift, t.fg(Ink::Muted)),
        ])
    };
    let mut lines = vec![
        Line::default(),
        Line::styled(
            "baselines: each question answered without the loop",
            t.fg(Ink::Accent).add_modifier(Modifier::BOLD),
        ),
        row("the loop", &floors.looped),
    ];
    lines.extend(floors.baselines.iter().map(|(baseline, tally)| row(&format!("  {}", baseline.name()), tally)));
    lines.push(row("the loop where data is needed", &floors.needs_data));
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

/// The list's title: how many questions and why, and the keys.
fn list_title(screen: &BenchmarkScreen) -> String {
    let switch = if screen.baselines.is_some() { " · f: another list" } else { "" };
    match screen.listing {
        Listing::Changed => {
            let fixed = screen.changed.iter().filter(|r| r.why == Why::Fixed).count();
            let broken = screen.changed.len() - fixed;
            format!(" fixed {fixed} · broken {broken} · enter: open the question{switch} ")
        }
        Listing::WithoutData => {
            format!(" {} answerable without the data · enter: open the question{switch} ", screen.without_data.len())
        }
    }
}

/// The listed questions as a table, the selected one highlighted; their
/// baseline flags in a run with baselines.
fn listed_table(frame: &mut Frame, area: Rect, ctx: &Ctx, screen: &BenchmarkScreen) {
    let t = ctx.theme;
    let rows = screen.rows();
    let flagged = screen.baselines.is_some();
    let several = rows.iter().any(|r| r.question.dataset.is_some());
    let id_width = rows.iter().map(|r| r.question.question_id.chars().count()).max().unwrap_or(0).clamp(6, 16);
    let dataset_width = if several { 13 } else { 0 };
    let flags_width = if flagged { 6 } else { 0 };
    let question_width =
        (area.width as usize).saturating_sub(id_width + 8 + 7 + dataset_width + flags_width + 4).max(8);
    let table_rows: Vec<Row> = rows
        .iter()
        .map(|r| {
            let (tag, ink) = match r.why {
                Why::Fixed => ("fixed", Ink::StatusPassed),
                Why::Broken => ("broken", Ink::StatusFailed),
                Why::WithoutData => ("no data", Ink::NodeFlagged),
            };
            let q = &r.question;
            let text = serde_json::Value::String(q.question.clone());
            let cells = [
                Some(Cell::from(Span::styled(fit(&clean(&q.question_id), id_width), t.fg(Ink::Accent)))),
                Some(Cell::from(Span::styled(tag, t.fg(ink)))),
                Some(Cell::from(Span::styled(q.level.as_str().to_string(), t.fg(Ink::Muted)))),
                several.then(|| {
                    Cell::from(Span::styled(fit(q.dataset.as_deref().unwrap_or_default(), 12), t.fg(Ink::Muted)))
                }),
                flagged.then(|| Cell::from(Span::styled(r.flags.unwrap_or_default().text(), t.fg(Ink::NodeFlagged)))),
                Some(Cell::from(Span::styled(preview(&text, question_width), t.fg(Ink::Text)))),
            ];
            Row::new(cells.into_iter().flatten())
        })
        .collect();
    let mut widths = vec![Constraint::Length(id_width as u16), Constraint::Length(7), Constraint::Length(6)];
    if several {
        widths.push(Constraint::Length(12));
    }
    if flagged {
        widths.push(Constraint::Length(5));
    }
    widths.push(Constraint::Min(8));
    let table = Table::new(table_rows, widths)
        .row_highlight_style(t.selected())
        .block(Block::default().borders(Borders::TOP).title(list_title(screen)).border_style(t.fg(Ink::Border)));
    let selection = (!rows.is_empty()).then(|| screen.row.min(rows.len() - 1));
    frame.render_stateful_widget(table, area, &mut TableState::default().with_selected(selection));
    if rows.is_empty() {
        let note = Rect { y: area.y + 1, height: 1.min(area.height.saturating_sub(1)), ..area };
        let text = match screen.listing {
            Listing::Changed => "  none yet: the loop has neither fixed nor broken a scored question",
            Listing::WithoutData => "  none: the model answers no question right without the data",
        };
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
    top.extend(screen.baselines.iter().flatten().cloned());
    // The list keeps three rows (its title and two questions) however small the screen.
    let top_height = (top.len() as u16 + 1).min(inner.height.saturating_sub(3));
    let [top_area, list_area] = Layout::vertical([Constraint::Length(top_height), Constraint::Min(0)]).areas(inner);
    frame.render_widget(Paragraph::new(top), top_area);
    listed_table(frame, list_area, ctx, screen);
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

    /// The scripted run with baselines: the baselines line, each question's
    /// flags, and the list of the questions answerable without the data.
    #[test]
    fn snapshots_of_a_run_with_baselines() {
        let trace = "sample-data/traces/baselines-scripted.trace.jsonl";
        assert_screen_snapshots!(trace, "B", Screen::Benchmark, "benchmark_baselines");
        assert_screen_snapshots!(trace, "Bf", Screen::Benchmark, "benchmark_baselines_without_data");
    }
}
