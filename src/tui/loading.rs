//! Folding a replay's trace a chunk at a time: the first chunk ends with the
//! question list (enough to draw the dashboard), each later one with a state
//! the replay keeps as a scrubbing snapshot. A replay opened for the terminal
//! folds the chunks after the first on a thread of their own and hands them
//! to the UI's loop, which keeps drawing and taking keys meanwhile.

use std::path::Path;

use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use crate::run::{EngineEvent, RunState};
use crate::trace::{TraceBlock, TraceEnding, TraceError, TraceLines, TraceRecord, TraceScan};

/// About this many chunks (and so snapshots) per trace, whatever its length:
/// a seek re-applies at most about `len / SNAPSHOTS` events.
const SNAPSHOTS: usize = 64;
/// Fewest events in a chunk after the first, so between two snapshots
/// (short traces need few).
pub const MIN_SNAPSHOT_GAP: usize = 256;

/// Events folded, with where they sit and the state after them.
pub struct Chunk {
    /// Where the chunk's events sit in the file.
    pub block: TraceBlock,
    /// Recorded time of each event, ms.
    pub times: Vec<u64>,
    /// The state once they are applied.
    pub state: RunState,
    /// Share of the file read, 0 to 1.
    pub progress: f64,
}

/// What the loader hands over.
pub enum Loaded {
    /// More events.
    Chunk(Box<Chunk>),
    /// Every line was read.
    Done(TraceEnding),
    /// A line in the middle is bad: loading stops before it.
    Failed(TraceError),
}

/// Reads and folds a trace, chunk after chunk.
pub struct Loader {
    scan: TraceScan,
    state: RunState,
    loaded: usize,
    finished: bool,
}

impl Loader {
    /// Open `path`, and the empty index its chunks extend.
    pub fn open(path: &Path) -> Result<(Self, TraceLines), TraceError> {
        let scan = TraceScan::open(path)?;
        let index = scan.index();
        Ok((Self { scan, state: RunState::default(), loaded: 0, finished: false }, index))
    }

    /// Events in the next chunk: about 1/[`SNAPSHOTS`] of the trace as far
    /// as its length can be told from the share read so far.
    fn chunk_len(&self) -> usize {
        let progress = self.scan.progress();
        let estimate = if progress > 0.0 { (self.loaded as f64 / progress) as usize } else { 0 };
        (estimate / SNAPSHOTS).max(MIN_SNAPSHOT_GAP)
    }

    /// Fold the next chunk: the first one through the question list (or
    /// [`MIN_SNAPSHOT_GAP`] events if it comes later); then [`Loaded::Done`] or
    /// [`Loaded::Failed`]; `None` after that.
    pub fn next_chunk(&mut self) -> Option<Loaded> {
        if self.finished {
            return None;
        }
        // The first chunk ends with the question list, all a first frame needs.
        let first = self.loaded == 0;
        let questions = |r: &TraceRecord| first && matches!(r.event, EngineEvent::QuestionsGenerated { .. });
        let max = if first { MIN_SNAPSHOT_GAP } else { self.chunk_len() };
        let mut block = match self.scan.next_block(max, questions) {
            Ok(Some(block)) => block,
            Ok(None) => {
                self.finished = true;
                return Some(Loaded::Done(self.scan.ending()));
            }
            Err(err) => {
                self.finished = true;
                return Some(Loaded::Failed(err));
            }
        };
        let times: Vec<u64> = block.records.iter().map(|r| r.t_ms).collect();
        for record in std::mem::take(&mut block.records) {
            self.state.apply_owned(record.t_ms, record.event);
        }
        self.loaded += times.len();
        let chunk = Chunk { block, times, state: self.state.clone(), progress: self.scan.progress() };
        Some(Loaded::Chunk(Box::new(chunk)))
    }

    /// Fold the rest on a thread of its own; the chunks come on the
    /// receiver. The thread stops when the receiver is dropped.
    pub fn spawn(mut self) -> UnboundedReceiver<Loaded> {
        let (sender, receiver) = unbounded_channel();
        std::thread::spawn(move || {
            while let Some(loaded) = self.next_chunk() {
                if sender.send(loaded).is_err() {
                    break;
                }
            }
        });
        receiver
    }
}
