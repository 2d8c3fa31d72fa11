//! Where in a run an event happened: one attempt at a question, or one
//! iteration of that attempt. Every event about a question carries one of
//! these instead of repeating the fields.

use serde::{Deserialize, Serialize};

/// One attempt at one question.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct AttemptAt {
    /// The question.
    pub question_id: String,
    /// Attempt number, 1-based (reruns and forks add attempts).
    pub attempt: u32,
}

impl AttemptAt {
    /// Attempt `attempt` at question `question_id`.
    pub fn new(question_id: impl Into<String>, attempt: u32) -> Self {
        Self { question_id: question_id.into(), attempt }
    }

    /// Iteration `iteration` of this attempt.
    pub fn iteration(&self, iteration: u32) -> IterationAt {
        IterationAt { question_id: self.question_id.clone(), attempt: self.attempt, iteration }
    }
}

/// One iteration (build → check → trial run → review) of an attempt.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct IterationAt {
    /// The question.
    pub question_id: String,
    /// Attempt number, 1-based.
    pub attempt: u32,
    /// Iteration number within the attempt, 1-based.
    pub iteration: u32,
}

impl IterationAt {
    /// The attempt this iteration belongs to.
    pub fn attempt_at(&self) -> AttemptAt {
        AttemptAt::new(self.question_id.clone(), self.attempt)
    }
}
