//! The view of the report's convergence section for
//! `templates/convergence.html.j2`: iterations to approval as a histogram with
//! a table per difficulty. Inline SVG, no script.

use serde::Serialize;

use crate::report::documents::{ApprovalHistogram, Convergence};

/// One column of the histogram.
#[derive(Debug, Serialize)]
struct Column {
    class: &'static str,
    x: usize,
    y: usize,
    width: usize,
    bar: usize,
    count: usize,
    count_y: usize,
    label: String,
    label_y: usize,
}

/// Iterations to approval as columns: 1, 2, …, then never.
#[derive(Debug, Serialize)]
struct Histogram {
    width: usize,
    height: usize,
    columns: Vec<Column>,
}

fn histogram(histogram: &ApprovalHistogram) -> Histogram {
    let counts: Vec<(String, usize, &'static str)> = histogram
        .approved_at
        .iter()
        .enumerate()
        .map(|(i, &n)| ((i + 1).to_string(), n, "good"))
        .chain([("never".to_string(), histogram.never_approved, "bad")])
        .collect();
    let most = counts.iter().map(|c| c.1).max().unwrap_or(0).max(1);
    let (column, height, top) = (48, 120, 16);
    let width = counts.len() * column + 4;
    let columns = counts
        .into_iter()
        .enumerate()
        .map(|(i, (label, count, class))| {
            let x = i * column + 4;
            let bar = height * count / most;
            let y = top + height - bar;
            Column {
                class,
                x,
                y,
                width: column - 10,
                bar,
                count,
                count_y: y.saturating_sub(3).max(12),
                label,
                label_y: top + height + 16,
            }
        })
        .collect();
    Histogram { width, height: height + top + 20, columns }
}

fn number(value: Option<f64>) -> String {
    value.map_or("—".into(), |v| format!("{v:.1}"))
}

/// One difficulty's approvals (or the whole run's).
#[derive(Debug, Serialize)]
struct ConvergenceRow<'a> {
    level: &'a str,
    approved_at: &'a [usize],
    never: usize,
    mean: String,
    median: String,
}

/// The convergence section.
#[derive(Debug, Serialize)]
pub struct ConvergenceView<'a> {
    attempts: usize,
    mean: String,
    median: String,
    histogram: Histogram,
    columns: usize,
    rows: Vec<ConvergenceRow<'a>>,
}

/// The convergence section of `convergence`.
pub fn convergence_view(convergence: &Convergence) -> ConvergenceView<'_> {
    let run = &convergence.run;
    let rows = convergence
        .by_difficulty
        .iter()
        .map(|(level, h)| (level.as_str(), h))
        .chain([("all", run)])
        .map(|(level, h)| ConvergenceRow {
            level,
            approved_at: &h.approved_at,
            never: h.never_approved,
            mean: number(h.mean),
            median: number(h.median),
        })
        .collect();
    ConvergenceView {
        attempts: run.attempts(),
        mean: number(run.mean),
        median: number(run.median),
        histogram: histogram(run),
        columns: run.approved_at.len(),
        rows,
    }
}
