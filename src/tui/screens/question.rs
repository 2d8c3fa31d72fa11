//! One question: its attempts and iterations with verdicts, the DAG of the
//! selected iteration, the selected node's code with the findings that blame
//! it, and tabs for the feedback, node outputs and the LLM exchange.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, List, ListItem, ListState, Paragraph, Tabs, Wrap};

use crate::engine::{Iteration, preview};
use crate::render::layout;
use crate::tui::app::{App, Tab};
use crate::tui::widgets::{code_view, dag_graph};

fn iterations_list(frame: &mut Frame, area: Rect, app: &App) {
    let t = &app.theme;
    let items: Vec<ListItem> = app
        .iterations()
        .iter()
        .map(|(attempt, it)| {
            let (verdict, style) = match &it.feedback {
                Some(f) if f.is_approved => ("approved", t.fg("status_approved")),
                Some(_) => ("rejected", t.fg("status_rejected")),
                None => ("…", t.fg("status_working")),
            };
            let findings = it.feedback.as_ref().map_or(0, |f| f.findings.len());
            ListItem::new(Line::from(vec![
                Span::styled(format!("a{} it{} ", attempt.number, it.number), t.fg("text")),
                Span::styled(verdict, style),
                Span::styled(format!(" {findings}⚑"), t.fg("muted")),
            ]))
        })
        .collect();
    let title =
        app.current_question().map_or(" iterations ".into(), |q| format!(" {} · {} ", q.question.id, q.status.label()));
    let list = List::new(items)
        .block(Block::default().borders(Borders::ALL).title(title).border_style(t.fg("border")))
        .highlight_style(t.selected());
    let mut state = ListState::default().with_selected(Some(app.iteration));
    frame.render_stateful_widget(list, area, &mut state);
}

fn feedback_lines(app: &App, it: &Iteration) -> Vec<Line<'static>> {
    let t = &app.theme;
    let Some(feedback) = &it.feedback else { return vec![Line::from(Span::styled("no verdict yet", t.fg("muted")))] };
    let mut lines: Vec<Line<'static>> =
        feedback.overall_reasoning.lines().map(|l| Line::from(Span::styled(l.to_string(), t.fg("text")))).collect();
    for layer in &feedback.layer_validations {
        let (mark, style) =
            if layer.is_valid { ("✓", t.fg("status_passed")) } else { ("✗", t.fg("status_failed")) };
        lines.push(Line::from(vec![
            Span::styled(format!("{mark} layer {} ({}) ", layer.layer_index, layer.nodes_in_layer.join(", ")), style),
            Span::styled(layer.issues.join("; "), t.fg("text")),
        ]));
    }
    for finding in feedback.findings.iter().filter(|f| f.node_id.is_none()) {
        lines.push(Line::from(Span::styled(
            format!("[{}] {}: {}", finding.source.label(), finding.rule, finding.message),
            t.fg("node_flagged"),
        )));
    }
    for suggestion in &feedback.suggestions {
        lines.push(Line::from(Span::styled(format!("→ {suggestion}"), t.fg("accent"))));
    }
    lines
}

fn output_lines(app: &App, it: &Iteration) -> Vec<Line<'static>> {
    let t = &app.theme;
    let Some(trial) = &it.trial else { return vec![Line::from(Span::styled("not run", t.fg("muted")))] };
    let mut lines = Vec::new();
    let latest = app.current_question().and_then(|q| q.latest());
    if let Some(narrative) = latest.and_then(|a| a.narrative.as_ref()) {
        lines.push(Line::from(Span::styled(format!("“{narrative}”"), t.fg("text").add_modifier(Modifier::ITALIC))));
    }
    for grade in latest.map(|a| a.grades.as_slice()).unwrap_or_default() {
        let (mark, style) =
            if grade.passed { ("✓ right", t.fg("status_passed")) } else { ("✗ wrong", t.fg("status_failed")) };
        lines.push(Line::from(vec![
            Span::styled(format!("{mark} ({}) ", grade.method), style.add_modifier(Modifier::BOLD)),
            Span::styled(grade.error.clone().unwrap_or_else(|| grade.reason.clone()), t.fg("text")),
        ]));
    }
    for (node, value) in &trial.node_outputs {
        lines.push(Line::from(vec![
            Span::styled(format!("{node}: "), t.fg("accent")),
            Span::styled(preview(value, 400), t.fg("text")),
        ]));
        if let Some(printed) = trial.printed.get(node) {
            lines.push(Line::from(Span::styled(format!("  printed: {}", printed.trim_end()), t.fg("muted"))));
        }
    }
    if let Some(error) = &trial.error {
        lines.push(Line::from(Span::styled(error.clone(), t.fg("status_failed"))));
    }
    for line in trial.traceback.iter().flat_map(|tb| tb.lines()) {
        lines.push(Line::from(Span::styled(line.to_string(), t.fg("status_failed"))));
    }
    lines
}

fn llm_lines(app: &App, it: &Iteration) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut lines = Vec::new();
    for call in it.calls.iter().filter_map(|id| app.state.calls.get(id)) {
        let layer = call.key.layer.map(|l| format!(" layer {l}")).unwrap_or_default();
        let status = match (&call.error, call.finished) {
            (Some(e), _) => format!("failed: {e}"),
            (None, true) => {
                format!("{} tokens · {} ms · {} retries", call.usage.total(), call.latency_ms, call.retries)
            }
            (None, false) => "streaming…".into(),
        };
        lines.push(Line::from(Span::styled(
            format!("── {}{layer} · {status}", call.key.role.label()),
            t.fg("accent").add_modifier(Modifier::BOLD),
        )));
        if let Some(prompt) = call.messages.iter().rev().find(|m| m.role == "user") {
            lines.push(Line::from(Span::styled("prompt:", t.fg("muted"))));
            lines.extend(
                prompt.content.lines().take(12).map(|l| Line::from(Span::styled(l.to_string(), t.fg("muted")))),
            );
        }
        lines.push(Line::from(Span::styled("response:", t.fg("muted"))));
        lines.extend(call.response.lines().take(40).map(|l| Line::from(Span::styled(l.to_string(), t.fg("text")))));
    }
    lines
}

/// Draw the question screen into `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let Some((_, it)) = app.current_iteration() else {
        frame.render_widget(Paragraph::new("this question has not started yet"), area);
        return;
    };
    let graph_rows = it.dag.as_ref().map_or(1, |d| layout(d).rows as u16);
    let top_height = (graph_rows * 4 + 1).clamp(6, area.height / 2);
    let [top, middle, bottom] =
        Layout::vertical([Constraint::Length(top_height), Constraint::Min(6), Constraint::Percentage(30)]).areas(area);
    let [list_area, graph_area] = Layout::horizontal([Constraint::Length(26), Constraint::Min(10)]).areas(top);
    iterations_list(frame, list_area, app);
    let graph_block = Block::default().borders(Borders::ALL).title(" DAG ").border_style(app.theme.fg("border"));
    let inner = graph_block.inner(graph_area);
    frame.render_widget(graph_block, graph_area);
    match &it.dag {
        Some(dag) => {
            dag_graph::draw(frame.buffer_mut(), inner, dag, it.feedback.as_ref(), app.node, &app.theme);
            if let Some(node) = dag.nodes.get(app.node) {
                code_view::draw(frame, middle, app, node, it.feedback.as_ref());
            }
        }
        None => {
            let text = it.feedback.as_ref().map_or("building…".to_string(), |f| f.specific_errors.join("\n"));
            frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), inner);
        }
    }
    let titles: Vec<&str> = Tab::ALL.iter().map(|t| t.title()).collect();
    let selected = Tab::ALL.iter().position(|t| *t == app.tab).unwrap_or(0);
    let [tabs_area, detail_area] = Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(bottom);
    frame.render_widget(Tabs::new(titles).select(selected).highlight_style(app.theme.selected()), tabs_area);
    let lines = match app.tab {
        Tab::Feedback => feedback_lines(app, it),
        Tab::Outputs => output_lines(app, it),
        Tab::Llm => llm_lines(app, it),
    };
    let block = Block::default().borders(Borders::TOP).border_style(app.theme.fg("border"));
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }).block(block), detail_area);
}
