//! What a run's trace tells the list: its header, how it ended (its last
//! complete line), and — when it has no results yet — its figures folded
//! from its events, read a block at a time (never all held at once).

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde::Deserialize;

use super::figures::Figures;
use crate::domain::QuestionId;
use crate::run::{EngineEvent, Outcome};
use crate::trace::{TraceHeader, TraceScan};

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

/// The figures folded from the trace at `path`: questions, passes (each
/// question's latest attempt), tokens, cost and wall time; the run's own
/// totals when it finished. Accuracy needs the results.
pub(super) fn figures(path: &Path) -> Result<Figures, String> {
    let mut scan = TraceScan::open(path).map_err(|err| err.to_string())?;
    let mut questions = None;
    let mut passed: HashMap<QuestionId, bool> = HashMap::new();
    let (mut tokens, mut cost, mut wall) = (0u64, 0f64, 0u64);
    let mut finished = None;
    while let Some(block) = scan.next_block(BLOCK, |_| false).map_err(|err| err.to_string())? {
        for record in block.records {
            wall = wall.max(record.t_ms);
            match record.event {
                EngineEvent::QuestionsGenerated { questions: generated } => questions = Some(generated.len()),
                EngineEvent::QuestionFinished { at, outcome, .. } if outcome != Outcome::Drafted => {
                    passed.insert(at.question_id, outcome == Outcome::Passed);
                }
                EngineEvent::LlmCallFinished { usage, cost_usd, .. } => {
                    tokens += usage.prompt_tokens + usage.completion_tokens;
                    cost += cost_usd;
                }
                EngineEvent::RunFinished { summary } => finished = Some(summary),
                _ => {}
            }
        }
    }
    let passes = passed.values().filter(|&&p| p).count();
    let (questions, passes, tokens, cost, wall) = match finished {
        Some(s) => {
            (Some(s.total), s.passed, s.usage.prompt_tokens + s.usage.completion_tokens, s.cost_usd, s.elapsed_ms)
        }
        None => (questions, passes, tokens, cost, wall),
    };
    let pass_rate = questions.map(|n| if n == 0 { 0.0 } else { passes as f64 / n as f64 });
    Ok(Figures {
        questions,
        pass_rate,
        tokens: Some(tokens),
        cost_usd: Some(cost),
        wall_ms: Some(wall),
        ..Figures::default()
    })
}
