//! Where in a run an event happened: one attempt at a question, or one
//! iteration of that attempt. Every event about a question carries one of
//! these instead of repeating the fields.
//!
//! A question may be asked several times independently: `epoch` numbers the
//! repeats of a run (`run --repeat`) and `draft` the independently built DAGs
//! of one epoch (`run --consensus`). Both are 1 in a run without them and are
//! written only when they are not 1, so such a run's events read as before.
//! Attempts (reruns, forks, work by hand) count within an epoch and draft.

use serde::{Deserialize, Serialize};

use super::QuestionId;

/// The default epoch and draft number (serde's `default`).
pub(crate) fn one() -> u32 {
    1
}

/// Whether an epoch or draft number is the default (and is left unwritten).
pub(crate) fn is_one(number: &u32) -> bool {
    *number == 1
}

/// Whether a count is zero (and is left unwritten).
pub(crate) fn is_zero<T: Default + PartialEq>(count: &T) -> bool {
    *count == T::default()
}

/// One attempt at one question.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct AttemptAt {
    /// The question.
    pub question_id: QuestionId,
    /// Repeat of the question, 1-based (`run --repeat`).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub epoch: u32,
    /// Independent DAG of the epoch, 1-based (`run --consensus`).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub draft: u32,
    /// Attempt number within the epoch and draft, 1-based (reruns and forks add attempts).
    pub attempt: u32,
}

impl AttemptAt {
    /// Attempt `attempt` at question `question_id`, in epoch 1 and draft 1.
    pub fn new(question_id: impl Into<QuestionId>, attempt: u32) -> Self {
        Self { question_id: question_id.into(), epoch: 1, draft: 1, attempt }
    }

    /// The same place in another epoch and draft.
    pub fn in_epoch(self, epoch: u32, draft: u32) -> Self {
        Self { epoch, draft, ..self }
    }

    /// Iteration `iteration` of this attempt.
    pub fn iteration(&self, iteration: u32) -> IterationAt {
        IterationAt {
            question_id: self.question_id.clone(),
            epoch: self.epoch,
            draft: self.draft,
            attempt: self.attempt,
            iteration,
        }
    }

    /// `attempt 2`, or `epoch 2 · draft 3 · attempt 1` where epoch or draft is not 1.
    pub fn label(&self) -> String {
        format!("{}attempt {}", epoch_draft_prefix(self.epoch, self.draft), self.attempt)
    }
}

/// `epoch E · draft D · ` for the parts that are not 1 (empty for epoch 1, draft 1).
pub fn epoch_draft_prefix(epoch: u32, draft: u32) -> String {
    let mut prefix = String::new();
    if epoch != 1 {
        prefix.push_str(&format!("epoch {epoch} · "));
    }
    if draft != 1 {
        prefix.push_str(&format!("draft {draft} · "));
    }
    prefix
}

/// One iteration (build → check → trial run → review) of an attempt.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct IterationAt {
    /// The question.
    pub question_id: QuestionId,
    /// Repeat of the question, 1-based.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub epoch: u32,
    /// Independent DAG of the epoch, 1-based.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub draft: u32,
    /// Attempt number within the epoch and draft, 1-based.
    pub attempt: u32,
    /// Iteration number within the attempt, 1-based.
    pub iteration: u32,
}

impl IterationAt {
    /// The attempt this iteration belongs to.
    pub fn attempt_at(&self) -> AttemptAt {
        AttemptAt::new(self.question_id.clone(), self.attempt).in_epoch(self.epoch, self.draft)
    }

    /// `attempt 2, iteration 3`, with the epoch and draft where they are not 1.
    pub fn label(&self) -> String {
        format!("{}, iteration {}", self.attempt_at().label(), self.iteration)
    }
}

/// The iteration a forked attempt (or a draft by hand) began from: an
/// iteration of an earlier attempt of the same question, epoch and draft.
/// Written `[attempt, iteration]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "(u32, u32)", into = "(u32, u32)")]
pub struct ForkedFrom {
    /// The attempt, 1-based.
    pub attempt: u32,
    /// The iteration within it, 1-based.
    pub iteration: u32,
}

impl ForkedFrom {
    /// The fork point of iteration `at`.
    pub fn of(at: &IterationAt) -> Self {
        Self { attempt: at.attempt, iteration: at.iteration }
    }

    /// The iteration it names, in the question, epoch and draft of `attempt`.
    pub fn within(self, attempt: &AttemptAt) -> IterationAt {
        AttemptAt { attempt: self.attempt, ..attempt.clone() }.iteration(self.iteration)
    }

    /// `attempt 2, iteration 3`.
    pub fn label(self) -> String {
        format!("attempt {}, iteration {}", self.attempt, self.iteration)
    }
}

impl From<(u32, u32)> for ForkedFrom {
    fn from((attempt, iteration): (u32, u32)) -> Self {
        Self { attempt, iteration }
    }
}

impl From<ForkedFrom> for (u32, u32) {
    fn from(from: ForkedFrom) -> Self {
        (from.attempt, from.iteration)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn epoch_and_draft_are_written_only_when_not_1_and_read_either_way() {
        let plain = AttemptAt::new("q_01", 2).iteration(3);
        assert_eq!(serde_json::to_value(&plain).unwrap(), json!({"question_id": "q_01", "attempt": 2, "iteration": 3}));
        let spelled: IterationAt = serde_json::from_value(
            json!({"question_id": "q_01", "epoch": 1, "draft": 1, "attempt": 2, "iteration": 3}),
        )
        .unwrap();
        assert_eq!(spelled, plain);
        let repeated = AttemptAt::new("q_01", 1).in_epoch(2, 3);
        let value = serde_json::to_value(&repeated).unwrap();
        assert_eq!(value, json!({"question_id": "q_01", "epoch": 2, "draft": 3, "attempt": 1}));
        assert_eq!(serde_json::from_value::<AttemptAt>(value).unwrap(), repeated);
        assert_eq!(repeated.iteration(4).attempt_at(), repeated);
    }

    #[test]
    fn labels_name_the_epoch_and_draft_only_where_they_are_not_1() {
        assert_eq!(AttemptAt::new("q", 2).iteration(3).label(), "attempt 2, iteration 3");
        assert_eq!(AttemptAt::new("q", 1).in_epoch(2, 1).label(), "epoch 2 · attempt 1");
        assert_eq!(AttemptAt::new("q", 1).in_epoch(1, 3).iteration(2).label(), "draft 3 · attempt 1, iteration 2");
    }

    #[test]
    fn a_fork_point_is_written_as_attempt_and_iteration_and_names_its_iteration() {
        let from = ForkedFrom::of(&AttemptAt::new("q", 1).in_epoch(2, 3).iteration(4));
        assert_eq!(serde_json::to_value(from).unwrap(), json!([1, 4]), "written as before the type");
        assert_eq!(serde_json::from_value::<ForkedFrom>(json!([1, 4])).unwrap(), from);
        let later = AttemptAt::new("q", 2).in_epoch(2, 3);
        assert_eq!(from.within(&later), AttemptAt::new("q", 1).in_epoch(2, 3).iteration(4));
        assert_eq!(from.label(), "attempt 1, iteration 4");
    }
}
