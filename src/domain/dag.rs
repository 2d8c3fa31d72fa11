//! The DAG a builder LLM returns: Python function nodes in layers.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{NodeId, QuestionId};

/// One node: a Python function whose parameters are fed by `inputs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DagNodeSpec {
    /// Unique id, e.g. `step_1a`.
    pub node_id: NodeId,
    /// What the node does, in words.
    #[serde(default)]
    pub operation: String,
    /// Name of the function defined in `code` that the runner calls.
    pub function_name: String,
    /// Parameter name → `dataset.<key>` or `prev_node.<id>.output`, in call order.
    #[serde(default)]
    pub inputs: IndexMap<String, String>,
    /// Type the builder promises (`float`, `dict`, `list`, …).
    #[serde(default)]
    pub expected_output_type: String,
    /// Layer index; every edge goes from a lower to a higher layer.
    pub layer: usize,
    /// Python source defining `function_name`.
    pub code: String,
}

/// A data dependency between two nodes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub struct DagEdge {
    /// Producing node id.
    pub source: NodeId,
    /// Consuming node id.
    pub target: NodeId,
}

/// A whole DAG answering one question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GeneratedDag {
    /// Question this DAG answers.
    #[serde(default)]
    pub question_id: QuestionId,
    /// The plan in words.
    #[serde(default)]
    pub description: String,
    /// All nodes.
    pub nodes: Vec<DagNodeSpec>,
    /// All edges.
    #[serde(default)]
    pub edges: Vec<DagEdge>,
    /// Node whose output is the answer.
    pub final_answer_node: NodeId,
}

impl GeneratedDag {
    /// The node with id `node_id`, if any.
    pub fn node(&self, node_id: &str) -> Option<&DagNodeSpec> {
        self.nodes.iter().find(|n| n.node_id == node_id)
    }

    /// Number of layers (highest layer index + 1; 0 for an empty DAG).
    pub fn layer_count(&self) -> usize {
        self.nodes.iter().map(|n| n.layer + 1).max().unwrap_or(0)
    }

    /// Nodes in the most populated layer (the rows a layered drawing needs).
    pub fn widest_layer(&self) -> usize {
        let mut per_layer = std::collections::HashMap::new();
        for node in &self.nodes {
            *per_layer.entry(node.layer).or_insert(0) += 1;
        }
        per_layer.into_values().max().unwrap_or(0)
    }

    /// Nodes of layer `layer`, in declaration order.
    pub fn nodes_in_layer(&self, layer: usize) -> impl Iterator<Item = &DagNodeSpec> {
        self.nodes.iter().filter(move |n| n.layer == layer)
    }
}
