//! Layered DAG layout: layers left to right, nodes in a layer top to bottom,
//! ordered by the mean row of their parents, then swept against children and
//! parents (barycentre heuristic) while that cuts edge crossings.

use serde::Serialize;

use crate::dag::InputRef;
use crate::domain::{GeneratedDag, NodeId};

/// A node's place in the grid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlacedNode {
    /// Node id.
    pub node_id: NodeId,
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
    /// Pairs of edges that cross (between the same two columns, ends in opposite order).
    pub fn crossings(&self) -> usize {
        let rows: Vec<usize> = self.nodes.iter().map(|n| n.row).collect();
        let columns: Vec<usize> = self.nodes.iter().map(|n| n.column).collect();
        crossings_of(&rows, &self.edges, &columns)
    }

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

    let columns: Vec<usize> = dag.nodes.iter().map(|n| column_of(n.layer)).collect();
    let mut order: Vec<Vec<usize>> = vec![Vec::new(); layers.len()];
    for (i, &column) in columns.iter().enumerate() {
        order[column].push(i);
    }
    // First placement: each column by its parents' mean row, then sweeps
    // against the children and the parents again while they cut crossings.
    let mut rows = vec![0usize; dag.nodes.len()];
    sweep(&mut order, &mut rows, &edges, &columns, Direction::Parents);
    let mut best = (crossings_of(&rows, &edges, &columns), rows.clone());
    for round in 0..SWEEPS {
        let direction = if round % 2 == 0 { Direction::Children } else { Direction::Parents };
        sweep(&mut order, &mut rows, &edges, &columns, direction);
        let crossings = crossings_of(&rows, &edges, &columns);
        if crossings < best.0 {
            best = (crossings, rows.clone());
        }
    }
    let mut rows = best.1;
    transpose(&mut rows, &edges, &columns, best.0);
    let height = order.iter().map(Vec::len).max().unwrap_or(0);
    DagLayout {
        columns: layers.len(),
        rows: height,
        nodes: dag
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| PlacedNode {
                node_id: n.node_id.clone(),
                column: columns[i],
                row: rows[i],
                is_final: n.node_id == dag.final_answer_node,
            })
            .collect(),
        edges,
    }
}

/// Sweeps of crossing reduction after the first placement.
const SWEEPS: usize = 8;

/// Which neighbours a sweep orders a column by.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    /// The nodes of earlier columns that feed it (columns left to right).
    Parents,
    /// The nodes of later columns it feeds (columns right to left).
    Children,
}

/// Order every column by the mean row of its nodes' neighbours in `direction`
/// (a node without any keeps its place); ties keep the current order.
fn sweep(
    order: &mut [Vec<usize>],
    rows: &mut [usize],
    edges: &[(usize, usize)],
    columns: &[usize],
    direction: Direction,
) {
    let sequence: Vec<usize> = match direction {
        Direction::Parents => (0..order.len()).collect(),
        Direction::Children => (0..order.len()).rev().collect(),
    };
    for column in sequence {
        let mut keyed: Vec<(f64, usize, usize)> = order[column]
            .iter()
            .enumerate()
            .map(|(place, &node)| {
                let neighbours: Vec<usize> = edges
                    .iter()
                    .filter_map(|&(from, to)| match direction {
                        Direction::Parents if to == node && columns[from] < column => Some(rows[from]),
                        Direction::Children if from == node && columns[to] > column => Some(rows[to]),
                        _ => None,
                    })
                    .collect();
                let key = if neighbours.is_empty() {
                    place as f64
                } else {
                    neighbours.iter().sum::<usize>() as f64 / neighbours.len() as f64
                };
                (key, place, node)
            })
            .collect();
        keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        order[column] = keyed.iter().map(|&(_, _, node)| node).collect();
        for (row, &node) in order[column].iter().enumerate() {
            rows[node] = row;
        }
    }
}

/// Swap neighbours within a column wherever that cuts crossings, until no
/// swap helps (`crossings`: the count before).
fn transpose(rows: &mut [usize], edges: &[(usize, usize)], columns: &[usize], mut crossings: usize) {
    let mut improved = true;
    while improved && crossings > 0 {
        improved = false;
        for a in 0..rows.len() {
            for b in 0..rows.len() {
                if columns[a] != columns[b] || rows[b] != rows[a] + 1 {
                    continue;
                }
                rows.swap(a, b);
                let after = crossings_of(rows, edges, columns);
                if after < crossings {
                    crossings = after;
                    improved = true;
                } else {
                    rows.swap(a, b);
                }
            }
        }
    }
}

/// Pairs of edges that cross: two edges between the same two columns whose
/// ends are in opposite order.
fn crossings_of(rows: &[usize], edges: &[(usize, usize)], columns: &[usize]) -> usize {
    let mut count = 0;
    for (i, &(a, b)) in edges.iter().enumerate() {
        for &(c, d) in &edges[i + 1..] {
            let same_columns = columns[a] == columns[c] && columns[b] == columns[d];
            let opposite = (rows[a] as isize - rows[c] as isize) * (rows[b] as isize - rows[d] as isize) < 0;
            count += usize::from(same_columns && opposite);
        }
    }
    count
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
        assert_eq!(dag.widest_layer(), l.rows, "the rows a drawing needs, without laying it out");
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
