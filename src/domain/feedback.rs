//! The critic's verdict on a DAG.

use serde::{Deserialize, Serialize};

use super::{NodeId, Rule};

/// Which part of the critic produced a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingSource {
    /// Deterministic checks of the DAG's structure and code.
    Structural,
    /// Running the DAG on the dataset in the sandbox.
    TrialRun,
    /// The LLM reviewer.
    Semantic,
    /// A note the user wrote on an iteration.
    Human,
}

impl FindingSource {
    /// Human name, e.g. `trial run`.
    pub fn label(self) -> &'static str {
        match self {
            Self::Structural => "structural",
            Self::TrialRun => "trial run",
            Self::Semantic => "semantic",
            Self::Human => "human note",
        }
    }
}

/// Whether a finding blocks approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Blocks approval.
    #[default]
    Error,
    /// Worth fixing, does not block.
    Warning,
}

/// One complaint, pinned to the node (or layer) it blames.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Finding {
    /// Blamed node, when the complaint is about one node.
    #[serde(default)]
    pub node_id: Option<NodeId>,
    /// Blamed layer, when known.
    #[serde(default)]
    pub layer: Option<usize>,
    /// The rule it is filed under, e.g. `unknown_field`.
    pub rule: Rule,
    /// Which stage found it.
    pub source: FindingSource,
    /// Message a builder LLM can act on.
    pub message: String,
    /// Error or warning.
    #[serde(default)]
    pub severity: Severity,
}

impl Finding {
    /// Whether `other` is the same complaint, perhaps in other words: it
    /// blames the same node under the same rule.
    pub fn same_as(&self, other: &Finding) -> bool {
        self.node_id == other.node_id && self.rule == other.rule
    }
}

/// The review of one layer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayerValidation {
    /// Layer index.
    pub layer_index: usize,
    /// Node ids in the layer.
    #[serde(default)]
    pub nodes_in_layer: Vec<NodeId>,
    /// Whether the layer passed.
    pub is_valid: bool,
    /// Problems found in the layer.
    #[serde(default)]
    pub issues: Vec<String>,
}

/// The critic's verdict on one DAG iteration.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CriticFeedback {
    /// Approved DAGs go on to final execution.
    pub is_approved: bool,
    /// Summary of the verdict.
    #[serde(default)]
    pub overall_reasoning: String,
    /// Per-layer reviews.
    #[serde(default)]
    pub layer_validations: Vec<LayerValidation>,
    /// Concrete errors, one per line.
    #[serde(default)]
    pub specific_errors: Vec<String>,
    /// Suggested fixes.
    #[serde(default)]
    pub suggestions: Vec<String>,
    /// Structured complaints pinned to nodes.
    #[serde(default)]
    pub findings: Vec<Finding>,
}

impl CriticFeedback {
    /// Findings that blame node `node_id`.
    pub fn findings_for_node<'a>(&'a self, node_id: &'a str) -> impl Iterator<Item = &'a Finding> {
        self.findings.iter().filter(move |f| f.node_id.as_deref() == Some(node_id))
    }

    /// Whether any finding is an error.
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Error)
    }
}
