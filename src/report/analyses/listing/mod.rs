//! The list of runs under some directories, as `eval-dag runs` prints it and
//! the run browser shows it: one [`RunRow`] per run directory (any directory
//! holding `trace.jsonl`, results optional: finished, live, interrupted,
//! merged and derived runs alike).
//!
//! A row reads only what it shows: the trace's first line (the header:
//! settings, who played each role, when it started), the trace's last
//! complete line (whether `run_finished` ended it, and whether the budget
//! stopped it), and the `summary` of `eval_results.json` read as a stream
//! that stops once the summary is read (`summary.rs`; the rest of the
//! document is never parsed). Without results the figures are folded from
//! the trace line by line (`fold.rs`). A run whose trace is locked by its
//! writer (`trace::being_written`) is `running`. Walking never opens a file
//! that is not a `trace.jsonl`, never follows a symbolic link, and says what
//! it could not read in one line of a row of its own; nothing here panics on
//! what it finds on disk. [`Stamp`] (sizes and times) lets a caller re-read a
//! row only when its files changed; a live run's re-read folds only the
//! trace lines appended since the last one.

mod figures;
mod fold;
mod summary;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use serde::Serialize;

use crate::trace::TraceHeader;
use figures::Figures;

/// The trace file of a run directory.
pub const TRACE_FILE: &str = "trace.jsonl";
/// The results file of a run directory.
pub const RESULTS_FILE: &str = "eval_results.json";
/// How deep below a given directory runs are looked for.
const MAX_DEPTH: usize = 6;

/// Where a run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Another process writes its trace now (it holds the trace's lock).
    Running,
    /// Its trace ends with `run_finished`.
    Finished,
    /// It ended because its budget was reached.
    Budget,
    /// It stopped without `run_finished` (killed, or the machine went down).
    Interrupted,
    /// Its trace (or directory) cannot be read as a run.
    Unreadable,
    /// Its directory was removed after it was listed.
    Gone,
}

impl RunStatus {
    /// The status as the list shows it.
    pub fn label(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Finished => "finished",
            Self::Budget => "budget",
            Self::Interrupted => "interrupted",
            Self::Unreadable => "unreadable",
            Self::Gone => "gone",
        }
    }
}

/// The sizes and modification times of a run's two files when its row was
/// read: the row is read again only when they change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stamp {
    trace: Option<(u64, Option<SystemTime>)>,
    results: Option<(u64, Option<SystemTime>)>,
}

impl Stamp {
    /// The stamp of the run directory `dir` now.
    pub fn of(dir: &Path) -> Self {
        let of = |name| std::fs::metadata(dir.join(name)).ok().map(|m| (m.len(), m.modified().ok()));
        Self { trace: of(TRACE_FILE), results: of(RESULTS_FILE) }
    }
}

/// One run directory as the list shows it; `None` where it is not known.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunRow {
    /// The run directory.
    pub path: PathBuf,
    /// When it started (RFC 3339).
    pub started: Option<String>,
    /// Its dataset's directory name, or the published benchmark it scored.
    pub dataset: Option<String>,
    /// The model of each role (`dag_build`, `critic`, …).
    pub models: BTreeMap<String, String>,
    /// Questions in the run.
    pub questions: Option<usize>,
    /// Where it stands.
    pub status: RunStatus,
    /// Questions passed over questions.
    pub pass_rate: Option<f64>,
    /// Graded answers right over graded answers.
    pub accuracy: Option<f64>,
    /// The published benchmark's own accuracy (by question).
    pub benchmark_accuracy: Option<f64>,
    /// Epochs per question (`run --repeat`).
    pub epochs: Option<u32>,
    /// Drafts per question and epoch (`run --consensus`).
    pub drafts: Option<u32>,
    /// Tokens over all calls.
    pub tokens: Option<u64>,
    /// Estimated cost, USD.
    pub cost_usd: Option<f64>,
    /// Cost (the response cache's hits at list price) per graded right
    /// answer, USD; none before the results are written or without a right answer.
    pub cost_per_right: Option<f64>,
    /// Wall time, milliseconds.
    pub wall_ms: Option<u64>,
    /// What is wrong with it, in one line (results unreadable, directory unreadable, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// Its files' sizes and times when read.
    #[serde(skip)]
    pub stamp: Stamp,
    /// The trace folded so far, when its figures came from it (a re-read
    /// of a live run folds only what was appended since).
    #[serde(skip)]
    folded: Option<Arc<fold::Tally>>,
}

impl RunRow {
    /// A row that only says what is wrong with `path`.
    fn problem(path: &Path, status: RunStatus, problem: String) -> Self {
        Self {
            path: path.to_path_buf(),
            started: None,
            dataset: None,
            models: BTreeMap::new(),
            questions: None,
            status,
            pass_rate: None,
            accuracy: None,
            benchmark_accuracy: None,
            epochs: None,
            drafts: None,
            tokens: None,
            cost_usd: None,
            cost_per_right: None,
            wall_ms: None,
            problem: Some(problem),
            stamp: Stamp::default(),
            folded: None,
        }
    }

    /// Read the run directory `dir` (one holding a trace) into its row.
    pub fn read(dir: &Path) -> Self {
        Self::read_on(dir, None)
    }

    /// [`RunRow::read`], folding the trace on from `earlier` when its figures come from the trace.
    fn read_on(dir: &Path, earlier: Option<&fold::Tally>) -> Self {
        let stamp = Stamp::of(dir);
        if stamp.trace.is_none() {
            return Self::problem(dir, RunStatus::Gone, "gone: the run's directory or trace was removed".into());
        }
        let trace = dir.join(TRACE_FILE);
        let header = match fold::header(&trace) {
            Ok(header) => header,
            Err(err) => return Self { stamp, ..Self::problem(dir, RunStatus::Unreadable, err) },
        };
        let running = crate::trace::being_written(&trace);
        let ending = fold::ending(&trace);
        let mut problem = None;
        let results = summary::read(&dir.join(RESULTS_FILE));
        if let Err(err) = &results {
            problem = Some(format!("results unreadable: {err}"));
        }
        let (figures, folded) = match results {
            Ok(Some(figures)) if !running => (figures, None),
            _ => match fold::Tally::fold(&trace, earlier) {
                Ok(tally) => (tally.figures(), Some(Arc::new(tally))),
                Err(_) => (Figures::default(), None),
            },
        };
        let status = match ending {
            _ if running => RunStatus::Running,
            fold::Ending::Budget => RunStatus::Budget,
            fold::Ending::Finished => RunStatus::Finished,
            fold::Ending::Open => RunStatus::Interrupted,
        };
        Self { folded, ..Self::from_parts(dir, &header, figures, status, problem, stamp) }
    }

    fn from_parts(
        dir: &Path,
        header: &TraceHeader,
        figures: Figures,
        status: RunStatus,
        problem: Option<String>,
        stamp: Stamp,
    ) -> Self {
        let settings = &header.settings;
        let models = settings
            .roles
            .iter()
            .map(|(role, played)| (serde_json::to_value(role).ok(), played.model.clone()))
            .filter_map(|(role, model)| Some((role?.as_str()?.to_string(), model)))
            .collect();
        let dataset = Path::new(&settings.dataset_dir)
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .filter(|name| !name.is_empty());
        Self {
            path: dir.to_path_buf(),
            started: Some(header.created_at.clone()),
            dataset: figures.benchmark.or(dataset),
            models,
            questions: figures.questions,
            status,
            pass_rate: figures.pass_rate,
            accuracy: figures.accuracy,
            benchmark_accuracy: figures.benchmark_accuracy,
            epochs: Some(settings.epochs()),
            drafts: Some(settings.drafts()),
            tokens: figures.tokens,
            cost_usd: figures.cost_usd,
            cost_per_right: figures.cost_per_right,
            wall_ms: figures.wall_ms,
            problem,
            stamp,
            folded: None,
        }
    }

    /// This row read again when its files changed since (`None`: unchanged).
    pub fn reread(&self) -> Option<Self> {
        if self.status == RunStatus::Gone {
            return None;
        }
        let now = Stamp::of(&self.path);
        let live = self.status == RunStatus::Running;
        (now != self.stamp || live).then(|| Self::read_on(&self.path, self.folded.as_deref())).filter(|row| row != self)
    }
}

/// Walk `dirs` for run directories, handing each row to `found` as it is
/// read (a directory that cannot be read is a row saying so; a given
/// directory that does not exist holds no runs). Stops early when `found`
/// returns false.
pub fn scan_runs(dirs: &[PathBuf], found: impl FnMut(RunRow) -> bool) {
    scan_new_runs(dirs, &HashSet::new(), found);
}

/// [`scan_runs`] without reading the run directories in `known`: what a
/// rescan adds to the runs already listed.
pub fn scan_new_runs(dirs: &[PathBuf], known: &HashSet<PathBuf>, mut found: impl FnMut(RunRow) -> bool) {
    for dir in dirs {
        if !walk(dir, 0, known, &mut found) {
            return;
        }
    }
}

/// Every run under `dirs`, in the order found.
pub fn list_runs(dirs: &[PathBuf]) -> Vec<RunRow> {
    let mut rows = Vec::new();
    scan_runs(dirs, |row| {
        rows.push(row);
        true
    });
    rows
}

/// Walk `dir` (at `depth` below a given directory); false once `found` wants no more.
fn walk(dir: &Path, depth: usize, known: &HashSet<PathBuf>, found: &mut impl FnMut(RunRow) -> bool) -> bool {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if depth == 0 && err.kind() == std::io::ErrorKind::NotFound => return true,
        Err(err) => {
            let row = RunRow::problem(dir, RunStatus::Unreadable, format!("directory unreadable: {err}"));
            return found(row);
        }
    };
    let mut subdirs = Vec::new();
    let mut is_run = false;
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_dir() {
            subdirs.push(entry.path());
        } else if entry.file_name() == TRACE_FILE && !kind.is_symlink() {
            is_run = true;
        }
    }
    if is_run && !known.contains(dir) && !found(RunRow::read(dir)) {
        return false;
    }
    if depth >= MAX_DEPTH {
        return true;
    }
    subdirs.sort();
    subdirs.iter().all(|sub| walk(sub, depth + 1, known, found))
}

#[cfg(test)]
mod tests;
