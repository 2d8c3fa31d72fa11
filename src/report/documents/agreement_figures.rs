//! The agreement figures' types, as `eval_results.json`'s `summary.reviews`
//! and `agreement --json` carry them: κ between two raters (their 2×2 table),
//! α over every reviewer, each machine against people, and the pairwise
//! tallies. The figures are worked out in `report/analyses/agreement/` and
//! `report/analyses/pairwise.rs`.

use serde::{Deserialize, Serialize};

use crate::domain::ReviewItem;

/// Two raters' yes/no (right/wrong) over the same items, as counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Table {
    /// Both said yes.
    pub yes_yes: u64,
    /// The first yes, the second no.
    pub yes_no: u64,
    /// The first no, the second yes.
    pub no_yes: u64,
    /// Both said no.
    pub no_no: u64,
}

/// κ between two raters, with what it rests on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KappaFigure {
    /// Items both rated (right or wrong).
    pub n: u64,
    /// Share of them rated alike.
    pub percent_agreement: Option<f64>,
    /// Cohen's κ; none when undefined.
    pub kappa: Option<f64>,
    /// Why κ is undefined, when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undefined: Option<String>,
    /// κ's 95 % bootstrap interval.
    pub interval: Option<[f64; 2]>,
    /// The 2×2 table.
    pub table: Table,
}

/// Krippendorff's α (nominal) over units each rated by some raters (a
/// unit's values: one per rater who rated it, as small category numbers),
/// with its interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlphaFigure {
    /// Units rated by two raters or more (the only ones α counts).
    pub units: u64,
    /// Values in those units.
    pub values: u64,
    /// α; none when undefined (fewer than two values that differ in all).
    pub alpha: Option<f64>,
    /// Its 95 % bootstrap interval over units.
    pub interval: Option<[f64; 2]>,
}

/// Two reviewers against each other.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairAgreement {
    /// The two, by name.
    pub reviewers: [String; 2],
    /// Items both reviewed where one of them was unsure (left out of κ).
    pub unsure: u64,
    /// κ over the items both said right or wrong.
    pub figure: KappaFigure,
}

/// A machine's verdicts (yes: approved, passed, right) against the human one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineAgreement {
    /// `critic`, `judge <name>`, `expected answer` or `benchmark scorer`.
    pub machine: String,
    /// κ over the items with both verdicts (the machine first).
    pub figure: KappaFigure,
    /// The items where the two differ.
    pub disagreements: Vec<ReviewItem>,
}

/// Everything `agreement` says of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgreementReport {
    /// Who reviewed (reviews that count).
    pub reviewers: Vec<String>,
    /// Items with at least one review that counts.
    pub items_reviewed: usize,
    /// Reviews of answers that changed since (not counted).
    pub stale: usize,
    /// κ for each pair of reviewers.
    pub pairs: Vec<PairAgreement>,
    /// α over every reviewer.
    pub alpha: AlphaFigure,
    /// Each machine against the human verdict.
    pub machines: Vec<MachineAgreement>,
    /// Items whose reviewers disagree (right against wrong), for an adjudicator.
    pub disputed: Vec<ReviewItem>,
    /// Pairwise reviews against each other run: wins, losses, ties.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pairwise: Vec<PairwiseTally>,
}

/// What reviewers preferred between this run and one other, side by side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairwiseTally {
    /// The other run, as the reviews name it.
    pub other_run: String,
    /// Reviews counted.
    pub reviews: u64,
    /// This run's answer was better.
    pub wins: u64,
    /// The other run's answer was better.
    pub losses: u64,
    /// As good as each other.
    pub ties: u64,
    /// Neither was right.
    pub both_wrong: u64,
    /// Wins over wins and losses; none without either.
    pub win_rate: Option<f64>,
    /// Its 95 % Wilson interval.
    pub interval: Option<[f64; 2]>,
    /// The sign test's two-sided p-value of wins against losses.
    pub sign_test_p: f64,
}
