//! The grading records a run keeps: how it grades (recorded in the trace, so
//! a resumed run or `eval-dag grade` grades the same way) and each verdict.
//! The grading itself is done by the `grade` module.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// How a run grades answers.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GradingSettings {
    /// Fields of `grade::MatchOptions` the run sets for every question (empty: defaults).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub match_options: Map<String, Value>,
    /// Judges, each a judge file's path or the name of a built-in judge.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub judges: Vec<String>,
    /// Whether the judges also grade the answer of every rejected iteration
    /// whose trial run reached one (`run --judge-rejected`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub judge_rejected: bool,
}

/// The verdict of one grading method on one answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Grade {
    /// `ground_truth`, `json_equality`, or the judge's name.
    pub method: String,
    /// 0-1; none when grading failed.
    pub score: Option<f64>,
    /// Whether the score reaches the threshold (false when grading failed).
    pub passed: bool,
    /// Lowest passing score.
    pub threshold: f64,
    /// One line explaining the score.
    pub reason: String,
    /// Why grading failed, if it did (the answer is then neither right nor wrong).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Grade {
    /// A grade with a score.
    pub fn scored(method: &str, score: f64, threshold: f64, reason: String) -> Self {
        Self {
            method: method.to_string(),
            score: Some(score),
            passed: score >= threshold,
            threshold,
            reason,
            error: None,
        }
    }

    /// A grade that could not be computed.
    pub fn failed(method: &str, threshold: f64, error: String) -> Self {
        Self {
            method: method.to_string(),
            score: None,
            passed: false,
            threshold,
            reason: "not graded".to_string(),
            error: Some(error),
        }
    }
}
