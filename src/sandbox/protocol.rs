//! The line-delimited JSON spoken between the pool and its workers.

use serde::{Deserialize, Serialize};

use crate::model::{ExecutionResult, GeneratedDag};

/// Parent → worker: run this DAG.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Request {
    /// The DAG.
    pub dag: GeneratedDag,
    /// Seed for node randomness.
    pub seed: u64,
}

/// Worker → parent.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[allow(clippy::large_enum_variant)] // one reply per line, parsed and dropped at once
pub enum Reply {
    /// The interpreter is built and the dataset converted.
    Ready,
    /// A node is about to run (the parent starts its deadline).
    Node {
        /// Node id.
        node_id: String,
    },
    /// The DAG finished (successfully or not).
    Result {
        /// What it produced.
        result: ExecutionResult,
    },
}
