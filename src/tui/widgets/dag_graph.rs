//! The DAG drawn in the terminal: layers left to right, nodes as boxes
//! coloured by what the critic said of them (with the final node's ★ and each
//! node's finding count) or, on the diff screen, by how they changed; edges
//! as connectors. The pane pans to keep the selected node in view, says on
//! its border how many nodes lie beyond each edge, and draws the selected
//! node's inputs and outputs over the other edges, which are dimmed: which
//! node feeds which can always be read for the selection.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};

use crate::domain::{CriticFeedback, GeneratedDag, NodeChange};
use crate::render::{DagLayout, NodeVerdict, layout, node_verdict, short_labels};
use crate::tui::text::{fit, width};
use crate::tui::theme::{Ink, Theme};

const BOX_W: i32 = 18;
const BOX_H: i32 = 3;
const GAP_X: i32 = 5;
const GAP_Y: i32 = 1;
/// Columns inside a box's borders.
const INNER: usize = (BOX_W - 2) as usize;

/// Where the pane shows the graph: the canvas point at its top-left corner.
struct View {
    area: Rect,
    x: i32,
    y: i32,
}

impl View {
    /// The pane over `placed`, panned so that node `selected` is in view
    /// (centred on it when the graph is larger than the pane).
    fn new(area: Rect, placed: &DagLayout, selected: usize) -> Self {
        let canvas_w = placed.columns as i32 * (BOX_W + GAP_X) - GAP_X;
        let canvas_h = placed.rows as i32 * (BOX_H + GAP_Y) - GAP_Y;
        let (node_x, node_y) = placed.nodes.get(selected).map_or((0, 0), |n| origin(n.column, n.row));
        let pan = |canvas: i32, pane: i32, node: i32, size: i32| {
            if canvas <= pane { 0 } else { (node + size / 2 - pane / 2).clamp(0, canvas - pane) }
        };
        Self {
            area,
            x: pan(canvas_w, i32::from(area.width), node_x, BOX_W),
            y: pan(canvas_h, i32::from(area.height), node_y, BOX_H),
        }
    }

    /// Write `text` at canvas point (`x`, `y`); what falls outside the pane is cut.
    fn put(&self, buf: &mut Buffer, x: i32, y: i32, text: &str, style: Style) {
        let (screen_y, mut screen_x) = (y - self.y + i32::from(self.area.y), x - self.x + i32::from(self.area.x));
        if screen_y < i32::from(self.area.y) || screen_y >= i32::from(self.area.bottom()) {
            return;
        }
        for c in text.chars() {
            let w = width(c.encode_utf8(&mut [0; 4])) as i32;
            if screen_x >= i32::from(self.area.x) && screen_x + w <= i32::from(self.area.right()) {
                buf.set_string(screen_x as u16, screen_y as u16, c.encode_utf8(&mut [0; 4]), style);
            }
            screen_x += w;
        }
    }

    /// How many of `placed`'s nodes lie, wholly or partly, beyond each edge
    /// of the pane: left, right, above, below.
    fn beyond(&self, placed: &DagLayout) -> [usize; 4] {
        let (w, h) = (i32::from(self.area.width), i32::from(self.area.height));
        let mut counts = [0; 4];
        for node in &placed.nodes {
            let (x, y) = origin(node.column, node.row);
            counts[0] += usize::from(x < self.x);
            counts[1] += usize::from(x + BOX_W > self.x + w);
            counts[2] += usize::from(y < self.y);
            counts[3] += usize::from(y + BOX_H > self.y + h);
        }
        counts
    }
}

/// Canvas point of the top-left corner of the box at `column`, `row`.
fn origin(column: usize, row: usize) -> (i32, i32) {
    let at = |index: usize, step: i32| i32::try_from(index).unwrap_or(i32::MAX / 64).saturating_mul(step);
    (at(column, BOX_W + GAP_X), at(row, BOX_H + GAP_Y))
}

/// Directions a connector cell leads in, as bits.
const UP: u8 = 1;
const DOWN: u8 = 2;
const LEFT: u8 = 4;
const RIGHT: u8 = 8;

/// Box-drawing connectors and the directions each leads in.
const CONNECTORS: [(&str, u8); 11] = [
    ("─", LEFT | RIGHT),
    ("│", UP | DOWN),
    ("┐", LEFT | DOWN),
    ("┘", LEFT | UP),
    ("┌", RIGHT | DOWN),
    ("└", RIGHT | UP),
    ("┬", LEFT | RIGHT | DOWN),
    ("┴", LEFT | RIGHT | UP),
    ("├", UP | DOWN | RIGHT),
    ("┤", UP | DOWN | LEFT),
    ("┼", UP | DOWN | LEFT | RIGHT),
];

/// The directions the connector `symbol` leads in (none for anything else).
fn directions(symbol: &str) -> u8 {
    CONNECTORS.iter().find(|(glyph, _)| *glyph == symbol).map_or(0, |&(_, ways)| ways)
}

/// The connector that leads in `ways`.
fn connector(ways: u8) -> &'static str {
    match CONNECTORS.iter().find(|&&(_, w)| w == ways) {
        Some((glyph, _)) => glyph,
        None if ways & (UP | DOWN) == 0 => "─",
        None if ways & (LEFT | RIGHT) == 0 => "│",
        None => "┼",
    }
}

impl View {
    /// Add a connector leading in `ways` at canvas point (`x`, `y`), joined
    /// with what edges drawn before left there: two edges that meet or cross
    /// show as `┬`, `├`, `┼` …, and a lone edge keeps its corners.
    fn join(&self, buf: &mut Buffer, x: i32, y: i32, ways: u8, style: Style) {
        let (screen_x, screen_y) = (x - self.x + i32::from(self.area.x), y - self.y + i32::from(self.area.y));
        let inside = |at: i32, from: u16, to: u16| at >= i32::from(from) && at < i32::from(to);
        if !inside(screen_x, self.area.x, self.area.right()) || !inside(screen_y, self.area.y, self.area.bottom()) {
            return;
        }
        let cell = (screen_x as u16, screen_y as u16);
        let ways = ways | buf.cell(cell).map_or(0, |c| directions(c.symbol()));
        self.put(buf, x, y, connector(ways), style);
    }
}

/// Draw one edge from box `from` to box `to`: out of the source's right side,
/// down or up in the gap after it, into the target's left side.
fn edge(buf: &mut Buffer, view: &View, placed: &DagLayout, (from, to): (usize, usize), style: Style) {
    let (a, b) = (&placed.nodes[from], &placed.nodes[to]);
    let ((ax, ay), (bx, by)) = (origin(a.column, a.row), origin(b.column, b.row));
    let (start_x, start_y, end_y) = (ax + BOX_W, ay + 1, by + 1);
    let turn_x = start_x + GAP_X / 2;
    for x in start_x..turn_x {
        view.join(buf, x, start_y, LEFT | RIGHT, style);
    }
    let vertical = match end_y.cmp(&start_y) {
        std::cmp::Ordering::Greater => DOWN,
        std::cmp::Ordering::Less => UP,
        std::cmp::Ordering::Equal => 0,
    };
    if vertical == 0 {
        view.join(buf, turn_x, start_y, LEFT | RIGHT, style);
    } else {
        view.join(buf, turn_x, start_y, LEFT | vertical, style);
        for y in start_y.min(end_y) + 1..start_y.max(end_y) {
            view.join(buf, turn_x, y, UP | DOWN, style);
        }
        view.join(buf, turn_x, end_y, RIGHT | (UP | DOWN) & !vertical, style);
    }
    for x in turn_x + 1..bx - 1 {
        view.join(buf, x, end_y, LEFT | RIGHT, style);
    }
    view.put(buf, bx - 1, end_y, "▶", style);
}

/// What the boxes are coloured by.
#[derive(Clone, Copy)]
pub enum Colouring<'a> {
    /// What the critic said of each node (and how many findings blame it).
    Verdicts(Option<&'a CriticFeedback>),
    /// How each node changed since the iteration before (`+` added, `~` changed).
    Changes(&'a [NodeChange]),
}

impl Colouring<'_> {
    /// The ink, the mark before the label and the footer note of `node_id`.
    fn of(self, node_id: &str) -> (Ink, &'static str, Option<usize>) {
        match self {
            Colouring::Verdicts(feedback) => {
                let ink = match node_verdict(feedback, node_id) {
                    NodeVerdict::Fine => Ink::NodeFine,
                    NodeVerdict::Flagged => Ink::NodeFlagged,
                    NodeVerdict::Failed => Ink::NodeFailed,
                };
                (ink, "", feedback.map(|f| f.findings_for_node(node_id).count()))
            }
            Colouring::Changes(changes) => match changes.iter().find(|c| c.node_id() == node_id) {
                Some(NodeChange::Added { .. }) => (Ink::DiffLineAdd, "+ ", None),
                Some(NodeChange::Changed { .. }) => (Ink::NodeFlagged, "~ ", None),
                _ => (Ink::Muted, "", None),
            },
        }
    }
}

/// Draw `dag` into `area` of `buf`, coloured by `colouring`; `selected` is
/// the index of the selected node.
pub fn draw(buf: &mut Buffer, area: Rect, dag: &GeneratedDag, colouring: Colouring, selected: usize, theme: &Theme) {
    let placed = layout(dag);
    let view = View::new(area, &placed, selected);
    let touches = |&(from, to): &(usize, usize)| from == selected || to == selected;
    let dim = theme.fg(Ink::Border).add_modifier(Modifier::DIM);
    for pair in placed.edges.iter().filter(|e| !touches(e)) {
        edge(buf, &view, &placed, *pair, dim);
    }
    let lit = theme.fg(Ink::Accent).add_modifier(Modifier::BOLD);
    for pair in placed.edges.iter().filter(|e| touches(e)) {
        edge(buf, &view, &placed, *pair, lit);
    }
    let ids: Vec<&str> = placed.nodes.iter().map(|n| n.node_id.as_str()).collect();
    let labels = short_labels(&ids, INNER - 2);
    for (index, node) in placed.nodes.iter().enumerate() {
        let (x, y) = origin(node.column, node.row);
        let (ink, change, findings) = colouring.of(&node.node_id);
        let mut style = theme.fg(ink);
        if index == selected {
            style = style.add_modifier(Modifier::REVERSED | Modifier::BOLD);
        }
        let mark = if node.is_final { " ★" } else { "" };
        let room = INNER - 2 - change.len().min(2);
        let label = format!("{change}{}{mark}", fit(&labels[index], room));
        // Centred by display width (`{:^}` would count characters).
        let pad = INNER.saturating_sub(width(&label));
        let label = format!("{}{label}{}", " ".repeat(pad / 2), " ".repeat(pad - pad / 2));
        view.put(buf, x, y, &format!("┌{}┐", "─".repeat(INNER)), style);
        view.put(buf, x, y + 1, &format!("│{label}│"), style);
        let layer = dag.node(&node.node_id).map_or(0, |n| n.layer);
        let footer = match findings {
            Some(count) if count > 0 => format!(" L{layer} · {count}⚑ "),
            _ => format!(" L{layer} "),
        };
        view.put(buf, x, y + 2, &format!("└{footer:─^INNER$}┘"), style);
    }
    indicators(buf, &view, view.beyond(&placed), theme);
}

/// `◀n`, `▼n`, `n▶` on the border below `area` and `▲n` on the border above
/// it, for the nodes beyond each edge of the pane (the border lines are the
/// pane's block; nothing is drawn where the buffer has no such line).
fn indicators(buf: &mut Buffer, view: &View, [left, right, above, below]: [usize; 4], theme: &Theme) {
    let (area, whole) = (view.area, buf.area);
    let style = theme.fg(Ink::Accent).add_modifier(Modifier::BOLD);
    let mut mark = |x: u16, y: u16, text: &str| {
        if y >= whole.y && y < whole.bottom() && x >= whole.x && x < whole.right() {
            buf.set_stringn(x, y, text, usize::from(whole.right() - x), style);
        }
    };
    let bottom = area.bottom();
    if left > 0 {
        mark(area.x + 1, bottom, &format!("◀{left}"));
    }
    if below > 0 {
        mark(area.x + area.width / 2, bottom, &format!("▼{below}"));
    }
    if right > 0 {
        let text = format!("{right}▶");
        mark(area.right().saturating_sub(width(&text) as u16 + 1), bottom, &text);
    }
    if above > 0 && area.y > whole.y {
        let text = format!("▲{above}");
        mark(area.right().saturating_sub(width(&text) as u16 + 1), area.y - 1, &text);
    }
}
