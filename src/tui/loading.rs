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

/// Reads and parses a trace's events, a block at a time.
struct Reader {
    scan: TraceScan,
    read: usize,
    finished: bool,
}

/// What a [`Reader`] read next.
enum Read {
    /// Events, and the share of the file read.
    Block(TraceBlock, f64),
    /// Every line was read, or a bad one was: the end of the loading.
    End(Loaded),
}

impl Reader {
    /// Events in the next block: about 1/[`SNAPSHOTS`] of the trace as far
    /// as its length can be told from the share read so far.
    fn block_len(&self) -> usize {
        let progress = self.scan.progress();
        let estimate = if progress > 0.0 { (self.read as f64 / progress) as usize } else { 0 };
        (estimate / SNAPSHOTS).max(MIN_SNAPSHOT_GAP)
    }

    /// The next block: the first one through the question list (or
    /// [`MIN_SNAPSHOT_GAP`] events if it comes later), all a first frame
    /// needs. `None` after the end.
    fn next(&mut self) -> Option<Read> {
        if self.finished {
            return None;
        }
        let first = self.read == 0;
        let questions = |r: &TraceRecord| first && matches!(r.event, EngineEvent::QuestionsGenerated { .. });
        let max = if first { MIN_SNAPSHOT_GAP } else { self.block_len() };
        let read = match self.scan.next_block(max, questions) {
            Ok(Some(block)) => {
                self.read += block.records.len();
                return Some(Read::Block(block, self.scan.progress()));
            }
            Ok(None) => Loaded::Done(self.scan.ending()),
            Err(err) => Loaded::Failed(err),
        };
        self.finished = true;
        Some(Read::End(read))
    }
}

/// Fold `block` into `state`: the chunk it makes.
fn fold(state: &mut RunState, mut block: TraceBlock, progress: f64) -> Loaded {
    let times: Vec<u64> = block.records.iter().map(|r| r.t_ms).collect();
    for record in std::mem::take(&mut block.records) {
        state.apply_owned(record.t_ms, record.event);
    }
    Loaded::Chunk(Box::new(Chunk { block, times, state: state.clone(), progress }))
}

/// Reads and folds a trace, chunk after chunk.
pub struct Loader {
    reader: Reader,
    state: RunState,
}

impl Loader {
    /// Open `path`, and the empty index its chunks extend.
    pub fn open(path: &Path) -> Result<(Self, TraceLines), TraceError> {
        let scan = TraceScan::open(path)?;
        let index = scan.index();
        let reader = Reader { scan, read: 0, finished: false };
        Ok((Self { reader, state: RunState::default() }, index))
    }

    /// Fold the next chunk (the first one through the question list); then
    /// [`Loaded::Done`] or [`Loaded::Failed`]; `None` after that.
    pub fn next_chunk(&mut self) -> Option<Loaded> {
        Some(match self.reader.next()? {
            Read::Block(block, progress) => fold(&mut self.state, block, progress),
            Read::End(end) => end,
        })
    }

    /// Read and fold the rest in the background — reading and parsing on
    /// one thread, folding on another — the chunks coming on the receiver.
    /// Both threads stop when the receiver is dropped.
    pub fn spawn(self) -> UnboundedReceiver<Loaded> {
        let (sender, receiver) = unbounded_channel();
        let (blocks, read) = std::sync::mpsc::sync_channel(2);
        let Self { mut reader, mut state } = self;
        std::thread::spawn(move || {
            while let Some(next) = reader.next() {
                if blocks.send(next).is_err() {
                    break;
                }
            }
        });
        std::thread::spawn(move || {
            for next in read {
                let loaded = match next {
                    Read::Block(block, progress) => fold(&mut state, block, progress),
                    Read::End(end) => end,
                };
                if sender.send(loaded).is_err() {
                    break;
                }
            }
        });
        receiver
    }
}
