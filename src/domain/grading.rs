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

/// What graded an answer: one of the built-in methods, or a judge by its
/// name. Written as that name (`ground_truth`, `json_equality`, `label`, or
/// the judge's), so a judge that took a built-in name reads back as it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GradingMethod {
    /// The run's matching rules (or a benchmark's scorer) against the expected answer.
    GroundTruth,
    /// JSON equality against the expected answer.
    JsonEquality,
    /// A person's label (`eval-dag grade --labels`).
    Label,
    /// A judge, by its name.
    Judge(String),
}

impl GradingMethod {
    /// The method a name means.
    pub fn from_name(name: &str) -> Self {
        match name {
            "ground_truth" => Self::GroundTruth,
            "json_equality" => Self::JsonEquality,
            "label" => Self::Label,
            judge => Self::Judge(judge.to_string()),
        }
    }

    /// Its name, as written.
    pub fn name(&self) -> &str {
        match self {
            Self::GroundTruth => "ground_truth",
            Self::JsonEquality => "json_equality",
            Self::Label => "label",
            Self::Judge(name) => name,
        }
    }

    /// Whether it compares with the question's expected answer.
    pub fn uses_expected_answer(&self) -> bool {
        matches!(self, Self::GroundTruth | Self::JsonEquality)
    }

    /// Whether it gives the same verdict every time (no model asked).
    pub fn is_deterministic(&self) -> bool {
        !matches!(self, Self::Judge(_))
    }
}

impl std::fmt::Display for GradingMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Compared by name, as the name is written.
impl PartialEq<&str> for GradingMethod {
    fn eq(&self, other: &&str) -> bool {
        self.name() == *other
    }
}

impl Serialize for GradingMethod {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for GradingMethod {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Self::from_name(&String::deserialize(deserializer)?))
    }
}

/// The verdict of one grading method on one answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Grade {
    /// What graded the answer (written as its name).
    pub method: GradingMethod,
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
    pub fn scored(method: GradingMethod, score: f64, threshold: f64, reason: String) -> Self {
        Self { method, score: Some(score), passed: score >= threshold, threshold, reason, error: None }
    }

    /// A grade that could not be computed.
    pub fn failed(method: GradingMethod, threshold: f64, error: String) -> Self {
        Self { method, score: None, passed: false, threshold, reason: "not graded".to_string(), error: Some(error) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_method_is_written_as_its_name_and_read_back_as_itself() {
        for (method, name) in [
            (GradingMethod::GroundTruth, "ground_truth"),
            (GradingMethod::JsonEquality, "json_equality"),
            (GradingMethod::Label, "label"),
            (GradingMethod::Judge("plausible".into()), "plausible"),
        ] {
            let written = serde_json::to_value(&method).unwrap();
            assert_eq!(written, Value::String(name.into()));
            assert_eq!(serde_json::from_value::<GradingMethod>(written).unwrap(), method);
            assert_eq!(method, name);
        }
        assert!(
            GradingMethod::GroundTruth.uses_expected_answer() && GradingMethod::JsonEquality.uses_expected_answer()
        );
        assert!(!GradingMethod::Label.uses_expected_answer() && GradingMethod::Label.is_deterministic());
        assert!(!GradingMethod::Judge("x".into()).is_deterministic());
    }
}
