//! Consensus of independent DAGs (`run --consensus K`): K drafts built for
//! one question in one epoch, their answers compared with the run's matching
//! rules, the majority answer and how far the drafts agree.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Independently built DAGs of one question (`run --consensus`) and how far their answers agree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Consensus {
    /// One per draft.
    pub answers: Vec<DraftAnswer>,
    /// Share of drafts whose answer matches the majority answer (0-1).
    pub agreement: f64,
}

/// One draft's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DraftAnswer {
    /// 1-based draft.
    pub draft: u32,
    /// Its answer; none when it was not approved or did not run.
    pub answer: Option<Value>,
    /// Whether its answer matches the majority answer.
    pub in_majority: bool,
}
