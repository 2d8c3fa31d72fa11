//! The dashboard: every question with its live status, iterations, findings
//! per iteration, elapsed time and answer, plus the activity feed.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, TableState};

use crate::engine::{FeedKind, QuestionState, QuestionStatus, preview};
use crate::tui::app::App;

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// Findings per iteration as a small bar chart (`·` for none).
pub fn sparkline(counts: &[u64]) -> String {
    let max = counts.iter().copied().max().unwrap_or(0);
    counts.iter().map(|&c| if c == 0 { '·' } else { BARS[((c * 7) / max.max(1)) as usize] }).collect()
}

fn status_cell(app: &App, status: QuestionStatus) -> Cell<'static> {
    let spinner = if status.is_active() { format!("{} ", SPINNER[app.spinner % SPINNER.len()]) } else { "  ".into() };
    Cell::from(Span::styled(format!("{spinner}{}", status.label()), app.theme.status(status)))
}

fn row(app: &App, q: &QuestionState, width: usize) -> Row<'static> {
    let t = &app.theme;
    let latest = q.latest();
    let iterations = latest.map_or(0, |a| a.iterations.len());
    let max = app.state.settings.as_ref().map_or(0, |s| s.max_iterations);
    let elapsed = q.started_ms.map(|start| q.finished_ms.unwrap_or(app.state.now_ms).saturating_sub(start));
    let mark = match q.correct() {
        Some(true) => "✓ ",
        Some(false) => "✗ ",
        None => "",
    };
    let answer =
        latest.and_then(|a| a.final_answer.as_ref()).map(|a| format!("{mark}{}", preview(a, 16))).unwrap_or_default();
    let attempts = if q.attempts.len() > 1 { format!(" ×{}", q.attempts.len()) } else { String::new() };
    Row::new(vec![
        Cell::from(Span::styled(q.question.id.clone(), t.fg("accent"))),
        Cell::from(Span::styled(q.question.difficulty_level.as_str().to_string(), t.fg("muted"))),
        Cell::from(Span::styled(preview(&serde_json::Value::String(q.question.question.clone()), width), t.fg("text"))),
        status_cell(app, q.status),
        Cell::from(Span::styled(format!("{iterations}/{max}{attempts}"), t.fg("text"))),
        Cell::from(Span::styled(sparkline(&q.findings_per_iteration()), t.fg("node_flagged"))),
        Cell::from(Span::styled(
            elapsed.map(|ms| format!("{:.1}s", ms as f64 / 1000.0)).unwrap_or_default(),
            t.fg("muted"),
        )),
        Cell::from(Span::styled(answer, if q.correct() == Some(false) { t.fg("status_failed") } else { t.fg("text") })),
    ])
}

fn feed(frame: &mut Frame, area: Rect, app: &App) {
    let t = &app.theme;
    let lines: Vec<Line> = app
        .state
        .feed
        .iter()
        .rev()
        .take(area.height.saturating_sub(2) as usize)
        .rev()
        .map(|entry| {
            let style = match entry.kind {
                FeedKind::Info => t.fg("muted"),
                FeedKind::Good => t.fg("status_passed"),
                FeedKind::Bad => t.fg("status_rejected"),
                FeedKind::Control => t.fg("feed_control"),
            };
            Line::from(vec![
                Span::styled(format!("{:>7.1}s ", entry.t_ms as f64 / 1000.0), t.fg("muted")),
                Span::styled(entry.question_id.clone().map(|q| format!("{q} ")).unwrap_or_default(), t.fg("accent")),
                Span::styled(entry.text.clone(), style),
            ])
        })
        .collect();
    let block = Block::default().borders(Borders::TOP).title(" activity ").border_style(t.fg("border"));
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// Draw the dashboard into `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let feed_height = (area.height / 4).clamp(3, 10);
    let [table_area, feed_area] = Layout::vertical([Constraint::Min(3), Constraint::Length(feed_height)]).areas(area);
    let visible = app.visible();
    let question_width = (table_area.width as usize).saturating_sub(64).max(16);
    // Only the rows that fit are built: a run of thousands of questions costs no more per frame.
    let height = table_area.height.saturating_sub(2).max(1) as usize;
    let first = app.row.saturating_sub(height - 1).min(visible.len().saturating_sub(height));
    let rows: Vec<Row> =
        visible.iter().skip(first).take(height).map(|&i| row(app, &app.state.questions[i], question_width)).collect();
    let header = Row::new(["id", "level", "question", "status", "iter", "findings", "time", "answer"])
        .style(app.theme.fg("muted"));
    let widths = [
        Constraint::Length(6),
        Constraint::Length(6),
        Constraint::Min(16),
        Constraint::Length(12),
        Constraint::Length(7),
        Constraint::Length(8),
        Constraint::Length(7),
        Constraint::Length(18),
    ];
    let empty = visible.is_empty();
    let table = Table::new(rows, widths)
        .header(header)
        .row_highlight_style(app.theme.selected())
        .block(Block::default().borders(Borders::TOP).title(" questions ").border_style(app.theme.fg("border")));
    let mut selection = TableState::default().with_selected((!empty).then_some(app.row - first));
    frame.render_stateful_widget(table, table_area, &mut selection);
    if empty {
        let note = if app.state.questions.is_empty() {
            "  waiting for questions…"
        } else {
            "  no question matches the filter"
        };
        let inner = Rect { y: table_area.y + 2, height: 1, ..table_area };
        frame.render_widget(Paragraph::new(Span::styled(note, app.theme.fg("muted"))), inner);
    }
    feed(frame, feed_area, app);
}

#[cfg(test)]
mod tests {
    use super::sparkline;

    #[test]
    fn sparklines_scale_to_the_largest_count() {
        assert_eq!(sparkline(&[3, 1, 0]), "█▃·");
        assert_eq!(sparkline(&[]), "");
    }
}
