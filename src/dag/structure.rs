//! Graph-level checks: ids, edges, layers, cycles, connectivity, and that
//! edges agree with the `prev_node` references in inputs.

use std::collections::{HashMap, HashSet};

use petgraph::algo::{has_path_connecting, is_cyclic_directed};
use petgraph::graph::{DiGraph, NodeIndex};

use super::InputRef;
use super::findings::FindingSink;
use crate::dataset::SchemaCatalogue;
use crate::domain::{GeneratedDag, NodeId, Rule};

/// A pair of node ids: (source, target).
type Link = (NodeId, NodeId);

/// The nodes' layers and the graph of their dependencies, as read so far.
struct Dependencies<'a> {
    layer: HashMap<&'a str, usize>,
    graph: DiGraph<&'a str, ()>,
    index: HashMap<&'a str, NodeIndex>,
}

/// Add every graph-level finding of `dag` to `sink`.
pub fn check_structure(dag: &GeneratedDag, catalogue: &SchemaCatalogue, sink: &mut FindingSink) {
    duplicate_ids(dag, sink);
    if dag.nodes.is_empty() {
        sink.dag(Rule::EmptyDag, "the DAG has no nodes".into());
        return;
    }
    let layer: HashMap<&str, usize> = dag.nodes.iter().map(|n| (n.node_id.as_str(), n.layer)).collect();
    let mut graph: DiGraph<&str, ()> = DiGraph::new();
    let index: HashMap<&str, NodeIndex> = layer.keys().map(|id| (*id, graph.add_node(*id))).collect();
    let mut deps = Dependencies { layer, graph, index };
    let referenced = input_references(dag, catalogue, &mut deps, sink);
    let declared = declared_edges(dag, &mut deps, sink);
    edges_agree(dag, &referenced, &declared, sink);
    reachability(dag, &deps, sink);
}

/// Ids used by more than one node.
fn duplicate_ids(dag: &GeneratedDag, sink: &mut FindingSink) {
    let mut seen = HashSet::new();
    for node in &dag.nodes {
        if !seen.insert(node.node_id.as_str()) {
            sink.node(
                node,
                Rule::DuplicateNodeId,
                format!("node id {} is used by more than one node; ids must be unique", node.node_id),
            );
        }
    }
}

/// Check every input reference, adding the dependencies they make to `deps`;
/// the (source, target) pairs the inputs read.
fn input_references(
    dag: &GeneratedDag,
    catalogue: &SchemaCatalogue,
    deps: &mut Dependencies,
    sink: &mut FindingSink,
) -> HashSet<Link> {
    let mut referenced: HashSet<Link> = HashSet::new();
    for node in &dag.nodes {
        for (param, reference) in &node.inputs {
            match InputRef::parse(reference) {
                Err(err) => sink.node(node, Rule::BadInputRef, format!("input {param}: {err}")),
                Ok(InputRef::Dataset(key)) => {
                    if catalogue.entry(&key).is_none() {
                        let keys: Vec<&str> = catalogue.keys().collect();
                        let hint = crate::text::closest(&key, &keys, 0.75)
                            .map(|k| format!("; did you mean dataset.{k}?"))
                            .unwrap_or_else(|| format!("; the keys are {}", keys.join(", ")));
                        sink.node(
                            node,
                            Rule::UnknownDatasetKey,
                            format!("input {param} reads dataset.{key}, which does not exist{hint}"),
                        );
                    }
                }
                Ok(InputRef::PrevNode(source)) => {
                    if source == node.node_id {
                        sink.node(node, Rule::SelfReference, format!("input {param} reads the node's own output"));
                    } else if let Some(&source_layer) = deps.layer.get(source.as_str()) {
                        if source_layer >= node.layer {
                            sink.node(
                                node,
                                Rule::EdgeLayerOrder,
                                format!("input {param} reads {source} (layer {source_layer}) but this node is in layer {}; inputs must come from earlier layers", node.layer),
                            );
                        }
                        deps.graph.add_edge(deps.index[source.as_str()], deps.index[node.node_id.as_str()], ());
                        referenced.insert((source, node.node_id.clone()));
                    } else {
                        sink.node(
                            node,
                            Rule::UnknownNodeRef,
                            format!("input {param} reads prev_node.{source}, but there is no node {source}"),
                        );
                    }
                }
            }
        }
    }

    referenced
}

/// Check every declared edge, adding it to `deps`; the (source, target) pairs declared.
fn declared_edges(dag: &GeneratedDag, deps: &mut Dependencies, sink: &mut FindingSink) -> HashSet<Link> {
    let mut declared: HashSet<Link> = HashSet::new();
    for edge in &dag.edges {
        let (Some(&a), Some(&b)) = (deps.layer.get(edge.source.as_str()), deps.layer.get(edge.target.as_str())) else {
            sink.dag(
                Rule::UnknownEdgeNode,
                format!("edge {} → {} names a node that does not exist", edge.source, edge.target),
            );
            continue;
        };
        if a >= b {
            sink.dag(
                Rule::EdgeLayerOrder,
                format!(
                    "edge {} → {} goes from layer {a} to layer {b}; edges must go to a later layer",
                    edge.source, edge.target
                ),
            );
        }
        deps.graph.add_edge(deps.index[edge.source.as_str()], deps.index[edge.target.as_str()], ());
        declared.insert((edge.source.clone(), edge.target.clone()));
    }
    declared
}

/// Inputs without their edge, and edges without their input.
fn edges_agree(dag: &GeneratedDag, referenced: &HashSet<Link>, declared: &HashSet<Link>, sink: &mut FindingSink) {
    let mut missing: Vec<_> = referenced.difference(declared).collect();
    missing.sort();
    for (source, target) in missing {
        if let Some(node) = dag.node(target) {
            sink.node(
                node,
                Rule::MissingEdge,
                format!("{target} reads prev_node.{source}.output but there is no edge {source} → {target}"),
            );
        }
    }
    let mut phantom: Vec<_> = declared.difference(referenced).collect();
    phantom.sort();
    for (source, target) in phantom {
        if let Some(node) = dag.node(target) {
            sink.node(
                node,
                Rule::PhantomEdge,
                format!("edge {source} → {target} exists but {target} has no input prev_node.{source}.output"),
            );
        }
    }
}

/// Cycles, the final node's place, and nodes that do not reach it.
fn reachability(dag: &GeneratedDag, deps: &Dependencies, sink: &mut FindingSink) {
    if is_cyclic_directed(&deps.graph) {
        sink.dag(Rule::Cycle, "the nodes' dependencies form a cycle".into());
    }
    let Some(&final_index) = deps.index.get(dag.final_answer_node.as_str()) else {
        sink.dag(
            Rule::MissingFinalNode,
            format!("final_answer_node {} is not a node of the DAG", dag.final_answer_node),
        );
        return;
    };
    let last_layer = dag.nodes.iter().map(|n| n.layer).max().unwrap_or(0);
    if let Some(final_node) = dag.node(&dag.final_answer_node)
        && final_node.layer != last_layer
    {
        sink.node(
            final_node,
            Rule::FinalNotInLastLayer,
            format!("the final node is in layer {} but the last layer is {last_layer}", final_node.layer),
        );
    }
    for node in &dag.nodes {
        let here = deps.index[node.node_id.as_str()];
        if here != final_index && !has_path_connecting(&deps.graph, here, final_index, None) {
            sink.node(
                node,
                Rule::DeadNode,
                format!(
                    "{} does not contribute to the final node {}; remove it or use its output",
                    node.node_id, dag.final_answer_node
                ),
            );
        }
    }
}
