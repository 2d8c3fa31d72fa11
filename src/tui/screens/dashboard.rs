//! The dashboard: every question with its live status, iterations (of the
//! attempt that speaks for it: with several epochs or drafts, the majority's),
//! findings per iteration, elapsed time and answer, plus the activity feed
//! and, when there is room, charts of the run over time (`run_charts`). Below
//! [`WIDE`] columns the level and time columns make room for the question.
//! Its state is the selected row, the filters and the order.

use crossterm::event::KeyCode;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, TableState};

use super::benchmark;
use super::question::QuestionScreen;
use super::scorecard::ScorecardScreen;
use super::taxonomy::TaxonomyScreen;
use crate::run::{Attempt, FeedKind, QuestionState, QuestionStatus, RunState};
use std::sync::Arc;

use crate::tui::baselines::{BaselineFlags, RunBaselines};
use crate::tui::component::{Component, Ctx, Handled};
use crate::tui::filter_line::type_into;
use crate::tui::keymap::Action;
use crate::tui::keymap::Screen;
use crate::tui::text::{clean, fit, preview, sparkline};
use crate::tui::theme::Ink;
use crate::tui::view::{QuestionSet, Sort, StatusFilter};
use crate::tui::widgets::run_charts;

/// The dashboard: the selected row, which questions and in which order.
#[derive(Debug, Clone)]
pub struct Dashboard {
    /// Selected row of the table.
    pub row: usize,
    /// Text filter.
    pub filter: String,
    /// Whether keys go into the filter.
    pub editing_filter: bool,
    /// Status filter.
    pub status_filter: StatusFilter,
    /// Sort order.
    pub sort: Sort,
    /// Only these questions (a findings group's), until cleared.
    pub questions: Option<QuestionSet>,
    /// The rows shown: indices of the run's questions in table order, worked
    /// out in `refresh` after every change (never while drawing).
    rows: Vec<usize>,
    /// Each question's baseline flags, in a run with baselines; worked out
    /// in `refresh` when the run changed.
    baselines: Option<Arc<RunBaselines>>,
}

impl Default for Dashboard {
    fn default() -> Self {
        Self {
            row: 0,
            filter: String::new(),
            editing_filter: false,
            status_filter: StatusFilter::All,
            sort: Sort::Rank,
            questions: None,
            rows: Vec::new(),
            baselines: None,
        }
    }
}

impl Dashboard {
    /// Indices of `state`'s questions in table order.
    pub fn visible(&self, state: &RunState) -> Vec<usize> {
        let needle = self.filter.to_lowercase();
        let everything = needle.is_empty() && self.status_filter == StatusFilter::All && self.questions.is_none();
        let mut rows: Vec<usize> = if everything {
            (0..state.questions.len()).collect()
        } else {
            (0..state.questions.len())
                .filter(|&i| {
                    let q = &state.questions[i];
                    self.status_filter.keeps(q.status)
                        && self.questions.as_ref().is_none_or(|set| set.keeps(&q.question.id))
                        && (needle.is_empty()
                            || q.question.question.to_lowercase().contains(&needle)
                            || q.question.id.to_lowercase().contains(&needle)
                            || q.question.difficulty_level.as_str() == needle
                            || q.question.dataset.as_ref().is_some_and(|name| name.to_lowercase() == needle)
                            || q.status.label() == needle)
                })
                .collect()
        };
        let findings = |i: usize| state.questions[i].findings_per_iteration().iter().sum::<u64>();
        match self.sort {
            Sort::Rank => {}
            Sort::Status => rows.sort_by_key(|&i| (state.questions[i].status.label(), i)),
            Sort::Findings => rows.sort_by_key(|&i| (std::cmp::Reverse(findings(i)), i)),
        }
        rows
    }

    /// Show only `questions` (a findings group's), from the first row.
    pub fn narrow(&mut self, questions: QuestionSet) {
        self.questions = Some(questions);
        self.row = 0;
    }

    /// The question in the selected row.
    pub fn selected<'a>(&self, state: &'a RunState) -> Option<&'a QuestionState> {
        self.rows.get(self.row).filter(|&&i| i < state.questions.len()).map(|&i| &state.questions[i])
    }

    /// The row (index into the visible rows) drawn at terminal row `y` when the
    /// dashboard fills `area`.
    pub fn row_at(&self, area: Rect, y: u16) -> Option<usize> {
        let [_, table, _] = areas(area);
        // Below the table's top border and header row.
        let offset = y.checked_sub(table.y + 2)? as usize;
        let height = table.height.saturating_sub(2).max(1) as usize;
        let rows = self.rows.len();
        let row = first_row(self.row, rows, height) + offset;
        (offset < height && row < rows).then_some(row)
    }
}

impl Component for Dashboard {
    fn screen(&self) -> Screen {
        Screen::Dashboard
    }

    fn handle(&mut self, action: Action, ctx: &Ctx) -> Handled {
        match action {
            Action::Up => self.row = self.row.saturating_sub(1),
            Action::Down => self.row = (self.row + 1).min(ctx.state.questions.len().saturating_sub(1)),
            Action::Open => {
                let Some(q) = self.selected(ctx.state) else { return Handled::done() };
                return Handled::open(Box::new(QuestionScreen::open(q)));
            }
            Action::Filter => self.editing_filter = true,
            Action::StatusFilter => self.status_filter = self.status_filter.next(),
            Action::Sort => {
                self.sort = match self.sort {
                    Sort::Rank => Sort::Status,
                    Sort::Status => Sort::Findings,
                    Sort::Findings => Sort::Rank,
                }
            }
            Action::ClearQuestions if self.questions.take().is_some() => {
                return Handled::message("showing every question");
            }
            // Nothing to clear: the app's back (to the run browser, when it opened the run).
            Action::ClearQuestions => return Handled::Ignored,
            Action::Scorecard => return Handled::open(Box::<ScorecardScreen>::default()),
            Action::Taxonomy => return Handled::open(Box::<TaxonomyScreen>::default()),
            Action::Benchmark => return benchmark::open(ctx),
            _ => return Handled::Ignored,
        }
        Handled::done()
    }

    fn typing(&self) -> bool {
        self.editing_filter
    }

    fn type_key(&mut self, code: KeyCode, _ctx: &Ctx) -> Handled {
        self.editing_filter = type_into(&mut self.filter, code, false);
        self.row = 0;
        Handled::done()
    }

    fn refresh(&mut self, ctx: &Ctx) {
        if ctx.run_changed {
            self.baselines = ctx.baselines();
        }
        self.rows = self.visible(ctx.state);
        self.row = self.row.min(self.rows.len().saturating_sub(1));
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        draw(self, frame, area, ctx);
    }
}

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/// Terminal width from which the level and time columns show.
const WIDE: u16 = 100;

/// Width of the status column: the longest status, "fixed by hand" (a
/// working status is shorter by more than its spinner).
const STATUS_WIDTH: u16 = 13;

fn status_cell(ctx: &Ctx, status: QuestionStatus) -> Cell<'static> {
    // The spinner follows the label, so every label starts in the column.
    let spinner = if status.is_active() { format!(" {}", SPINNER[ctx.spinner % SPINNER.len()]) } else { String::new() };
    Cell::from(Span::styled(format!("{}{spinner}", status.label()), ctx.theme.status(status)))
}

/// For a question asked in several epochs: how many epochs were graded right
/// (`2/3 `, before the majority answer's mark), or, ungraded, how many gave
/// the majority answer (`2/3= `).
fn epoch_tally(q: &QuestionState) -> String {
    let epochs = q.epochs();
    if epochs.len() < 2 {
        return String::new();
    }
    let graded: Vec<bool> = epochs.iter().filter_map(|(_, a)| a.correct()).collect();
    if graded.is_empty() {
        let agreeing = q.majority_epoch().map_or(0, |(_, count)| count);
        return format!("{agreeing}/{}= ", epochs.len());
    }
    format!("{}/{} ", graded.iter().filter(|c| **c).count(), epochs.len())
}

/// Width of the agreement column of a consensus run (`run --consensus`).
const AGREEMENT_WIDTH: u16 = 5;

/// How many drafts of the speaking epoch gave the majority answer, of how
/// many (`2/3`), for `q` whose speaking attempt is `latest`; empty until their
/// consensus is recorded.
fn agreement_cell(ctx: &Ctx, q: &QuestionState, latest: Option<&Attempt>) -> Cell<'static> {
    let Some(consensus) = latest.and_then(|a| q.consensus.get(&a.epoch)) else { return Cell::from("") };
    let agreeing = consensus.answers.iter().filter(|a| a.in_majority).count();
    let ink = if agreeing < consensus.answers.len() { Ink::NodeFlagged } else { Ink::Text };
    Cell::from(Span::styled(format!("{agreeing}/{}", consensus.answers.len()), ctx.theme.fg(ink)))
}

/// Whether the run builds several DAGs per question, so the dashboard shows their agreement.
fn has_consensus(state: &RunState) -> bool {
    state.settings.as_ref().is_some_and(|s| s.drafts() > 1)
}

/// Width of the dataset column, shown in a run over several datasets.
const DATASET_WIDTH: u16 = 12;

/// The id column is as wide as the longest id, between these bounds: a
/// benchmark's ids (`task_1234`) stay whole and tell their questions apart.
const ID_WIDTHS: (usize, usize) = (6, 16);

/// Width of the id column for the questions of `state`.
fn id_width(state: &RunState) -> usize {
    state.longest_id().clamp(ID_WIDTHS.0, ID_WIDTHS.1)
}

/// Width of the baseline flags column, shown in a run with baselines.
const FLAGS_WIDTH: u16 = 5;

/// One question's row; `flags`: its baseline flags, in a run with baselines.
fn row(
    ctx: &Ctx,
    q: &QuestionState,
    width: usize,
    wide: bool,
    several: bool,
    flags: Option<BaselineFlags>,
) -> Row<'static> {
    let t = ctx.theme;
    let latest = q.latest();
    let iterations = latest.map_or(0, |a| a.iterations.len());
    let max = ctx.state.settings.as_ref().map_or(0, |s| s.max_iterations);
    let elapsed = q.started_ms.map(|start| q.finished_ms.unwrap_or(ctx.state.now_ms).saturating_sub(start));
    let correct = latest.and_then(Attempt::correct);
    let mark = match correct {
        Some(true) => "✓ ",
        Some(false) => "✗ ",
        None => "",
    };
    // The engines disagreed on the answer's DAG (`run --differential`).
    let diverged = if latest.is_some_and(|a| a.divergence.is_some()) { "≠ " } else { "" };
    let answer = latest
        .and_then(|a| a.final_answer.as_ref())
        .map(|a| format!("{diverged}{mark}{}", preview(a, 16)))
        .unwrap_or_default();
    let answer = format!("{}{answer}", epoch_tally(q));
    // The speaking attempt's loop (its epoch and draft): its reruns and forks, not the other drafts' attempts.
    let speaking = latest.map_or((1, 1), |a| (a.epoch, a.draft));
    let attempts = q.attempts().iter().filter(|a| (a.epoch, a.draft) == speaking).count();
    let attempts = if attempts > 1 { format!(" ×{attempts}") } else { String::new() };
    let time = elapsed.map(|ms| format!("{:.1}s", ms as f64 / 1000.0)).unwrap_or_default();
    let cells = [
        Some(Cell::from(Span::styled(clean(&q.question.id).into_owned(), t.fg(Ink::Accent)))),
        wide.then(|| Cell::from(Span::styled(q.question.difficulty_level.as_str().to_string(), t.fg(Ink::Muted)))),
        several.then(|| {
            let name = q.question.dataset.as_deref().unwrap_or_default();
            Cell::from(Span::styled(fit(name, DATASET_WIDTH as usize), t.fg(Ink::Muted)))
        }),
        Some(Cell::from(Span::styled(
            preview(&serde_json::Value::String(q.question.question.clone()), width),
            t.fg(Ink::Text),
        ))),
        Some(status_cell(ctx, q.status)),
        Some(Cell::from(Span::styled(format!("{iterations}/{max}{attempts}"), t.fg(Ink::Text)))),
        Some(Cell::from(Span::styled(sparkline(&q.findings_per_iteration()), t.fg(Ink::NodeFlagged)))),
        wide.then(|| Cell::from(Span::styled(time, t.fg(Ink::Muted)))),
        has_consensus(ctx.state).then(|| agreement_cell(ctx, q, latest)),
        flags.map(|flags| Cell::from(Span::styled(flags.text(), t.fg(Ink::NodeFlagged)))),
        Some(Cell::from(Span::styled(
            answer,
            if correct == Some(false) { t.fg(Ink::StatusFailed) } else { t.fg(Ink::Text) },
        ))),
    ];
    Row::new(cells.into_iter().flatten())
}

/// The charts' area (empty when there is no room for them), the table's and
/// the feed's within the dashboard's `area`.
fn areas(area: Rect) -> [Rect; 3] {
    let feed_height = (area.height / 4).clamp(3, 10);
    let charts = Constraint::Length(run_charts::height(area));
    Layout::vertical([charts, Constraint::Min(3), Constraint::Length(feed_height)]).areas(area)
}

/// Index of the first visible row when the table has `height` rows of room:
/// the selected row stays in view.
fn first_row(selected: usize, rows: usize, height: usize) -> usize {
    selected.saturating_sub(height.saturating_sub(1)).min(rows.saturating_sub(height))
}

fn feed(frame: &mut Frame, area: Rect, ctx: &Ctx) {
    let t = ctx.theme;
    let lines: Vec<Line> = ctx
        .state
        .feed
        .iter()
        .rev()
        .take(area.height.saturating_sub(2) as usize)
        .rev()
        .map(|entry| {
            let style = match entry.kind {
                FeedKind::Info => t.fg(Ink::Muted),
                FeedKind::Good => t.fg(Ink::StatusPassed),
                FeedKind::Bad => t.fg(Ink::StatusRejected),
                FeedKind::Control => t.fg(Ink::FeedControl),
            };
            Line::from(vec![
                Span::styled(format!("{:>7.1}s ", entry.t_ms as f64 / 1000.0), t.fg(Ink::Muted)),
                Span::styled(
                    entry.question_id.as_deref().map(|q| format!("{} ", clean(q))).unwrap_or_default(),
                    t.fg(Ink::Accent),
                ),
                Span::styled(clean(&entry.text.replace('\n', " ")).into_owned(), style),
            ])
        })
        .collect();
    let block = Block::default().borders(Borders::TOP).title(" activity ").border_style(t.fg(Ink::Border));
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// Draw `dashboard` into `area`.
fn draw(dashboard: &Dashboard, frame: &mut Frame, area: Rect, ctx: &Ctx) {
    let [charts_area, table_area, feed_area] = areas(area);
    if !charts_area.is_empty() {
        run_charts::draw(frame, charts_area, ctx);
    }
    let wide = area.width >= WIDE;
    let visible = &dashboard.rows;
    // What the other columns and the gaps between them leave.
    let status = STATUS_WIDTH as usize;
    let consensus = has_consensus(ctx.state);
    let agreement = if consensus { AGREEMENT_WIDTH as usize + 1 } else { 0 };
    let several = ctx.state.settings.as_ref().is_some_and(|s| !s.datasets.is_empty());
    let dataset = if several { DATASET_WIDTH as usize + 1 } else { 0 };
    let id = id_width(ctx.state);
    let flags = if dashboard.baselines.is_some() { FLAGS_WIDTH as usize + 1 } else { 0 };
    let fixed =
        agreement + flags + dataset + id + if wide { 6 + status + 7 + 8 + 7 + 18 + 7 } else { status + 7 + 8 + 18 + 5 };
    let question_width = (table_area.width as usize).saturating_sub(fixed).max(16);
    // Only the rows that fit are built: a run of thousands of questions costs no more per frame.
    let height = table_area.height.saturating_sub(2).max(1) as usize;
    let first = first_row(dashboard.row, visible.len(), height);
    let rows: Vec<Row> = visible
        .iter()
        .skip(first)
        .take(height)
        .map(|&i| {
            let flags = dashboard.baselines.as_ref().map(|all| all.flags.get(i).copied().unwrap_or_default());
            row(ctx, &ctx.state.questions[i], question_width, wide, several, flags)
        })
        .collect();
    let columns = [
        (Constraint::Length(id as u16), "id", true),
        (Constraint::Length(6), "level", wide),
        (Constraint::Length(DATASET_WIDTH), "dataset", several),
        (Constraint::Min(16), "question", true),
        (Constraint::Length(STATUS_WIDTH), "status", true),
        (Constraint::Length(7), "iter", true),
        (Constraint::Length(8), "findings", true),
        (Constraint::Length(7), "time", wide),
        (Constraint::Length(AGREEMENT_WIDTH), "agree", consensus),
        (Constraint::Length(FLAGS_WIDTH), "flags", dashboard.baselines.is_some()),
        (Constraint::Length(18), "answer", true),
    ];
    let shown = columns.iter().filter(|(_, _, show)| *show);
    let header = Row::new(shown.clone().map(|(_, name, _)| *name)).style(ctx.theme.fg(Ink::Muted));
    let widths: Vec<Constraint> = shown.map(|(width, _, _)| *width).collect();
    let empty = visible.is_empty();
    let table = Table::new(rows, widths)
        .header(header)
        .row_highlight_style(ctx.theme.selected())
        .block(Block::default().borders(Borders::TOP).title(" questions ").border_style(ctx.theme.fg(Ink::Border)));
    let mut selection = TableState::default().with_selected((!empty).then_some(dashboard.row - first));
    frame.render_stateful_widget(table, table_area, &mut selection);
    if empty {
        let note = if ctx.state.questions.is_empty() {
            "  waiting for questions…"
        } else {
            "  no question matches the filter"
        };
        let inner = Rect { y: table_area.y + 2, height: 1, ..table_area };
        frame.render_widget(Paragraph::new(Span::styled(note, ctx.theme.fg(Ink::Muted))), inner);
    }
    feed(frame, feed_area, ctx);
}

#[cfg(test)]
mod tests {
    use super::Dashboard;
    use crate::domain::{DifficultyLevel, Question};
    use crate::run::{EngineEvent, RunState};
    use crate::tui::Screen;
    use crate::tui::frame_text::{SAMPLE_TRACE, assert_screen_snapshots};

    #[test]
    fn the_text_filter_keeps_the_questions_of_a_dataset_named_in_full() {
        let on = |id: &str, dataset: &str| Question {
            dataset: Some(dataset.into()),
            ..Question::new(id, "How many rows?", 1, DifficultyLevel::Easy)
        };
        let mut state = RunState::default();
        let questions = vec![on("q1", "zoo"), on("q2", "Shop"), on("q3", "zoo"), on("q4", "zookeepers")];
        state.apply(0, &EngineEvent::QuestionsGenerated { questions });
        let filtered = |text: &str| Dashboard { filter: text.into(), ..Dashboard::default() }.visible(&state);
        assert_eq!(filtered("zoo"), [0, 2]);
        assert_eq!(filtered("shop"), [1]);
        assert_eq!(filtered("zookeepers"), [3]);
    }

    #[test]
    fn ids_longer_than_six_characters_stay_whole_up_to_sixteen() {
        let mut state = RunState::default();
        let ids = ["task_12", "task_1234", "an_id_of_twenty_chars"];
        let questions = ids.iter().map(|id| Question::new(*id, "How many rows?", 1, DifficultyLevel::Easy)).collect();
        state.apply(0, &EngineEvent::QuestionsGenerated { questions });
        let app = crate::tui::App::new(state, crate::tui::Theme::dark(), None, None);
        for width in [80, 160] {
            let text = crate::tui::frame_text(&app, width, 24);
            assert!(text.contains("task_12 ") && text.contains("task_1234 "), "{text}");
            assert!(text.contains("an_id_of_twenty_") && !text.contains("an_id_of_twenty_c"), "{text}");
        }
    }

    /// A run with baselines: the flags column.
    #[test]
    fn snapshots_of_a_run_with_baselines() {
        let trace = "sample-data/traces/baselines-scripted.trace.jsonl";
        assert_screen_snapshots!(trace, "", Screen::Dashboard, "dashboard_baselines");
    }

    /// The charts at the replay's cursor, a third of the way and at the end.
    #[test]
    fn the_charts_follow_the_replay_position() {
        let (width, height) = (160, 48);
        let mut app = crate::tui::frame_text::replayed(SAMPLE_TRACE);
        let charts = |app: &crate::tui::App| {
            crate::tui::frame_text(app, width, height).lines().skip(3).take(5).collect::<Vec<_>>().join("\n")
        };
        let end = charts(&app);
        crate::tui::press_keys(&mut app, &format!("g{}", ".".repeat(25)));
        let early = charts(&app);
        assert_ne!(early, end);
        insta::assert_snapshot!("dashboard_charts_early", early);
        insta::assert_snapshot!("dashboard_charts_end", end);
    }

    #[test]
    fn snapshots_at_both_sizes() {
        assert_screen_snapshots!(SAMPLE_TRACE, "", Screen::Dashboard, "dashboard");
    }
}
