//! What a benchmark's scorer says about one answer: the parts right and
//! wrong, and the error for an expected answer it cannot read.

use serde::{Deserialize, Serialize};

use crate::domain::Scorer;

/// One question's answer scored by its benchmark's rules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchmarkScore {
    /// Whose rules.
    pub scorer: Scorer,
    /// Each named part of the answer.
    pub sub_answers: Vec<SubAnswer>,
    /// Whether every part is right.
    pub correct: bool,
}

/// One named part of a benchmark answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubAnswer {
    /// The part's name (`@name[...]`; `answer` for a one-part benchmark).
    pub name: String,
    /// What the benchmark expects.
    pub expected: String,
    /// What the answer gave; none when it lacks the part.
    pub given: Option<String>,
    /// Whether the part is right by the scorer's rules.
    pub correct: bool,
}

/// An expected answer the scorer cannot read (one line).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ScoreError(pub String);

impl BenchmarkScore {
    /// The share of parts that are right (0 for no parts).
    pub fn share_right(&self) -> f64 {
        let right = self.sub_answers.iter().filter(|s| s.correct).count();
        if self.sub_answers.is_empty() { 0.0 } else { right as f64 / self.sub_answers.len() as f64 }
    }

    /// One line for people: the scorer and the parts right.
    pub fn describe(&self) -> String {
        let name = scorer_name(self.scorer);
        let wrong: Vec<String> = self
            .sub_answers
            .iter()
            .filter(|s| !s.correct)
            .map(|s| {
                format!(
                    "{}: expected {:?}, got {}",
                    s.name,
                    s.expected,
                    s.given.as_deref().map_or("nothing".into(), |g| format!("{g:?}"))
                )
            })
            .collect();
        let right = self.sub_answers.len() - wrong.len();
        let mut line = format!("{name} rules: {right} of {} parts right", self.sub_answers.len());
        if !wrong.is_empty() {
            line.push_str(&format!(" ({})", wrong.join("; ")));
        }
        line
    }
}

/// The scorer's name as written in question lines.
pub fn scorer_name(scorer: Scorer) -> &'static str {
    match scorer {
        Scorer::Builtin => "builtin",
        Scorer::Infiagent => "infiagent",
        Scorer::Dabstep => "dabstep",
        Scorer::Qrdata => "qrdata",
    }
}
