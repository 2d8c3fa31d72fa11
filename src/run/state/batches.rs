//! The reducer's batch family: which open calls wait in which of a provider's
//! batches (`run --batch`), and how each batch ended.

use std::sync::Arc;

use super::{BatchEnd, BatchState, FeedKind, RunState};
use crate::domain::{BatchId, BatchStatus, CallKey};
use crate::run::events::{CALL_CANCELLED, EngineEvent};
use crate::run::llm_call::LlmCall;

impl RunState {
    /// A batch submitted or ended.
    pub(super) fn apply_batch_event(&mut self, event: EngineEvent) {
        match event {
            EngineEvent::BatchSubmitted { batch_id, provider, role, calls } => {
                let ids: Vec<u64> = calls.iter().filter_map(|key| self.open_call(key)).collect();
                for id in &ids {
                    if let Some(call) = self.calls.get_mut(id) {
                        Arc::make_mut(call).batch_id = Some(batch_id.clone());
                    }
                }
                let text = format!("batch {batch_id} submitted: {} {} calls", calls.len(), role.label());
                self.push_feed(None, FeedKind::Info, text);
                let batch = BatchState {
                    batch_id: batch_id.clone(),
                    provider,
                    role,
                    waiting: ids.len(),
                    calls: ids,
                    submitted_ms: self.now_ms,
                    ended: None,
                };
                let open_before = self.batches.insert(batch_id, batch).is_some_and(|old| old.ended.is_none());
                self.batches_open += usize::from(!open_before);
            }
            EngineEvent::BatchEnded { batch_id, status, succeeded, failed } => {
                let t_ms = self.now_ms;
                let kind = if status == BatchStatus::Completed && failed == 0 { FeedKind::Info } else { FeedKind::Bad };
                let text = format!("batch {batch_id} {}: {succeeded} replies, {failed} failed", status.label());
                self.push_feed(None, kind, text);
                if let Some(batch) = self.batches.get_mut(&batch_id) {
                    self.batches_open -= usize::from(batch.ended.is_none());
                    batch.ended = Some(BatchEnd { status, succeeded, failed, t_ms });
                }
            }
            // The other families' events are folded by their own methods.
            _ => {}
        }
    }

    /// The open (unfinished) call with `key`, if there is one.
    fn open_call(&self, key: &CallKey) -> Option<u64> {
        self.open_calls.get(key).copied().filter(|id| self.calls.get(id).is_some_and(|call| !call.finished))
    }

    /// The batch call `call_id` waits in: one that lists it and has not
    /// ended, while the call has no reply — unfinished, or finished only
    /// because its attempt was cancelled (the batch goes on at the provider).
    pub fn waiting_in_batch(&self, call_id: u64) -> Option<&BatchState> {
        let call = self.calls.get(&call_id).filter(|call| awaits_reply(call))?;
        self.batches.get(call.batch_id.as_ref()?).filter(|batch| batch.ended.is_none())
    }

    /// Batches submitted and not ended (in flight at their providers).
    pub fn batches_in_flight(&self) -> usize {
        self.batches.values().filter(|batch| batch.ended.is_none()).count()
    }

    /// Calls waiting in batches now, over every batch still open.
    pub fn calls_waiting_in_batches(&self) -> usize {
        self.batches.values().filter(|batch| batch.ended.is_none()).map(|batch| batch.waiting).sum()
    }

    /// How many batches have not ended (a count the reducer keeps).
    pub fn batches_open(&self) -> usize {
        self.batches_open
    }

    /// Call `call_id` finished; it waited in `batch` before: one call fewer waits there if it has its reply now.
    pub(super) fn replied(&mut self, batch: Option<BatchId>, call_id: u64) {
        if let Some(batch_id) = batch
            && self.waiting_in_batch(call_id).is_none()
            && let Some(batch) = self.batches.get_mut(&batch_id)
        {
            batch.waiting = batch.waiting.saturating_sub(1);
        }
    }
}

/// Whether `call` has had no reply: unfinished, or cancelled before one came.
fn awaits_reply(call: &LlmCall) -> bool {
    !call.finished || call.error.as_deref() == Some(CALL_CANCELLED)
}
