//! Running one node on its own: the node (its code as recorded, or as the
//! user just edited it) and the nodes that feed it, run in the sandbox with
//! the run's seed — so it receives exactly the inputs it received in the
//! iteration — and nothing downstream. A quick check of an edit before the
//! whole DAG is tried.

use std::collections::HashSet;

use super::context::RunContext;
use crate::dag::policy::check_source;
use crate::domain::{ExecutionResult, GeneratedDag, IterationAt, NodeId};
use crate::run::EngineEvent;

/// `dag` cut down to `node_id` and everything upstream of it, with the node's
/// code replaced by `code` when given; none when the DAG has no such node.
pub fn upstream_of(dag: &GeneratedDag, node_id: &str, code: Option<&str>) -> Option<GeneratedDag> {
    dag.node(node_id)?;
    let mut keep: HashSet<&str> = HashSet::from([node_id]);
    let mut frontier = vec![node_id];
    while let Some(id) = frontier.pop() {
        let node = dag.node(id)?;
        let feeding =
            node.inputs.values().filter_map(|source| source.strip_prefix("prev_node.")?.strip_suffix(".output"));
        let from_edges = dag.edges.iter().filter(|e| e.target == id).map(|e| e.source.as_str());
        for upstream in feeding.chain(from_edges) {
            if dag.node(upstream).is_some() && keep.insert(upstream) {
                frontier.push(upstream);
            }
        }
    }
    let mut cut = dag.clone();
    cut.nodes.retain(|n| keep.contains(n.node_id.as_str()));
    cut.edges.retain(|e| keep.contains(e.source.as_str()) && keep.contains(e.target.as_str()));
    cut.final_answer_node = node_id.into();
    if let (Some(code), Some(node)) = (code, cut.nodes.iter_mut().find(|n| n.node_id == node_id)) {
        node.code = code.to_string();
    }
    Some(cut)
}

/// Run `node_id` of `dag` (with `code`, if edited) and what feeds it, and
/// record what it gave.
pub async fn run_node(ctx: &RunContext, at: IterationAt, dag: GeneratedDag, node_id: NodeId, code: Option<String>) {
    let result = match upstream_of(&dag, &node_id, code.as_deref()) {
        None => ExecutionResult { error: Some(format!("the DAG has no node {node_id}")), ..Default::default() },
        Some(cut) => {
            let source = cut.node(&node_id).map(|n| n.code.clone()).unwrap_or_default();
            let breaches: Vec<String> =
                check_source(&source).into_iter().map(|v| format!("line {}: {}", v.line, v.message)).collect();
            let question = ctx.emitter.with_state(|s| s.question(&at.question_id).map(|q| q.question.clone()));
            let executor = match &question {
                Some(question) => ctx.parts.data_of(question).1,
                None => &ctx.parts.executor,
            };
            if breaches.is_empty() {
                executor.execute(&cut, ctx.seed).await
            } else {
                let error = format!("not run — the code breaks the policy: {}", breaches.join("; "));
                ExecutionResult { error: Some(error), ..Default::default() }
            }
        }
    };
    ctx.emitter.emit(EngineEvent::NodeRan { at, node_id, code, result });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_keeps_what_feeds_it_and_loses_what_follows() {
        let dag: GeneratedDag = serde_json::from_value(serde_json::json!({
            "nodes": [
                {"node_id": "a", "function_name": "a", "layer": 0, "code": "", "inputs": {"x": "dataset.k"}},
                {"node_id": "b", "function_name": "b", "layer": 0, "code": "", "inputs": {"x": "dataset.k"}},
                {"node_id": "c", "function_name": "c", "layer": 1, "code": "old", "inputs": {"x": "prev_node.a.output"}},
                {"node_id": "d", "function_name": "d", "layer": 2, "code": "", "inputs": {"x": "prev_node.c.output", "y": "prev_node.b.output"}}],
            "edges": [{"source": "a", "target": "c"}, {"source": "c", "target": "d"}, {"source": "b", "target": "d"}],
            "final_answer_node": "d"}))
        .unwrap();
        let cut = upstream_of(&dag, "c", Some("new")).unwrap();
        let ids: Vec<&str> = cut.nodes.iter().map(|n| n.node_id.as_str()).collect();
        assert_eq!((ids, cut.final_answer_node.as_str()), (vec!["a", "c"], "c"));
        assert_eq!(cut.edges.len(), 1);
        assert_eq!(cut.node("c").unwrap().code, "new");
        assert_eq!(upstream_of(&dag, "d", None).unwrap().nodes.len(), 4);
        assert!(upstream_of(&dag, "z", None).is_none());
    }
}
