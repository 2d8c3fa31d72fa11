//! The outcome of executing a DAG.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{NodeId, QuestionId};

/// What running a DAG produced.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ExecutionResult {
    /// Question the DAG answers.
    #[serde(default)]
    pub question_id: QuestionId,
    /// Whether every node ran and the final node produced a value.
    pub success: bool,
    /// Output of the final node.
    #[serde(default)]
    pub final_answer: Option<Value>,
    /// Output of every node that ran (display-truncated).
    #[serde(default)]
    pub node_outputs: IndexMap<NodeId, Value>,
    /// Error message when `success` is false.
    #[serde(default)]
    pub error: Option<String>,
    /// Wall time of the whole execution.
    #[serde(default)]
    pub execution_time_ms: f64,
    /// Wall time per node.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub node_timings_ms: IndexMap<NodeId, f64>,
    /// Captured `print` output per node.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub printed: IndexMap<NodeId, String>,
    /// Node that failed, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_node: Option<NodeId>,
    /// Python traceback of the failure, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traceback: Option<String>,
    /// The engine that ran it (left out when RustPython).
    #[serde(default, skip_serializing_if = "crate::domain::Engine::is_default")]
    pub engine: crate::domain::Engine,
    /// What kind of failure ended the run, when the sandbox stopped it (a
    /// deadline, the memory limit, the policy). Not recorded: the trace keeps
    /// the error's text, as it always has.
    #[serde(skip)]
    pub failure: Option<FailureKind>,
}

/// What stopped a DAG's execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// A node's or the DAG's deadline, or the CPU time limit.
    TimeOut,
    /// The memory limit.
    Memory,
    /// A call the language policy or the kernel refused.
    Policy,
    /// Anything else: an exception in node code, a worker that crashed.
    Error,
}
