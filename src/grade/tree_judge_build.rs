//! Building a DAG judge from the `[[node]]` tables of a judge file, with every
//! rule of the format checked (see [`super::judge_file`]); errors name the node.

use std::collections::HashMap;

use petgraph::Direction;
use petgraph::graph::{DiGraph, NodeIndex};
use serde::Deserialize;

use serde::de::DeserializeOwned;

use super::error::JudgeFileError;
use super::judge_prompts::JudgeInput;
use super::judge_prompts::default_inputs;
use super::judged::Verdict;
use super::tree_judge::{DagJudge, JudgeNode, NodeKind};

#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum RawNode {
    Task(RawTask),
    BinaryJudgement(RawJudgement),
    NonBinaryJudgement(RawJudgement),
    Verdict(RawVerdict),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTask {
    instructions: String,
    output_label: String,
    #[serde(default = "default_inputs")]
    inputs: Vec<JudgeInput>,
    #[serde(default)]
    children: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawJudgement {
    criteria: String,
    #[serde(default = "default_inputs")]
    inputs: Vec<JudgeInput>,
    #[serde(default)]
    children: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVerdict {
    verdict: Verdict,
    #[serde(default)]
    score: Option<i64>,
    #[serde(default)]
    child: Option<String>,
}

/// A parsed node before its links are checked.
struct Parsed {
    id: String,
    raw: RawNode,
}

impl Parsed {
    fn children(&self) -> Vec<&String> {
        match &self.raw {
            RawNode::Task(t) => t.children.iter().collect(),
            RawNode::BinaryJudgement(j) | RawNode::NonBinaryJudgement(j) => j.children.iter().collect(),
            RawNode::Verdict(v) => v.child.iter().collect(),
        }
    }
}

/// The judge the `[[node]]` tables describe, every rule checked.
pub(crate) fn build_dag(tables: Vec<toml::Table>) -> Result<DagJudge, JudgeFileError> {
    if tables.is_empty() {
        return Err(JudgeFileError::NoNodes);
    }
    let mut parsed = Vec::with_capacity(tables.len());
    for (index, mut table) in tables.into_iter().enumerate() {
        let id = match table.remove("id") {
            Some(toml::Value::String(id)) if !id.trim().is_empty() => id,
            _ => return Err(JudgeFileError::NodeWithoutId { number: index + 1 }),
        };
        let raw: RawNode = from_table(table).map_err(|error| JudgeFileError::NodeFields { id: id.clone(), error })?;
        parsed.push(Parsed { id, raw });
    }
    parsed.sort_by(|a, b| a.id.cmp(&b.id));
    if let Some(pair) = parsed.windows(2).find(|w| w[0].id == w[1].id) {
        return Err(JudgeFileError::DuplicateNode { id: pair[0].id.clone() });
    }

    let mut graph: DiGraph<JudgeNode, ()> = DiGraph::new();
    let mut index: HashMap<String, NodeIndex> = HashMap::new();
    for node in &parsed {
        let kind = node_kind(node)?;
        index.insert(node.id.clone(), graph.add_node(JudgeNode { id: node.id.clone(), kind }));
    }
    for node in &parsed {
        let mut children = node.children();
        children.sort();
        if let Some(pair) = children.windows(2).find(|w| w[0] == w[1]) {
            return Err(JudgeFileError::DuplicateChild { id: node.id.clone(), child: pair[0].clone() });
        }
        for child in children {
            let target = index
                .get(child)
                .ok_or_else(|| JudgeFileError::UnknownChild { id: node.id.clone(), child: child.clone() })?;
            graph.add_edge(index[&node.id], *target, ());
        }
    }

    let order = petgraph::algo::toposort(&graph, None)
        .map_err(|cycle| JudgeFileError::Cycle { id: graph[cycle.node_id()].id.clone() })?;
    for node in graph.node_indices() {
        check_children(&graph, node)?;
    }
    for node in graph.node_indices() {
        check_parents(&graph, node)?;
    }
    let roots: Vec<NodeIndex> =
        graph.node_indices().filter(|n| graph.neighbors_directed(*n, Direction::Incoming).next().is_none()).collect();
    let root = match roots.as_slice() {
        [root] => *root,
        _ => return Err(JudgeFileError::RootCount { roots: roots.iter().map(|n| graph[*n].id.clone()).collect() }),
    };
    let mut labels: HashMap<&str, &str> = HashMap::new();
    for node in graph.node_weights() {
        if let NodeKind::Task { output_label, .. } = &node.kind
            && let Some(other) = labels.insert(output_label.as_str(), node.id.as_str())
        {
            return Err(JudgeFileError::SharedLabel {
                first: other.to_string(),
                second: node.id.clone(),
                label: output_label.clone(),
            });
        }
    }
    Ok(DagJudge::new(graph, root, &order))
}

/// A node's kind, with its own fields checked.
fn node_kind(node: &Parsed) -> Result<NodeKind, JudgeFileError> {
    let id = &node.id;
    let non_empty = |field: &'static str, value: &str| {
        if value.trim().is_empty() { Err(JudgeFileError::EmptyField { id: id.clone(), field }) } else { Ok(()) }
    };
    Ok(match &node.raw {
        RawNode::Task(t) => {
            non_empty("instructions", &t.instructions)?;
            non_empty("output_label", &t.output_label)?;
            NodeKind::Task {
                instructions: t.instructions.clone(),
                output_label: t.output_label.clone(),
                inputs: t.inputs.clone(),
            }
        }
        RawNode::BinaryJudgement(j) | RawNode::NonBinaryJudgement(j) => {
            non_empty("criteria", &j.criteria)?;
            NodeKind::Judgement {
                criteria: j.criteria.clone(),
                inputs: j.inputs.clone(),
                binary: matches!(node.raw, RawNode::BinaryJudgement(_)),
            }
        }
        RawNode::Verdict(v) => {
            if let Verdict::Text(text) = &v.verdict {
                non_empty("verdict", text)?;
            }
            let score = match (v.score, &v.child) {
                (Some(_), Some(_)) => return Err(JudgeFileError::ScoreAndChild { id: id.clone() }),
                (None, None) => return Err(JudgeFileError::NoOutcome { id: id.clone() }),
                (Some(score), None) => Some(
                    u8::try_from(score)
                        .ok()
                        .filter(|s| *s <= 10)
                        .ok_or_else(|| JudgeFileError::ScoreRange { id: id.clone(), score })?,
                ),
                (None, Some(_)) => None,
            };
            NodeKind::Verdict { verdict: v.verdict.clone(), score }
        }
    })
}

/// The rules that relate a node to its children.
fn check_children(graph: &DiGraph<JudgeNode, ()>, node: NodeIndex) -> Result<(), JudgeFileError> {
    let id = &graph[node].id;
    let children: Vec<&JudgeNode> = graph.neighbors(node).map(|c| &graph[c]).collect();
    let verdicts: Vec<(&str, &Verdict)> = children
        .iter()
        .filter_map(|c| match &c.kind {
            NodeKind::Verdict { verdict, .. } => Some((c.id.as_str(), verdict)),
            _ => None,
        })
        .collect();
    match &graph[node].kind {
        NodeKind::Task { .. } => {
            if children.is_empty() {
                return Err(JudgeFileError::ChildlessTask { id: id.clone() });
            }
            if let Some((verdict, _)) = verdicts.first() {
                return Err(JudgeFileError::TaskVerdictChild { id: id.clone(), child: verdict.to_string() });
            }
        }
        NodeKind::Judgement { binary, .. } => {
            if let Some(other) = children.iter().find(|c| !matches!(c.kind, NodeKind::Verdict { .. })) {
                return Err(JudgeFileError::NonVerdictChild { id: id.clone(), child: other.id.clone() });
            }
            check_verdicts(id, *binary, &verdicts)?;
        }
        NodeKind::Verdict { .. } => {
            if let Some(child) = children.iter().find(|c| matches!(c.kind, NodeKind::Verdict { .. })) {
                return Err(JudgeFileError::VerdictChildVerdict { id: id.clone(), child: child.id.clone() });
            }
        }
    }
    Ok(())
}

/// Each verdict has exactly one parent.
fn check_parents(graph: &DiGraph<JudgeNode, ()>, node: NodeIndex) -> Result<(), JudgeFileError> {
    if !matches!(graph[node].kind, NodeKind::Verdict { .. }) {
        return Ok(());
    }
    let id = &graph[node].id;
    let mut parents: Vec<String> =
        graph.neighbors_directed(node, Direction::Incoming).map(|p| graph[p].id.clone()).collect();
    parents.sort_by_cached_key(|parent| format!("{parent:?}"));
    if parents.is_empty() {
        return Err(JudgeFileError::Orphan { id: id.clone() });
    }
    if parents.len() != 1 {
        return Err(JudgeFileError::ManyParents { id: id.clone(), parents });
    }
    Ok(())
}

/// Binary judgements need verdicts `true` and `false`; non-binary ones at least
/// two distinct strings.
fn check_verdicts(id: &str, binary: bool, verdicts: &[(&str, &Verdict)]) -> Result<(), JudgeFileError> {
    for (child, verdict) in verdicts {
        let fits = matches!(verdict, Verdict::Bool(_)) == binary;
        if !fits {
            return Err(JudgeFileError::VerdictKind {
                child: child.to_string(),
                verdict: (*verdict).clone(),
                parent: id.to_string(),
                binary,
            });
        }
    }
    if binary {
        let has = |b| verdicts.iter().any(|(_, v)| **v == Verdict::Bool(b));
        if verdicts.len() != 2 || !has(true) || !has(false) {
            return Err(JudgeFileError::BinaryVerdicts { id: id.to_string(), count: verdicts.len() });
        }
        return Ok(());
    }
    if verdicts.len() < 2 {
        return Err(JudgeFileError::TooFewVerdicts { id: id.to_string(), count: verdicts.len() });
    }
    let mut seen: HashMap<String, &str> = HashMap::new();
    for (child, verdict) in verdicts {
        let key = match verdict {
            Verdict::Text(text) => text.trim().to_lowercase(),
            Verdict::Bool(b) => b.to_string(),
        };
        if let Some(other) = seen.insert(key, child) {
            return Err(JudgeFileError::RepeatedVerdict {
                id: id.to_string(),
                verdict: (*verdict).clone(),
                first: other.to_string(),
                second: child.to_string(),
            });
        }
    }
    Ok(())
}

/// Deserialize a table into `T`.
pub(crate) fn from_table<T: DeserializeOwned>(table: toml::Table) -> Result<T, toml::de::Error> {
    toml::Value::Table(table).try_into()
}
