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
    trace: Option<Mutex<TraceWriter>>,
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
            trace: trace.map(Mutex::new),
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
        let t_ms = self.now_ms();
        if let Some(trace) = &self.trace
            && let Err(err) = trace.lock().unwrap_or_else(PoisonError::into_inner).record(t_ms, &event)
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
