//! The critic's lift as the results document holds it: each side of a
//! question's pair, the tallies before and after, the questions fixed and
//! broken (computed in `report/analyses/lift/`).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::domain::DifficultyLevel;

/// What graded a question of a lift.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScoredBy {
    /// Its benchmark's own rules.
    Benchmark,
    /// The run's matching rules against its expected answer.
    ExpectedAnswer,
}

/// One side of a question's pair: right or wrong, and what it cost.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LiftSide {
    /// Whether the answer is right.
    pub right: bool,
    /// Tokens spent to reach it.
    pub tokens: u64,
    /// Cost spent to reach it, USD.
    pub cost_usd: f64,
}

/// One question without the critic's rebuilds (`before`) and with them (`after`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LiftPair {
    /// The question's id (run A's, between two runs).
    pub question_id: String,
    /// Its text.
    pub question: String,
    /// Its difficulty level.
    pub level: DifficultyLevel,
    /// Its dataset, in a run over several.
    pub dataset: Option<String>,
    /// What graded both sides.
    pub scored_by: ScoredBy,
    /// Without rebuilds.
    pub before: LiftSide,
    /// With rebuilds.
    pub after: LiftSide,
}

/// Right answers before and after over a set of questions.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct LiftTally {
    /// Questions counted.
    pub questions: usize,
    /// Of those, right without rebuilds.
    pub right_before: usize,
    /// Of those, right with rebuilds.
    pub right_after: usize,
    /// `right_before / questions`; none for no question.
    pub accuracy_before: Option<f64>,
    /// `right_after / questions`; none for no question.
    pub accuracy_after: Option<f64>,
    /// Wrong before, right after.
    pub fixed: usize,
    /// Right before, wrong after.
    pub broken: usize,
}

impl LiftTally {
    pub(in crate::report) fn add(&mut self, pair: &LiftPair) {
        self.questions += 1;
        self.right_before += usize::from(pair.before.right);
        self.right_after += usize::from(pair.after.right);
        self.fixed += usize::from(!pair.before.right && pair.after.right);
        self.broken += usize::from(pair.before.right && !pair.after.right);
        let share = |right: usize| Some(right as f64 / self.questions as f64);
        (self.accuracy_before, self.accuracy_after) = (share(self.right_before), share(self.right_after));
    }
}

/// A question the loop fixed or broke.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LiftQuestion {
    /// Its id.
    pub question_id: String,
    /// Its text.
    pub question: String,
    /// Its difficulty level.
    pub level: DifficultyLevel,
    /// Its dataset, in a run over several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<String>,
}

/// What the critic's rebuilds changed over a set of question pairs.
///
/// A negative lift (fewer right answers with rebuilds) shows as a negative
/// `extra_right`, with no per-extra-right-answer figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lift {
    /// Over every pair.
    pub overall: LiftTally,
    /// Per difficulty level that has questions, easiest first.
    pub by_level: IndexMap<DifficultyLevel, LiftTally>,
    /// Per dataset, in the order of its first question; empty (and not
    /// written) unless the questions span more than one dataset.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub by_dataset: IndexMap<String, LiftTally>,
    /// Questions wrong without rebuilds and right with them.
    pub fixed: Vec<LiftQuestion>,
    /// Questions right without rebuilds and wrong with them.
    pub broken: Vec<LiftQuestion>,
    /// Right answers with rebuilds less those without (negative when the loop lost some).
    pub extra_right: i64,
    /// Tokens with rebuilds less those without.
    pub extra_tokens: i64,
    /// Cost with rebuilds less that without, USD.
    pub extra_cost_usd: f64,
    /// `extra_tokens / extra_right`; none unless the rebuilds added a right answer.
    pub tokens_per_extra_right: Option<f64>,
    /// `extra_cost_usd / extra_right`; none unless the rebuilds added a right answer.
    pub cost_per_extra_right_usd: Option<f64>,
}
