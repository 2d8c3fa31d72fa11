//! What runs a DAG: the engine and `replay --verify` need one, the sandbox's
//! worker pool is one. Declared here so that neither side depends on the other.

use futures::future::BoxFuture;

use crate::domain::{ExecutionResult, GeneratedDag};

/// Runs DAGs (the sandbox pool implements it).
pub trait DagExecutor: Send + Sync {
    /// Execute `dag` with `seed` for node randomness; failures are inside the result.
    fn execute<'a>(&'a self, dag: &'a GeneratedDag, seed: u64) -> BoxFuture<'a, ExecutionResult>;
}
