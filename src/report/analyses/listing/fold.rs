//! What a run's trace tells the list: its header, how it ended (its last
//! complete line), and — when it has no results yet — its figures folded
//! from its events, read a block at a time (never all held at once); a live
//! run's fold goes on from where it stopped.

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde::Deserialize;

use super::figures::Figures;
use crate::domain::QuestionId;
use crate::run::{EngineEvent, Outcome, RunSummary};
use crate::trace::{TraceHeader, TraceRecord, TraceScan};

/// How much of a trace's end is read to find its last complete line.
const TAIL: u64 = 64 * 1024;
/// Events folded per block.
const BLOCK: usize = 512;

/// How a trace ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ending {
    /// With `run_finished`.
    Finished,
    /// With `run_finished` after the budget stopped questions.
    Budget,
    /// With anything else: the run is live or was interrupted.
    Open,
}

/// The trace's header, or what is wrong with it in one line.
pub(super) fn header(path: &Path) -> Result<TraceHeader, String> {
    TraceScan::open(path).map(|scan| scan.header).map_err(|err| err.to_string())
}

/// How the trace at `path` ends, from its last complete line (a line cut
/// off by a writer that stopped mid-line is passed over).
pub(super) fn ending(path: &Path) -> Ending {
    #[derive(Deserialize)]
    struct Totals {
        #[serde(default)]
        budget: usize,
    }
    #[derive(Deserialize)]
    struct Event {
        #[serde(rename = "type")]
        kind: String,
        summary: Option<Totals>,
    }
    #[derive(Deserialize)]
    struct Line {
        event: Event,
    }
    let tail = tail(path).unwrap_or_default();
    let last = tail.split(|&b| b == b'\n').rev().find_map(|line| serde_json::from_slice::<Line>(line).ok());
    match last.map(|line| line.event) {
        Some(Event { kind, summary }) if kind == "run_finished" => match summary {
            Some(Totals { budget }) if budget > 0 => Ending::Budget,
            _ => Ending::Finished,
        },
        _ => Ending::Open,
    }
}

/// The last [`TAIL`] bytes of the file at `path`.
fn tail(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(TAIL)))?;
    let mut bytes = Vec::new();
    file.take(TAIL).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The figures folded from a trace so far, and where the fold stopped: a
/// live run's row folds only the lines appended since its last read.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Tally {
    /// The trace's start (its header's `created_at`): another trace at the same path is folded anew.
    started: String,
    /// The byte offset past the last line folded.
    read_to: u64,
    questions: Option<usize>,
    /// Whether each question's latest attempt passed.
    passed: HashMap<QuestionId, bool>,
    tokens: u64,
    cost: f64,
    wall: u64,
    /// The run's own totals, once it finished.
    finished: Option<RunSummary>,
}

impl Tally {
    /// `earlier` folded on with the lines appended to the trace at `path`
    /// since it was folded; the whole trace when there is no `earlier`, or
    /// it was of another trace, or the file is now shorter than what it read.
    pub(super) fn fold(path: &Path, earlier: Option<&Tally>) -> Result<Tally, String> {
        let len = std::fs::metadata(path).map_err(|err| err.to_string())?.len();
        let (mut tally, mut scan) = match earlier.filter(|tally| tally.read_to <= len) {
            Some(tally) => {
                let scan = TraceScan::open_at(path, tally.read_to).map_err(|err| err.to_string())?;
                match scan.header.created_at == tally.started {
                    true => (tally.clone(), scan),
                    false => Self::start(path)?,
                }
            }
            None => Self::start(path)?,
        };
        while let Some(block) = scan.next_block(BLOCK, |_| false).map_err(|err| err.to_string())? {
            tally.read_to = block.end().unwrap_or(tally.read_to);
            block.records.into_iter().for_each(|record| tally.add(record));
        }
        Ok(tally)
    }

    /// An empty tally of the trace at `path`, and a scan from its first event.
    fn start(path: &Path) -> Result<(Tally, TraceScan), String> {
        let scan = TraceScan::open(path).map_err(|err| err.to_string())?;
        Ok((Tally { started: scan.header.created_at.clone(), ..Tally::default() }, scan))
    }

    fn add(&mut self, record: TraceRecord) {
        self.wall = self.wall.max(record.t_ms);
        match record.event {
            EngineEvent::QuestionsGenerated { questions } => self.questions = Some(questions.len()),
            EngineEvent::QuestionFinished { at, outcome, .. } if outcome != Outcome::Drafted => {
                self.passed.insert(at.question_id, outcome == Outcome::Passed);
            }
            EngineEvent::LlmCallFinished { usage, cost_usd, .. } => {
                self.tokens += usage.prompt_tokens + usage.completion_tokens;
                self.cost += cost_usd;
            }
            EngineEvent::RunFinished { summary } => self.finished = Some(summary),
            _ => {}
        }
    }

    /// Questions, passes (each question's latest attempt), tokens, cost and
    /// wall time; the run's own totals when it finished. Accuracy needs the results.
    pub(super) fn figures(&self) -> Figures {
        let passes = self.passed.values().filter(|&&p| p).count();
        let (questions, passes, tokens, cost, wall) = match &self.finished {
            Some(s) => {
                (Some(s.total), s.passed, s.usage.prompt_tokens + s.usage.completion_tokens, s.cost_usd, s.elapsed_ms)
            }
            None => (self.questions, passes, self.tokens, self.cost, self.wall),
        };
        let pass_rate = questions.map(|n| if n == 0 { 0.0 } else { passes as f64 / n as f64 });
        Figures {
            questions,
            pass_rate,
            tokens: Some(tokens),
            cost_usd: Some(cost),
            wall_ms: Some(wall),
            ..Figures::default()
        }
    }
}
