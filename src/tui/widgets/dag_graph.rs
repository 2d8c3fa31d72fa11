//! The DAG drawn in the terminal: layers left to right, nodes as boxes
//! coloured by what the critic said of them, edges as connectors, the final
//! node marked with ★ and the selected node highlighted.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};

use crate::domain::{CriticFeedback, GeneratedDag};
use crate::render::layout;
use crate::render::{NodeVerdict, node_verdict};
use crate::tui::text::fit;
use crate::tui::theme::{Ink, Theme};

const BOX_W: u16 = 18;
const BOX_H: u16 = 3;
const GAP_X: u16 = 5;
const GAP_Y: u16 = 1;

fn put(buf: &mut Buffer, area: Rect, x: u16, y: u16, text: &str, style: Style) {
    if y >= area.bottom() || x >= area.right() || y < area.y || x < area.x {
        return;
    }
    let room = (area.right() - x) as usize;
    buf.set_stringn(x, y, text, room, style);
}

/// Draw `dag` into `area` of `buf`; `selected` is the index of the selected node.
pub fn draw(
    buf: &mut Buffer,
    area: Rect,
    dag: &GeneratedDag,
    feedback: Option<&CriticFeedback>,
    selected: usize,
    theme: &Theme,
) {
    let placed = layout(dag);
    // Saturating: a DAG too wide or tall for the pane lands off its edge, never overflows.
    let cell = |index: usize, size: u16| u16::try_from(index).unwrap_or(u16::MAX).saturating_mul(size);
    let origin = |column: usize, row: usize| {
        (area.x.saturating_add(cell(column, BOX_W + GAP_X)), area.y.saturating_add(cell(row, BOX_H + GAP_Y)))
    };
    for &(from, to) in &placed.edges {
        let (a, b) = (&placed.nodes[from], &placed.nodes[to]);
        let (ax, ay) = origin(a.column, a.row);
        let (bx, by) = origin(b.column, b.row);
        let (start_x, start_y, end_y) = (ax.saturating_add(BOX_W), ay.saturating_add(1), by.saturating_add(1));
        let turn_x = start_x.saturating_add(GAP_X / 2);
        let style = theme.fg(Ink::Border);
        for x in start_x..turn_x {
            put(buf, area, x, start_y, "─", style);
        }
        let (low, high) = (start_y.min(end_y), start_y.max(end_y));
        for y in low..=high {
            put(buf, area, turn_x, y, if y == start_y || y == end_y { "┼" } else { "│" }, style);
        }
        for x in turn_x.saturating_add(1)..bx.saturating_sub(1) {
            put(buf, area, x, end_y, "─", style);
        }
        put(buf, area, bx.saturating_sub(1), end_y, "▶", style);
    }
    for (index, node) in placed.nodes.iter().enumerate() {
        let (x, y) = origin(node.column, node.row);
        let color = match node_verdict(feedback, &node.node_id) {
            NodeVerdict::Fine => Ink::NodeFine,
            NodeVerdict::Flagged => Ink::NodeFlagged,
            NodeVerdict::Failed => Ink::NodeFailed,
        };
        let mut style = theme.fg(color);
        if index == selected {
            style = style.add_modifier(Modifier::REVERSED | Modifier::BOLD);
        }
        let inner = (BOX_W - 2) as usize;
        let mark = if node.is_final { " ★" } else { "" };
        let label = format!("{}{mark}", fit(&node.node_id, inner - 2));
        // Centred by display width (`{:^}` would count characters).
        let pad = inner.saturating_sub(crate::tui::text::width(&label));
        let label = format!("{}{label}{}", " ".repeat(pad / 2), " ".repeat(pad - pad / 2));
        put(buf, area, x, y, &format!("┌{}┐", "─".repeat(inner)), style);
        put(buf, area, x, y.saturating_add(1), &format!("│{label}│"), style);
        let layer = dag.node(&node.node_id).map_or(0, |n| n.layer);
        put(buf, area, x, y.saturating_add(2), &format!("└{:─^inner$}┘", format!(" L{layer} ")), style);
    }
}
