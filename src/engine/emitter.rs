//! Sends every event to the trace (first, so nothing finished is lost), to the
//! engine's own run state, and to the caller's channel.

use std::sync::{
    Mutex, PoisonError,
    atomic::{AtomicU64, Ordering},
};
use std::time::Instant;

use tokio::sync::mpsc::UnboundedSender;

use crate::run::{EngineEvent, RunState};
use crate::trace::TraceWriter;

/// Timestamps and fans out events.
#[derive(Debug)]
pub struct Emitter {
    started: Instant,
    offset_ms: u64,
    /// Held for the whole of an emit, so that the clock, the trace, the
    /// state and the channel all see events in one order.
    trace: Mutex<Option<TraceWriter>>,
    state: Mutex<RunState>,
    tx: UnboundedSender<(u64, EngineEvent)>,
    next_call_id: AtomicU64,
}

impl Emitter {
    /// An emitter whose clock starts at `offset_ms` (non-zero when continuing a trace).
    pub fn new(
        tx: UnboundedSender<(u64, EngineEvent)>,
        trace: Option<TraceWriter>,
        state: RunState,
        offset_ms: u64,
        first_call_id: u64,
    ) -> Self {
        Self {
            started: Instant::now(),
            offset_ms,
            trace: Mutex::new(trace),
            state: Mutex::new(state),
            tx,
            next_call_id: AtomicU64::new(first_call_id),
        }
    }

    /// Milliseconds since the run started.
    pub fn now_ms(&self) -> u64 {
        self.offset_ms + self.started.elapsed().as_millis() as u64
    }

    /// A fresh LLM call id.
    pub fn next_call_id(&self) -> u64 {
        self.next_call_id.fetch_add(1, Ordering::Relaxed)
    }

    /// Record and publish `event`.
    pub fn emit(&self, event: EngineEvent) {
        // Timestamped under the lock: events from concurrent critic loops get
        // increasing times in the order they are written.
        let mut trace = self.trace.lock().unwrap_or_else(PoisonError::into_inner);
        let t_ms = self.now_ms();
        if let Some(trace) = trace.as_mut()
            && let Err(err) = trace.record(t_ms, &event)
        {
            tracing::error!("writing the trace failed: {err}");
        }
        self.state.lock().unwrap_or_else(PoisonError::into_inner).apply(t_ms, &event);
        let _ = self.tx.send((t_ms, event));
    }

    /// Read the engine's view of the run.
    pub fn with_state<T>(&self, f: impl FnOnce(&RunState) -> T) -> T {
        f(&self.state.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{Command, RunSettings};
    use crate::trace::{Trace, TraceHeader};

    #[test]
    fn concurrent_events_are_written_in_the_order_of_their_times() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace.jsonl");
        let writer = TraceWriter::create(&path, &TraceHeader::new(RunSettings::default())).unwrap();
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let emitter = Emitter::new(tx, Some(writer), RunState::default(), 0, 1);
        std::thread::scope(|threads| {
            for _ in 0..8 {
                threads.spawn(|| {
                    for _ in 0..300 {
                        emitter.emit(EngineEvent::Control(Command::Resume));
                    }
                });
            }
        });
        let trace = Trace::read(&path).unwrap();
        assert_eq!(trace.records.len(), 2400);
        let times: Vec<u64> = trace.records.iter().map(|r| r.t_ms).collect();
        assert!(times.windows(2).all(|w| w[1] >= w[0]), "times never go back in the written order");
    }
}
