//! The findings taxonomy as the results document holds it: groups of
//! findings and oscillations (computed in `report/analyses/taxonomy.rs`).

use serde::{Deserialize, Serialize};

use crate::domain::{FindingSource, NodeId, QuestionId, Rule};

/// One group of findings: same source, rule and exception.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FindingGroup {
    /// Which part of the critic gave them.
    pub source: FindingSource,
    /// Their rule.
    pub rule: Rule,
    /// The Python exception of a trial run's runtime error (`KeyError`),
    /// when its message names one.
    pub exception: Option<String>,
    /// Findings of the group: one per finding per judged iteration.
    pub count: usize,
    /// Ids of the questions it hit, in run order.
    pub questions: Vec<QuestionId>,
    /// Of `count`, those gone in a later iteration of the same attempt, or
    /// whose question was approved later.
    pub resolved: usize,
    /// Iterations built after a rejection one of the group's blocking
    /// findings took part in (an iteration rejected by several groups counts
    /// for each).
    pub iterations_caused: usize,
    /// Tokens those iterations spent.
    pub tokens: u64,
    /// Times one of its findings came back after it had been resolved.
    pub oscillations: usize,
}

impl FindingGroup {
    /// Its name for people: `trial_run · runtime_error · KeyError`.
    pub fn label(&self) -> String {
        let source = serde_json::to_value(self.source).ok().and_then(|v| v.as_str().map(str::to_string));
        let mut label = format!("{} · {}", source.unwrap_or_default(), self.rule);
        if let Some(exception) = &self.exception {
            label.push_str(&format!(" · {exception}"));
        }
        label
    }
}

/// What oscillated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum OscillationKind {
    /// A finding resolved in an earlier iteration is back.
    FindingBack {
        /// The finding's source.
        source: FindingSource,
        /// Its rule.
        rule: Rule,
        /// The node it blames; none for the whole DAG.
        node_id: Option<NodeId>,
        /// The first line of its message, as it came back.
        message: String,
        /// The iteration where it was gone.
        resolved_at: u32,
    },
    /// A node's code is the same as an earlier iteration's, after it had changed.
    NodeReverted {
        /// The node.
        node_id: NodeId,
        /// The (latest) earlier iteration with that code.
        to_iteration: u32,
    },
}

/// One oscillation: where it happened and what.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Oscillation {
    /// Question id.
    pub question_id: QuestionId,
    /// Attempt number.
    pub attempt: u32,
    /// The iteration where the finding came back or the code went back.
    pub iteration: u32,
    /// What oscillated.
    #[serde(flatten)]
    pub kind: OscillationKind,
}

impl Oscillation {
    /// One line for people: `back again: [trial run] rates runtime_error
    /// (resolved in iteration 2)`, `node rates reverted to iteration 1's code`.
    pub fn describe(&self) -> String {
        match &self.kind {
            OscillationKind::FindingBack { source, rule, node_id, resolved_at, .. } => format!(
                "back again: [{}] {} {rule} (resolved in iteration {resolved_at})",
                source.label(),
                node_id.as_deref().unwrap_or("DAG")
            ),
            OscillationKind::NodeReverted { node_id, to_iteration } => {
                format!("node {node_id} reverted to iteration {to_iteration}'s code")
            }
        }
    }
}

/// The findings taxonomy of a run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FindingsTaxonomy {
    /// Findings over the run (the sum of the groups' counts).
    pub total_findings: usize,
    /// The groups, most findings first.
    pub groups: Vec<FindingGroup>,
    /// Every oscillation, in run order.
    pub oscillations: Vec<Oscillation>,
}
