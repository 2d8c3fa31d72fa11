//! The drawing of one DAG iteration for `templates/dag.svg.j2`: layers left
//! to right, curved edges, nodes coloured by what the critic said of them.

use serde::Serialize;

use crate::domain::{CriticFeedback, GeneratedDag};
use crate::render::{layout, node_verdict, short_labels};

const NODE_W: usize = 150;
const NODE_H: usize = 40;
const GAP_X: usize = 60;
const GAP_Y: usize = 18;
const PAD: usize = 10;

/// A DAG placed on the page: its size, edges and nodes.
#[derive(Debug, Serialize)]
pub struct DagPicture {
    width: usize,
    height: usize,
    node_width: usize,
    node_height: usize,
    edges: Vec<Edge>,
    nodes: Vec<PlacedBox>,
}

/// A curve from the right side of one node to the left side of another.
#[derive(Debug, Serialize)]
struct Edge {
    x1: usize,
    y1: usize,
    mid: usize,
    x2: usize,
    y2: usize,
}

/// One node's box and its two lines of text.
#[derive(Debug, Serialize)]
struct PlacedBox {
    class: String,
    title: String,
    x: usize,
    y: usize,
    text_x: usize,
    label_y: usize,
    label: String,
    operation_y: usize,
    operation: String,
}

fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(max - 1).collect();
    cut.push('…');
    cut
}

/// The picture of `dag` with verdicts from `feedback`.
pub fn dag_picture(dag: &GeneratedDag, feedback: Option<&CriticFeedback>) -> DagPicture {
    let placed = layout(dag);
    let width = PAD * 2 + placed.columns * NODE_W + placed.columns.saturating_sub(1) * GAP_X;
    let height = PAD * 2 + placed.rows * NODE_H + placed.rows.saturating_sub(1) * GAP_Y;
    let origin = |column: usize, row: usize| (PAD + column * (NODE_W + GAP_X), PAD + row * (NODE_H + GAP_Y));
    let edges = placed
        .edges
        .iter()
        .map(|&(from, to)| {
            let (a, b) = (&placed.nodes[from], &placed.nodes[to]);
            let (ax, ay) = origin(a.column, a.row);
            let (bx, by) = origin(b.column, b.row);
            let (x1, y1, x2, y2) = (ax + NODE_W, ay + NODE_H / 2, bx, by + NODE_H / 2);
            Edge { x1, y1, mid: (x1 + x2) / 2, x2, y2 }
        })
        .collect();
    let ids: Vec<&str> = placed.nodes.iter().map(|n| n.node_id.as_str()).collect();
    let labels = short_labels(&ids, 18);
    let nodes = placed
        .nodes
        .iter()
        .zip(labels)
        .map(|(node, label)| {
            let (x, y) = origin(node.column, node.row);
            let verdict = node_verdict(feedback, &node.node_id).class();
            let operation = dag.node(&node.node_id).map(|n| n.operation.as_str()).unwrap_or_default();
            PlacedBox {
                class: if node.is_final { format!("{verdict} final") } else { verdict.to_string() },
                title: format!("{}: {operation}", node.node_id),
                x,
                y,
                text_x: x + 8,
                label_y: y + 16,
                label,
                operation_y: y + 31,
                operation: truncate(operation, 19),
            }
        })
        .collect();
    DagPicture { width, height, node_width: NODE_W, node_height: NODE_H, edges, nodes }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Finding, FindingSource, Severity};
    use crate::report::views::ReportTemplates;
    use serde_json::json;

    #[test]
    fn nodes_edges_and_verdicts_are_drawn() {
        let dag: GeneratedDag = serde_json::from_value(json!({"final_answer_node": "b", "nodes": [
            {"node_id": "a", "function_name": "f", "layer": 0, "code": "", "operation": "load <rows>"},
            {"node_id": "b", "function_name": "g", "layer": 1, "code": "", "inputs": {"x": "prev_node.a.output"}}]}))
        .unwrap();
        let feedback = CriticFeedback {
            findings: vec![Finding {
                node_id: Some("a".into()),
                layer: Some(0),
                rule: "runtime_error".into(),
                source: FindingSource::TrialRun,
                message: "boom".into(),
                severity: Severity::Error,
            }],
            ..Default::default()
        };
        let picture = dag_picture(&dag, Some(&feedback));
        let svg = ReportTemplates::built_in().render_str(
            "{% include \"dag.svg.j2\" %}",
            minijinja::context! { dag => minijinja::value::Serde(&picture) },
        );
        assert_eq!(svg.matches("<path class=\"edge\"").count(), 1, "{svg}");
        assert!(svg.contains("class=\"node failed\""));
        assert!(svg.contains("class=\"node fine final\""));
        assert!(svg.contains("load &lt;rows&gt;"));
    }
}
