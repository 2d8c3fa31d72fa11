//! The SVG drawing of one DAG iteration: layers left to right, curved edges,
//! nodes coloured by what the critic said of them.

use std::fmt::Write;

use crate::domain::{CriticFeedback, GeneratedDag};
use crate::render::{html_escape, layout, node_verdict, short_labels};

const NODE_W: usize = 150;
const NODE_H: usize = 40;
const GAP_X: usize = 60;
const GAP_Y: usize = 18;
const PAD: usize = 10;

fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(max - 1).collect();
    cut.push('…');
    cut
}

/// The SVG of `dag` with verdicts from `feedback`.
pub fn dag_svg(dag: &GeneratedDag, feedback: Option<&CriticFeedback>) -> String {
    let placed = layout(dag);
    let width = PAD * 2 + placed.columns * NODE_W + placed.columns.saturating_sub(1) * GAP_X;
    let height = PAD * 2 + placed.rows * NODE_H + placed.rows.saturating_sub(1) * GAP_Y;
    let origin = |column: usize, row: usize| (PAD + column * (NODE_W + GAP_X), PAD + row * (NODE_H + GAP_Y));
    let mut svg = format!(
        "<svg class=\"dag\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\">"
    );
    for &(from, to) in &placed.edges {
        let (a, b) = (&placed.nodes[from], &placed.nodes[to]);
        let (ax, ay) = origin(a.column, a.row);
        let (bx, by) = origin(b.column, b.row);
        let (x1, y1, x2, y2) = (ax + NODE_W, ay + NODE_H / 2, bx, by + NODE_H / 2);
        let mid = (x1 + x2) / 2;
        let _ = write!(svg, "<path class=\"edge\" d=\"M{x1},{y1} C{mid},{y1} {mid},{y2} {x2},{y2}\"/>");
    }
    let ids: Vec<&str> = placed.nodes.iter().map(|n| n.node_id.as_str()).collect();
    let labels = short_labels(&ids, 18);
    for (node, label) in placed.nodes.iter().zip(&labels) {
        let (x, y) = origin(node.column, node.row);
        let verdict = node_verdict(feedback, &node.node_id);
        let final_class = if node.is_final { " final" } else { "" };
        let operation = dag.node(&node.node_id).map(|n| n.operation.as_str()).unwrap_or_default();
        let _ = write!(
            svg,
            "<g class=\"node {}{final_class}\"><title>{}</title><rect x=\"{x}\" y=\"{y}\" width=\"{NODE_W}\" height=\"{NODE_H}\" rx=\"6\"/><text x=\"{}\" y=\"{}\">{}</text><text class=\"op\" x=\"{}\" y=\"{}\">{}</text></g>",
            verdict.class(),
            html_escape(&format!("{}: {operation}", node.node_id)),
            x + 8,
            y + 16,
            html_escape(label),
            x + 8,
            y + 31,
            html_escape(&truncate(operation, 19)),
        );
    }
    svg.push_str("</svg>");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Finding, FindingSource, Severity};
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
        let svg = dag_svg(&dag, Some(&feedback));
        assert_eq!(svg.matches("<path class=\"edge\"").count(), 1);
        assert!(svg.contains("class=\"node failed\""));
        assert!(svg.contains("class=\"node fine final\""));
        assert!(svg.contains("load &lt;rows&gt;"));
    }
}
