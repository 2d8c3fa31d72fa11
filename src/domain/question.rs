//! Analytical questions and their difficulty.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::QuestionId;

/// Coarse difficulty bucket of a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DifficultyLevel {
    /// Ranks 1-3 on the 1-10 scale.
    Easy,
    /// Ranks 4-7 on the 1-10 scale.
    Medium,
    /// Ranks 8-10 on the 1-10 scale.
    Hard,
}

impl DifficultyLevel {
    /// Level of a score on the question list's 1-10 scale.
    pub fn from_score(score: u32) -> Self {
        match score {
            0..=3 => Self::Easy,
            4..=7 => Self::Medium,
            _ => Self::Hard,
        }
    }

    /// Level of rank `rank` (1-based) among `total` ranked questions: the rank is
    /// scaled onto 1-10 first, so ten questions give 3 easy, 4 medium, 3 hard.
    pub fn from_rank(rank: usize, total: usize) -> Self {
        let total = total.max(1);
        let score = (rank.clamp(1, total) * 10).div_ceil(total);
        Self::from_score(score as u32)
    }

    /// All levels, easiest first.
    pub const ALL: [Self; 3] = every_variant!(Self: Easy, Medium, Hard);

    /// Lower-case name as used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Easy => "easy",
            Self::Medium => "medium",
            Self::Hard => "hard",
        }
    }
}

/// One analytical question about a dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
    /// Stable id such as `q_01`.
    #[serde(alias = "question_id")]
    pub id: QuestionId,
    /// The question text.
    #[serde(alias = "text")]
    pub question: String,
    /// Position in the easy → hard ranking, 1-based.
    pub difficulty_rank: usize,
    /// Difficulty bucket.
    pub difficulty_level: DifficultyLevel,
    /// Why the question is ranked where it is.
    #[serde(default)]
    pub reasoning: String,
    /// Top-level dataset keys the question needs.
    #[serde(default)]
    pub relevant_data_keys: Vec<String>,
    /// The correct answer, when known (offline planner or a questions file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_answer: Option<Value>,
    /// Matching options this question overrides when its answer is graded
    /// against `expected_answer` (a questions file's `match` field).
    #[serde(default, rename = "match", skip_serializing_if = "serde_json::Map::is_empty")]
    pub match_overrides: serde_json::Map<String, Value>,
    /// The dataset the question is about, in a run over several (a name under
    /// the question set's `datasets/`, or a path); none in a single-dataset run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<String>,
    /// The question's id in the benchmark it was imported from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_id: Option<String>,
    /// How the answer must be written (given to the builder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_format: Option<String>,
    /// What the analysis must respect (given to the builder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraints: Option<String>,
    /// What the data is, in this question's own words (a benchmark's data
    /// description; given to the builder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_description: Option<String>,
    /// Whose rules grade the answer; none = the run's built-in matching.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scorer: Option<Scorer>,
    /// Fields of a questions-file line this version does not know: kept as
    /// written, otherwise ignored.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub extra: serde_json::Map<String, Value>,
}

impl Question {
    /// Question `id` with text `question`, ranked `difficulty_rank` at
    /// `difficulty_level`, and nothing else known about it.
    pub fn new(
        id: impl Into<QuestionId>,
        question: impl Into<String>,
        difficulty_rank: usize,
        difficulty_level: DifficultyLevel,
    ) -> Self {
        Self {
            id: id.into(),
            question: question.into(),
            difficulty_rank,
            difficulty_level,
            reasoning: String::new(),
            relevant_data_keys: Vec::new(),
            expected_answer: None,
            match_overrides: serde_json::Map::new(),
            dataset: None,
            source_id: None,
            answer_format: None,
            constraints: None,
            data_description: None,
            scorer: None,
            extra: serde_json::Map::new(),
        }
    }
}

/// Whose rules grade a question's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scorer {
    /// The run's own matching (`--match`, the question's `match`).
    Builtin,
    /// InfiAgent-DABench's closed-form rules (`@name[value]` parts).
    Infiagent,
    /// DABstep's rules (numbers within tolerance, lists, near-equal strings).
    Dabstep,
    /// QRData's rules (the first number within 3 %, or the choice the answer starts with).
    Qrdata,
}
