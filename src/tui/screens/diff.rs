//! Iteration N−1 versus N: nodes added, removed and changed (with a unified
//! diff of the code), and each earlier finding marked resolved, persisting or
//! new; oscillation flagged: a finding resolved earlier and back again, a
//! node whose code went back to an earlier iteration's. On a tall enough screen the selected iteration's graph sits above,
//! its added and changed nodes marked. Scrolls when longer than the screen.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use super::scroll_pane;
use crate::domain::{FindingFate, GeneratedDag, IterationDiff, NodeChange};
use crate::report::{Oscillation, OscillationKind, attempt_oscillations};
use crate::run::{Attempt, Iteration, RunState};
use crate::tui::component::{Component, Ctx, Effect, Handled};
use crate::tui::keymap::Action;
use crate::tui::keymap::Screen;
use crate::tui::scroll::Scroll;
use crate::tui::selection::Selection;
use crate::tui::text::{clean_line, fit};
use crate::tui::theme::{Ink, Theme};
use crate::tui::widgets::code_view::source_color;
use crate::tui::widgets::dag_graph::{self, Colouring};

/// Lines of the node changes `nodes` (shared with the comparison detail).
pub fn node_lines(t: &Theme, nodes: &[NodeChange]) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for change in nodes {
        match change {
            NodeChange::Added { node } => {
                lines.push(Line::from(Span::styled(format!("+ added {}", node.node_id), t.fg(Ink::DiffLineAdd))))
            }
            NodeChange::Removed { node } => {
                lines.push(Line::from(Span::styled(format!("- removed {}", node.node_id), t.fg(Ink::DiffLineRemove))))
            }
            NodeChange::Unchanged { node_id } => {
                lines.push(Line::from(Span::styled(format!("  unchanged {node_id}"), t.fg(Ink::Muted))))
            }
            NodeChange::Changed { after, code_diff, .. } => {
                lines.push(Line::from(Span::styled(format!("~ changed {}", after.node_id), t.fg(Ink::NodeFlagged))));
                for line in code_diff.lines().filter(|l| !l.starts_with("+++") && !l.starts_with("---")) {
                    let style = match line.chars().next() {
                        Some('+') => t.fg(Ink::DiffLineAdd),
                        Some('-') => t.fg(Ink::DiffLineRemove),
                        Some('@') => t.fg(Ink::Accent),
                        _ => t.fg(Ink::Text),
                    };
                    lines.push(Line::from(Span::styled(format!("    {line}"), style)));
                }
            }
        }
    }
    lines
}

/// The selected iteration, the one before it and what changed between them.
struct Diffed<'a> {
    /// The text's title: what is set against what.
    title: String,
    /// The selected iteration, named.
    after: String,
    /// The selected iteration's DAG.
    dag: &'a GeneratedDag,
    /// What changed.
    diff: IterationDiff,
    /// What oscillated at the selected iteration (within its attempt).
    oscillations: Vec<Oscillation>,
}

/// The diff of the selected iteration against the one it came from: the
/// iteration a fork or an edit by hand started from, else the one before it.
fn diffed<'a>(view: &Selection, state: &'a RunState) -> Result<Diffed<'a>, &'static str> {
    let all = view.iterations(state);
    let index = view.iteration.min(all.len().saturating_sub(1));
    let Some(&(attempt, after)) = all.get(index) else { return Err("no earlier iteration to compare with") };
    let origin = attempt.forked_from.filter(|_| after.number == 1).and_then(|from| {
        all.iter().copied().find(|(a, it)| {
            (a.epoch, a.draft, a.number) == (attempt.epoch, attempt.draft, from.attempt) && it.number == from.iteration
        })
    });
    let Some((before_attempt, before)) = origin.or_else(|| index.checked_sub(1).and_then(|i| all.get(i).copied()))
    else {
        return Err("no earlier iteration to compare with");
    };
    let same_attempt = before_attempt.is_at(&attempt.at(&view.id));
    let oscillations = if same_attempt {
        attempt_oscillations(&view.id, attempt).into_iter().filter(|o| o.iteration == after.number).collect()
    } else {
        Vec::new()
    };
    let (before_name, after_name) = if same_attempt {
        (before.number.to_string(), after.number.to_string())
    } else {
        let by_hand = if attempt.by_hand { " (by hand)" } else { "" };
        (
            format!("a{} it{}", before_attempt.number, before.number),
            format!("a{} it{}{by_hand}", attempt.number, after.number),
        )
    };
    let mut diffed = between(before, after, format!(" iteration {before_name} → {after_name} "))?;
    diffed.after = format!("iteration {after_name}");
    diffed.oscillations = oscillations;
    Ok(diffed)
}

/// The selected draft's iteration against another draft's (see [`Selection::other_draft`]).
fn draft_diffed<'a>(view: &Selection, state: &'a RunState) -> Result<Diffed<'a>, &'static str> {
    let (attempt, after) = view.current_iteration(state).ok_or("no draft selected")?;
    let (other, before) = view.other_draft(state).ok_or("no other draft of this epoch has an iteration yet")?;
    let name = |a: &Attempt, it: &Iteration| format!("draft {} a{} it{}", a.draft, a.number, it.number);
    let mut diffed = between(before, after, format!(" {} → {} ", name(other, before), name(attempt, after)))?;
    diffed.after = name(attempt, after);
    Ok(diffed)
}

/// What changed from `before` to `after`, titled `title`.
fn between<'a>(before: &Iteration, after: &'a Iteration, title: String) -> Result<Diffed<'a>, &'static str> {
    let (Some(old), Some(new)) = (&before.dag, &after.dag) else {
        return Err("one of the iterations has no DAG (its reply could not be read)");
    };
    let diff = IterationDiff::between(old, before.feedback.as_ref(), new, after.feedback.as_ref());
    Ok(Diffed { title, after: String::new(), dag: new, diff, oscillations: Vec::new() })
}

/// What oscillated at the selected iteration: findings back again (or, when
/// not `findings`, nodes reverted to earlier code), one flagged line each.
fn oscillation_lines(t: &Theme, diffed: &Diffed, findings: bool) -> Vec<Line<'static>> {
    let style = t.fg(Ink::StatusRejected).add_modifier(Modifier::BOLD);
    diffed
        .oscillations
        .iter()
        .filter(|o| matches!(o.kind, OscillationKind::FindingBack { .. }) == findings)
        .map(|o| Line::styled(format!("↺ {}", o.describe()), style))
        .collect()
}

/// Every line of `diffed`: the findings with their fate, then the node changes.
fn lines(t: &Theme, diffed: &Diffed) -> Vec<Line<'static>> {
    let mut lines = vec![Line::from(Span::styled("findings", t.fg(Ink::Accent).add_modifier(Modifier::BOLD)))];
    for (fate, finding) in &diffed.diff.findings {
        let (label, color) = match fate {
            FindingFate::Resolved => ("resolved  ", Ink::FindingResolved),
            FindingFate::Persisting => ("persisting", Ink::FindingPersisting),
            FindingFate::New => ("new       ", Ink::FindingNew),
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{label} "), t.fg(color).add_modifier(Modifier::BOLD)),
            Span::styled(format!("[{}] ", finding.source.label()), t.fg(source_color(finding.source))),
            Span::styled(
                format!("{} {}: ", finding.node_id.as_deref().unwrap_or("DAG"), finding.rule),
                t.fg(Ink::Text),
            ),
            Span::styled(finding.message.lines().next().unwrap_or_default().to_string(), t.fg(Ink::Muted)),
        ]));
    }
    lines.extend(oscillation_lines(t, diffed, true));
    lines.push(Line::from(""));
    lines.push(Line::from(Span::styled("nodes", t.fg(Ink::Accent).add_modifier(Modifier::BOLD))));
    lines.extend(oscillation_lines(t, diffed, false));
    lines.extend(node_lines(t, &diffed.diff.nodes));
    lines.into_iter().map(clean_line).collect()
}

/// Screen height from which the diff shows the graph above its text.
const MIN_GRAPH_HEIGHT: u16 = 16;

/// The selected iteration's graph with its added (`+`) and changed (`~`)
/// nodes marked; the title names the removed ones.
fn graph(frame: &mut Frame, area: Rect, view: &Selection, ctx: &Ctx, diffed: &Diffed) {
    let removed: Vec<&str> = diffed
        .diff
        .nodes
        .iter()
        .filter(|c| matches!(c, NodeChange::Removed { .. }))
        .map(|c| c.node_id().as_str())
        .collect();
    let gone = if removed.is_empty() { String::new() } else { format!(" · removed: {}", removed.join(", ")) };
    let title = fit(&format!(" {}: + added · ~ changed{gone} ", diffed.after), area.width as usize);
    let block = Block::default().borders(Borders::ALL).title(title).border_style(ctx.theme.fg(Ink::Border));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let colouring = Colouring::Changes(&diffed.diff.nodes);
    dag_graph::draw(frame.buffer_mut(), inner, diffed.dag, colouring, view.node, ctx.theme);
}

/// The diff screen: the question's selected iteration against the one
/// before it, or against another draft's (`run --consensus`). It opens over
/// the question screen with its selection, and the question screen follows
/// where it moves it.
pub struct DiffScreen {
    /// The question's selection, moved here.
    selection: Selection,
    /// The text's scroll.
    scroll: Scroll,
    /// Whether it sets the selected draft against another draft, not the iteration before.
    drafts: bool,
}

impl DiffScreen {
    /// The diff at `selection`: against another draft's iteration when
    /// `drafts`, else against the iteration before.
    pub fn over(selection: Selection, drafts: bool) -> Self {
        Self { selection, scroll: Scroll::default(), drafts }
    }
}

impl Component for DiffScreen {
    fn screen(&self) -> Screen {
        Screen::Diff
    }

    fn handle(&mut self, action: Action, ctx: &Ctx) -> Handled {
        let selection = &mut self.selection;
        match action {
            Action::Up => selection.node = selection.node.saturating_sub(1),
            Action::Down => selection.node += 1,
            Action::PrevIteration => selection.iteration = selection.iteration.saturating_sub(1),
            Action::NextIteration => selection.iteration += 1,
            Action::PrevDraft | Action::NextDraft => match selection.draft_step(ctx.state, action == Action::NextDraft)
            {
                Ok(index) => selection.iteration = index,
                Err(why) => return Handled::message(why),
            },
            Action::ScrollDown | Action::ScrollUp => return scroll_pane(&mut self.scroll, action),
            _ => return Handled::Ignored,
        }
        selection.clamp(ctx.state);
        Handled::with(Effect::Select(selection.clone()))
    }

    fn refresh(&mut self, ctx: &Ctx) {
        self.selection.clamp(ctx.state);
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        draw(self, &self.selection, frame, area, ctx);
    }
}

/// Draw the diff of the selected iteration against the one before it: the
/// graph with what changed (when the screen is tall enough), then the text.
fn draw(screen: &DiffScreen, view: &Selection, frame: &mut Frame, area: Rect, ctx: &Ctx) {
    let scroll = &screen.scroll;
    let diffed = if screen.drafts { draft_diffed(view, ctx.state) } else { diffed(view, ctx.state) };
    let (title, lines) = match &diffed {
        Ok(d) => (d.title.clone(), lines(ctx.theme, d)),
        Err(why) => (" diff ".to_string(), vec![Line::from(*why)]),
    };
    let area = match &diffed {
        Ok(d) if area.height >= MIN_GRAPH_HEIGHT => {
            let rows = u16::try_from(d.dag.widest_layer().saturating_mul(4).saturating_add(1)).unwrap_or(u16::MAX);
            let [top, rest] =
                Layout::vertical([Constraint::Length((rows + 2).min(area.height / 3)), Constraint::Min(1)]).areas(area);
            graph(frame, top, view, ctx, d);
            rest
        }
        _ => area,
    };
    let first = scroll.place(lines.len(), || 0);
    let title = if first > 0 { format!("{title}· line {} of {} ", first + 1, lines.len()) } else { title };
    let block = Block::default().borders(Borders::ALL).title(title).border_style(ctx.theme.fg(Ink::Border));
    let shown: Vec<Line> = lines.into_iter().skip(first).collect();
    frame.render_widget(Paragraph::new(shown).wrap(Wrap { trim: false }).block(block), area);
}

#[cfg(test)]
mod tests {
    use crate::tui::Screen;
    use crate::tui::frame_text::{SAMPLE_TRACE, assert_screen_snapshots};

    /// q_01's iterations 2 → 3, opened from the conversation tab.
    #[test]
    fn snapshots_at_both_sizes() {
        assert_screen_snapshots!(SAMPLE_TRACE, "j\nhtt\t\tzzd", Screen::Diff, "diff");
    }
}
