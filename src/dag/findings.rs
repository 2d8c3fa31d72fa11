//! Collecting structural findings with their node and layer.

use crate::domain::{DagNodeSpec, Finding, FindingSource, Rule, Severity};

/// Accumulates structural findings.
#[derive(Debug, Default)]
pub struct FindingSink {
    /// Findings so far, in the order found.
    pub findings: Vec<Finding>,
}

impl FindingSink {
    /// An error blaming `node`.
    pub fn node(&mut self, node: &DagNodeSpec, rule: Rule, message: String) {
        self.findings.push(Finding {
            node_id: Some(node.node_id.clone()),
            layer: Some(node.layer),
            rule,
            source: FindingSource::Structural,
            message: format!("node {}: {message}", node.node_id),
            severity: Severity::Error,
        });
    }

    /// An error about the DAG as a whole.
    pub fn dag(&mut self, rule: Rule, message: String) {
        self.findings.push(Finding {
            node_id: None,
            layer: None,
            rule,
            source: FindingSource::Structural,
            message,
            severity: Severity::Error,
        });
    }
}
