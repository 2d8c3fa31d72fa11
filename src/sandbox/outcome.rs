//! What a DAG's run comes to, whichever engine runs it: the language
//! policy's refusal before any node runs, each node's seed, and the kind of
//! failure an error message names.

use crate::dag::policy::check_source;
use crate::domain::{FailureKind, GeneratedDag, NodeId};

/// The first node the language policy refuses, with the message its result
/// carries.
pub(super) fn first_refusal(dag: &GeneratedDag) -> Option<(NodeId, String)> {
    dag.nodes.iter().find_map(|node| {
        let violation = check_source(&node.code).into_iter().next()?;
        let message = format!("refused by the sandbox policy (line {}): {}", violation.line, violation.message);
        Some((node.node_id.clone(), message))
    })
}

/// The seed of node `node_id`'s `random` in a DAG run with `seed`: a stable
/// 64-bit hash (FNV-1a) of the id mixed into it.
pub(super) fn node_seed(seed: u64, node_id: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in node_id.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    (seed ^ hash) >> 1
}

/// The kind of a failure the worker met, from its message: the language
/// policy (checked before the DAG runs, or the prelude's guards refusing a
/// name at run time), Python's `MemoryError`, or any other error.
pub(super) fn failure_kind(error: &str) -> FailureKind {
    let message = error.split_once(": ").map_or(error, |(_, rest)| rest);
    if message.starts_with("refused by the sandbox policy") || message.contains("not allowed in node code") {
        FailureKind::Policy
    } else if message.starts_with("MemoryError") {
        FailureKind::Memory
    } else {
        FailureKind::Error
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_told_apart_by_kind() {
        let policy = "node a: refused by the sandbox policy (line 2): imports are not allowed";
        assert_eq!(failure_kind(policy), FailureKind::Policy);
        let guard = "node a: AttributeError: access to attribute '__class__' is not allowed in node code";
        assert_eq!(failure_kind(guard), FailureKind::Policy);
        assert_eq!(failure_kind("node a: MemoryError: cannot allocate"), FailureKind::Memory);
        assert_eq!(failure_kind("node a: MemoryError"), FailureKind::Memory);
        assert_eq!(failure_kind("node a: ZeroDivisionError: division by zero"), FailureKind::Error);
        assert_eq!(failure_kind("bad request: EOF"), FailureKind::Error);
    }

    #[test]
    fn node_seeds_differ_by_node_and_keep_to_63_bits() {
        assert_ne!(node_seed(7, "a"), node_seed(7, "b"));
        assert_ne!(node_seed(7, "a"), node_seed(8, "a"));
        assert!(node_seed(u64::MAX, "a") < 1 << 63);
    }
}
