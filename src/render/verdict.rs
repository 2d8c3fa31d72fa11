//! How the critic judged each node of an iteration: the colour a node gets in
//! the TUI's graph and the report's SVG.

use crate::domain::{CriticFeedback, FindingSource, Rule};

/// How the critic judged a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeVerdict {
    /// No finding blames it.
    Fine,
    /// A structural or semantic finding blames it.
    Flagged,
    /// It failed in the trial run.
    Failed,
}

impl NodeVerdict {
    /// CSS class of the verdict.
    pub fn class(self) -> &'static str {
        match self {
            Self::Fine => "fine",
            Self::Flagged => "flagged",
            Self::Failed => "failed",
        }
    }
}

/// The verdict on `node_id` in `feedback`.
pub fn node_verdict(feedback: Option<&CriticFeedback>, node_id: &str) -> NodeVerdict {
    let Some(feedback) = feedback else { return NodeVerdict::Fine };
    let mut verdict = NodeVerdict::Fine;
    for finding in feedback.findings_for_node(node_id) {
        if finding.source == FindingSource::TrialRun && finding.rule == Rule::RuntimeError {
            return NodeVerdict::Failed;
        }
        verdict = NodeVerdict::Flagged;
    }
    verdict
}
