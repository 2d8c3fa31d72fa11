//! Building a DAG judge from the `[[node]]` tables of a judge file, with every
//! rule of the format checked (see [`super::judge_file`]); errors name the node.

use std::collections::HashMap;

use petgraph::Direction;
use petgraph::graph::{DiGraph, NodeIndex};
use serde::Deserialize;

use super::judge_file::{default_inputs, from_table};
use super::judge_prompts::JudgeInput;
use super::tree_judge::{DagJudge, JudgeNode, NodeKind, Verdict};

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

pub(crate) fn build_dag(tables: Vec<toml::Table>) -> Result<DagJudge, String> {
    if tables.is_empty() {
        return Err("a dag judge needs [[node]] tables, found none".into());
    }
    let mut parsed = Vec::with_capacity(tables.len());
    for (index, mut table) in tables.into_iter().enumerate() {
        let id = match table.remove("id") {
            Some(toml::Value::String(id)) if !id.trim().is_empty() => id,
            _ => {
                return Err(format!("node #{} has no \"id\" (a non-empty string)", index + 1));
            }
        };
        let raw: RawNode = from_table(table).map_err(|err| format!("node {id:?}: {err}"))?;
        parsed.push(Parsed { id, raw });
    }
    parsed.sort_by(|a, b| a.id.cmp(&b.id));
    if let Some(pair) = parsed.windows(2).find(|w| w[0].id == w[1].id) {
        return Err(format!("node {:?} is declared twice", pair[0].id));
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
            return Err(format!("node {:?} lists child {:?} twice", node.id, pair[0]));
        }
        for child in children {
            let target = index.get(child).ok_or_else(|| format!("node {:?} names unknown child {child:?}", node.id))?;
            graph.add_edge(index[&node.id], *target, ());
        }
    }

    let order = petgraph::algo::toposort(&graph, None)
        .map_err(|cycle| format!("the nodes form a cycle through {:?}", graph[cycle.node_id()].id))?;
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
        _ => {
            let names: Vec<String> = roots.iter().map(|n| format!("{:?}", graph[*n].id)).collect();
            return Err(format!(
                "exactly one node (the root) may have no parent, found {}: {}",
                roots.len(),
                names.join(", ")
            ));
        }
    };
    let mut labels: HashMap<&str, &str> = HashMap::new();
    for node in graph.node_weights() {
        if let NodeKind::Task { output_label, .. } = &node.kind
            && let Some(other) = labels.insert(output_label.as_str(), node.id.as_str())
        {
            return Err(format!("task nodes {other:?} and {:?} share the output label {output_label:?}", node.id));
        }
    }
    Ok(DagJudge::new(graph, root, &order))
}

/// A node's kind, with its own fields checked.
fn node_kind(node: &Parsed) -> Result<NodeKind, String> {
    let id = &node.id;
    let non_empty = |field: &str, value: &str| {
        if value.trim().is_empty() { Err(format!("node {id:?}: {field:?} is empty")) } else { Ok(()) }
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
                (Some(_), Some(_)) => {
                    return Err(format!("verdict node {id:?} has both a score and a child; give one"));
                }
                (None, None) => {
                    return Err(format!("verdict node {id:?} needs a score (0-10) or a child"));
                }
                (Some(score), None) => Some(
                    u8::try_from(score)
                        .ok()
                        .filter(|s| *s <= 10)
                        .ok_or_else(|| format!("verdict node {id:?}: score must be 0-10, got {score}"))?,
                ),
                (None, Some(_)) => None,
            };
            NodeKind::Verdict { verdict: v.verdict.clone(), score }
        }
    })
}

/// The rules that relate a node to its children.
fn check_children(graph: &DiGraph<JudgeNode, ()>, node: NodeIndex) -> Result<(), String> {
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
                return Err(format!("task node {id:?} has no children: every path must end in a verdict"));
            }
            if let Some((verdict, _)) = verdicts.first() {
                return Err(format!(
                    "task node {id:?} has verdict child {verdict:?}: verdicts belong under judgement nodes"
                ));
            }
        }
        NodeKind::Judgement { binary, .. } => {
            if let Some(other) = children.iter().find(|c| !matches!(c.kind, NodeKind::Verdict { .. })) {
                return Err(format!("judgement node {id:?} has child {:?}, which is not a verdict", other.id));
            }
            check_verdicts(id, *binary, &verdicts)?;
        }
        NodeKind::Verdict { .. } => {
            if let Some(child) = children.iter().find(|c| matches!(c.kind, NodeKind::Verdict { .. })) {
                return Err(format!(
                    "verdict node {id:?} leads to verdict {:?}: a verdict's child must be a task or judgement node",
                    child.id
                ));
            }
        }
    }
    Ok(())
}

/// Each verdict has exactly one parent.
fn check_parents(graph: &DiGraph<JudgeNode, ()>, node: NodeIndex) -> Result<(), String> {
    if !matches!(graph[node].kind, NodeKind::Verdict { .. }) {
        return Ok(());
    }
    let id = &graph[node].id;
    let mut parents: Vec<String> =
        graph.neighbors_directed(node, Direction::Incoming).map(|p| format!("{:?}", graph[p].id)).collect();
    parents.sort();
    if parents.is_empty() {
        return Err(format!("verdict node {id:?} has no parent: a verdict belongs to exactly one judgement node"));
    }
    if parents.len() != 1 {
        return Err(format!(
            "verdict node {id:?} has {} parents ({}): a verdict belongs to exactly one judgement node",
            parents.len(),
            parents.join(", ")
        ));
    }
    Ok(())
}

/// Binary judgements need verdicts `true` and `false`; non-binary ones at least
/// two distinct strings.
fn check_verdicts(id: &str, binary: bool, verdicts: &[(&str, &Verdict)]) -> Result<(), String> {
    for (child, verdict) in verdicts {
        let fits = matches!(verdict, Verdict::Bool(_)) == binary;
        if !fits {
            let wanted = if binary { "true or false" } else { "a string" };
            return Err(format!(
                "verdict node {child:?} says {verdict} but its parent {id:?} is a {}binary judgement: its verdicts are {wanted}",
                if binary { "" } else { "non-" }
            ));
        }
    }
    if binary {
        let has = |b| verdicts.iter().any(|(_, v)| **v == Verdict::Bool(b));
        if verdicts.len() != 2 || !has(true) || !has(false) {
            return Err(format!(
                "binary judgement {id:?} needs exactly two verdict children, true and false; it has {}",
                verdicts.len()
            ));
        }
        return Ok(());
    }
    if verdicts.len() < 2 {
        return Err(format!(
            "non-binary judgement {id:?} needs at least two verdict children, it has {}",
            verdicts.len()
        ));
    }
    let mut seen: HashMap<String, &str> = HashMap::new();
    for (child, verdict) in verdicts {
        let key = match verdict {
            Verdict::Text(text) => text.trim().to_lowercase(),
            Verdict::Bool(b) => b.to_string(),
        };
        if let Some(other) = seen.insert(key, child) {
            return Err(format!(
                "non-binary judgement {id:?} has the verdict {verdict} twice ({other:?} and {child:?})"
            ));
        }
    }
    Ok(())
}
