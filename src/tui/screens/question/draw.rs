//! Drawing one question: its attempts and iterations with verdicts, the DAG of
//! the selected iteration, the selected node's code with the findings that
//! blame it, and tabs for the feedback, the node outputs and the conversation
//! with the LLM across all iterations. Tab / Shift-Tab move the focus between
//! the graph, the code and the detail; `z` lets the focused pane fill the screen.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, List, ListItem, ListState, Paragraph, Tabs, Wrap};

use super::QuestionScreen;
use crate::domain::{EngineDivergence, GeneratedDag};
use crate::run::{Iteration, Outcome};
use crate::text::plural;
use crate::tui::component::Ctx;
use crate::tui::text::{clean, fit, preview, width};
use crate::tui::theme::Ink;
use crate::tui::view::{Pane, Tab};
use crate::tui::widgets::code_view::source_color;
use crate::tui::widgets::{code_view, conversation, dag_graph, pane_border};

fn iterations_list(frame: &mut Frame, area: Rect, view: &QuestionScreen, ctx: &Ctx) {
    let t = ctx.theme;
    // A consensus run names each iteration's draft.
    let drafts = ctx.state.settings.as_ref().is_some_and(|s| s.drafts() > 1);
    let items: Vec<ListItem> = view
        .selection
        .iterations(ctx.state)
        .iter()
        .map(|(attempt, it)| {
            let (verdict, style) = match &it.feedback {
                None => ("…", t.fg(Ink::StatusWorking)),
                Some(_) if attempt.outcome == Some(Outcome::FixedByHand) => ("✎ accepted", t.fg(Ink::Accent)),
                Some(_) if attempt.by_hand => ("✎ by hand", t.fg(Ink::Accent)),
                Some(f) if f.is_approved => ("approved", t.fg(Ink::StatusApproved)),
                Some(_) => ("rejected", t.fg(Ink::StatusRejected)),
            };
            let findings = it.feedback.as_ref().map_or(0, |f| f.findings.len());
            ListItem::new(Line::from(vec![
                Span::styled(
                    format!(
                        "{}a{} it{} ",
                        if drafts { format!("d{} ", attempt.draft) } else { String::new() },
                        attempt.number,
                        it.number
                    ),
                    t.fg(Ink::Text),
                ),
                Span::styled(verdict, style),
                Span::styled(format!(" {findings}⚑"), t.fg(Ink::Muted)),
            ]))
        })
        .collect();
    let title = view
        .selection
        .question(ctx.state)
        .map_or(" iterations ".into(), |q| format!(" {} · {} ", clean(&q.question.id), q.status.label()));
    let list = List::new(items)
        .block(Block::default().borders(Borders::ALL).title(title).border_style(t.fg(Ink::Border)))
        .highlight_style(t.selected());
    let mut state = ListState::default().with_selected(Some(view.selection.iteration));
    frame.render_stateful_widget(list, area, &mut state);
}

fn feedback_lines(ctx: &Ctx, it: &Iteration) -> Vec<Line<'static>> {
    let t = ctx.theme;
    let Some(feedback) = &it.feedback else {
        return vec![Line::from(Span::styled("no verdict yet", t.fg(Ink::Muted)))];
    };
    let mut lines: Vec<Line<'static>> = feedback
        .overall_reasoning
        .lines()
        .map(|l| Line::from(Span::styled(clean(l).into_owned(), t.fg(Ink::Text))))
        .collect();
    for layer in &feedback.layer_validations {
        let (mark, style) =
            if layer.is_valid { ("✓", t.fg(Ink::StatusPassed)) } else { ("✗", t.fg(Ink::StatusFailed)) };
        lines.push(Line::from(vec![
            Span::styled(
                format!("{mark} layer {} ({}) ", layer.layer_index, clean(&layer.nodes_in_layer.join(", "))),
                style,
            ),
            Span::styled(clean(&layer.issues.join("; ")).into_owned(), t.fg(Ink::Text)),
        ]));
    }
    for finding in &feedback.findings {
        lines.push(Line::from(vec![
            Span::styled(format!("[{}] ", finding.source.label()), t.fg(source_color(finding.source))),
            Span::styled(
                clean(&format!("{} {}: ", finding.node_id.as_deref().unwrap_or("DAG"), finding.rule)).into_owned(),
                t.fg(Ink::Text),
            ),
            Span::styled(
                clean(finding.message.lines().next().unwrap_or_default()).into_owned(),
                t.fg(Ink::NodeFlagged),
            ),
        ]));
    }
    for suggestion in &feedback.suggestions {
        lines.push(Line::from(Span::styled(format!("→ {}", clean(suggestion)), t.fg(Ink::Accent))));
    }
    lines
}

fn output_lines(view: &QuestionScreen, ctx: &Ctx, it: &Iteration) -> Vec<Line<'static>> {
    let t = ctx.theme;
    let Some(trial) = &it.trial else { return vec![Line::from(Span::styled("not run", t.fg(Ink::Muted)))] };
    let (verdict, style) =
        if trial.success { ("ok", t.fg(Ink::StatusPassed)) } else { ("failed", t.fg(Ink::StatusFailed)) };
    let mut lines = vec![Line::from(Span::styled(
        format!("trial run {verdict} after {:.0} ms", trial.execution_time_ms),
        style.add_modifier(Modifier::BOLD),
    ))];
    for (node, value) in &trial.node_outputs {
        lines.push(Line::from(vec![
            Span::styled(format!("{}: ", clean(node)), t.fg(Ink::Accent)),
            Span::styled(preview(value, 400), t.fg(Ink::Text)),
        ]));
        if let Some(printed) = trial.printed.get(node) {
            for line in printed.trim_end().lines() {
                lines.push(Line::from(Span::styled(format!("  printed: {}", clean(line)), t.fg(Ink::Muted))));
            }
        }
    }
    for line in trial.error.iter().chain(&trial.traceback).flat_map(|text| text.lines()) {
        lines.push(Line::from(Span::styled(clean(line).into_owned(), t.fg(Ink::StatusFailed))));
    }
    // A person's labels of this iteration's answer, the one that counts last.
    for (n, label) in it.labels.iter().enumerate() {
        let (mark, style) = if label.right {
            ("✓ labelled right", t.fg(Ink::StatusPassed))
        } else {
            ("✗ labelled wrong", t.fg(Ink::StatusFailed))
        };
        let style = if n + 1 == it.labels.len() { style.add_modifier(Modifier::BOLD) } else { t.fg(Ink::Muted) };
        let when = format!(" by a person at {:.1}s: ", label.t_ms as f64 / 1000.0);
        lines.push(Line::from(vec![
            Span::styled(mark, style),
            Span::styled(when, t.fg(Ink::Muted)),
            Span::styled(clean(&label.reason).into_owned(), t.fg(Ink::Text)),
        ]));
    }
    lines.extend(people_line(ctx, view, it.number, false));
    // The grades judge the attempt's final answer: shown under the approved
    // (or accepted) iteration that produced it.
    let attempt = view.selection.current_iteration(ctx.state).map(|(attempt, _)| attempt);
    let accepted = attempt.is_some_and(|a| a.outcome == Some(Outcome::FixedByHand));
    let approved = accepted || it.feedback.as_ref().is_some_and(|f| f.is_approved);
    if let (true, Some(attempt)) = (approved, attempt)
        && let Some(answer) = &attempt.final_answer
    {
        let label = if accepted { "final answer (fixed by hand): " } else { "final answer: " };
        lines.push(Line::from(vec![
            Span::styled(label, t.fg(Ink::Accent).add_modifier(Modifier::BOLD)),
            Span::styled(preview(answer, 400), t.fg(Ink::Text)),
        ]));
        if let Some(narrative) = &attempt.narrative {
            let narrative = format!("“{}”", clean(&narrative.replace('\n', " ")));
            lines.push(Line::from(Span::styled(narrative, t.fg(Ink::Text).add_modifier(Modifier::ITALIC))));
        }
        for grade in &attempt.grades {
            let (mark, style) = if grade.passed {
                ("✓ right", t.fg(Ink::StatusPassed))
            } else {
                ("✗ wrong", t.fg(Ink::StatusFailed))
            };
            lines.push(Line::from(vec![
                Span::styled(format!("{mark} ({}) ", grade.method), style.add_modifier(Modifier::BOLD)),
                Span::styled(clean(grade.error.as_ref().unwrap_or(&grade.reason)).into_owned(), t.fg(Ink::Text)),
            ]));
        }
        lines.extend(people_line(ctx, view, it.number, true));
        // The approved DAG run again on transformed copies of the data (`run --metamorphic`).
        for check in attempt.metamorphic.iter().flat_map(|m| &m.checks) {
            let (mark, style) = match (check.broken, check.informational) {
                (true, _) => ("✗ breaks", t.fg(Ink::StatusFailed)),
                (false, true) => ("· informs", t.fg(Ink::Muted)),
                (false, false) => ("✓ holds", t.fg(Ink::StatusPassed)),
            };
            let answer = check.answer.as_ref().map_or_else(|| "no answer".to_string(), |a| preview(a, 80));
            let note = check.note.as_deref().map(|n| format!(" — {}", clean(n))).unwrap_or_default();
            lines.push(Line::from(vec![
                Span::styled(format!("{mark} ({}) ", check.transform.label()), style.add_modifier(Modifier::BOLD)),
                Span::styled(format!("{} → {answer}{note}", check.relation.label()), t.fg(Ink::Text)),
            ]));
        }
        // The approved DAG run again on the other engine (`run --differential`).
        if let Some(divergence) = &attempt.divergence {
            lines.extend(divergence_lines(ctx, divergence));
        }
    }
    lines
}

/// Where the two engines' runs of the approved DAG differ: the kind and the
/// node it starts at, then each engine's answer or error (the first is the
/// question's).
fn divergence_lines(ctx: &Ctx, divergence: &EngineDivergence) -> Vec<Line<'static>> {
    let t = ctx.theme;
    let from = divergence.first_node.as_ref().map(|node| format!(", from node {node}")).unwrap_or_default();
    let mut lines = vec![Line::from(vec![
        Span::styled("≠ engines differ ", t.fg(Ink::StatusRejected).add_modifier(Modifier::BOLD)),
        Span::styled(format!("({}{from})", divergence.kind.name()), t.fg(Ink::Text)),
    ])];
    for side in [&divergence.primary, &divergence.other] {
        let said = match (&side.answer, &side.error) {
            (Some(answer), _) => preview(answer, 200),
            (None, Some(error)) => clean(error).into_owned(),
            (None, None) => "no answer".into(),
        };
        lines.push(Line::from(vec![
            Span::styled(format!("  {}: ", side.engine), t.fg(Ink::Accent)),
            Span::styled(said, t.fg(Ink::Text)),
        ]));
    }
    lines
}

/// People's verdict on the selected epoch and draft's final answer (`of_final`)
/// or on iteration `number`'s answer, once reviews of it exist.
fn people_line(ctx: &Ctx, view: &QuestionScreen, number: u32, of_final: bool) -> Option<Line<'static>> {
    let t = ctx.theme;
    let (attempt, _) = view.selection.current_iteration(ctx.state)?;
    let item = crate::domain::ReviewItem {
        question_id: view.selection.id.clone(),
        epoch: attempt.epoch,
        draft: attempt.draft,
        iteration: (!of_final).then_some(number),
    };
    let verdict = ctx.people?.verdict(&item)?;
    let (mark, style) = match verdict.right {
        Some(true) => ("✓ right", t.fg(Ink::StatusPassed)),
        Some(false) => ("✗ wrong", t.fg(Ink::StatusFailed)),
        None => ("? split", t.fg(Ink::Muted)),
    };
    Some(Line::from(vec![
        Span::styled(format!("{mark} (people) "), style.add_modifier(Modifier::BOLD)),
        Span::styled(crate::text::reviewed_by(verdict.reviewers), t.fg(Ink::Text)),
    ]))
}

/// Every line of the selected tab, top to bottom, and the line where the
/// selected iteration starts in it (its part of the conversation; 0 elsewhere).
fn detail_lines(view: &QuestionScreen, ctx: &Ctx) -> (Vec<Line<'static>>, usize) {
    let Some((_, it)) = view.selection.current_iteration(ctx.state) else { return (Vec::new(), 0) };
    match view.tab {
        Tab::Feedback => (feedback_lines(ctx, it), 0),
        Tab::Outputs => (output_lines(view, ctx, it), 0),
        Tab::Conversation => view.selection.question(ctx.state).map_or_else(
            || (Vec::new(), 0),
            |q| {
                let log = conversation::build(ctx.state, q, view.selection.iteration, view.expanded, ctx.theme);
                let anchor = log.anchors.get(view.selection.iteration).copied().unwrap_or(0);
                (log.lines, anchor)
            },
        ),
    }
}

fn detail(frame: &mut Frame, area: Rect, view: &QuestionScreen, ctx: &Ctx) {
    let t = ctx.theme;
    let titles: Vec<&str> = Tab::ALL.iter().map(|t| t.title()).collect();
    let selected = Tab::ALL.iter().position(|t| *t == view.tab).unwrap_or(0);
    let [tabs_area, body] = Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(area);
    let (lines, anchor) = detail_lines(view, ctx);
    let first = view.detail.place(lines.len(), || anchor);
    let position = if first > 0 || lines.len() > body.height as usize {
        format!("line {} of {} · ", first + 1, lines.len())
    } else {
        String::new()
    };
    let context = view
        .selection
        .current_iteration(ctx.state)
        .map(|(a, it)| {
            let place = crate::domain::epoch_draft_prefix(a.epoch, a.draft);
            format!("{position}{place}attempt {} · iteration {} ", a.number, it.number)
        })
        .unwrap_or_default();
    // The selected tab's title always shows; the context gives way.
    let context = fit(&context, (area.width as usize).saturating_sub(titles[selected].len() + 3));
    let [tabs_area, context_area] =
        Layout::horizontal([Constraint::Min(10), Constraint::Length(width(&context) as u16)]).areas(tabs_area);
    // Each title takes its width and a 3-column divider; too narrow for all: the selected one alone.
    let all_fit = titles.iter().map(|t| t.len() + 3).sum::<usize>() <= tabs_area.width as usize;
    let tabs = if all_fit { Tabs::new(titles).select(selected) } else { Tabs::new([titles[selected]]).select(0) };
    frame.render_widget(tabs.highlight_style(t.selected()), tabs_area);
    frame.render_widget(Paragraph::new(Span::styled(context, t.fg(Ink::Muted))), context_area);
    let block = Block::default().borders(Borders::TOP).border_style(pane_border(ctx.theme, view.focus, Pane::Detail));
    let shown: Vec<Line> = lines.into_iter().skip(first).collect();
    frame.render_widget(Paragraph::new(shown).wrap(Wrap { trim: false }).block(block), body);
}

/// Body height below which the question screen shows only the detail tab.
const MIN_PANES_HEIGHT: u16 = 12;

/// Heights of the top pane (iterations and graph) and the middle pane (code)
/// in a body of `height` rows: the graph what its `graph_rows` need, from 6
/// rows up to a third; the code its `code_rows`, from 5 up to half of the
/// rest; the detail tab keeps what is left. Safe at any height.
fn pane_heights(height: u16, graph_rows: usize, code_rows: Option<u16>) -> [u16; 2] {
    let wanted = u16::try_from(graph_rows.saturating_mul(4).saturating_add(1)).unwrap_or(u16::MAX);
    let top = wanted.max(6).min(height / 3);
    let middle = code_rows.map_or(0, |rows| rows.max(5).min(height.saturating_sub(top) / 2));
    [top, middle]
}

impl QuestionScreen {
    /// Draw the question screen into `area`.
    pub(super) fn draw_screen(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        let view = self;
        let Some((_, it)) = view.selection.current_iteration(ctx.state) else {
            frame.render_widget(Paragraph::new("this question has not started yet"), area);
            return;
        };
        let node = it.dag.as_ref().and_then(|dag| dag.nodes.get(view.selection.node));
        // Too short for the graph and code panes to show anything: the detail alone.
        let zoomed = if area.height < MIN_PANES_HEIGHT { Some(Pane::Detail) } else { view.zoom.then_some(view.focus) };
        match (zoomed, node) {
            (Some(Pane::Graph), _) => return graph(frame, area, view, ctx, it),
            (Some(Pane::Code), Some(node)) => {
                return code_view::draw(frame, area, ctx.theme, view.code_pane(), node, it.feedback.as_ref());
            }
            (Some(_), _) => return detail(frame, area, view, ctx),
            (None, _) => {}
        }
        let graph_rows = it.dag.as_ref().map_or(1, GeneratedDag::widest_layer);
        let code_rows = node.map(|n| code_view::height(n, it.feedback.as_ref(), area.width));
        let [top_height, middle_height] = pane_heights(area.height, graph_rows, code_rows);
        let [top, middle, bottom] =
            Layout::vertical([Constraint::Length(top_height), Constraint::Length(middle_height), Constraint::Min(4)])
                .areas(area);
        let [list_area, graph_area] = Layout::horizontal([Constraint::Length(26), Constraint::Min(10)]).areas(top);
        iterations_list(frame, list_area, view, ctx);
        graph(frame, graph_area, view, ctx, it);
        if let Some(node) = node {
            code_view::draw(frame, middle, ctx.theme, view.code_pane(), node, it.feedback.as_ref());
        }
        detail(frame, bottom, view, ctx);
    }
}

/// The DAG pane: the graph of the selected iteration, or why there is none.
fn graph(frame: &mut Frame, graph_area: Rect, view: &QuestionScreen, ctx: &Ctx, it: &Iteration) {
    let title = view.selection.question(ctx.state).map_or(" DAG ".into(), |q| {
        // Tokens only where a model spent some (an offline run spends none).
        let spent = match q.usage.total() {
            0 => String::new(),
            total => format!("{total} tok · "),
        };
        // The question's dataset, in a run over several.
        let dataset = q.question.dataset.as_deref().map_or(String::new(), |name| format!("{} · ", fit(name, 24)));
        let used = 20 + spent.chars().count() + dataset.chars().count();
        let room = (graph_area.width as usize).saturating_sub(used);
        let text = preview(&serde_json::Value::String(q.question.question.clone()), room);
        format!(" DAG · {} · {dataset}{spent}{text} ", q.question.difficulty_level.as_str())
    });
    let graph_block = Block::default().borders(Borders::ALL).title(title).border_style(pane_border(
        ctx.theme,
        view.focus,
        Pane::Graph,
    ));
    let inner = graph_block.inner(graph_area);
    frame.render_widget(graph_block, graph_area);
    match &it.dag {
        Some(dag) if !dag.nodes.is_empty() => {
            let colouring = dag_graph::Colouring::Verdicts(it.feedback.as_ref());
            dag_graph::draw(frame.buffer_mut(), inner, dag, colouring, view.selection.node, ctx.theme);
        }
        _ => {
            let text = it.feedback.as_ref().map_or("building…".to_string(), |f| {
                let errors: Vec<String> =
                    f.specific_errors.iter().flat_map(|e| e.lines()).map(|l| clean(l).into_owned()).collect();
                let errors = errors.join("\n");
                if errors.is_empty() { format!("no DAG: {}", plural(f.findings.len(), "finding")) } else { errors }
            });
            frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), inner);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::pane_heights;

    #[test]
    fn pane_heights_fit_every_height() {
        for height in 0..=300u16 {
            for graph_rows in [0, 1, 2, 5, 40, usize::MAX] {
                for code_rows in [None, Some(0), Some(3), Some(40), Some(u16::MAX)] {
                    let [top, middle] = pane_heights(height, graph_rows, code_rows);
                    assert!(top <= height / 3 && middle <= (height - top) / 2, "{height} {graph_rows} {code_rows:?}");
                }
            }
        }
        assert_eq!(pane_heights(48, 2, Some(8)), [9, 8], "room enough: what the panes need");
    }
}
