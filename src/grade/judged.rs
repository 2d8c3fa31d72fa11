//! What a judge is asked about and what it concludes: the answer judged
//! (which keys its calls), a judge's score before thresholds, and a
//! decision tree's verdicts.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::AttemptAt;

/// What a judge concluded before thresholds apply.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Outcome {
    /// 0-1.
    pub score: f64,
    /// One line.
    pub reason: String,
}

/// Which answer is judged: it keys the judge calls, so a replay or a
/// regrade finds each of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JudgedAt {
    /// The attempt whose answer it is (with its epoch and draft).
    pub attempt: AttemptAt,
    /// The rejected iteration whose trial answer it is; none for the attempt's final answer.
    pub rejected_iteration: Option<u32>,
    /// Which judgement of the same answer this is, 1-based (`grade --repeat-judges`).
    pub repeat: u32,
}

impl JudgedAt {
    /// The final answer of `attempt`, judged once.
    pub fn final_answer(attempt: AttemptAt) -> Self {
        Self { attempt, rejected_iteration: None, repeat: 1 }
    }

    /// The trial answer of rejected iteration `iteration` of `attempt`.
    pub fn rejected(attempt: AttemptAt, iteration: u32) -> Self {
        Self { attempt, rejected_iteration: Some(iteration), repeat: 1 }
    }

    /// The same answer, judged for the `repeat`-th time.
    pub fn repeated(self, repeat: u32) -> Self {
        Self { repeat, ..self }
    }
}

/// The verdict a judgement node chooses: `true`/`false` for binary nodes, a
/// string for non-binary ones.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Verdict {
    /// A binary verdict.
    Bool(bool),
    /// A non-binary verdict.
    Text(String),
}

impl Verdict {
    /// Whether an LLM's `verdict` field names this verdict.
    pub(super) fn matches(&self, reply: &Value) -> bool {
        let text = match reply {
            Value::String(s) => s.trim().to_lowercase(),
            other => other.to_string(),
        };
        match self {
            Self::Bool(true) => matches!(text.as_str(), "true" | "yes"),
            Self::Bool(false) => matches!(text.as_str(), "false" | "no"),
            Self::Text(label) => label.trim().to_lowercase() == text,
        }
    }
}
