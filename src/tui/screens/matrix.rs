//! Several runs: each run's totals (pass rate, accuracy, the critic's wrong
//! rejections, mean iterations, tokens, cost) and what could not be lined up
//! with the baseline, then the questions (rows, regressions and disagreements
//! first) × the runs (columns), each cell's status, grade and answer coloured
//! by status and grade. The run set against the baseline is marked; when the
//! runs do not all fit, the baseline stays and the others scroll with it.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, TableState};

use super::compare_detail::CompareDetailScreen;
use crate::report::{AnswerSpread, Axis, Change, Entry, RunSummary};
use crate::run::Outcome;
use crate::text::percent;
use crate::tui::component::{Component, Ctx, Handled};
use crate::tui::keymap::Action;
use crate::tui::keymap::Screen;
use crate::tui::runs_matrix::RunsMatrix;
use crate::tui::text::{fit, preview};
use crate::tui::theme::{Ink, Theme};

/// Terminal width from which the question text and iterations show.
const WIDE: u16 = 120;
/// Columns of the id and of the agreement.
const ID: u16 = 6;
/// See [`ID`].
const AGREEMENT: u16 = 10;
/// Narrowest and widest run column.
const CELL: (u16, u16) = (12, 34);

/// Colour of what the runs make of a question.
pub fn agreement_style(t: &Theme, agreement: AnswerSpread) -> Style {
    match agreement {
        AnswerSpread::Regression => t.fg(Ink::StatusFailed).add_modifier(Modifier::BOLD),
        AnswerSpread::Disagree => t.fg(Ink::NodeFlagged),
        AnswerSpread::Partial => t.fg(Ink::Accent),
        AnswerSpread::Agree => t.fg(Ink::Muted),
    }
}

/// Colour of a run's entry: by status, and red when its answer was graded wrong.
fn entry_style(t: &Theme, entry: &Entry) -> Style {
    let style = if entry.side.fixed_by_hand {
        t.fg(Ink::Accent)
    } else if entry.side.success && entry.correct != Some(false) {
        t.fg(Ink::StatusPassed)
    } else if entry.side.success {
        t.fg(Ink::StatusFailed)
    } else if entry.side.status.outcome() == Some(Outcome::Exhausted) {
        t.fg(Ink::StatusExhausted)
    } else {
        t.fg(Ink::StatusFailed)
    };
    if entry.change == Some(Change::Regression) { style.add_modifier(Modifier::BOLD) } else { style }
}

fn cell(t: &Theme, entry: Option<&Entry>, width: usize, wide: bool) -> Cell<'static> {
    let Some(e) = entry else { return Cell::from(Span::styled("—", t.fg(Ink::Muted))) };
    let grade = match e.correct {
        Some(true) => "✓",
        Some(false) => "✗",
        None => " ",
    };
    let iterations = if wide { format!(" it{}", e.side.iterations) } else { String::new() };
    let status = fit(e.side.status.label(), 9);
    let answer_width = width.saturating_sub(status.chars().count() + 3 + iterations.len());
    let answer = if e.side.answer.is_null() { String::new() } else { preview(&e.side.answer, answer_width.max(1)) };
    let text = format!("{grade} {status} {answer}{iterations}");
    Cell::from(Span::styled(fit(&text, width), entry_style(t, e)))
}

/// The runs shown: the baseline, then as many later runs as fit from the one
/// that keeps the selected run in view; and each run column's width.
/// The matrix screen: several runs, questions × runs; a pair of them opens
/// side by side.
pub struct MatrixScreen {
    /// The runs and the cell under the cursor.
    pub runs: RunsMatrix,
}

impl Component for MatrixScreen {
    fn screen(&self) -> Screen {
        Screen::Matrix
    }

    fn handle(&mut self, action: Action, _ctx: &Ctx) -> Handled {
        match action {
            Action::Up | Action::Down => self.runs.move_selection(action == Action::Down),
            Action::PaneLeft | Action::PaneRight => self.runs.move_column(action == Action::PaneRight),
            Action::Frontier => {
                self.runs.chart = match self.runs.chart {
                    Some(_) => None,
                    None => Some(Axis::Cost),
                }
            }
            Action::FrontierAxis => self.runs.chart = Some(self.runs.chart.map_or(Axis::Cost, Axis::next)),
            Action::Open => match self.runs.pair() {
                Some(pair) => return Handled::open(Box::new(CompareDetailScreen::of(pair))),
                None => {
                    let run = &self.runs.matrix.runs[self.runs.column].label;
                    return Handled::message(format!("neither A nor {run} has this question: ←/→ picks another run"));
                }
            },
            _ => return Handled::Ignored,
        }
        Handled::done()
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        draw(&self.runs, frame, area, ctx);
    }
}

fn shown_runs(view: &RunsMatrix, room: u16) -> (Vec<usize>, u16) {
    let runs = view.matrix.runs.len();
    let fits = usize::from((room / (CELL.0 + 1)).max(2));
    let later = fits.min(runs).saturating_sub(1);
    let first = view.column.saturating_sub(later.saturating_sub(1)).clamp(1, runs.saturating_sub(later).max(1));
    let shown: Vec<usize> = std::iter::once(0).chain(first..(first + later).min(runs)).collect();
    let width = (room / shown.len() as u16).saturating_sub(1).clamp(CELL.0, CELL.1);
    (shown, width)
}

fn summary_line(t: &Theme, run: &RunSummary, index: usize, selected: bool, width: u16) -> Line<'static> {
    let regressions =
        if index == 0 { "baseline".to_string() } else { crate::text::plural(run.regressions, "regression") };
    let (pass, accuracy, critic) =
        (percent(Some(run.pass_rate)), percent(run.accuracy), percent(run.critic_wrong_rejection_rate));
    let (iterations, tokens, cost) = (run.mean_iterations, run.tokens, run.cost_usd);
    let per_right = crate::text::dollars(run.cost_per_right);
    let numbers = if width >= WIDE {
        format!(
            " pass {pass:>4} · accuracy {accuracy:>4} · critic wrong rejections {critic:>4} · {iterations:.1} it · {tokens} tok · ${cost:.4} · {per_right}/right · {regressions} "
        )
    } else {
        format!(
            " pass {pass:>4} · acc {accuracy:>4} · wrong rej {critic:>4} · {iterations:.1} it · {tokens} tok · {regressions} "
        )
    };
    let room = usize::from(width).saturating_sub(numbers.chars().count() + 4);
    let label_style = if selected { t.fg(Ink::Accent).add_modifier(Modifier::BOLD) } else { t.fg(Ink::Text) };
    let regression_style = if run.regressions > 0 { t.fg(Ink::StatusFailed) } else { t.fg(Ink::Text) };
    Line::from(vec![
        Span::styled(format!(" {:<3}", run.label), label_style),
        Span::styled(numbers, regression_style),
        Span::styled(fit(&run.name, room), t.fg(Ink::Muted)),
    ])
}

/// Draw the matrix into `area`.
fn draw(view: &RunsMatrix, frame: &mut Frame, area: Rect, ctx: &Ctx) {
    let t = ctx.theme;
    let matrix = &view.matrix;
    let mut summary: Vec<Line> =
        matrix.runs.iter().enumerate().map(|(i, run)| summary_line(t, run, i, i == view.column, area.width)).collect();
    summary.extend(
        matrix
            .runs
            .iter()
            .filter_map(|r| r.misalignment())
            .map(|n| Line::from(Span::styled(format!(" {n}"), t.fg(Ink::NodeFlagged)))),
    );
    let summary_height = u16::try_from(summary.len()).unwrap_or(u16::MAX).min(area.height / 3);
    let [top, bottom] = Layout::vertical([Constraint::Length(summary_height), Constraint::Min(1)]).areas(area);
    frame.render_widget(Paragraph::new(summary), top);
    if let (Some(axis), Some(frontier)) = (view.chart, &matrix.frontier) {
        crate::tui::widgets::frontier_chart::draw(frame, bottom, frontier, axis, ctx);
        return;
    }

    let wide = area.width >= WIDE;
    let question = if wide { area.width / 4 } else { 0 };
    let room = area.width.saturating_sub(ID + AGREEMENT + question + 2 + u16::from(wide));
    let (shown, width) = shown_runs(view, room);
    let height = usize::from(bottom.height.saturating_sub(2).max(1));
    let first = view.row.saturating_sub(height - 1).min(matrix.questions.len().saturating_sub(height));
    let rows: Vec<Row> = matrix
        .questions
        .iter()
        .skip(first)
        .take(height)
        .map(|row| {
            let tag = (row.agreement.label(), agreement_style(t, row.agreement));
            let question_width = wide.then_some(usize::from(question));
            let mut cells = super::question_cells(t, &row.question_id, tag, &row.question, question_width);
            cells.extend(shown.iter().map(|run| cell(t, row.runs[*run].as_ref(), usize::from(width), wide)));
            Row::new(cells)
        })
        .collect();
    let mut header = vec![Cell::from("id"), Cell::from("runs")];
    let mut widths = vec![Constraint::Length(ID), Constraint::Length(AGREEMENT)];
    if wide {
        header.push(Cell::from("question"));
        widths.push(Constraint::Length(question));
    }
    for run in &shown {
        let label = &matrix.runs[*run].label;
        let (text, style) = match *run {
            0 => (format!("{label} baseline"), t.fg(Ink::Muted)),
            r if r == view.column => (format!("▸ {label} (vs A)"), t.fg(Ink::Accent).add_modifier(Modifier::BOLD)),
            _ => (label.clone(), t.fg(Ink::Muted)),
        };
        header.push(Cell::from(Span::styled(text, style)));
        widths.push(Constraint::Length(width));
    }
    let hidden = matrix.runs.len() - shown.len();
    let title = match (matrix.questions.len(), hidden) {
        (n, 0) => format!(" {n} questions × {} runs ", matrix.runs.len()),
        (n, h) => format!(" {n} questions × {} runs ({h} out of view: ←/→) ", matrix.runs.len()),
    };
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(t.fg(Ink::Muted)))
        .row_highlight_style(t.selected())
        .block(Block::default().borders(Borders::TOP).title(title).border_style(t.fg(Ink::Border)));
    let column = shown.iter().position(|r| *r == view.column).map(|i| i + 2 + usize::from(wide));
    let selected = (!matrix.questions.is_empty()).then(|| view.row - first);
    let mut state = TableState::default().with_selected(selected);
    *state.selected_column_mut() = column;
    frame.render_stateful_widget(
        table.cell_highlight_style(Style::default().add_modifier(Modifier::REVERSED)),
        bottom,
        &mut state,
    );
    if matrix.questions.is_empty() {
        let inner = Rect { y: bottom.y + 2, height: 1, ..bottom };
        frame.render_widget(Paragraph::new(Span::styled("  no question in any run", t.fg(Ink::Muted))), inner);
    }
}
