//! The view of the report's "Benchmark" section for
//! `templates/benchmark.html.j2`: a published benchmark's own metrics as its
//! scorer computes them (over answered questions), the same over every scored
//! question, and on each question's first DAG's answer, with the questions
//! the critic loop fixed and broke, and the first DAG's answers against the
//! final ones per level and dataset (the critic's lift, whose view `compare
//! --html` shares). Drawn only when a question has a scorer.

use serde::Serialize;

use crate::report::analyses::benchmark::benchmark_summary;
use crate::report::analyses::lift::{benchmark_lift, per_extra_right_line};
use crate::report::documents::{BenchmarkMetrics, BenchmarkSummary, Lift, LiftQuestion, LiftTally};
use crate::run::RunState;
use crate::text::percent;

/// One row of the metrics table: over which questions, and the three metrics.
#[derive(Debug, Serialize)]
struct MetricsRow {
    over: &'static str,
    by_question: String,
    by_sub_question: String,
    proportional: String,
}

/// Right answers without and with rebuilds over one set of questions.
#[derive(Debug, Serialize)]
struct TallyRow {
    over: String,
    questions: usize,
    before: String,
    after: String,
    fixed: usize,
    broken: usize,
}

/// A question the loop fixed or broke.
#[derive(Debug, Serialize)]
struct QuestionRef {
    id: String,
    question: String,
}

/// The critic's lift: the tallies overall, per level and per dataset, the
/// questions fixed and broken, and the tokens and cost per extra right answer.
#[derive(Debug, Serialize)]
pub(super) struct LiftView {
    tallies: Vec<TallyRow>,
    fixed: Vec<QuestionRef>,
    broken: Vec<QuestionRef>,
    per_extra_right: String,
}

/// The view of `lift`.
pub(super) fn lift_view(lift: &Lift) -> LiftView {
    let row = |over: String, t: &LiftTally| TallyRow {
        over,
        questions: t.questions,
        before: format!("{} ({})", percent(t.accuracy_before), t.right_before),
        after: format!("{} ({})", percent(t.accuracy_after), t.right_after),
        fixed: t.fixed,
        broken: t.broken,
    };
    let mut tallies = vec![row("all".into(), &lift.overall)];
    tallies.extend(lift.by_level.iter().map(|(level, t)| row(level.as_str().into(), t)));
    tallies.extend(lift.by_dataset.iter().map(|(dataset, t)| row(format!("dataset {dataset}"), t)));
    let refs = |questions: &[LiftQuestion]| {
        questions.iter().map(|q| QuestionRef { id: q.question_id.clone(), question: q.question.clone() }).collect()
    };
    LiftView {
        tallies,
        fixed: refs(&lift.fixed),
        broken: refs(&lift.broken),
        per_extra_right: per_extra_right_line(lift),
    }
}

/// The benchmark section.
#[derive(Debug, Serialize)]
pub struct BenchmarkView {
    name: String,
    questions: usize,
    answered: usize,
    rows: Vec<MetricsRow>,
    fixed: usize,
    broken: usize,
    lift: Option<LiftView>,
}

fn row(over: &'static str, metrics: &BenchmarkMetrics) -> MetricsRow {
    MetricsRow {
        over,
        by_question: percent(metrics.accuracy_by_question),
        by_sub_question: percent(metrics.accuracy_by_sub_question),
        proportional: percent(metrics.proportional_accuracy_by_sub_question),
    }
}

/// The benchmark section of `state`, if any question has a benchmark's scorer.
pub fn benchmark_view(state: &RunState) -> Option<BenchmarkView> {
    let summary: BenchmarkSummary = benchmark_summary(state.questions.iter())?;
    let own = BenchmarkMetrics {
        accuracy_by_question: summary.accuracy_by_question,
        accuracy_by_sub_question: summary.accuracy_by_sub_question,
        proportional_accuracy_by_sub_question: summary.proportional_accuracy_by_sub_question,
    };
    let mut rows = vec![row("answered questions (the benchmark's own figures)", &own)];
    if let Some(all) = &summary.over_all_questions {
        rows.push(row("every scored question (unanswered ones wrong)", all));
    }
    if let Some(first) = &summary.first_iteration {
        rows.push(row("every scored question, on its first DAG's answer", first));
    }
    Some(BenchmarkView {
        name: summary.name,
        questions: summary.questions,
        answered: summary.answered,
        rows,
        fixed: summary.fixed,
        broken: summary.broken,
        lift: benchmark_lift(state).as_ref().map(lift_view),
    })
}
