//! The findings taxonomy: how fast the critic loop converged (iterations to
//! approval, over the run and per difficulty, as bars), every group of
//! findings (source · rule · exception) with the questions it hit, how many
//! were resolved later and, on a wide enough screen, what the rebuilds they
//! caused cost — Enter narrows the dashboard to the selected group's
//! questions — and every oscillation.

use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, TableState, Wrap};

use super::SCROLL_STEP;
use crate::report::{ApprovalHistogram, Convergence, FindingsTaxonomy, convergence, findings_taxonomy};
use crate::tui::component::{Component, Ctx, Effect, Handled};
use crate::tui::keymap::Action;
use crate::tui::keymap::Screen;
use crate::tui::scroll::Scroll;
use crate::tui::text::{clean, clean_line, sparkline};
use crate::tui::theme::Ink;
use crate::tui::view::QuestionSet;

fn number(value: Option<f64>) -> String {
    value.map_or("—".into(), |v| format!("{v:.1}"))
}

/// One histogram as a line: bars for iterations 1, 2, … and never, the
/// counts, the mean and median.
fn histogram_line(ctx: &Ctx, name: &str, h: &ApprovalHistogram) -> Line<'static> {
    let t = ctx.theme;
    // One scale for the approvals and the never approved.
    let counts: Vec<u64> = h.approved_at.iter().chain([&h.never_approved]).map(|&n| n as u64).collect();
    let mut bars = sparkline(&counts);
    let never = bars.pop().unwrap_or('·');
    let numbers: Vec<String> = h.approved_at.iter().map(usize::to_string).collect();
    Line::from(vec![
        Span::styled(format!("{name:<7} "), t.fg(Ink::Text)),
        Span::styled(bars, t.fg(Ink::StatusPassed)),
        Span::styled("│", t.fg(Ink::Muted)),
        Span::styled(never.to_string(), t.fg(Ink::StatusFailed)),
        Span::styled(
            format!(
                "  {} │ never {}  ·  mean {}  median {}",
                numbers.join(" "),
                h.never_approved,
                number(h.mean),
                number(h.median)
            ),
            t.fg(Ink::Muted),
        ),
    ])
}

/// The convergence lines: a heading, the run, each difficulty.
fn convergence_lines(ctx: &Ctx, c: &Convergence) -> Vec<Line<'static>> {
    let heading = format!(
        "iterations to approval of {} finished attempts (1…{} │ never)",
        c.run.attempts(),
        c.run.approved_at.len()
    );
    let mut lines = vec![Line::styled(heading, ctx.theme.fg(Ink::Accent).add_modifier(Modifier::BOLD))];
    lines.push(histogram_line(ctx, "all", &c.run));
    lines.extend(c.by_difficulty.iter().map(|(level, h)| histogram_line(ctx, level, h)));
    lines
}

/// Width from which the table shows the iterations and tokens the groups cost.
const WIDE: u16 = 100;

/// The groups as a table, the selected one highlighted; below [`WIDE`]
/// columns the costs make room for the group's name.
fn groups_table(frame: &mut Frame, area: Rect, ctx: &Ctx, taxonomy: &FindingsTaxonomy, group: usize) {
    let t = ctx.theme;
    let wide = area.width >= WIDE;
    let group_header = "group (source · rule · exception)";
    let longest = taxonomy.groups.iter().map(|g| g.label().chars().count()).chain([group_header.chars().count()]).max();
    let longest = u16::try_from(longest.unwrap_or(0)).unwrap_or(u16::MAX);
    let rows: Vec<Row> = taxonomy
        .groups
        .iter()
        .map(|g| {
            let oscillated = if g.oscillations > 0 { t.fg(Ink::StatusRejected) } else { t.fg(Ink::Text) };
            let open = if g.resolved < g.count { t.fg(Ink::StatusFailed) } else { t.fg(Ink::Text) };
            let cells = [
                Some(Span::styled(clean(&g.label()).into_owned(), t.fg(Ink::Text))),
                Some(Span::styled(g.count.to_string(), t.fg(Ink::Text))),
                Some(Span::styled(g.questions.len().to_string(), t.fg(Ink::Text))),
                Some(Span::styled(format!("{}/{}", g.resolved, g.count), open)),
                wide.then(|| Span::styled(g.iterations_caused.to_string(), t.fg(Ink::Text))),
                wide.then(|| Span::styled(g.tokens.to_string(), t.fg(Ink::Text))),
                Some(Span::styled(g.oscillations.to_string(), oscillated)),
            ];
            Row::new(cells.into_iter().flatten().map(Cell::from))
        })
        .collect();
    let columns = [
        (Constraint::Length(longest), group_header, true),
        (Constraint::Length(5), "found", true),
        (Constraint::Length(4), "qs", true),
        (Constraint::Length(8), "resolved", true),
        (Constraint::Length(8), "rebuilds", wide),
        (Constraint::Length(9), "tokens", wide),
        (Constraint::Length(4), "osc", true),
    ];
    let shown = columns.iter().filter(|(_, _, show)| *show);
    let header = Row::new(shown.clone().map(|(_, name, _)| *name)).style(t.fg(Ink::Muted));
    let widths: Vec<Constraint> = shown.map(|(width, _, _)| *width).collect();
    let title =
        format!(" {} findings in {} groups · enter: their questions ", taxonomy.total_findings, taxonomy.groups.len());
    let table = Table::new(rows, widths)
        .flex(Flex::Start)
        .header(header)
        .row_highlight_style(t.selected())
        .block(Block::default().borders(Borders::TOP).title(title).border_style(t.fg(Ink::Border)));
    let selected = (!taxonomy.groups.is_empty()).then(|| group.min(taxonomy.groups.len() - 1));
    frame.render_stateful_widget(table, area, &mut TableState::default().with_selected(selected));
}

/// The oscillations, one line each.
fn oscillation_lines(ctx: &Ctx, taxonomy: &FindingsTaxonomy) -> Vec<Line<'static>> {
    let t = ctx.theme;
    if taxonomy.oscillations.is_empty() {
        return vec![Line::styled("none: no finding came back, no node went back to earlier code", t.fg(Ink::Muted))];
    }
    taxonomy
        .oscillations
        .iter()
        .map(|o| {
            clean_line(Line::from(vec![
                Span::styled(format!("{} a{} it{}  ", o.question_id, o.attempt, o.iteration), t.fg(Ink::Accent)),
                Span::styled(format!("↺ {}", o.describe()), t.fg(Ink::StatusRejected)),
            ]))
        })
        .collect()
}

/// Rows `lines` take wrapped at `width`, with a title row.
fn wrapped_height(lines: &[Line], width: u16) -> u16 {
    let width = usize::from(width.max(1));
    let rows: usize = lines.iter().map(|line| line.width().max(1).div_ceil(width)).sum();
    u16::try_from(rows + 1).unwrap_or(u16::MAX)
}

/// The taxonomy screen: the run's findings by group, its oscillations and
/// convergence; a group narrows the dashboard to the questions it hit.
#[derive(Default)]
pub struct TaxonomyScreen {
    /// The selected group.
    group: usize,
    /// The oscillations' scroll.
    scroll: Scroll,
    /// The run's findings by group, worked out when the run changed.
    taxonomy: FindingsTaxonomy,
    /// The convergence lines over the groups.
    top: Vec<Line<'static>>,
    /// The oscillations, one line each.
    oscillations: Vec<Line<'static>>,
}

impl Component for TaxonomyScreen {
    fn screen(&self) -> Screen {
        Screen::Taxonomy
    }

    fn handle(&mut self, action: Action, _ctx: &Ctx) -> Handled {
        match action {
            Action::Up => self.group = self.group.saturating_sub(1),
            Action::Down => self.group = (self.group + 1).min(self.taxonomy.groups.len().saturating_sub(1)),
            Action::ScrollUp => self.scroll.up(SCROLL_STEP),
            Action::ScrollDown => self.scroll.down(SCROLL_STEP),
            Action::Open => return self.filter_to_group(),
            _ => return Handled::Ignored,
        }
        Handled::done()
    }

    fn refresh(&mut self, ctx: &Ctx) {
        if ctx.run_changed {
            self.taxonomy = findings_taxonomy(ctx.state);
            self.top = convergence_lines(ctx, &convergence(ctx.state));
            self.oscillations = oscillation_lines(ctx, &self.taxonomy);
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        draw(self, frame, area, ctx);
    }
}

impl TaxonomyScreen {
    /// Narrow the dashboard to the questions the selected group hit, and show it.
    fn filter_to_group(&self) -> Handled {
        let groups = &self.taxonomy.groups;
        let Some(group) = groups.get(self.group.min(groups.len().saturating_sub(1))) else {
            return Handled::message("no findings to filter by");
        };
        let questions = QuestionSet { label: group.label(), ids: group.questions.iter().cloned().collect() };
        Handled::Done(vec![Effect::Narrow(questions), Effect::Home])
    }
}

/// Draw `screen` into `area`.
fn draw(screen: &TaxonomyScreen, frame: &mut Frame, area: Rect, ctx: &Ctx) {
    let taxonomy = &screen.taxonomy;
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" findings taxonomy: what the critic found, what came back, how fast it converged ")
        .border_style(ctx.theme.fg(Ink::Accent));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let oscillations = &screen.oscillations;
    let [top_area, groups_area, oscillations_area] = Layout::vertical([
        Constraint::Length(screen.top.len() as u16 + 1),
        Constraint::Min(3),
        Constraint::Length(wrapped_height(oscillations, inner.width).clamp(2, (inner.height / 2).max(2))),
    ])
    .areas(inner);
    frame.render_widget(Paragraph::new(screen.top.clone()), top_area);
    groups_table(frame, groups_area, ctx, taxonomy, screen.group);
    let first = screen.scroll.place(oscillations.len(), || 0);
    let title = format!(" {} oscillations ", taxonomy.oscillations.len());
    let block = Block::default().borders(Borders::TOP).title(title).border_style(ctx.theme.fg(Ink::Border));
    let shown: Vec<Line> =
        oscillations.iter().skip(first).take(usize::from(oscillations_area.height)).cloned().collect();
    frame.render_widget(Paragraph::new(shown).wrap(Wrap { trim: false }).block(block), oscillations_area);
}

#[cfg(test)]
mod tests {
    use crate::tui::Screen;
    use crate::tui::frame_text::assert_screen_snapshots;

    /// The oscillating sample run: a runtime error that comes back and a
    /// node reverted to an earlier iteration's code.
    #[test]
    fn snapshots_at_both_sizes() {
        assert_screen_snapshots!(
            "sample-data/traces/oscillation-scripted.trace.jsonl",
            "T",
            Screen::Taxonomy,
            "taxonomy"
        );
    }
}
