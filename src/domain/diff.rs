//! Iteration N versus N+1 of a question: which nodes were added, removed or
//! changed, and which findings were resolved, persist or are new.
//!
//! Findings are matched by blamed node and rule: a finding of N whose node and
//! rule reappear in N+1 *persists* (even if the message wording changed); one
//! that does not reappear is *resolved*; a finding of N+1 with no match in N is
//! *new*.

use serde::Serialize;

use super::{CriticFeedback, DagNodeSpec, Finding, GeneratedDag, NodeId};

/// How a node changed between two iterations.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "change", rename_all = "snake_case")]
#[allow(clippy::large_enum_variant)] // short-lived, built per diff view
pub enum NodeChange {
    /// Only in the later iteration.
    Added {
        /// The node.
        node: DagNodeSpec,
    },
    /// Only in the earlier iteration.
    Removed {
        /// The node.
        node: DagNodeSpec,
    },
    /// In both, with different code, inputs, layer or function.
    Changed {
        /// Earlier version.
        before: DagNodeSpec,
        /// Later version.
        after: DagNodeSpec,
        /// Unified diff of the code (empty when only inputs/layer changed).
        code_diff: String,
    },
    /// In both, identical.
    Unchanged {
        /// The node id.
        node_id: NodeId,
    },
}

impl NodeChange {
    /// The node id concerned.
    pub fn node_id(&self) -> &NodeId {
        match self {
            Self::Added { node } | Self::Removed { node } => &node.node_id,
            Self::Changed { after, .. } => &after.node_id,
            Self::Unchanged { node_id } => node_id,
        }
    }
}

/// What became of a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingFate {
    /// In N, gone in N+1.
    Resolved,
    /// In N and in N+1.
    Persisting,
    /// Only in N+1.
    New,
}

/// The comparison of two iterations.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IterationDiff {
    /// Node changes: earlier nodes in order, then added ones.
    pub nodes: Vec<NodeChange>,
    /// Findings of N and N+1 with their fate (N's first).
    pub findings: Vec<(FindingFate, Finding)>,
}

/// Unified diff of two code strings. A last line without a newline counts as
/// ended (no `\ No newline at end of file` line: the code is what it is).
pub fn code_diff(before: &str, after: &str) -> String {
    let ended =
        |code: &str| if code.is_empty() || code.ends_with('\n') { code.to_string() } else { format!("{code}\n") };
    let (before, after) = (ended(before), ended(after));
    similar::TextDiff::from_lines(&before, &after).unified_diff().context_radius(3).to_string()
}

impl IterationDiff {
    /// Compare `before` (iteration N) with `after` (N+1); feedback may be missing.
    pub fn between(
        before: &GeneratedDag,
        before_feedback: Option<&CriticFeedback>,
        after: &GeneratedDag,
        after_feedback: Option<&CriticFeedback>,
    ) -> Self {
        let mut nodes = Vec::new();
        for old in &before.nodes {
            nodes.push(match after.node(&old.node_id) {
                None => NodeChange::Removed { node: old.clone() },
                Some(new) if new == old => NodeChange::Unchanged { node_id: old.node_id.clone() },
                Some(new) => NodeChange::Changed {
                    before: old.clone(),
                    after: new.clone(),
                    code_diff: if old.code == new.code { String::new() } else { code_diff(&old.code, &new.code) },
                },
            });
        }
        for new in &after.nodes {
            if before.node(&new.node_id).is_none() {
                nodes.push(NodeChange::Added { node: new.clone() });
            }
        }
        let empty = Vec::new();
        let old_findings = before_feedback.map_or(&empty, |f| &f.findings);
        let new_findings = after_feedback.map_or(&empty, |f| &f.findings);
        let mut findings = Vec::new();
        for old in old_findings {
            let fate = if new_findings.iter().any(|n| old.same_as(n)) {
                FindingFate::Persisting
            } else {
                FindingFate::Resolved
            };
            findings.push((fate, old.clone()));
        }
        for new in new_findings {
            if !old_findings.iter().any(|o| o.same_as(new)) {
                findings.push((FindingFate::New, new.clone()));
            }
        }
        Self { nodes, findings }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{FindingSource, Severity};
    use serde_json::json;

    fn dag(nodes: serde_json::Value) -> GeneratedDag {
        serde_json::from_value(json!({"nodes": nodes, "final_answer_node": "b"})).unwrap()
    }

    fn finding(node: &str, rule: &str) -> Finding {
        Finding {
            node_id: Some(node.into()),
            layer: None,
            rule: rule.into(),
            source: FindingSource::Structural,
            message: format!("{rule} in {node}"),
            severity: Severity::Error,
        }
    }

    fn feedback(findings: Vec<Finding>) -> CriticFeedback {
        CriticFeedback { findings, ..Default::default() }
    }

    #[test]
    fn nodes_and_findings_are_classified() {
        let a = dag(json!([
            {"node_id": "a", "function_name": "f", "layer": 0, "code": "def f(r):\n    return r['x']\n"},
            {"node_id": "b", "function_name": "g", "layer": 1, "code": "def g(v):\n    return v\n"},
            {"node_id": "c", "function_name": "h", "layer": 1, "code": "def h():\n    return 1\n"}]));
        let b = dag(json!([
            {"node_id": "a", "function_name": "f", "layer": 0, "code": "def f(r):\n    return r['amt']\n"},
            {"node_id": "b", "function_name": "g", "layer": 1, "code": "def g(v):\n    return v\n"},
            {"node_id": "d", "function_name": "k", "layer": 1, "code": "def k():\n    return 2\n"}]));
        let fa = feedback(vec![finding("a", "unknown_field"), finding("b", "runtime_error")]);
        let fb = feedback(vec![finding("b", "runtime_error"), finding("d", "semantic_issue")]);
        let diff = IterationDiff::between(&a, Some(&fa), &b, Some(&fb));
        let kinds: Vec<(&str, &str)> = diff
            .nodes
            .iter()
            .map(|c| {
                let kind = match c {
                    NodeChange::Added { .. } => "added",
                    NodeChange::Removed { .. } => "removed",
                    NodeChange::Changed { .. } => "changed",
                    NodeChange::Unchanged { .. } => "unchanged",
                };
                (c.node_id().as_str(), kind)
            })
            .collect();
        assert_eq!(kinds, vec![("a", "changed"), ("b", "unchanged"), ("c", "removed"), ("d", "added")]);
        let NodeChange::Changed { code_diff, .. } = &diff.nodes[0] else { panic!() };
        assert!(code_diff.contains("-    return r['x']") && code_diff.contains("+    return r['amt']"), "{code_diff}");
        let fates: Vec<(FindingFate, &str)> =
            diff.findings.iter().map(|(f, x)| (*f, x.node_id.as_deref().unwrap())).collect();
        assert_eq!(fates, vec![(FindingFate::Resolved, "a"), (FindingFate::Persisting, "b"), (FindingFate::New, "d")]);
    }

    #[test]
    fn code_without_a_final_newline_diffs_without_a_hint_line() {
        let diff = code_diff("def f(r):\n    return r['x']", "def f(r):\n    return r['amt']");
        assert!(!diff.contains("No newline at end of file"), "{diff}");
        assert!(diff.contains("-    return r['x']\n+    return r['amt']\n"), "{diff}");
        assert_eq!(code_diff("x = 1", "x = 1\n"), "", "only the final newline differs");
    }
}
