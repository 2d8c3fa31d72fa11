//! The frontier's points: per run over the shared questions, then per level
//! and per dataset.

use indexmap::IndexMap;

use super::{
    Basis, DetailedResult, EvalResults, Frontier, FrontierPoint, FrontierSlice, IntervalMethod, OnFrontier,
    cost_per_right, pareto, priced, score, wilson,
};

/// What every run of the comparison spent in all, for its point.
struct Totals {
    cost_usd: Option<f64>,
    paid_usd: f64,
    cached_calls: usize,
    tokens: u64,
    wall_ms: Option<u64>,
}

/// What a run spent: its calls' cost plus the cache's hits at list price.
pub fn placed_cost(doc: &EvalResults) -> f64 {
    super::summary_cost(&doc.summary)
}

fn run_totals(doc: &EvalResults) -> Totals {
    Totals {
        cost_usd: priced(doc).then(|| placed_cost(doc)),
        paid_usd: doc.summary.cost_usd,
        cached_calls: doc.summary.cache.map_or(0, |c| c.hits),
        tokens: doc.summary.tokens.total,
        wall_ms: doc.summary.elapsed_ms,
    }
}

/// The totals of some of a run's questions: their own cost and tokens.
fn slice_totals(results: &[&DetailedResult]) -> Totals {
    let cost = results.iter().fold(0.0, |sum, r| sum + r.cost_usd);
    let tokens: u64 = results.iter().map(|r| r.tokens.total).sum();
    Totals {
        cost_usd: (cost > 0.0 || tokens == 0).then_some(cost),
        paid_usd: cost,
        cached_calls: 0,
        tokens,
        wall_ms: None,
    }
}

/// The settings that tell runs of one model apart, for a point's label.
fn settings_text(doc: &EvalResults) -> String {
    let mut parts = Vec::new();
    if let Some(s) = &doc.summary.settings {
        parts.push(format!("it {}", s.max_iterations));
        if s.repeat > 1 {
            parts.push(format!("×{}", s.repeat));
        }
        if s.consensus > 1 {
            parts.push(format!("consensus {}", s.consensus));
        }
    }
    if doc.summary.batches.is_some() {
        parts.push("batch".into());
    }
    if doc.summary.cache.is_some() {
        parts.push("cache".into());
    }
    parts.join(" · ")
}

/// One run's point over `results` (its side of the questions counted), before
/// the frontier is known.
fn point(
    label: &str,
    name: &str,
    doc: &EvalResults,
    results: &[&DetailedResult],
    basis: Basis,
    totals: Totals,
) -> FrontierPoint {
    let scores: Vec<f64> = results.iter().map(|r| score(r, basis).unwrap_or(0.0)).collect();
    // Folded from +0.0: an empty `sum()` of floats is -0.0.
    let right = scores.iter().fold(0.0, |sum, s| sum + s);
    let repeats = results.iter().any(|r| r.epochs.len() > 1);
    let accuracy = (!scores.is_empty()).then(|| right / scores.len() as f64);
    let (interval, interval_method) = if repeats {
        (super::super::bootstrap::percentile_interval(&scores), IntervalMethod::Repeats)
    } else {
        (wilson(right, scores.len()), IntervalMethod::Wilson)
    };
    let model = doc.summary.settings.as_ref().map(|s| s.model.clone()).filter(|m| !m.is_empty());
    FrontierPoint {
        label: label.to_string(),
        name: name.to_string(),
        model,
        settings: settings_text(doc),
        questions: scores.len(),
        accuracy,
        interval,
        interval_method,
        right,
        cost_per_right: totals.cost_usd.and_then(|c| cost_per_right(c, right)),
        cost_usd: totals.cost_usd,
        paid_usd: totals.paid_usd,
        cached_calls: totals.cached_calls,
        tokens: totals.tokens,
        wall_ms: totals.wall_ms,
        on_frontier: false,
        on_frontier_by: OnFrontier::default(),
    }
}

/// Mark each of `points` on the frontier of each axis.
fn mark(points: &mut [FrontierPoint]) {
    let on = |axis: super::Axis, points: &[FrontierPoint]| {
        pareto(&points.iter().map(|p| Some((axis.value(p)?, p.accuracy?))).collect::<Vec<_>>())
    };
    let [cost, tokens, wall] = super::AXES.map(|axis| on(axis, points));
    for (i, point) in points.iter_mut().enumerate() {
        point.on_frontier_by = OnFrontier { cost: cost[i], tokens: tokens[i], wall_time: wall[i] };
        point.on_frontier = cost[i];
    }
}

/// The basis every run shares and the questions (rows of `shared`) it covers.
fn basis_and_rows<'a>(docs: &[EvalResults], shared: &'a [Vec<usize>]) -> (Basis, Vec<&'a Vec<usize>>) {
    let graded = |row: &Vec<usize>| {
        row.iter().zip(docs).all(|(&i, doc)| score(&doc.detailed_results[i], Basis::Graded).is_some())
    };
    let rows: Vec<&Vec<usize>> = shared.iter().filter(|row| graded(row)).collect();
    if rows.is_empty() {
        return (Basis::PassRate, shared.iter().collect());
    }
    let scored = |row: &&Vec<usize>| row.iter().zip(docs).all(|(&i, doc)| doc.detailed_results[i].benchmark.is_some());
    let benchmark = docs.iter().all(|d| d.summary.benchmark.is_some()) && rows.iter().any(scored);
    (if benchmark { Basis::Benchmark } else { Basis::Graded }, rows)
}

/// The points of every run over `rows`, marked.
fn points_over(
    labels: &[String],
    names: &[String],
    docs: &[EvalResults],
    rows: &[&Vec<usize>],
    basis: Basis,
    whole_run: bool,
) -> Vec<FrontierPoint> {
    let mut points: Vec<FrontierPoint> = docs
        .iter()
        .enumerate()
        .map(|(run, doc)| {
            let results: Vec<&DetailedResult> = rows.iter().map(|row| &doc.detailed_results[row[run]]).collect();
            let totals = if whole_run { run_totals(doc) } else { slice_totals(&results) };
            point(&labels[run], &names[run], doc, &results, basis, totals)
        })
        .collect();
    mark(&mut points);
    points
}

/// The rows of `rows` grouped by `key` of the first run's result, in first-seen order.
fn grouped<'a>(
    docs: &[EvalResults],
    rows: &[&'a Vec<usize>],
    key: impl Fn(&DetailedResult) -> Option<String>,
) -> IndexMap<String, Vec<&'a Vec<usize>>> {
    let mut groups: IndexMap<String, Vec<&Vec<usize>>> = IndexMap::new();
    for row in rows {
        if let Some(k) = key(&docs[0].detailed_results[row[0]]) {
            groups.entry(k).or_default().push(row);
        }
    }
    groups
}

/// The frontier of the runs `docs` (letters `labels`, named `names`) over the
/// questions every one has: each entry of `shared` is one such question's
/// index in each run's results. None for fewer than two runs.
pub fn frontier(labels: &[String], names: &[String], docs: &[EvalResults], shared: &[Vec<usize>]) -> Option<Frontier> {
    if docs.len() < 2 {
        return None;
    }
    let (basis, rows) = basis_and_rows(docs, shared);
    let slices = |groups: IndexMap<String, Vec<&Vec<usize>>>| -> IndexMap<String, FrontierSlice> {
        groups
            .into_iter()
            .map(|(key, rows)| {
                let points = points_over(labels, names, docs, &rows, basis, false);
                (key, FrontierSlice { questions: rows.len(), points })
            })
            .collect()
    };
    let mut by_level = grouped(docs, &rows, |r| Some(r.difficulty_level.as_str().to_string()));
    by_level.sort_by_cached_key(|level, _| ["easy", "medium", "hard"].iter().position(|l| l == level));
    Some(Frontier {
        basis,
        shared_questions: shared.len(),
        points: points_over(labels, names, docs, &rows, basis, true),
        by_level: slices(by_level),
        by_dataset: slices(grouped(docs, &rows, |r| r.dataset.clone())),
    })
}
