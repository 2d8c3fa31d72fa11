//! Drawing the run browser: a table of runs, its title saying how many,
//! whether the scan goes on, the marks and the order. Columns make room for
//! the models from the right on narrow terminals. Every text from disk
//! (paths, model and dataset names, problems) goes through `tui::text`.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, TableState};

use super::RunsScreen;
use crate::report::{RunRow, RunStatus};
use crate::text::{duration, percent, thousands};
use crate::tui::component::Ctx;
use crate::tui::text::{clean, fit};
use crate::tui::theme::Ink;

/// Cells of the pass-rate bar.
const BAR: usize = 8;

/// The columns: header, width, the narrowest terminal that shows it.
const COLUMNS: [(&str, u16, u16); 13] = [
    ("", 1, 0),
    ("run", 20, 0),
    ("started", 16, 120),
    ("dataset", 14, 100),
    ("models", 18, 0),
    ("qs", 5, 90),
    ("status", 11, 0),
    ("pass rate", BAR as u16 + 5, 40),
    ("acc", 5, 80),
    ("bench", 5, 140),
    ("ep/dr", 5, 150),
    ("tokens", 9, 130),
    ("cost", 8, 110),
];
/// The wall time column, shown from this width.
const WALL_FROM: u16 = 160;

/// A pass rate as a bar and a percentage.
fn bar(rate: Option<f64>) -> String {
    let Some(rate) = rate else { return "—".into() };
    let filled = ((rate.clamp(0.0, 1.0) * BAR as f64).round() as usize).min(BAR);
    format!("{}{} {:>3.0}%", "█".repeat(filled), "░".repeat(BAR - filled), rate * 100.0)
}

/// The run's directory as the table names it: its name (the title names where it was looked for).
fn run_name(row: &RunRow) -> String {
    let name =
        row.path.file_name().map_or_else(|| row.path.display().to_string(), |n| n.to_string_lossy().into_owned());
    clean(&name).into_owned()
}

/// The models of a run, `role=model` where they differ, else the one model.
fn models(row: &RunRow) -> String {
    let mut distinct: Vec<&String> = row.models.values().collect();
    distinct.dedup();
    if distinct.len() <= 1 {
        return distinct.first().map_or_else(String::new, |m| (*m).clone());
    }
    row.models.iter().map(|(role, model)| format!("{role}={model}")).collect::<Vec<_>>().join(" ")
}

/// The cells of `row`, for the columns shown at `width`.
fn cells(row: &RunRow, marked: bool, width: u16, ctx: &Ctx) -> Vec<Cell<'static>> {
    let t = ctx.theme;
    let or_dash = |text: Option<String>| text.unwrap_or_else(|| "—".into());
    let status_ink = match row.status {
        RunStatus::Running => Ink::Accent,
        RunStatus::Finished => Ink::Text,
        RunStatus::Budget | RunStatus::Interrupted => Ink::NodeFlagged,
        RunStatus::Unreadable | RunStatus::Gone => Ink::Muted,
    };
    let (middle, middle_ink) = match &row.problem {
        Some(problem) => (problem.clone(), Ink::NodeFlagged),
        None => (models(row), Ink::Text),
    };
    let all = [
        Span::styled(if marked { "●" } else { " " }, t.fg(Ink::Accent)),
        Span::styled(run_name(row), t.fg(Ink::Accent)),
        Span::raw(or_dash(row.started.as_deref().map(|s| s.get(..16).unwrap_or(s).replace('T', " ")))),
        Span::raw(or_dash(row.dataset.as_deref().map(|d| clean(d).into_owned()))),
        Span::styled(clean(&middle).into_owned(), t.fg(middle_ink)),
        Span::raw(or_dash(row.questions.map(|n| n.to_string()))),
        Span::styled(row.status.label(), t.fg(status_ink)),
        Span::raw(bar(row.pass_rate)),
        Span::raw(percent(row.accuracy)),
        Span::raw(percent(row.benchmark_accuracy)),
        Span::raw(format!("{}/{}", row.epochs.unwrap_or(1), row.drafts.unwrap_or(1))),
        Span::raw(or_dash(row.tokens.map(thousands))),
        Span::raw(or_dash(row.cost_usd.map(|c| format!("${c:.2}")))),
    ];
    let mut shown: Vec<Cell> =
        all.into_iter().zip(COLUMNS).filter(|(_, (_, _, from))| width >= *from).map(|(s, _)| Cell::from(s)).collect();
    if width >= WALL_FROM {
        shown.push(Cell::from(or_dash(row.wall_ms.map(duration))));
    }
    shown
}

/// The table's title: how many runs, the scan, the marks, the order, the filter.
fn title(screen: &RunsScreen) -> String {
    let found = screen.rows.len();
    let mut title = if screen.scanning {
        format!(" runs · scanning… {found} found")
    } else {
        format!(
            " runs · {found} under {}",
            screen.dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
        )
    };
    if screen.shown.len() != found {
        title.push_str(&format!(" · {} shown", screen.shown.len()));
    }
    if !screen.marked.is_empty() {
        title.push_str(&format!(" · {} marked", screen.marked.len()));
    }
    title.push_str(&format!(" · by {} ", screen.sort.label()));
    title
}

impl RunsScreen {
    /// Draw the browser into `area`.
    pub(super) fn draw_table(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        let screen = self;
        let t = ctx.theme;
        let filter_line = u16::from(screen.editing_filter || !screen.filter.is_empty());
        let table_area = Rect { height: area.height.saturating_sub(filter_line), ..area };
        let width = area.width;
        let height = table_area.height.saturating_sub(2).max(1) as usize;
        let first = screen.row.saturating_sub(height.saturating_sub(1)).min(screen.shown.len().saturating_sub(height));
        let rows: Vec<Row> = screen
            .shown
            .iter()
            .skip(first)
            .take(height)
            .map(|&i| &screen.rows[i])
            .map(|row| Row::new(cells(row, screen.marked.contains(&row.path), width, ctx)))
            .collect();
        let mut columns: Vec<(&str, Constraint)> = COLUMNS
            .iter()
            .filter(|(_, _, from)| width >= *from)
            .map(|&(name, w, _)| (name, if name == "models" { Constraint::Min(w) } else { Constraint::Length(w) }))
            .collect();
        if width >= WALL_FROM {
            columns.push(("wall", Constraint::Length(7)));
        }
        let header = Row::new(columns.iter().map(|(name, _)| *name)).style(t.fg(Ink::Muted));
        let title = fit(&title(screen), width.saturating_sub(2) as usize);
        let table = Table::new(rows, columns.iter().map(|(_, c)| *c))
            .header(header)
            .row_highlight_style(t.selected())
            .block(Block::default().borders(Borders::TOP).title(title).border_style(t.fg(Ink::Border)));
        let mut selection =
            TableState::default().with_selected((!screen.shown.is_empty()).then(|| screen.row.saturating_sub(first)));
        frame.render_stateful_widget(table, table_area, &mut selection);
        if screen.shown.is_empty() && table_area.height > 2 {
            let note = match (screen.scanning, screen.rows.is_empty()) {
                (true, _) => "  scanning for runs (directories holding trace.jsonl)…",
                (false, true) => {
                    "  no runs here yet: `eval-dag run` writes each run under runs/, a directory holding trace.jsonl"
                }
                (false, false) => "  no run matches the filter",
            };
            let inner = Rect { y: table_area.y + 2, height: 1, ..table_area };
            frame.render_widget(Paragraph::new(Span::styled(note, t.fg(Ink::Muted))), inner);
        }
        if filter_line == 1 && area.height > 0 {
            let line = Line::from(vec![
                Span::styled("filter: ", t.fg(Ink::Muted)),
                Span::raw(clean(&screen.filter).into_owned()),
                Span::styled(if screen.editing_filter { "▏" } else { "" }, t.fg(Ink::Accent)),
            ]);
            let at = Rect { y: area.y + area.height - 1, height: 1, ..area };
            frame.render_widget(Paragraph::new(line), at);
        }
    }
}
