//! The frontier of `compare --html`: for each axis (cost, tokens, wall time)
//! an inline SVG scatter — accuracy with its interval bars against the axis,
//! the frontier joined, each point labelled and titled with its figures (the
//! hover text) — and the table of the same figures under it. The axis is
//! switched by radio buttons styled in CSS: no script, and with none the cost
//! chart is the one drawn.

use serde::Serialize;

use crate::report::analyses::frontier::{AXES, Axis, AxisScale, Frontier, FrontierPoint};

/// The plot's size and margins, in SVG units.
const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 360.0;
const LEFT: f64 = 56.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 16.0;
const BOTTOM: f64 = 44.0;

/// One axis's chart.
#[derive(Debug, Serialize)]
struct AxisChart {
    id: &'static str,
    label: &'static str,
    log: bool,
    x_ticks: Vec<Tick>,
    y_ticks: Vec<Tick>,
    points: Vec<Dot>,
    line: String,
    unplaced: Vec<String>,
}

/// A tick: its place along its axis and its text.
#[derive(Debug, Serialize)]
struct Tick {
    at: f64,
    text: String,
}

/// A placed point.
#[derive(Debug, Serialize)]
struct Dot {
    x: f64,
    y: f64,
    low: f64,
    high: f64,
    on: bool,
    label: String,
    title: String,
}

/// A row of the table under the charts.
#[derive(Debug, Serialize)]
struct TableRow {
    label: String,
    description: String,
    name: String,
    questions: usize,
    accuracy: String,
    cost: String,
    tokens: String,
    wall: String,
    per_right: String,
    on: bool,
}

/// The frontier section of the page.
#[derive(Debug, Serialize)]
pub(super) struct FrontierView {
    heading: String,
    width: f64,
    height: f64,
    plot_left: f64,
    plot_right: f64,
    plot_top: f64,
    plot_bottom: f64,
    charts: Vec<AxisChart>,
    rows: Vec<TableRow>,
}

/// `value`'s x on the page.
fn page_x(scale: &AxisScale, value: f64) -> f64 {
    round(LEFT + scale.fraction(value) * (WIDTH - LEFT - RIGHT))
}

fn y(accuracy: f64) -> f64 {
    round(HEIGHT - BOTTOM - accuracy.clamp(0.0, 1.0) * (HEIGHT - TOP - BOTTOM))
}

/// To a tenth of a unit: the SVG stays short and stable.
fn round(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

fn chart(frontier: &Frontier, axis: Axis) -> AxisChart {
    let placed: Vec<(&FrontierPoint, f64, f64)> = frontier.placed(axis).collect();
    let scale = AxisScale::of(&placed.iter().map(|(_, x, _)| *x).collect::<Vec<_>>());
    let points = placed
        .iter()
        .map(|(p, value, accuracy)| {
            let [low, high] = p.interval.unwrap_or([*accuracy, *accuracy]);
            Dot {
                x: page_x(&scale, *value),
                y: y(*accuracy),
                low: y(low),
                high: y(high),
                on: p.on_frontier_by.on(axis),
                label: p.label.clone(),
                title: format!("{}\n{}", p.caption(), p.figures()),
            }
        })
        .collect();
    let line = frontier
        .line(axis)
        .iter()
        .filter_map(|p| Some(format!("{},{}", page_x(&scale, axis.value(p)?), y(p.accuracy?))))
        .collect::<Vec<_>>()
        .join(" ");
    let unplaced = frontier
        .points
        .iter()
        .filter(|p| axis.value(p).is_none() || p.accuracy.is_none())
        .map(|p| p.caption())
        .collect();
    AxisChart {
        id: match axis {
            Axis::Cost => "cost",
            Axis::Tokens => "tokens",
            Axis::WallTime => "wall",
        },
        label: axis.label(),
        log: scale.log,
        x_ticks: scale.ticks().into_iter().map(|v| Tick { at: page_x(&scale, v), text: axis.tick_text(v) }).collect(),
        y_ticks: (0..=4).map(|i| f64::from(i) / 4.0).map(|a| Tick { at: y(a), text: format!("{a:.2}") }).collect(),
        points,
        line,
        unplaced,
    }
}

/// The frontier section of `frontier`.
pub(super) fn frontier_view(frontier: &Frontier) -> FrontierView {
    FrontierView {
        heading: frontier.heading(),
        width: WIDTH,
        height: HEIGHT,
        plot_left: LEFT,
        plot_right: WIDTH - RIGHT,
        plot_top: TOP,
        plot_bottom: HEIGHT - BOTTOM,
        charts: AXES.into_iter().map(|axis| chart(frontier, axis)).collect(),
        rows: frontier
            .points
            .iter()
            .map(|p| TableRow {
                label: p.label.clone(),
                description: p.description(),
                name: p.name.clone(),
                questions: p.questions,
                accuracy: p.accuracy_text(),
                cost: p.cost_text(),
                tokens: crate::text::thousands(p.tokens),
                wall: p.wall_text(),
                per_right: p.per_right_text(),
                on: p.on_frontier,
            })
            .collect(),
    }
}
