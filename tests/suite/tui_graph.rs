//! The DAG graph at the sizes real models produce: DAGs of 1, 3, 8, 14 and 25
//! nodes (wide layers, long ids with common prefixes, a diamond, a node fed by
//! four others) on the question screen at 80×24 and 160×48. Every node can be
//! selected and is then drawn inside the pane; the selected node's edges are
//! drawn lit; layout crossings stay at or below what was measured.

use crate::common;

use common::press;
use eval_dag::domain::GeneratedDag;
use eval_dag::render::{layout, short_labels};
use eval_dag::run::{EngineEvent, RunState};
use eval_dag::tui::{App, Theme, draw};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use serde_json::json;

/// The test DAGs, with the most crossings their layout may have (before the
/// crossing reduction: 0, 0, 3, 7 and 41).
const GRAPHS: [(&str, usize); 5] = [("graph-1", 0), ("graph-3", 0), ("graph-8", 1), ("graph-14", 6), ("graph-25", 16)];
const SIZES: [(u16, u16); 2] = [(80, 24), (160, 48)];
/// The accent colour of the dark theme (lit edges).
const ACCENT: Color = Color::Rgb(0x88, 0xc0, 0xd0);

fn graph(name: &str) -> GeneratedDag {
    let path = common::root().join(format!("tests/fixtures/graphs/{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A run whose one question's first iteration is `dag`, rejected with a
/// runtime error on its first node and a semantic finding on its last.
fn app_with(dag: &GeneratedDag) -> App {
    let first = &dag.nodes[0].node_id;
    let last = &dag.nodes[dag.nodes.len() - 1].node_id;
    let finding = |node: &str, source: &str, rule: &str| json!({"node_id": node, "layer": null, "rule": rule, "source": source, "message": format!("{rule} in {node}")});
    let feedback = json!({"is_approved": false, "overall_reasoning": "two nodes are wrong", "findings": [
        finding(first, "trial_run", "runtime_error"), finding(last, "semantic", "semantic_issue")]});
    let at = json!({"question_id": "q_graph", "attempt": 1, "iteration": 1});
    let question = json!({"id": "q_graph", "question": "A question over a real-sized DAG?", "difficulty_rank": 1,
        "difficulty_level": "hard"});
    let mut state = RunState::default();
    let events = [
        json!({"type": "questions_generated", "questions": [question]}),
        json!({"type": "question_started", "at": {"question_id": "q_graph", "attempt": 1}}),
        json!({"type": "stage_started", "at": at, "stage": "build"}),
        json!({"type": "dag_built", "at": at, "dag": dag}),
        json!({"type": "critic_verdict", "at": at, "feedback": feedback}),
    ];
    for (t, value) in events.into_iter().enumerate() {
        state.apply(t as u64, &serde_json::from_value::<EngineEvent>(value).unwrap());
    }
    let mut app = App::new(state, Theme::dark(), None, None);
    press(&mut app, "\n");
    app
}

fn frame(app: &App, width: u16, height: u16) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| draw(frame, app)).unwrap();
    terminal.backend().buffer().clone()
}

fn text(buffer: &Buffer) -> String {
    let area = buffer.area;
    (0..area.height)
        .map(|y| {
            (0..area.width).map(|x| buffer[(x, y)].symbol().to_string()).collect::<String>().trim_end().to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The selected node's box: the cells drawn reversed (nothing else on the
/// question screen is) as `(left x, label row, text of that row)`.
fn selected_box(buffer: &Buffer) -> Option<(u16, u16, String)> {
    let area = buffer.area;
    (0..area.height).find_map(|y| {
        let xs: Vec<u16> = (0..area.width).filter(|&x| buffer[(x, y)].modifier.contains(Modifier::REVERSED)).collect();
        let row: String = xs.iter().map(|&x| buffer[(x, y)].symbol()).collect();
        (row.starts_with('│')).then(|| (xs[0], y, row))
    })
}

#[test]
fn crossing_reduction_keeps_every_test_dag_at_or_below_its_measured_crossings() {
    for (name, most) in GRAPHS {
        let crossings = layout(&graph(name)).crossings();
        assert!(crossings <= most, "{name}: {crossings} crossings, at most {most}");
    }
}

#[test]
fn the_graphs_at_both_sizes_with_the_selection_at_the_start_and_at_the_far_end() {
    for (name, _) in GRAPHS {
        let dag = graph(name);
        for (width, height) in SIZES {
            let mut app = app_with(&dag);
            insta::assert_snapshot!(format!("{name}_{width}x{height}"), text(&frame(&app, width, height)));
            if dag.nodes.len() >= 14 {
                // The final node starts off-screen: selecting it pans the pane to it.
                press(&mut app, &"j".repeat(dag.nodes.len()));
                insta::assert_snapshot!(format!("{name}_last_{width}x{height}"), text(&frame(&app, width, height)));
            }
        }
    }
}

#[test]
fn every_node_can_be_selected_and_is_then_drawn_inside_the_pane_with_its_edges_lit() {
    for (name, _) in GRAPHS {
        let dag = graph(name);
        let placed = layout(&dag);
        let ids: Vec<&str> = dag.nodes.iter().map(|n| n.node_id.as_str()).collect();
        let labels = short_labels(&ids, 14);
        for (width, height) in SIZES {
            let mut app = app_with(&dag);
            let mut visited = std::collections::BTreeSet::new();
            // j walks the graph in reading order: a layer top to bottom, then the next.
            for step in 0..labels.len() {
                if step > 0 {
                    press(&mut app, "j");
                }
                let index = app.question().unwrap().selection.node;
                assert!(visited.insert(index), "{name}: j reaches a new node each time");
                let label = &labels[index];
                let buffer = frame(&app, width, height);
                let (x, y, row) = selected_box(&buffer)
                    .unwrap_or_else(|| panic!("{name} {width}x{height}: node {index} is drawn\n{}", text(&buffer)));
                assert!(row.contains(label.as_str()), "{name} {width}x{height}: {label:?} selected, shown {row:?}");
                let lit = |x: u16, symbol: &str| {
                    let cell = &buffer[(x, y)];
                    cell.symbol() == symbol && cell.fg == ACCENT && cell.modifier.contains(Modifier::BOLD)
                };
                let has_inputs = placed.edges.iter().any(|&(_, to)| to == index);
                let has_outputs = placed.edges.iter().any(|&(from, _)| from == index);
                if has_inputs {
                    assert!(x > 0 && lit(x - 1, "▶"), "{name} {width}x{height}: {label}'s inputs arrive lit");
                }
                let right = x + row.chars().count() as u16;
                if has_outputs && right < width - 1 {
                    assert!(lit(right, "─"), "{name} {width}x{height}: {label}'s outputs leave lit");
                }
            }
            assert_eq!(visited.len(), dag.nodes.len(), "{name}: every node was reached");
        }
    }
}

#[test]
fn arrows_move_along_the_graph_tab_moves_the_focus_and_z_zooms_the_focused_pane() {
    let dag = graph("graph-14");
    let placed = layout(&dag);
    let column = |app: &App| placed.nodes[app.question().unwrap().selection.node].column;
    let mut app = app_with(&dag);
    assert_eq!(column(&app), 0);
    press(&mut app, "→→");
    assert_eq!(column(&app), 2, "→ goes a layer further");
    let here = app.question().unwrap().selection.node;
    press(&mut app, "[");
    let input = app.question().unwrap().selection.node;
    assert!(placed.edges.contains(&(input, here)), "[ selects an input of the node");
    press(&mut app, "]");
    assert!(placed.edges.contains(&(input, app.question().unwrap().selection.node)), "] selects a node it feeds");
    press(&mut app, "←");
    assert_eq!(column(&app), 1, "← goes a layer back");
    let selected = app.question().unwrap().selection.node;
    press(&mut app, "\t");
    press(&mut app, "j↓→←");
    assert_eq!(
        app.question().unwrap().selection.node,
        selected,
        "with the code focused, arrows leave the selection alone"
    );
    press(&mut app, "⇤↓");
    assert_ne!(app.question().unwrap().selection.node, selected, "Shift-Tab gives the focus back to the graph");
    press(&mut app, "↑\t");
    press(&mut app, "\tz");
    let zoomed = text(&frame(&app, 80, 24));
    assert!(zoomed.contains("feedback") && !zoomed.contains("┌ DAG"), "the detail fills the screen: {zoomed}");
    press(&mut app, "z\tz");
    let zoomed = text(&frame(&app, 80, 24));
    assert!(zoomed.contains("┌ DAG") && !zoomed.contains(" feedback │"), "the graph fills the screen: {zoomed}");
}
