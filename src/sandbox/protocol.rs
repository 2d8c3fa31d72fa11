//! The line-delimited JSON spoken between the pool and its workers, and the
//! line a worker's SIGSYS handler leaves on stderr.

use serde::{Deserialize, Serialize};

use crate::domain::{ExecutionResult, FailureKind, GeneratedDag, NodeId, RunClock};

/// Starts the stderr line of a worker killed for a forbidden system call; the
/// call's name (or `number N`) follows.
pub const VIOLATION: &str = "sandbox violation: forbidden system call ";

/// Parent → worker: run this DAG.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Request {
    /// The DAG.
    pub dag: GeneratedDag,
    /// Seed for node randomness.
    pub seed: u64,
    /// The run's clock, what `datetime.now()` reads (`None`: the machine's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub now: Option<RunClock>,
    /// Run the nodes without the language policy and with host access, as
    /// code that escaped it would (test builds only).
    #[cfg(feature = "sandbox-test-hooks")]
    #[serde(default)]
    pub unchecked: bool,
}

/// Set in a worker's environment, starts it without the kernel layers, to
/// measure what they cost (test builds only).
#[cfg(feature = "sandbox-test-hooks")]
pub const WITHOUT_KERNEL_LAYERS: &str = "EVAL_DAG_TEST_WITHOUT_KERNEL_LAYERS";

/// Set in a worker's environment, starts it without Landlock but with the
/// other kernel layers, to prove they refuse what Landlock would on a kernel
/// without it (test builds only).
#[cfg(feature = "sandbox-test-hooks")]
pub const WITHOUT_LANDLOCK: &str = "EVAL_DAG_TEST_WITHOUT_LANDLOCK";

/// How many items a node's input holds (a list, tuple or dict).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputSize {
    /// The parameter.
    pub param: String,
    /// Its items (rows, for a dataset key of rows).
    pub items: usize,
}

/// Worker → parent.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[allow(clippy::large_enum_variant)] // one reply per line, parsed and dropped at once
pub enum Reply {
    /// The interpreter is built, the dataset converted and the worker confined.
    Ready {
        /// What the kernel enforces on the worker, for the log.
        confinement: String,
        /// Whether every kernel layer is in force (Landlock may be missing).
        complete: bool,
    },
    /// A template worker has loaded the dataset and takes requests for new
    /// workers (it runs no DAG itself).
    TemplateReady,
    /// A node is about to run (the parent starts its deadline).
    Node {
        /// Node id.
        node_id: NodeId,
        /// The sizes of its inputs that are collections, for a timeout's message.
        #[serde(default)]
        inputs: Vec<InputSize>,
    },
    /// The DAG finished (successfully or not).
    Result {
        /// What it produced.
        result: ExecutionResult,
        /// What kind of failure ended it, when one did (not part of the
        /// result's JSON, which the trace keeps).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        failure: Option<FailureKind>,
        /// Intermediate outputs a CPython worker sent only the first items of
        /// (a list or dict), with how many they hold in all.
        #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
        cut: std::collections::BTreeMap<NodeId, usize>,
    },
}
