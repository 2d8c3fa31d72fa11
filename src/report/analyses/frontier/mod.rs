//! The accuracy–cost frontier of several runs of the same questions: one
//! point per run — accuracy over the questions every run has, with its 95 %
//! interval, against cost, tokens or wall time — and the runs no other run
//! beats on both (cheaper or as cheap, and as accurate or more, one of them
//! strictly). Computed once here; `compare` prints it, writes it under
//! `frontier` in its JSON, draws it in `compare --html` and in the TUI's
//! matrix screen.
//!
//! Choices, written down:
//! - **Accuracy** is the benchmark scorer's verdict where every run has one
//!   (`benchmark`), else the graded answer (`graded`), each a question's
//!   share of right epochs; over the questions graded in every run. Without
//!   any such question the points fall back to the pass rate (`pass_rate`).
//! - **Intervals**: a run with repeats (several epochs of a question) gets a
//!   seeded percentile bootstrap over questions of each question's share of
//!   right epochs ([`super::bootstrap`], [`RESAMPLES`](super::bootstrap::RESAMPLES)); a run without gets
//!   the Wilson score interval of the proportion.
//! - **Cost** is what the calls cost (batched calls at batch prices) plus the
//!   response cache's hits at list price: a cached rerun is not free. What was
//!   paid stays beside it (`paid_usd`). A run that spent tokens at no cost has
//!   no price for its model: it is listed, not placed on the cost axis.
//! - **Wall time** is the run's own (a merged run's is its longest shard's).
//!   Per-level and per-dataset slices sum their questions' own cost and tokens
//!   (question generation is a run's, not a question's) and have no wall time.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::report::documents::{DetailedResult, EvalResults};
use crate::run::Outcome;

/// The normal quantile of a two-sided 95 % interval.
const Z95: f64 = 1.959_963_984_540_054;

/// What a point is placed against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Axis {
    /// US dollars.
    Cost,
    /// Tokens spent.
    Tokens,
    /// The run's wall time.
    WallTime,
}

impl Axis {
    /// The axis after this one, round the three.
    pub fn next(self) -> Self {
        match self {
            Axis::Cost => Axis::Tokens,
            Axis::Tokens => Axis::WallTime,
            Axis::WallTime => Axis::Cost,
        }
    }

    /// Its name for people.
    pub fn label(self) -> &'static str {
        match self {
            Axis::Cost => "cost (USD)",
            Axis::Tokens => "tokens",
            Axis::WallTime => "wall time (s)",
        }
    }

    /// `point`'s value on this axis; none where it is not placed.
    pub fn value(self, point: &FrontierPoint) -> Option<f64> {
        match self {
            Axis::Cost => point.cost_usd,
            Axis::Tokens => Some(point.tokens as f64),
            Axis::WallTime => point.wall_ms.map(|ms| ms as f64 / 1000.0),
        }
    }
}

/// Every axis, in the order a key cycles them.
pub const AXES: [Axis; 3] = every_variant!(Axis: Cost, Tokens, WallTime);

/// What the points' accuracy counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// The published benchmark's scorer, per question.
    Benchmark,
    /// Graded answers (expected answers, labels, judges).
    Graded,
    /// Passed the critic loop: nothing was graded in every run.
    PassRate,
}

impl Basis {
    /// Its name for people.
    pub fn label(self) -> &'static str {
        match self {
            Basis::Benchmark => "benchmark accuracy",
            Basis::Graded => "accuracy",
            Basis::PassRate => "pass rate",
        }
    }
}

/// How a point's interval was drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntervalMethod {
    /// The Wilson score interval of the proportion (one epoch per question).
    Wilson,
    /// A seeded bootstrap over questions of each one's share of right epochs.
    Repeats,
}

/// Whether a point is on the frontier, per axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct OnFrontier {
    /// Against cost.
    pub cost: bool,
    /// Against tokens.
    pub tokens: bool,
    /// Against wall time.
    pub wall_time: bool,
}

impl OnFrontier {
    /// On the frontier of `axis`.
    pub fn on(self, axis: Axis) -> bool {
        match axis {
            Axis::Cost => self.cost,
            Axis::Tokens => self.tokens,
            Axis::WallTime => self.wall_time,
        }
    }
}

/// One run on the chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrontierPoint {
    /// Its letter in the comparison (A, B, …).
    pub label: String,
    /// The run as given (a path).
    pub name: String,
    /// The builder's model; none where the results do not say.
    pub model: Option<String>,
    /// The settings that tell runs of one model apart (iterations, repeats, …).
    pub settings: String,
    /// Questions its accuracy covers.
    pub questions: usize,
    /// Share right (or passed, see `Basis`); none without questions.
    pub accuracy: Option<f64>,
    /// Its 95 % interval.
    pub interval: Option<[f64; 2]>,
    /// How the interval was drawn.
    pub interval_method: IntervalMethod,
    /// Right answers among those questions (epochs counted in shares).
    pub right: f64,
    /// What the point is placed at: the calls' cost plus the cache's hits at
    /// list price, USD; none without a price for the model.
    pub cost_usd: Option<f64>,
    /// What was paid, USD (cache hits free).
    pub paid_usd: f64,
    /// Calls the response cache served.
    pub cached_calls: usize,
    /// Tokens spent.
    pub tokens: u64,
    /// Wall time, ms; none where unknown (a slice, an unfinished run).
    pub wall_ms: Option<u64>,
    /// `cost_usd` over right answers; none without a price or a right answer.
    pub cost_per_right: Option<f64>,
    /// On the cost frontier.
    pub on_frontier: bool,
    /// On the frontier of each axis.
    pub on_frontier_by: OnFrontier,
}

impl FrontierPoint {
    /// The model and the settings, for people.
    pub fn description(&self) -> String {
        let mut parts: Vec<&str> = self.model.iter().map(String::as_str).collect();
        if !self.settings.is_empty() {
            parts.push(&self.settings);
        }
        parts.join(" · ")
    }

    /// Its name on a chart: the letter, the model and the settings.
    pub fn caption(&self) -> String {
        format!("{} · {}", self.label, self.description())
    }

    /// Its figures in one line: accuracy and interval, cost (what was paid
    /// beside it when the cache served calls), tokens, wall time, cost per
    /// right answer, and whether it is on the cost frontier.
    pub fn figures(&self) -> String {
        let on = if self.on_frontier { "  on the frontier" } else { "" };
        format!(
            "{}  {}  {} tok  {}  {}/right{on}",
            self.accuracy_text(),
            self.cost_text(),
            crate::text::thousands(self.tokens),
            self.wall_text(),
            self.per_right_text()
        )
    }

    /// Accuracy and its interval: `0.750 [0.301–0.954]`.
    pub fn accuracy_text(&self) -> String {
        match (self.accuracy, self.interval) {
            (Some(a), Some([low, high])) => format!("{a:.3} [{low:.3}–{high:.3}]"),
            (Some(a), None) => format!("{a:.3}"),
            (None, _) => "—".into(),
        }
    }

    /// The placed cost, with what was paid when the cache served calls.
    pub fn cost_text(&self) -> String {
        match self.cost_usd {
            Some(cost) if self.cached_calls > 0 => format!("${cost:.4} (paid ${:.4})", self.paid_usd),
            Some(cost) => format!("${cost:.4}"),
            None => "no price".into(),
        }
    }

    /// Wall time, or a dash.
    pub fn wall_text(&self) -> String {
        self.wall_ms.map_or_else(|| "—".into(), crate::text::duration)
    }

    /// Cost per right answer, or a dash.
    pub fn per_right_text(&self) -> String {
        crate::text::dollars(self.cost_per_right)
    }
}

/// The points over some of the questions (one level, one dataset).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrontierSlice {
    /// Questions in the slice.
    pub questions: usize,
    /// One point per run, in run order.
    pub points: Vec<FrontierPoint>,
}

/// Several runs' accuracy against cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Frontier {
    /// What accuracy counts.
    pub basis: Basis,
    /// Questions every run has (the points cover those graded in every run).
    pub shared_questions: usize,
    /// One point per run, in run order.
    pub points: Vec<FrontierPoint>,
    /// The same per difficulty level (the first run's levels).
    pub by_level: IndexMap<String, FrontierSlice>,
    /// The same per dataset, in runs over several.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub by_dataset: IndexMap<String, FrontierSlice>,
}

impl Frontier {
    /// What the points measure, in one line.
    pub fn heading(&self) -> String {
        if self.shared_questions == 0 {
            return "no question is in every run: nothing to place on the frontier".into();
        }
        let covered = self.points.first().map_or(0, |p| p.questions);
        let methods: Vec<&str> =
            [(IntervalMethod::Wilson, "Wilson"), (IntervalMethod::Repeats, "bootstrap over repeats")]
                .into_iter()
                .filter(|(m, _)| self.points.iter().any(|p| p.interval_method == *m))
                .map(|(_, name)| name)
                .collect();
        format!(
            "{} against cost over {covered} of {} shared questions (95 % intervals: {})",
            self.basis.label(),
            self.shared_questions,
            methods.join(", ")
        )
    }

    /// Points placed on `axis` and accuracy, in run order.
    pub fn placed(&self, axis: Axis) -> impl Iterator<Item = (&FrontierPoint, f64, f64)> {
        self.points.iter().filter_map(move |p| Some((p, axis.value(p)?, p.accuracy?)))
    }

    /// Points on `axis`'s frontier, cheapest first.
    pub fn line(&self, axis: Axis) -> Vec<&FrontierPoint> {
        let mut on: Vec<(&FrontierPoint, f64)> =
            self.placed(axis).filter(|(p, ..)| p.on_frontier_by.on(axis)).map(|(p, x, _)| (p, x)).collect();
        on.sort_by(|a, b| a.1.total_cmp(&b.1));
        on.into_iter().map(|(p, _)| p).collect()
    }
}

/// Which of `points` (x, y; none where not placed) no other point beats:
/// none has x as low or lower and y as high or higher, one of them strictly.
/// Two points at the same place are both on it.
pub fn pareto(points: &[Option<(f64, f64)>]) -> Vec<bool> {
    let mut order: Vec<usize> =
        (0..points.len()).filter(|i| points[*i].is_some_and(|(x, y)| x.is_finite() && y.is_finite())).collect();
    let at = |i: usize| points[i].unwrap_or_default();
    order.sort_by(|a, b| at(*a).0.total_cmp(&at(*b).0).then(at(*b).1.total_cmp(&at(*a).1)));
    let mut on = vec![false; points.len()];
    // The best y among points strictly left of the current group of equal x.
    let mut best_left = f64::NEG_INFINITY;
    let mut start = 0;
    while start < order.len() {
        let x = at(order[start]).0;
        let end = start + order[start..].iter().take_while(|i| at(**i).0 == x).count();
        let top = at(order[start]).1;
        for &i in &order[start..end] {
            on[i] = at(i).1 == top && top > best_left;
        }
        best_left = best_left.max(top);
        start = end;
    }
    on
}

/// The Wilson score interval (95 %) of `right` out of `n`; none for no trials.
pub fn wilson(right: f64, n: usize) -> Option<[f64; 2]> {
    if n == 0 {
        return None;
    }
    let n = n as f64;
    let p = right / n;
    let z2 = Z95 * Z95;
    let denominator = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denominator;
    let half = Z95 / denominator * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Some([(centre - half).max(0.0), (centre + half).min(1.0)])
}

/// `result`'s score under `basis`: its share of epochs right (or passed);
/// none when it was not graded.
fn score(result: &DetailedResult, basis: Basis) -> Option<f64> {
    if !result.epochs.is_empty() {
        let hits = result.epochs.iter().map(|e| match basis {
            Basis::PassRate => Some(e.status.outcome() == Some(Outcome::Passed)),
            Basis::Benchmark | Basis::Graded => e.correct,
        });
        let hits: Option<Vec<bool>> = hits.collect();
        return hits.map(|h| h.iter().filter(|x| **x).count() as f64 / h.len() as f64);
    }
    let hit = match basis {
        Basis::PassRate => Some(result.success),
        Basis::Benchmark | Basis::Graded => result.benchmark.as_ref().map(|b| b.correct).or(result.correct),
    };
    hit.map(|h| f64::from(u8::from(h)))
}

/// Right answers of a whole run (epochs each counted; the benchmark scorer's
/// verdict where there is one): what cost per right answer divides by.
pub fn right_answers(doc: &EvalResults) -> f64 {
    doc.detailed_results
        .iter()
        .map(|r| score(r, Basis::Graded).unwrap_or(0.0) * r.epochs.len().max(1) as f64)
        .fold(0.0, |sum, right| sum + right)
}

/// What `doc` spent per right answer ([`placed_cost`] over [`right_answers`]);
/// none without a price or a right answer.
pub fn run_cost_per_right(doc: &EvalResults) -> Option<f64> {
    priced(doc).then(|| cost_per_right(placed_cost(doc), right_answers(doc))).flatten()
}

/// `cost` over `right` answers; none without a right answer.
pub fn cost_per_right(cost: f64, right: f64) -> Option<f64> {
    (right > 0.0).then(|| cost / right)
}

/// Whether `doc` has a price for what it spent: it cost something (the
/// cache's hits at list price counted), or spent nothing.
fn priced(doc: &EvalResults) -> bool {
    summary_priced(&doc.summary)
}

/// [`priced`] of a results summary alone.
fn summary_priced(summary: &crate::report::documents::Summary) -> bool {
    let cached = summary.cache.map_or(0, |c| c.hits);
    summary_cost(summary) > 0.0 || (summary.tokens.total == 0 && cached == 0)
}

/// What a run spent, from its summary: its calls' cost plus the cache's hits at list price.
fn summary_cost(summary: &crate::report::documents::Summary) -> f64 {
    summary.cost_usd + summary.cache.map_or(0.0, |c| c.list_cost_usd)
}

/// Cost per graded right answer from a results summary alone (the run
/// browser reads only summaries); none without a price or a right answer.
pub fn summary_cost_per_right(summary: &crate::report::documents::Summary) -> Option<f64> {
    summary_priced(summary).then(|| cost_per_right(summary_cost(summary), summary.grading.correct as f64)).flatten()
}

mod points;
mod scale;
#[cfg(test)]
mod tests;

pub use points::{frontier, placed_cost};
pub use scale::AxisScale;
