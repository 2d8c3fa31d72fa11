//! The run's batches: the open batch calls wait in, when it is sent, the
//! batches in flight polled to their end, and their replies handed back.
//! [`BatchHub::cancel`] cancels those in flight at their providers and sends
//! no more (Ctrl-C in the terminal UI, when asked to).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::{Notify, oneshot, watch};
use tokio::time::Instant;

use super::api::{BatchApi, LineOutcome, MAX_LINE_TRIES};
use crate::domain::{BatchId, BatchStatus, CallKey, LlmRole, QuestionId};
use crate::llm::http::{Failure, Next};

mod follow;
use crate::llm::{LlmError, LlmErrorKind, LlmRequest, LlmResponse};
use crate::run::EngineEvent;
use follow::{cancel_one, follow};

/// How long a batch that every running loop waits in stays open for the
/// calls those loops make at the same moment (a DAG's layer reviews).
const SETTLE: Duration = Duration::from_millis(50);

/// Receives `batch_submitted` and `batch_ended` (the engine's emitter).
pub type Observer = Arc<dyn Fn(EngineEvent) + Send + Sync>;

/// A critic loop, as the calls it makes name it; `None` for run-wide calls.
type LoopId = Option<(QuestionId, u32, u32, u32)>;

/// The replies of an adopted batch's lines once it ended, by `custom_id`.
type Adopted = watch::Receiver<Option<Arc<HashMap<String, LineOutcome>>>>;

/// A call waiting for its batch to be sent.
struct Pending {
    api: Arc<dyn BatchApi>,
    request: LlmRequest,
    custom_id: String,
    /// Bytes of its line in the batch's file (counted once, when it is queued).
    bytes: usize,
    tries: u32,
    reply: oneshot::Sender<Handed>,
}

/// A reply handed to a call that waited in a batch; it counts as unread
/// (a cancel waits for it to be recorded) until the call takes it, or the
/// call is dropped.
pub(super) struct Handed {
    /// The call's reply.
    pub result: Result<LlmResponse, LlmError>,
    _unread: Unread,
}

struct Unread(BatchHub);

impl Drop for Unread {
    fn drop(&mut self) {
        self.0.lock().unread -= 1;
        self.0.inner.landed.notify_waiters();
    }
}

/// One batch on its way: counted as sending until the provider took it,
/// then as in flight under its id, until it is dropped (the batch ended).
struct Flight {
    hub: BatchHub,
    id: Option<BatchId>,
}

impl Flight {
    /// The batch is at the provider as `id`: cancelled at once when the hub's batches are.
    async fn submitted(&mut self, id: &BatchId, api: &Arc<dyn BatchApi>) {
        let cancelled = {
            let mut state = self.hub.lock();
            state.sending -= 1;
            state.flight.insert(id.clone(), api.clone());
            state.cancelled
        };
        self.id = Some(id.clone());
        if cancelled {
            cancel_one(api.as_ref(), id).await;
        }
    }
}

impl Drop for Flight {
    fn drop(&mut self) {
        {
            let mut state = self.hub.lock();
            match &self.id {
                Some(id) => drop(state.flight.remove(id)),
                None => state.sending -= 1,
            }
        }
        self.hub.inner.landed.notify_waiters();
    }
}

#[derive(Default)]
struct State {
    /// Critic loops started and not ended.
    loops: usize,
    /// Calls waiting in batches (open or in flight), per loop.
    waiting: HashMap<LoopId, usize>,
    /// What the calls waiting in batches will cost at most, USD.
    waiting_usd: f64,
    /// The open batch.
    pending: Vec<Pending>,
    /// When the open batch got its first call.
    opened: Option<Instant>,
    /// Calls of batches adopted on resume, by `custom_id`.
    adopted: HashMap<String, (BatchId, Adopted)>,
    flusher: bool,
    /// Batches at a provider and not ended, by id.
    flight: HashMap<BatchId, Arc<dyn BatchApi>>,
    /// Batches taken from the open one and not yet at their provider.
    sending: usize,
    /// Replies handed to calls and not yet taken.
    unread: usize,
    /// Set once the batches were cancelled: none is sent any more.
    cancelled: bool,
}

struct Inner {
    window: Duration,
    /// How long [`BatchHub::cancel`] waits for the batches in flight to end.
    cancel_wait: Duration,
    state: Mutex<State>,
    wake: Notify,
    /// Wakes the polls of the batches in flight (after a cancel).
    poke: Notify,
    /// Told when a batch ends or a handed reply is taken.
    landed: Notify,
    observer: Mutex<Option<Observer>>,
    apis: Mutex<BTreeMap<LlmRole, Arc<dyn BatchApi>>>,
}

/// What [`BatchHub::cancel`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled {
    /// Batches that ended (cancelled, or finished first) with their replies taken.
    pub cancelled: usize,
    /// Batches still running at their providers when the wait was over.
    pub left: usize,
}

/// The batches of one run, shared by its batch clients and the engine.
#[derive(Clone)]
pub struct BatchHub {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for BatchHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchHub").field("window", &self.inner.window).finish()
    }
}

/// A critic loop counted as running until it is dropped.
pub struct LoopGuard(BatchHub);

impl Drop for LoopGuard {
    fn drop(&mut self) {
        self.0.lock().loops -= 1;
        self.0.inner.wake.notify_one();
    }
}

/// A call counted as waiting in a batch (at its estimated cost) until it is dropped.
pub(super) struct Waiting(BatchHub, LoopId, f64);

impl Drop for Waiting {
    fn drop(&mut self) {
        let mut state = self.0.lock();
        state.waiting_usd -= self.2;
        if let Some(count) = state.waiting.get_mut(&self.1) {
            *count -= 1;
            if *count == 0 {
                state.waiting.remove(&self.1);
            }
        }
    }
}

impl BatchHub {
    /// A hub sending each batch at the latest `window` after its first
    /// call, whose cancel waits at most `cancel_wait` for the batches in flight.
    pub fn new(window: Duration, cancel_wait: Duration) -> Self {
        let inner = Inner {
            window,
            cancel_wait,
            state: Mutex::new(State::default()),
            wake: Notify::new(),
            poke: Notify::new(),
            landed: Notify::new(),
            observer: Mutex::new(None),
            apis: Mutex::new(BTreeMap::new()),
        };
        Self { inner: Arc::new(inner) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Report batches submitted and ended to `observer`.
    pub fn observe(&self, observer: Observer) {
        *self.inner.observer.lock().unwrap_or_else(PoisonError::into_inner) = Some(observer);
    }

    fn emit(&self, event: EngineEvent) {
        let observer = self.inner.observer.lock().unwrap_or_else(PoisonError::into_inner).clone();
        if let Some(observer) = observer {
            observer(event);
        }
    }

    /// Count a critic loop as running until the guard is dropped: take it
    /// when the loop is started, before it waits for a loop slot.
    pub fn loop_started(&self) -> LoopGuard {
        self.lock().loops += 1;
        LoopGuard(self.clone())
    }

    pub(super) fn register(&self, role: LlmRole, api: Arc<dyn BatchApi>) {
        self.inner.apis.lock().unwrap_or_else(PoisonError::into_inner).insert(role, api);
    }

    /// Ask every server the run batches with whether it has a batch API: the
    /// first that has none, in one line.
    pub async fn probe(&self) -> Result<(), String> {
        let mut apis: Vec<Arc<dyn BatchApi>> = Vec::new();
        for api in self.inner.apis.lock().unwrap_or_else(PoisonError::into_inner).values() {
            if !apis.iter().any(|seen| Arc::ptr_eq(seen, api)) {
                apis.push(api.clone());
            }
        }
        for api in apis {
            api.probe().await?;
        }
        Ok(())
    }

    /// Count the call `key` as waiting in a batch, at `estimate` USD, until the guard is dropped.
    pub(super) fn waiting(&self, key: &CallKey, estimate: f64) -> Waiting {
        let id = key.question_id.clone().map(|q| (q, key.epoch, key.draft, key.attempt));
        {
            let mut state = self.lock();
            *state.waiting.entry(id.clone()).or_default() += 1;
            state.waiting_usd += estimate;
        }
        self.inner.wake.notify_one();
        Waiting(self.clone(), id, estimate)
    }

    /// What the calls waiting in batches now will cost at most (`--max-cost`
    /// counts them at it until their replies are read).
    pub fn waiting_usd(&self) -> f64 {
        self.lock().waiting_usd.max(0.0)
    }

    /// Put `request` into the open batch; the receiver gets its reply.
    pub(super) fn enqueue(
        &self,
        api: Arc<dyn BatchApi>,
        request: LlmRequest,
        custom_id: String,
    ) -> oneshot::Receiver<Handed> {
        let (reply, receiver) = oneshot::channel();
        let bytes = api.line(&custom_id, &request).to_string().len() + 1;
        self.push(Pending { api, request, custom_id, bytes, tries: 0, reply });
        receiver
    }

    fn push(&self, call: Pending) {
        let start = {
            let mut state = self.lock();
            state.opened.get_or_insert_with(Instant::now);
            state.pending.push(call);
            !std::mem::replace(&mut state.flusher, true)
        };
        if start {
            tokio::spawn(flusher(self.clone()));
        }
        self.inner.wake.notify_one();
    }

    /// Fetch the results of batch `batch_id` of `role`, submitted by an
    /// earlier process with the calls `keys`, without submitting them again.
    /// False when no batch client serves `role`.
    pub fn adopt(&self, batch_id: BatchId, role: LlmRole, keys: &[CallKey]) -> bool {
        let Some(api) = self.inner.apis.lock().unwrap_or_else(PoisonError::into_inner).get(&role).cloned() else {
            return false;
        };
        let (sender, receiver) = watch::channel(None);
        {
            let mut state = self.lock();
            for key in keys {
                state.adopted.insert(crate::domain::custom_id(key), (batch_id.clone(), receiver.clone()));
            }
        }
        let hub = self.clone();
        {
            let mut state = self.lock();
            state.flight.insert(batch_id.clone(), api.clone());
        }
        let flight = Flight { hub: self.clone(), id: Some(batch_id.clone()) };
        tokio::spawn(async move {
            let (status, outcomes) = match follow(api.as_ref(), &batch_id, || hub.cancelling(), &hub.inner.poke).await {
                Ok(ended) => ended,
                Err(error) => {
                    tracing::warn!("batch {batch_id} could not be read: {}", error.message);
                    (BatchStatus::Failed, HashMap::new())
                }
            };
            let succeeded = outcomes.values().filter(|o| matches!(o, LineOutcome::Reply(_))).count();
            let failed = outcomes.values().filter(|o| matches!(o, LineOutcome::Failed(..))).count();
            let _ = sender.send(Some(Arc::new(outcomes)));
            hub.emit(EngineEvent::BatchEnded { batch_id, status, succeeded, failed });
            drop(flight);
        });
        true
    }

    /// The outcome of the call `custom_id` in a batch adopted on resume, once
    /// that batch ended; `None` when it is in no adopted batch. The call
    /// counts as unread while it waits, as a call in a batch of this run
    /// does: a cancel waits for it to take its outcome.
    pub(super) async fn adopted(&self, custom_id: &str) -> Option<(BatchId, LineOutcome)> {
        let (batch_id, mut receiver) = {
            let mut state = self.lock();
            let adopted = state.adopted.remove(custom_id)?;
            state.unread += 1;
            adopted
        };
        let _unread = Unread(self.clone());
        let ended = receiver.wait_for(Option::is_some).await.ok()?.clone()?;
        Some((batch_id, ended.get(custom_id).cloned().unwrap_or(LineOutcome::Unprocessed)))
    }

    /// Whether the open batch is to be sent now, else until when it may wait.
    fn due(&self) -> Result<bool, Option<Instant>> {
        let mut state = self.lock();
        state.pending.retain(|call| !call.reply.is_closed());
        if state.cancelled {
            return Err(None);
        }
        let Some(opened) = state.opened.filter(|_| !state.pending.is_empty()) else {
            state.opened = None;
            return Err(None);
        };
        let deadline = opened + self.inner.window;
        let everyone_waits = state.waiting.len() >= state.loops;
        if everyone_waits || Instant::now() >= deadline || over_limits(&state.pending) {
            return Ok(everyone_waits);
        }
        Err(Some(deadline))
    }

    /// Take the open batch, grouped by client and role (each group split at
    /// the provider's limits), each batch counted as sending; nothing once
    /// the batches were cancelled.
    fn take(&self) -> Vec<Vec<Pending>> {
        let mut state = self.lock();
        if state.cancelled {
            return Vec::new();
        }
        state.opened = None;
        let mut groups: Vec<Vec<Pending>> = Vec::new();
        for call in std::mem::take(&mut state.pending) {
            let same = |group: &&mut Vec<Pending>| {
                Arc::ptr_eq(&group[0].api, &call.api) && group[0].request.key.role == call.request.key.role
            };
            match groups.iter_mut().find(same) {
                Some(group) => group.push(call),
                None => groups.push(vec![call]),
            }
        }
        let batches: Vec<_> = groups.into_iter().flat_map(split).collect();
        state.sending += batches.len();
        batches
    }

    /// Hand `result` to the call waiting on `reply`.
    fn answer(&self, reply: oneshot::Sender<Handed>, result: Result<LlmResponse, LlmError>) {
        self.lock().unread += 1;
        let _ = reply.send(Handed { result, _unread: Unread(self.clone()) });
    }

    /// Whether the batches were cancelled.
    fn cancelling(&self) -> bool {
        self.lock().cancelled
    }

    /// Cancel every batch in flight at its provider (`…/cancel`) and send no
    /// more. Each ends as its provider says (its `batch_ended` recorded): the
    /// replies of the lines it finished are handed to their calls (those
    /// waiting in batches adopted on resume included), the other calls wait
    /// until their loops are cancelled. Returns once every batch ended and
    /// every reply handed over was taken, or after the hub's cancel wait
    /// with the batches still running at their providers: a batch left
    /// there has no `batch_ended`, so `--resume` fetches what it finished.
    pub async fn cancel(&self) -> Cancelled {
        let flight: Vec<(BatchId, Arc<dyn BatchApi>)> = {
            let mut state = self.lock();
            state.cancelled = true;
            state.flight.iter().map(|(id, api)| (id.clone(), api.clone())).collect()
        };
        let ended = async {
            for (id, api) in &flight {
                cancel_one(api.as_ref(), id).await;
            }
            self.inner.poke.notify_waiters();
            self.all_landed().await;
        };
        let left = match tokio::time::timeout(self.inner.cancel_wait, ended).await {
            Ok(()) => 0,
            Err(_) => {
                let state = self.lock();
                state.flight.len() + state.sending
            }
        };
        Cancelled { cancelled: flight.len() - left.min(flight.len()), left }
    }

    /// Wait until no batch is in flight or being sent and every reply handed over was taken.
    async fn all_landed(&self) {
        loop {
            let landed = self.inner.landed.notified();
            tokio::pin!(landed);
            landed.as_mut().enable();
            {
                let state = self.lock();
                if state.flight.is_empty() && state.sending == 0 && state.unread == 0 {
                    return;
                }
            }
            landed.await;
        }
    }

    /// Put `call` into the next batch after `error`, or answer it with `error` after its last try.
    fn retry(&self, mut call: Pending, error: LlmError) {
        call.tries += 1;
        if call.tries >= MAX_LINE_TRIES {
            self.answer(call.reply, Err(error));
        } else {
            tracing::warn!("a batched call goes into the next batch: {}", error.message);
            self.push(call);
        }
    }
}

/// Whether a group of `pending` is past its provider's limits.
fn over_limits(pending: &[Pending]) -> bool {
    let mut sizes: HashMap<(usize, LlmRole), (usize, usize)> = HashMap::new();
    pending.iter().any(|call| {
        let limits = call.api.limits();
        let at = (Arc::as_ptr(&call.api) as *const () as usize, call.request.key.role);
        let size = sizes.entry(at).or_default();
        *size = (size.0 + 1, size.1 + call.bytes);
        size.0 >= limits.requests || size.1 >= limits.bytes
    })
}

/// `group` in batches within its provider's limits.
fn split(group: Vec<Pending>) -> Vec<Vec<Pending>> {
    let mut batches: Vec<Vec<Pending>> = Vec::new();
    let mut bytes = 0;
    for call in group {
        let limits = call.api.limits();
        let size = call.bytes;
        match batches.last_mut() {
            Some(batch) if batch.len() < limits.requests && bytes + size <= limits.bytes => batch.push(call),
            _ => {
                bytes = 0;
                batches.push(vec![call]);
            }
        }
        bytes += size;
    }
    batches
}

/// Send the open batch whenever it is due, for the hub's life.
async fn flusher(hub: BatchHub) {
    loop {
        match hub.due() {
            Err(None) => hub.inner.wake.notified().await,
            Err(Some(deadline)) => {
                tokio::select! {
                    () = hub.inner.wake.notified() => {}
                    () = tokio::time::sleep_until(deadline) => {}
                }
            }
            Ok(everyone_waits) => {
                if everyone_waits {
                    tokio::time::sleep(SETTLE).await;
                }
                for batch in hub.take() {
                    tokio::spawn(run_batch(hub.clone(), batch));
                }
            }
        }
    }
}

/// Submit `calls` as one batch, follow it to its end and hand back each line's reply.
async fn run_batch(hub: BatchHub, calls: Vec<Pending>) {
    let mut flight = Flight { hub: hub.clone(), id: None };
    let Some(first) = calls.first() else { return };
    let (api, role) = (first.api.clone(), first.request.key.role);
    let lines: Vec<_> = calls.iter().map(|call| api.line(&call.custom_id, &call.request)).collect();
    let batch_id = match api.submit(&lines).await {
        Ok(batch_id) => batch_id,
        Err(error) => {
            tracing::warn!("a batch of {} calls was not submitted: {}", calls.len(), error.message);
            calls.into_iter().for_each(|call| hub.answer(call.reply, Err(error.clone())));
            return;
        }
    };
    let keys = calls.iter().map(|call| call.request.key.clone()).collect();
    hub.emit(EngineEvent::BatchSubmitted { batch_id: batch_id.clone(), provider: api.provider(), role, calls: keys });
    flight.submitted(&batch_id, &api).await;
    let (status, mut outcomes) = match follow(api.as_ref(), &batch_id, || hub.cancelling(), &hub.inner.poke).await {
        Ok(ended) => ended,
        Err(error) => {
            let failed = calls.len();
            calls.into_iter().for_each(|call| hub.answer(call.reply, Err(error.clone())));
            hub.emit(EngineEvent::BatchEnded { batch_id, status: BatchStatus::Failed, succeeded: 0, failed });
            return;
        }
    };
    let (mut succeeded, mut failed) = (0, 0);
    let mut seen = HashSet::new();
    for call in calls {
        let outcome = match seen.insert(call.custom_id.clone()) {
            true => outcomes.remove(&call.custom_id),
            false => None,
        };
        match outcome {
            Some(LineOutcome::Reply(body)) => {
                succeeded += 1;
                let reply = api.reply(&call.request, &body);
                hub.answer(call.reply, reply.map(|reply| LlmResponse { batch_id: Some(batch_id.clone()), ..reply }));
            }
            Some(LineOutcome::Failed(code, body)) => {
                failed += 1;
                match api.line_failure(code, &body) {
                    Failure { error, next: Next::Fatal } => hub.answer(call.reply, Err(error)),
                    Failure { error, .. } => hub.retry(call, error),
                }
            }
            Some(LineOutcome::Unprocessed) | None => {
                let message = format!("batch {batch_id} {} before this call was processed", status.label());
                hub.retry(call, LlmError::new(LlmErrorKind::Server, message));
            }
        }
    }
    hub.emit(EngineEvent::BatchEnded { batch_id, status, succeeded, failed });
}

#[cfg(test)]
mod tests;
