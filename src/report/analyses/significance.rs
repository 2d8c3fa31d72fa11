//! Whether a difference between two runs is larger than chance. Questions
//! are paired (the same question in both runs) and each is scored 0–1: the
//! share of its epochs that were right (graded) or passed (ungraded). When
//! neither run repeats its questions every score is 0 or 1 and the exact
//! McNemar test gives the p value; otherwise a paired bootstrap does (the
//! report's one bootstrap, [`RESAMPLES`] resamples of the questions from
//! [`SEED`], so the same runs always give the same p). The bootstrap
//! always supplies the 95% interval of the difference.

use serde::{Deserialize, Serialize};

use super::bootstrap::{RESAMPLES, SEED};
use crate::report::documents::DetailedResult;
use crate::run::Outcome;

/// What each question is scored on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    /// Graded right (every paired question was graded in both runs).
    Accuracy,
    /// Passed the critic loop (some paired question was not graded).
    PassRate,
}

impl Measure {
    /// How it is named to people.
    pub fn label(self) -> &'static str {
        match self {
            Measure::Accuracy => "accuracy",
            Measure::PassRate => "pass rate",
        }
    }
}

/// The test that gave the p value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "name")]
pub enum Test {
    /// Exact McNemar (two-sided binomial test on the discordant questions).
    #[serde(rename = "mcnemar")]
    McNemar {
        /// Right in the baseline only.
        baseline_only: usize,
        /// Right in the other run only.
        candidate_only: usize,
    },
    /// Paired bootstrap of the mean per-question difference.
    Bootstrap {
        /// Resamples drawn.
        resamples: usize,
        /// The generator's seed.
        seed: u64,
    },
}

/// A paired comparison of one run with the baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Significance {
    /// What each question was scored on.
    pub measure: Measure,
    /// Questions present in both runs.
    pub paired: usize,
    /// The baseline's mean score over the paired questions.
    pub baseline: f64,
    /// This run's mean score over the paired questions.
    pub candidate: f64,
    /// `candidate - baseline`.
    pub difference: f64,
    /// The bootstrap's 95% interval of the difference (2.5th and 97.5th percentiles).
    pub interval: [f64; 2],
    /// Two-sided p value.
    pub p_value: f64,
    /// The test that gave it.
    pub test: Test,
    /// The level it was held against.
    pub level: f64,
    /// Whether `p_value <= level` and the runs differ at all.
    pub significant: bool,
}

impl Significance {
    /// Whether this run is worse than the baseline beyond chance: a regression.
    pub fn worse(&self) -> bool {
        self.significant && self.difference < 0.0
    }

    /// One line for people, e.g. `accuracy 0.80 → 0.60 (−0.20, 95% CI −0.35…−0.05), p = 0.021 (exact McNemar, 1 vs 9): worse`.
    pub fn sentence(&self) -> String {
        let test = match self.test {
            Test::McNemar { baseline_only, candidate_only } => {
                format!("exact McNemar, {baseline_only} right only in the baseline, {candidate_only} only here")
            }
            Test::Bootstrap { resamples, .. } => format!("paired bootstrap, {resamples} resamples"),
        };
        let verdict = match (self.significant, self.difference < 0.0) {
            (true, true) => "worse".to_string(),
            (true, false) => "better".to_string(),
            (false, _) => format!("not significant at {}", self.level),
        };
        format!(
            "{} {:.3} → {:.3} ({:+.3}, 95% CI {:+.3}…{:+.3}) over {} paired questions, p = {:.4} ({test}): {verdict}",
            self.measure.label(),
            self.baseline,
            self.candidate,
            self.difference,
            self.interval[0],
            self.interval[1],
            self.paired,
            self.p_value,
        )
    }
}

/// Whether `result` counts as graded: its answer, or every epoch's, was graded.
fn graded(result: &DetailedResult) -> bool {
    if result.epochs.is_empty() { result.correct.is_some() } else { result.epochs.iter().all(|e| e.correct.is_some()) }
}

/// `result`'s score under `measure`: the share of its epochs right or passed.
fn score(result: &DetailedResult, measure: Measure) -> f64 {
    if result.epochs.is_empty() {
        let hit = match measure {
            Measure::Accuracy => result.correct == Some(true),
            Measure::PassRate => result.success,
        };
        return f64::from(u8::from(hit));
    }
    let hits = result
        .epochs
        .iter()
        .filter(|e| match measure {
            Measure::Accuracy => e.correct == Some(true),
            Measure::PassRate => e.status.outcome() == Some(Outcome::Passed),
        })
        .count();
    hits as f64 / result.epochs.len() as f64
}

/// Compare the paired questions `pairs` (baseline, candidate); none when no
/// question is in both runs.
pub fn paired_test(pairs: &[(&DetailedResult, &DetailedResult)], level: f64) -> Option<Significance> {
    if pairs.is_empty() {
        return None;
    }
    let measure = if pairs.iter().all(|(a, b)| graded(a) && graded(b)) { Measure::Accuracy } else { Measure::PassRate };
    let scores: Vec<(f64, f64)> = pairs.iter().map(|(a, b)| (score(a, measure), score(b, measure))).collect();
    let n = scores.len() as f64;
    let baseline = scores.iter().map(|s| s.0).sum::<f64>() / n;
    let candidate = scores.iter().map(|s| s.1).sum::<f64>() / n;
    let differences: Vec<f64> = scores.iter().map(|(a, b)| b - a).collect();
    let bootstrap = bootstrap(&differences);
    let single_epoch = pairs.iter().all(|(a, b)| a.epochs.len() <= 1 && b.epochs.len() <= 1);
    let (p_value, test) = if single_epoch {
        let baseline_only = scores.iter().filter(|(a, b)| a > b).count();
        let candidate_only = scores.iter().filter(|(a, b)| b > a).count();
        (mcnemar_exact(baseline_only, candidate_only), Test::McNemar { baseline_only, candidate_only })
    } else {
        (bootstrap.p_value, Test::Bootstrap { resamples: RESAMPLES, seed: SEED })
    };
    let difference = candidate - baseline;
    Some(Significance {
        measure,
        paired: pairs.len(),
        baseline,
        candidate,
        difference,
        interval: bootstrap.interval,
        p_value,
        test,
        level,
        significant: difference != 0.0 && p_value <= level,
    })
}

/// What the bootstrap found.
struct Bootstrap {
    interval: [f64; 2],
    p_value: f64,
}

/// The paired bootstrap of the mean of `differences`: its 95% percentile
/// interval, and the two-sided p value of "the mean is zero" (twice the share
/// of resampled means on the far side of zero, counted with the observed
/// sample, `(k + 1) / (B + 1)`).
fn bootstrap(differences: &[f64]) -> Bootstrap {
    let means = super::bootstrap::resampled_means(differences);
    let at_or_below = means.iter().filter(|m| **m <= 0.0).count();
    let at_or_above = means.iter().filter(|m| **m >= 0.0).count();
    let tail = at_or_below.min(at_or_above);
    let percentile = |q: f64| super::bootstrap::quantile(&means, q).unwrap_or(0.0);
    Bootstrap {
        interval: [percentile(0.025), percentile(0.975)],
        p_value: (2.0 * (tail + 1) as f64 / (RESAMPLES + 1) as f64).min(1.0),
    }
}

/// The exact two-sided McNemar p value for `b` and `c` discordant questions:
/// twice the binomial(b + c, ½) tail at min(b, c), at most 1 (1 when none differ).
pub fn mcnemar_exact(b: usize, c: usize) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    // Sum C(n, i) / 2^n for i in 0..=min(b, c) in log space (2^n underflows past n ≈ 1,000).
    let mut log_term = -(n as f64) * std::f64::consts::LN_2;
    let mut logs = vec![log_term];
    for i in 0..b.min(c) {
        log_term += ((n - i) as f64).ln() - ((i + 1) as f64).ln();
        logs.push(log_term);
    }
    let top = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let tail = top.exp() * logs.iter().map(|l| (l - top).exp()).sum::<f64>();
    (2.0 * tail).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcnemar_matches_the_binomial_test() {
        // binomtest(1, 10, 0.5): 2 * (1 + 10) / 1024.
        assert!((mcnemar_exact(1, 9) - 22.0 / 1024.0).abs() < 1e-15);
        assert!((mcnemar_exact(9, 1) - 22.0 / 1024.0).abs() < 1e-15);
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        assert_eq!(mcnemar_exact(1, 0), 1.0, "one discordant question proves nothing");
        assert_eq!(mcnemar_exact(3, 3), 1.0);
        // binomtest(0, 6, 0.5) = 2 / 64.
        assert!((mcnemar_exact(0, 6) - 2.0 / 64.0).abs() < 1e-15);
        // 2^-1500 underflows; in logs the tail does not. Exact value from
        // integer arithmetic: 2 * sum(comb(1500, i) for i in 0..=300) / 2**1500.
        let far = mcnemar_exact(300, 1200);
        assert!((far / 1.880831443694767e-127 - 1.0).abs() < 1e-9, "{far}");
        let even = mcnemar_exact(1500, 1500);
        assert!(even > 0.99 && even <= 1.0, "{even}");
    }

    #[test]
    fn the_bootstrap_is_seeded_and_bounds_what_it_sees() {
        assert_eq!(bootstrap(&[0.0; 20]).p_value, 1.0, "no difference at all");
        let constant = bootstrap(&[0.5; 7]);
        assert_eq!(constant.p_value, 2.0 / (RESAMPLES + 1) as f64, "no resample reaches zero");
        assert_eq!(constant.interval, [0.5, 0.5]);
        let mixed = [1.0, -1.0, 0.0, 0.5, 0.0, 1.0, 0.0, -0.5, 0.0, 0.0];
        let first = bootstrap(&mixed);
        let again = bootstrap(&mixed);
        assert_eq!((first.p_value, first.interval), (again.p_value, again.interval), "seeded");
        assert!(first.interval[0] < 0.1 && first.interval[1] > 0.1, "the mean 0.1 is inside {:?}", first.interval);
        assert!(first.p_value > 0.5, "a mean of 0.1 over noise this wide is chance: {}", first.p_value);
    }
}
