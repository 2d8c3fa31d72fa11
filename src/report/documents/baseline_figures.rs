//! Baselines as the results document holds them: each baseline's answer per
//! question, its tally over a group of questions and the loop's lift over
//! answering directly (computed in `report/analyses/baselines.rs`).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::Baseline;

/// One baseline's answer to a question, scored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BaselineAnswer {
    /// The answer (none when the baseline has none: no reply, or no expected
    /// answer of the same type among the other questions).
    pub answer: Option<Value>,
    /// Whether it is right; none when the question is not scored.
    pub correct: Option<bool>,
    /// Its score from 0 to 1 (the share of a benchmark answer's parts that are right).
    pub score: Option<f64>,
}

/// One baseline over the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BaselineTally {
    /// Questions with a scored expected answer.
    pub answered: usize,
    /// Of those, the share the baseline gets right; none for none.
    pub accuracy: Option<f64>,
    /// For `no_code`: what the critic loop adds over answering directly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lift: Option<BaselineLift>,
}

/// The critic loop's answers against the `no_code` baseline's, question by question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BaselineLift {
    /// Questions the loop gets right and the baseline wrong.
    pub gained: usize,
    /// Questions the baseline gets right and the loop wrong.
    pub lost: usize,
    /// The loop's tokens less the baseline's, per extra right answer; none
    /// unless the loop gets more right.
    pub tokens_per_extra_right: Option<f64>,
}

/// A group of questions' baselines (the run's, a level's, a dataset's).
#[derive(Debug, Clone, PartialEq)]
pub struct BaselineFloors {
    /// Each baseline's `answered` and accuracy, with the loop's lift over `no_code`.
    pub baselines: IndexMap<Baseline, BaselineTally>,
    /// The loop's own accuracy over the questions that need the data (the
    /// scored ones the `no_data` baseline gets wrong).
    pub needs_data: BaselineTally,
    /// The loop's own accuracy over every scored question of the group.
    pub looped: BaselineTally,
}
