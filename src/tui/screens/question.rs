//! One question: its attempts and iterations with verdicts, the DAG of the
//! selected iteration, the selected node's code with the findings that blame
//! it, and tabs for the feedback, the node outputs and the conversation with
//! the LLM across all iterations. `z` lets the tab fill the screen.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, List, ListItem, ListState, Paragraph, Tabs, Wrap};

use crate::engine::{Iteration, plural, preview};
use crate::render::layout;
use crate::tui::app::{App, Tab};
use crate::tui::widgets::code_view::source_color;
use crate::tui::widgets::{code_view, conversation, dag_graph};

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
    for finding in &feedback.findings {
        lines.push(Line::from(vec![
            Span::styled(format!("[{}] ", finding.source.label()), t.fg(source_color(finding.source))),
            Span::styled(format!("{} {}: ", finding.node_id.as_deref().unwrap_or("DAG"), finding.rule), t.fg("text")),
            Span::styled(finding.message.lines().next().unwrap_or_default().to_string(), t.fg("node_flagged")),
        ]));
    }
    for suggestion in &feedback.suggestions {
        lines.push(Line::from(Span::styled(format!("→ {suggestion}"), t.fg("accent"))));
    }
    lines
}

fn output_lines(app: &App, it: &Iteration) -> Vec<Line<'static>> {
    let t = &app.theme;
    let Some(trial) = &it.trial else { return vec![Line::from(Span::styled("not run", t.fg("muted")))] };
    let (verdict, style) =
        if trial.success { ("ok", t.fg("status_passed")) } else { ("failed", t.fg("status_failed")) };
    let mut lines = vec![Line::from(Span::styled(
        format!("trial run {verdict} after {:.0} ms", trial.execution_time_ms),
        style.add_modifier(Modifier::BOLD),
    ))];
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
    // The grades judge the attempt's final answer: shown under the approved iteration that produced it.
    let (attempt, _) = app.current_iteration().expect("an iteration is selected");
    let approved = it.feedback.as_ref().is_some_and(|f| f.is_approved);
    if let (true, Some(answer)) = (approved, &attempt.final_answer) {
        lines.push(Line::from(vec![
            Span::styled("final answer: ", t.fg("accent").add_modifier(Modifier::BOLD)),
            Span::styled(preview(answer, 400), t.fg("text")),
        ]));
        if let Some(narrative) = &attempt.narrative {
            lines.push(Line::from(Span::styled(format!("“{narrative}”"), t.fg("text").add_modifier(Modifier::ITALIC))));
        }
        for grade in &attempt.grades {
            let (mark, style) =
                if grade.passed { ("✓ right", t.fg("status_passed")) } else { ("✗ wrong", t.fg("status_failed")) };
            lines.push(Line::from(vec![
                Span::styled(format!("{mark} ({}) ", grade.method), style.add_modifier(Modifier::BOLD)),
                Span::styled(grade.error.clone().unwrap_or_else(|| grade.reason.clone()), t.fg("text")),
            ]));
        }
    }
    lines
}

/// Every line of the selected tab, top to bottom.
pub fn detail_lines(app: &App) -> Vec<Line<'static>> {
    let Some((_, it)) = app.current_iteration() else { return Vec::new() };
    match app.tab {
        Tab::Feedback => feedback_lines(app, it),
        Tab::Outputs => output_lines(app, it),
        Tab::Conversation => app.current_question().map_or_else(Vec::new, |q| {
            conversation::build(&app.state, q, app.iteration, app.expanded, &app.theme).lines
        }),
    }
}

/// Where the selected iteration starts in the selected tab (its part of the
/// conversation; 0 elsewhere).
pub fn iteration_anchor(app: &App) -> usize {
    match (app.tab, app.current_question()) {
        (Tab::Conversation, Some(q)) => {
            let log = conversation::build(&app.state, q, app.iteration, app.expanded, &app.theme);
            log.anchors.get(app.iteration).copied().unwrap_or(0)
        }
        _ => 0,
    }
}

fn detail(frame: &mut Frame, area: Rect, app: &App) {
    let t = &app.theme;
    let titles: Vec<&str> = Tab::ALL.iter().map(|t| t.title()).collect();
    let selected = Tab::ALL.iter().position(|t| *t == app.tab).unwrap_or(0);
    let [tabs_area, body] = Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(area);
    let lines = detail_lines(app);
    let position = if app.scroll > 0 || lines.len() > body.height as usize {
        format!("line {} of {} · ", app.scroll + 1, lines.len())
    } else {
        String::new()
    };
    let context = app
        .current_iteration()
        .map(|(a, it)| format!("{position}attempt {} · iteration {} ", a.number, it.number))
        .unwrap_or_default();
    let [tabs_area, context_area] =
        Layout::horizontal([Constraint::Min(10), Constraint::Length(context.chars().count() as u16)]).areas(tabs_area);
    frame.render_widget(Tabs::new(titles).select(selected).highlight_style(t.selected()), tabs_area);
    frame.render_widget(Paragraph::new(Span::styled(context, t.fg("muted"))), context_area);
    let block = Block::default().borders(Borders::TOP).border_style(t.fg("border"));
    let shown: Vec<Line> = lines.into_iter().skip(app.scroll).collect();
    frame.render_widget(Paragraph::new(shown).wrap(Wrap { trim: false }).block(block), body);
}

/// Draw the question screen into `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let Some((_, it)) = app.current_iteration() else {
        frame.render_widget(Paragraph::new("this question has not started yet"), area);
        return;
    };
    if app.zoom {
        detail(frame, area, app);
        return;
    }
    let graph_rows = it.dag.as_ref().map_or(1, |d| layout(d).rows as u16);
    let top_height = (graph_rows * 4 + 1).clamp(6, area.height / 3);
    let node = it.dag.as_ref().and_then(|dag| dag.nodes.get(app.node));
    let middle_height = node.map_or(0, |n| {
        code_view::height(n, it.feedback.as_ref(), area.width).clamp(5, area.height.saturating_sub(top_height) / 2)
    });
    let [top, middle, bottom] =
        Layout::vertical([Constraint::Length(top_height), Constraint::Length(middle_height), Constraint::Min(4)])
            .areas(area);
    let [list_area, graph_area] = Layout::horizontal([Constraint::Length(26), Constraint::Min(10)]).areas(top);
    iterations_list(frame, list_area, app);
    let title = app.current_question().map_or(" DAG ".into(), |q| {
        let width = graph_area.width.saturating_sub(20) as usize;
        let text = preview(&serde_json::Value::String(q.question.question.clone()), width);
        format!(" DAG · {} · {text} ", q.question.difficulty_level.as_str())
    });
    let graph_block = Block::default().borders(Borders::ALL).title(title).border_style(app.theme.fg("border"));
    let inner = graph_block.inner(graph_area);
    frame.render_widget(graph_block, graph_area);
    match (&it.dag, node) {
        (Some(dag), Some(node)) => {
            dag_graph::draw(frame.buffer_mut(), inner, dag, it.feedback.as_ref(), app.node, &app.theme);
            code_view::draw(frame, middle, app, node, it.feedback.as_ref());
        }
        _ => {
            let text = it.feedback.as_ref().map_or("building…".to_string(), |f| {
                let errors = f.specific_errors.join("\n");
                if errors.is_empty() { format!("no DAG: {}", plural(f.findings.len(), "finding")) } else { errors }
            });
            frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), inner);
        }
    }
    detail(frame, bottom, app);
}
