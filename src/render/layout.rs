//! Layered DAG layout: layers left to right, nodes in a layer top to bottom,
//! ordered by the mean row of their parents to keep edges short.

use serde::Serialize;

use crate::dag::InputRef;
use crate::domain::GeneratedDag;

/// A node's place in the grid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlacedNode {
    /// Node id.
    pub node_id: String,
    /// Column (0 = first layer present).
    pub column: usize,
    /// Row within the column.
    pub row: usize,
    /// Whether it is the final answer node.
    pub is_final: bool,
}

/// The grid positions of every node and the edges between them.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct DagLayout {
    /// Number of columns.
    pub columns: usize,
    /// Rows of the tallest column.
    pub rows: usize,
    /// Every node, in declaration order.
    pub nodes: Vec<PlacedNode>,
    /// `(from, to)` indices into `nodes`: declared edges and `prev_node` inputs, deduplicated.
    pub edges: Vec<(usize, usize)>,
}

impl DagLayout {
    /// Index of `node_id` in `nodes`.
    pub fn index_of(&self, node_id: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.node_id == node_id)
    }
}

/// Lay out `dag`. Unknown references are ignored; duplicate ids keep their first node.
pub fn layout(dag: &GeneratedDag) -> DagLayout {
    let mut layers: Vec<usize> = dag.nodes.iter().map(|n| n.layer).collect();
    layers.sort_unstable();
    layers.dedup();
    let column_of = |layer: usize| layers.binary_search(&layer).unwrap_or(0);
    let index_of = |id: &str| dag.nodes.iter().position(|n| n.node_id == id);

    let mut edges: Vec<(usize, usize)> = Vec::new();
    for edge in &dag.edges {
        if let (Some(a), Some(b)) = (index_of(&edge.source), index_of(&edge.target)) {
            edges.push((a, b));
        }
    }
    for (target, node) in dag.nodes.iter().enumerate() {
        for reference in node.inputs.values() {
            if let Ok(InputRef::PrevNode(id)) = InputRef::parse(reference)
                && let Some(source) = index_of(&id)
            {
                edges.push((source, target));
            }
        }
    }
    edges.sort_unstable();
    edges.dedup();

    let mut rows = vec![0usize; dag.nodes.len()];
    let mut height = 0;
    for column in 0..layers.len() {
        let mut members: Vec<(f64, usize)> = dag
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| column_of(n.layer) == column)
            .map(|(i, _)| {
                let parents: Vec<usize> = edges
                    .iter()
                    .filter(|(a, b)| *b == i && column_of(dag.nodes[*a].layer) < column)
                    .map(|(a, _)| rows[*a])
                    .collect();
                let key = if parents.is_empty() {
                    i as f64
                } else {
                    parents.iter().sum::<usize>() as f64 / parents.len() as f64
                };
                (key, i)
            })
            .collect();
        members.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for (row, (_, i)) in members.iter().enumerate() {
            rows[*i] = row;
        }
        height = height.max(members.len());
    }
    DagLayout {
        columns: layers.len(),
        rows: height,
        nodes: dag
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| PlacedNode {
                node_id: n.node_id.clone(),
                column: column_of(n.layer),
                row: rows[i],
                is_final: n.node_id == dag.final_answer_node,
            })
            .collect(),
        edges,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn layers_become_columns_and_children_follow_their_parents() {
        let dag: GeneratedDag = serde_json::from_value(json!({
            "final_answer_node": "d",
            "nodes": [
                {"node_id": "a", "function_name": "f", "layer": 0, "code": ""},
                {"node_id": "b", "function_name": "f", "layer": 0, "code": ""},
                {"node_id": "c", "function_name": "f", "layer": 2, "code": "", "inputs": {"x": "prev_node.b.output"}},
                {"node_id": "e", "function_name": "f", "layer": 2, "code": "", "inputs": {"x": "prev_node.a.output"}},
                {"node_id": "d", "function_name": "f", "layer": 5, "code": "",
                 "inputs": {"x": "prev_node.c.output", "y": "prev_node.e.output"}}],
            "edges": [{"source": "b", "target": "c"}, {"source": "a", "target": "e"}, {"source": "zz", "target": "d"}]
        }))
        .unwrap();
        let l = layout(&dag);
        assert_eq!((l.columns, l.rows), (3, 2));
        let place = |id: &str| {
            let n = &l.nodes[l.index_of(id).unwrap()];
            (n.column, n.row)
        };
        assert_eq!(place("a"), (0, 0));
        assert_eq!(place("e"), (1, 0), "e follows its parent a to row 0");
        assert_eq!(place("c"), (1, 1));
        assert_eq!(place("d"), (2, 0));
        assert!(l.nodes[4].is_final);
        assert_eq!(l.edges, vec![(0, 3), (1, 2), (2, 4), (3, 4)]);
    }
}
