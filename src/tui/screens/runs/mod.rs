//! The run browser: one row per run directory under the directories given
//! (`report::scan_runs` reads them), filtered by text, sorted by a column,
//! runs marked to compare. Its first frame is drawn before the scan ends: the
//! scan runs on a thread of its own and hands rows over a channel, which
//! [`Component::poll`] drains on the loop's tick; every [`RESCAN`] the rows
//! are read again on another thread, each only when its files changed (or
//! it is running), so a live run's row follows it and a removed one says
//! `gone`, and the directories are walked again for runs started since. What the user picks (open, compare, matrix, resume) leaves the
//! browser as an `Effect::Leave` with a [`Choice`]: the command that hosts
//! the browser opens it on the same terminal and comes back.

mod draw;

use std::collections::{BTreeSet, HashSet};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::time::{Duration, Instant};

use crossterm::event::KeyCode;
use ratatui::Frame;
use ratatui::layout::Rect;

use crate::report::{RunRow, RunStatus, scan_new_runs, scan_runs};
use crate::tui::choice::Choice;
use crate::tui::component::{Component, Ctx, Effect, Handled};
use crate::tui::filter_line::type_into;
use crate::tui::keymap::{Action, Screen};
use crate::tui::palette_entry::{EntryKind, PaletteEntry, PaletteTarget};

/// How often the rows are read again (each only when its files changed).
pub const RESCAN: Duration = Duration::from_secs(2);

/// What the scanning threads hand over.
enum Found {
    /// A run found by the first scan.
    Row(RunRow),
    /// The first scan is over.
    Scanned,
    /// A row read again because its files changed.
    Updated(RunRow),
    /// A pass reading the rows again is over.
    Rescanned,
}

/// The column the rows are sorted by (`s` cycles).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortColumn {
    /// Newest first.
    Started,
    /// By dataset or benchmark.
    Dataset,
    /// Running first, then finished, budget, interrupted.
    Status,
    /// Highest pass rate first.
    PassRate,
    /// Highest accuracy first.
    Accuracy,
    /// Costliest first.
    Cost,
    /// Longest first.
    Wall,
    /// By path.
    Path,
}

impl SortColumn {
    /// The next column.
    fn next(self) -> Self {
        match self {
            Self::Started => Self::Dataset,
            Self::Dataset => Self::Status,
            Self::Status => Self::PassRate,
            Self::PassRate => Self::Accuracy,
            Self::Accuracy => Self::Cost,
            Self::Cost => Self::Wall,
            Self::Wall => Self::Path,
            Self::Path => Self::Started,
        }
    }

    /// The column as the title names it.
    pub fn label(self) -> &'static str {
        match self {
            Self::Started => "started",
            Self::Dataset => "dataset",
            Self::Status => "status",
            Self::PassRate => "pass rate",
            Self::Accuracy => "accuracy",
            Self::Cost => "cost",
            Self::Wall => "wall time",
            Self::Path => "path",
        }
    }

    /// `a` before `b` in this order.
    fn order(self, a: &RunRow, b: &RunRow) -> std::cmp::Ordering {
        let desc = |x: Option<f64>, y: Option<f64>| y.unwrap_or(-1.0).total_cmp(&x.unwrap_or(-1.0));
        match self {
            Self::Started => b.started.cmp(&a.started),
            Self::Dataset => a.dataset.cmp(&b.dataset),
            Self::Status => a.status.cmp(&b.status),
            Self::PassRate => desc(a.pass_rate, b.pass_rate),
            Self::Accuracy => desc(a.accuracy, b.accuracy),
            Self::Cost => desc(a.cost_usd, b.cost_usd),
            Self::Wall => b.wall_ms.cmp(&a.wall_ms),
            Self::Path => std::cmp::Ordering::Equal,
        }
        .then_with(|| a.path.cmp(&b.path))
    }
}

/// The run browser's state.
pub struct RunsScreen {
    /// The directories listed.
    dirs: Vec<PathBuf>,
    /// Every run found, in the order found.
    rows: Vec<RunRow>,
    /// What the scanning threads send.
    feed: Receiver<Found>,
    /// Where a rescan sends (cloned for each).
    sender: Sender<Found>,
    /// Whether the first scan is still going.
    scanning: bool,
    /// When the rows were last read again, while no pass is going.
    rescanned: Option<Instant>,
    /// The runs marked, by path.
    marked: BTreeSet<PathBuf>,
    /// The text filter.
    filter: String,
    /// Whether keys go into the filter.
    editing_filter: bool,
    /// The sorted column.
    sort: SortColumn,
    /// The selected row of [`Self::shown`].
    row: usize,
    /// Indices into `rows` in table order, worked out in `refresh`.
    shown: Vec<usize>,
}

impl RunsScreen {
    /// The browser over `dirs`, its scan started on a thread of its own.
    pub fn new(dirs: Vec<PathBuf>) -> Self {
        let (sender, feed) = channel();
        let scan = sender.clone();
        let listed = dirs.clone();
        std::thread::spawn(move || {
            scan_runs(&listed, |row| scan.send(Found::Row(row)).is_ok());
            let _ = scan.send(Found::Scanned);
        });
        Self::over(dirs, Vec::new(), feed, sender, true)
    }

    /// The browser over `rows` already read (no scan; tests and pictures).
    pub fn with_rows(dirs: Vec<PathBuf>, rows: Vec<RunRow>) -> Self {
        let (sender, feed) = channel();
        Self::over(dirs, rows, feed, sender, false)
    }

    fn over(
        dirs: Vec<PathBuf>,
        rows: Vec<RunRow>,
        feed: Receiver<Found>,
        sender: Sender<Found>,
        scanning: bool,
    ) -> Self {
        let mut screen = Self {
            dirs,
            rows,
            feed,
            sender,
            scanning,
            rescanned: (!scanning).then(Instant::now),
            marked: BTreeSet::new(),
            filter: String::new(),
            editing_filter: false,
            sort: SortColumn::Started,
            row: 0,
            shown: Vec::new(),
        };
        screen.order();
        screen
    }

    /// Whether the first scan is still going.
    pub fn scanning(&self) -> bool {
        self.scanning
    }

    /// Every run found so far.
    pub fn rows(&self) -> &[RunRow] {
        &self.rows
    }

    /// The row under the cursor.
    fn selected(&self) -> Option<&RunRow> {
        self.shown.get(self.row).map(|&i| &self.rows[i])
    }

    /// Take a row the scan or a rescan found: in place of the row of its path, else new.
    fn take(&mut self, row: RunRow) {
        match self.rows.iter_mut().find(|r| r.path == row.path) {
            Some(old) => *old = row,
            None => self.rows.push(row),
        }
    }

    /// Read again, on a thread of its own, every row that changed, and the
    /// runs that appeared under the directories since.
    fn rescan(&mut self) {
        self.rescanned = None;
        let rows = self.rows.clone();
        let dirs = self.dirs.clone();
        let sender = self.sender.clone();
        std::thread::spawn(move || {
            let known: HashSet<PathBuf> = rows.iter().map(|row| row.path.clone()).collect();
            for row in rows {
                if let Some(new) = row.reread()
                    && sender.send(Found::Updated(new)).is_err()
                {
                    return;
                }
            }
            scan_new_runs(&dirs, &known, |row| sender.send(Found::Row(row)).is_ok());
            let _ = sender.send(Found::Rescanned);
        });
    }

    /// The rows shown, in order: those matching the filter, sorted.
    fn order(&mut self) {
        let needle = self.filter.to_lowercase();
        let mut shown: Vec<usize> =
            (0..self.rows.len()).filter(|&i| needle.is_empty() || matches(&self.rows[i], &needle)).collect();
        shown.sort_by(|&a, &b| self.sort.order(&self.rows[a], &self.rows[b]));
        self.shown = shown;
        self.row = self.row.min(self.shown.len().saturating_sub(1));
    }

    /// What the marked runs open as: two compared, more as a matrix.
    fn marked_choice(&self, matrix: bool) -> Handled {
        let marked: Vec<PathBuf> = self.marked.iter().cloned().collect();
        match (matrix, marked.as_slice()) {
            (false, [a, b]) => Handled::with(Effect::Leave(Choice::Compare([a.clone(), b.clone()]))),
            (true, [_, _, _, ..]) => Handled::with(Effect::Leave(Choice::Matrix(marked))),
            (false, _) => Handled::message(format!("mark two runs to compare them ({} marked)", marked.len())),
            (true, _) => Handled::message(format!("mark three runs or more for a matrix ({} marked)", marked.len())),
        }
    }

    /// What reviewing the selected run does: its answers in the review screen.
    fn review(&self) -> Handled {
        let Some(row) = self.selected() else { return Handled::message("no run selected") };
        match row.status {
            RunStatus::Unreadable | RunStatus::Gone => {
                Handled::message(format!("{} cannot be reviewed: {}", row.path.display(), row.status.label()))
            }
            _ => Handled::with(Effect::Leave(Choice::Review(row.path.clone()))),
        }
    }

    /// What opening or resuming the selected run does.
    fn choose(&self, resume: bool) -> Handled {
        let Some(row) = self.selected() else { return Handled::message("no run selected") };
        match (row.status, resume) {
            (RunStatus::Unreadable | RunStatus::Gone, _) => {
                Handled::message(format!("{} cannot be opened: {}", row.path.display(), row.status.label()))
            }
            (RunStatus::Interrupted, true) => Handled::with(Effect::Leave(Choice::Resume(row.path.clone()))),
            (status, true) => {
                Handled::message(format!("only an interrupted run resumes; this one is {}", status.label()))
            }
            (_, false) => Handled::with(Effect::Leave(Choice::Open(row.path.clone()))),
        }
    }
}

/// Whether `row` matches the lowercased `needle` (path, dataset, models, status).
fn matches(row: &RunRow, needle: &str) -> bool {
    let fields = [row.path.to_string_lossy().into_owned(), row.dataset.clone().unwrap_or_default()];
    fields
        .iter()
        .chain(row.models.values())
        .chain([&row.status.label().to_string()])
        .any(|f| f.to_lowercase().contains(needle))
}

impl Component for RunsScreen {
    fn screen(&self) -> Screen {
        Screen::Runs
    }

    /// Each run shown, by its path, dataset and status: `enter` opens it.
    fn palette_entries(&self, _ctx: &Ctx) -> Vec<PaletteEntry> {
        let rows = self.shown.iter().map(|&i| &self.rows[i]);
        rows.map(|row| PaletteEntry {
            kind: EntryKind::Run,
            label: row.path.display().to_string(),
            detail: format!("{} {}", row.dataset.as_deref().unwrap_or(""), row.status.label()),
            keys: None,
            target: PaletteTarget::Leave(Choice::Open(row.path.clone())),
        })
        .collect()
    }

    fn handle(&mut self, action: Action, _ctx: &Ctx) -> Handled {
        match action {
            Action::Up => self.row = self.row.saturating_sub(1),
            Action::Down => self.row = (self.row + 1).min(self.shown.len().saturating_sub(1)),
            Action::Filter => self.editing_filter = true,
            Action::Sort => {
                self.sort = self.sort.next();
                return Handled::message(format!("sorted by {}", self.sort.label()));
            }
            Action::Mark => {
                if let Some(path) = self.selected().map(|row| row.path.clone())
                    && !self.marked.remove(&path)
                {
                    self.marked.insert(path);
                }
                self.row = (self.row + 1).min(self.shown.len().saturating_sub(1));
            }
            Action::CompareMarked => return self.marked_choice(false),
            Action::MatrixMarked => return self.marked_choice(true),
            Action::Open => return self.choose(false),
            Action::Resume => return self.choose(true),
            Action::ReviewRun => return self.review(),
            _ => return Handled::Ignored,
        }
        Handled::done()
    }

    fn typing(&self) -> bool {
        self.editing_filter
    }

    fn type_key(&mut self, code: KeyCode, _ctx: &Ctx) -> Handled {
        self.editing_filter = type_into(&mut self.filter, code, true);
        self.row = 0;
        Handled::done()
    }

    fn poll(&mut self) -> bool {
        let mut changed = false;
        loop {
            match self.feed.try_recv() {
                Ok(Found::Row(row) | Found::Updated(row)) => self.take(row),
                Ok(Found::Scanned | Found::Rescanned) => {
                    self.scanning = false;
                    self.rescanned = Some(Instant::now());
                }
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => break,
            }
            changed = true;
        }
        if self.rescanned.is_some_and(|at| at.elapsed() >= RESCAN) {
            self.rescan();
        }
        changed
    }

    fn refresh(&mut self, _ctx: &Ctx) {
        self.order();
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        self.draw_table(frame, area, ctx);
    }
}

#[cfg(test)]
mod tests;
