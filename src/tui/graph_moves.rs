//! Moving the selection along a DAG's layout: down and up in reading order (a
//! layer top to bottom, then the next layer), left and right to the nearest
//! node of the neighbouring layer, and along an edge to an input or a
//! consumer of the selected node.

use crate::render::DagLayout;

/// One move of the selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphMove {
    /// The next node in reading order.
    Down,
    /// The previous node in reading order.
    Up,
    /// The nearest node of the layer before.
    Left,
    /// The nearest node of the layer after.
    Right,
    /// An input of the node (the nearest layer first, then the topmost).
    ToInput,
    /// A node it feeds (the nearest layer first, then the topmost).
    ToConsumer,
}

/// The node (index into `placed.nodes`) the selection lands on when it makes
/// `how` from node `from`; `from` itself when there is nowhere to go.
pub fn moved(placed: &DagLayout, from: usize, how: GraphMove) -> usize {
    let Some(here) = placed.nodes.get(from) else { return from };
    let place = |i: usize| (placed.nodes[i].column, placed.nodes[i].row);
    let mut reading: Vec<usize> = (0..placed.nodes.len()).collect();
    reading.sort_by_key(|&i| place(i));
    let position = reading.iter().position(|&i| i == from).unwrap_or(0);
    let nearest_in = |column: usize| {
        (0..placed.nodes.len())
            .filter(|&i| placed.nodes[i].column == column)
            .min_by_key(|&i| (placed.nodes[i].row.abs_diff(here.row), placed.nodes[i].row))
    };
    let along = |ends: Vec<usize>| {
        ends.into_iter().min_by_key(|&i| (placed.nodes[i].column.abs_diff(here.column), placed.nodes[i].row))
    };
    let target = match how {
        GraphMove::Down => reading.get(position + 1).copied(),
        GraphMove::Up => position.checked_sub(1).map(|p| reading[p]),
        GraphMove::Left => here.column.checked_sub(1).and_then(nearest_in),
        GraphMove::Right => nearest_in(here.column + 1),
        GraphMove::ToInput => along(placed.edges.iter().filter(|e| e.1 == from).map(|e| e.0).collect()),
        GraphMove::ToConsumer => along(placed.edges.iter().filter(|e| e.0 == from).map(|e| e.1).collect()),
    };
    target.unwrap_or(from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::GeneratedDag;
    use crate::render::layout;
    use serde_json::json;

    /// a → c, b → c, c → d: two layers feeding one, then one more.
    fn placed() -> DagLayout {
        let node = |id: &str, layer: usize, inputs: serde_json::Value| json!({"node_id": id, "function_name": "f", "layer": layer, "code": "", "inputs": inputs});
        let dag: GeneratedDag = serde_json::from_value(json!({"final_answer_node": "d", "nodes": [
            node("a", 0, json!({})), node("b", 0, json!({})),
            node("c", 1, json!({"x": "prev_node.a.output", "y": "prev_node.b.output"})),
            node("d", 2, json!({"x": "prev_node.c.output"}))]}))
        .unwrap();
        layout(&dag)
    }

    #[test]
    fn every_move_lands_where_a_reader_expects() {
        let p = placed();
        assert_eq!(moved(&p, 0, GraphMove::Down), 1, "down the first layer");
        assert_eq!(moved(&p, 1, GraphMove::Down), 2, "then on to the next layer");
        assert_eq!(moved(&p, 3, GraphMove::Down), 3, "the last node stays");
        assert_eq!(moved(&p, 0, GraphMove::Up), 0);
        assert_eq!(moved(&p, 1, GraphMove::Right), 2);
        assert_eq!(moved(&p, 2, GraphMove::Left), 0, "the nearest row of the layer before");
        assert_eq!(moved(&p, 3, GraphMove::Right), 3, "no layer after");
        assert_eq!(moved(&p, 2, GraphMove::ToInput), 0);
        assert_eq!(moved(&p, 2, GraphMove::ToConsumer), 3);
        assert_eq!(moved(&p, 0, GraphMove::ToInput), 0, "a first-layer node has no input node");
        assert_eq!(moved(&p, 9, GraphMove::Down), 9, "an unknown node stays");
    }
}
