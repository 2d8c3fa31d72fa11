//! `compare --html`: the view of several runs question by question for
//! `templates/matrix.html.j2`, one self-contained page (the report's CSS, no
//! script, no external assets): each run's totals, what could not be lined
//! up, each later run's lift over the baseline when the baseline allowed
//! fewer iterations (the critic's rebuilds), then the matrix of questions × runs, each cell coloured by status and grade.

use serde::Serialize;

use super::benchmark_section::{LiftView, lift_view};
use super::{ReportTemplates, Stamp};
use crate::report::analyses::compare::Change;
use crate::report::analyses::matrix::{AnswerSpread, Entry, Matrix, MatrixRow};
use crate::text::thousands;
use crate::text::{percent, preview};

/// One run's totals.
#[derive(Debug, Serialize)]
struct RunRow<'a> {
    label: &'a str,
    name: &'a str,
    questions: usize,
    pass_rate: String,
    accuracy: String,
    critic_wrong_rejections: String,
    mean_iterations: String,
    tokens: String,
    cost: String,
    per_right: String,
    regressions: String,
}

/// One run's side of a question.
#[derive(Debug, Serialize)]
struct Cell<'a> {
    status_class: String,
    status: &'a str,
    regression: bool,
    correct: Option<bool>,
    answer: String,
    iterations: u64,
    tokens: String,
    change: Option<&'static str>,
}

fn cell(entry: &Entry) -> Cell<'_> {
    let side = &entry.side;
    Cell {
        status_class: if side.fixed_by_hand {
            "fixed-by-hand".to_string()
        } else {
            side.status.label().replace(' ', "-")
        },
        status: side.status.label(),
        regression: entry.change == Some(Change::Regression),
        correct: entry.correct,
        answer: preview(&side.answer, 60),
        iterations: side.iterations,
        tokens: thousands(side.tokens),
        change: entry.change.filter(|c| *c != Change::Unchanged).map(Change::label),
    }
}

/// One question across the runs.
#[derive(Debug, Serialize)]
struct Row<'a> {
    id: &'a str,
    question: &'a str,
    class: &'static str,
    agreement: &'static str,
    cells: Vec<Option<Cell<'a>>>,
}

fn row(row: &MatrixRow) -> Row<'_> {
    Row {
        id: &row.question_id,
        question: &row.question,
        class: match row.agreement {
            AnswerSpread::Regression => "regression",
            AnswerSpread::Disagree => "disagree",
            AnswerSpread::Partial => "partial",
            AnswerSpread::Agree => "same",
        },
        agreement: row.agreement.label(),
        cells: row.runs.iter().map(|entry| entry.as_ref().map(cell)).collect(),
    }
}

/// How many questions agree, and how.
#[derive(Debug, Serialize)]
struct AgreementCard {
    count: usize,
    label: &'static str,
}

/// A later run's lift over the baseline.
#[derive(Debug, Serialize)]
struct LiftSection<'a> {
    label: &'a str,
    lift: LiftView,
}

/// The whole page.
#[derive(Debug, Serialize)]
struct MatrixPage<'a> {
    title: String,
    generated: Stamp,
    runs: Vec<RunRow<'a>>,
    misaligned: Vec<String>,
    lifts: Vec<LiftSection<'a>>,
    agreement: Vec<AgreementCard>,
    rows: Vec<Row<'a>>,
    frontier: Option<super::frontier_chart::FrontierView>,
}

impl ReportTemplates {
    /// The page of `matrix`, stamped `generated_at`.
    pub fn matrix_html(&self, matrix: &Matrix, generated_at: &chrono::DateTime<chrono::FixedOffset>) -> String {
        let runs = matrix
            .runs
            .iter()
            .enumerate()
            .map(|(index, run)| RunRow {
                label: &run.label,
                name: &run.name,
                questions: run.questions,
                pass_rate: percent(Some(run.pass_rate)),
                accuracy: percent(run.accuracy),
                critic_wrong_rejections: percent(run.critic_wrong_rejection_rate),
                mean_iterations: format!("{:.1}", run.mean_iterations),
                tokens: thousands(run.tokens),
                cost: format!("${:.4}", run.cost_usd),
                per_right: crate::text::dollars(run.cost_per_right),
                regressions: if index == 0 { "baseline".to_string() } else { run.regressions.to_string() },
            })
            .collect();
        let agreement = [AnswerSpread::Regression, AnswerSpread::Disagree, AnswerSpread::Partial, AnswerSpread::Agree]
            .into_iter()
            .map(|a| AgreementCard { count: matrix.count(a), label: a.label() })
            .collect();
        let page = MatrixPage {
            title: format!("eval-dag compare · {} runs", matrix.runs.len()),
            generated: Stamp::of(generated_at),
            runs,
            misaligned: matrix.runs.iter().filter_map(|r| r.misalignment()).collect(),
            lifts: matrix
                .runs
                .iter()
                .filter_map(|r| Some(LiftSection { label: &r.label, lift: lift_view(r.lift.as_ref()?) }))
                .collect(),
            agreement,
            rows: matrix.questions.iter().map(row).collect(),
            frontier: matrix
                .frontier
                .as_ref()
                .filter(|f| f.shared_questions > 0)
                .map(super::frontier_chart::frontier_view),
        };
        self.render("matrix.html.j2", &page)
    }
}
