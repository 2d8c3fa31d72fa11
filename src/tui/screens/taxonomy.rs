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

use super::dashboard::Dashboard;
use super::{Component, Handled, SCROLL_STEP};
use crate::report::{ApprovalHistogram, Convergence, FindingsTaxonomy, convergence, findings_taxonomy};
use crate::tui::app::App;
use crate::tui::keymap::Action;
use crate::tui::screens::Screen;
use crate::tui::screens::dashboard::sparkline;
use crate::tui::scroll::Scroll;
use crate::tui::text::{clean, clean_line};
use crate::tui::theme::Ink;
use crate::tui::view::QuestionSet;

fn number(value: Option<f64>) -> String {
    value.map_or("—".into(), |v| format!("{v:.1}"))
}

/// One histogram as a line: bars for iterations 1, 2, … and never, the
/// counts, the mean and median.
fn histogram_line(app: &App, name: &str, h: &ApprovalHistogram) -> Line<'static> {
    let t = &app.theme;
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
fn convergence_lines(app: &App, c: &Convergence) -> Vec<Line<'static>> {
    let heading = format!(
        "iterations to approval of {} finished attempts (1…{} │ never)",
        c.run.attempts(),
        c.run.approved_at.len()
    );
    let mut lines = vec![Line::styled(heading, app.theme.fg(Ink::Accent).add_modifier(Modifier::BOLD))];
    lines.push(histogram_line(app, "all", &c.run));
    lines.extend(c.by_difficulty.iter().map(|(level, h)| histogram_line(app, level, h)));
    lines
}

/// Width from which the table shows the iterations and tokens the groups cost.
const WIDE: u16 = 100;

/// The groups as a table, the selected one highlighted; below [`WIDE`]
/// columns the costs make room for the group's name.
fn groups_table(frame: &mut Frame, area: Rect, app: &App, taxonomy: &FindingsTaxonomy, group: usize) {
    let t = &app.theme;
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
fn oscillation_lines(app: &App, taxonomy: &FindingsTaxonomy) -> Vec<Line<'static>> {
    let t = &app.theme;
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
}

impl Component for TaxonomyScreen {
    fn screen(&self) -> Screen {
        Screen::Taxonomy
    }

    fn handle(&mut self, action: Action, app: &mut App) -> Handled {
        match action {
            Action::Up => self.group = self.group.saturating_sub(1),
            Action::Down => {
                let groups = findings_taxonomy(&app.state).groups.len();
                self.group = (self.group + 1).min(groups.saturating_sub(1));
            }
            Action::ScrollUp => self.scroll.up(SCROLL_STEP),
            Action::ScrollDown => self.scroll.down(SCROLL_STEP),
            Action::Open => return self.filter_to_group(app),
            _ => return Handled::Ignored,
        }
        Handled::Done
    }

    fn draw(&self, frame: &mut Frame, area: Rect, app: &App) {
        draw(self, frame, area, app);
    }
}

impl TaxonomyScreen {
    /// Narrow the dashboard to the questions the selected group hit, and show it.
    fn filter_to_group(&self, app: &mut App) -> Handled {
        let taxonomy = findings_taxonomy(&app.state);
        let Some(group) = taxonomy.groups.get(self.group.min(taxonomy.groups.len().saturating_sub(1))) else {
            app.message = Some("no findings to filter by".into());
            return Handled::Done;
        };
        let Some(dashboard) = app.find_mut::<Dashboard>() else { return Handled::Done };
        dashboard.questions =
            Some(QuestionSet { label: group.label(), ids: group.questions.iter().cloned().collect() });
        dashboard.row = 0;
        Handled::Home
    }
}

/// Draw `screen` into `area`.
fn draw(screen: &TaxonomyScreen, frame: &mut Frame, area: Rect, app: &App) {
    let taxonomy = findings_taxonomy(&app.state);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" findings taxonomy: what the critic found, what came back, how fast it converged ")
        .border_style(app.theme.fg(Ink::Accent));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let top = convergence_lines(app, &convergence(&app.state));
    let oscillations = oscillation_lines(app, &taxonomy);
    let [top_area, groups_area, oscillations_area] = Layout::vertical([
        Constraint::Length(top.len() as u16 + 1),
        Constraint::Min(3),
        Constraint::Length(wrapped_height(&oscillations, inner.width).clamp(2, (inner.height / 2).max(2))),
    ])
    .areas(inner);
    frame.render_widget(Paragraph::new(top), top_area);
    groups_table(frame, groups_area, app, &taxonomy, screen.group);
    let first = screen.scroll.place(oscillations.len(), || 0);
    let title = format!(" {} oscillations ", taxonomy.oscillations.len());
    let block = Block::default().borders(Borders::TOP).title(title).border_style(app.theme.fg(Ink::Border));
    let shown: Vec<Line> = oscillations.into_iter().skip(first).collect();
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
