//! The view of the report's "Benchmark" section for
//! `templates/benchmark.html.j2`: a published benchmark's own metrics as its
//! scorer computes them (over answered questions), the same over every scored
//! question, and on each question's first DAG's answer, with the questions
//! the critic loop fixed and broke. Drawn only when a question has a scorer.

use serde::Serialize;

use crate::report::benchmark::benchmark_summary;
use crate::report::{BenchmarkMetrics, BenchmarkSummary};
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

/// The benchmark section.
#[derive(Debug, Serialize)]
pub struct BenchmarkView {
    name: String,
    questions: usize,
    answered: usize,
    rows: Vec<MetricsRow>,
    fixed: usize,
    broken: usize,
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
    })
}
