//! The hub's own rules: groups split at the providers' limits, when the
//! open batch is due, and how long a cancel waits.

use super::super::api::{BatchLimits, LiveSide, Polled};
use super::*;
use crate::domain::{ChatMessage, Provider, TokenUsage};
use futures::future::BoxFuture;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, Ordering};

/// A provider with limits and lines, whose batches run until they are
/// cancelled, and then end when `ends_when_cancelled` (else run on) with
/// the line `answered` answered.
struct Stub {
    limits: BatchLimits,
    ends_when_cancelled: bool,
    answered: String,
    cancelled: AtomicBool,
}

impl Stub {
    fn new(limits: BatchLimits, ends_when_cancelled: bool, answered: &str) -> Self {
        Self { limits, ends_when_cancelled, answered: answered.into(), cancelled: AtomicBool::new(false) }
    }
}

impl LiveSide for Stub {
    fn provider(&self) -> Provider {
        "stub".into()
    }
    fn model(&self) -> &str {
        "stub"
    }
    fn cost_usd(&self, _: TokenUsage) -> f64 {
        0.0
    }
    fn batch_cost_usd(&self, _: TokenUsage) -> Option<f64> {
        None
    }
    fn context_tokens(&self) -> Option<u64> {
        None
    }
}

impl BatchApi for Stub {
    fn limits(&self) -> BatchLimits {
        self.limits
    }
    fn probe(&self) -> futures::future::BoxFuture<'_, Result<(), String>> {
        Box::pin(async { Ok(()) })
    }
    fn line(&self, custom_id: &str, _: &LlmRequest) -> Value {
        json!({"custom_id": custom_id})
    }
    fn submit<'a>(&'a self, _: &'a [Value]) -> BoxFuture<'a, Result<BatchId, LlmError>> {
        Box::pin(async { Err(LlmError::new(LlmErrorKind::Connection, "never called")) })
    }
    fn cancel<'a>(&'a self, _: &'a BatchId) -> BoxFuture<'a, Result<(), Failure>> {
        self.cancelled.store(true, Ordering::SeqCst);
        Box::pin(async { Ok(()) })
    }
    fn poll<'a>(&'a self, _: &'a BatchId) -> BoxFuture<'a, Result<Polled, Failure>> {
        let ended = self.ends_when_cancelled && self.cancelled.load(Ordering::SeqCst);
        Box::pin(async move {
            Ok(match ended {
                true => Polled::Ended(BatchStatus::Cancelled, vec!["results".into()]),
                false => Polled::Running(Some(Duration::from_millis(20))),
            })
        })
    }
    fn results<'a>(&'a self, _: &'a [String]) -> BoxFuture<'a, Result<HashMap<String, LineOutcome>, Failure>> {
        let answered = HashMap::from([(self.answered.clone(), LineOutcome::Reply(json!({"finished": true})))]);
        Box::pin(async move { Ok(answered) })
    }
    fn reply(&self, _: &LlmRequest, _: &Value) -> Result<LlmResponse, LlmError> {
        Err(LlmError::new(LlmErrorKind::BadResponse, "never called"))
    }
    fn line_failure(&self, _: u16, _: &str) -> Failure {
        Failure::fatal(LlmErrorKind::BadRequest, "never called".into())
    }
    fn max_tokens(&self) -> u32 {
        0
    }
}

fn pending(api: &Arc<dyn BatchApi>, question: &str) -> (Pending, oneshot::Receiver<Handed>) {
    let key = CallKey { question_id: Some(question.into()), ..CallKey::run_wide(LlmRole::DagBuild) };
    let request = LlmRequest { key, messages: vec![ChatMessage::user("build")], schema: None };
    let (reply, receiver) = oneshot::channel();
    let custom_id = format!("{question:0>64}");
    let bytes = api.line(&custom_id, &request).to_string().len() + 1;
    (Pending { api: api.clone(), request, custom_id, bytes, tries: 0, reply }, receiver)
}

#[test]
fn a_group_is_split_at_the_providers_requests_and_bytes() {
    let line = json!({"custom_id": format!("{:0>64}", "q")}).to_string().len() + 1;
    for (limits, sizes) in [
        (BatchLimits { requests: 2, bytes: 1 << 20 }, vec![2, 2, 1]),
        (BatchLimits { requests: 100, bytes: 3 * line }, vec![3, 2]),
    ] {
        let api: Arc<dyn BatchApi> = Arc::new(Stub::new(limits, true, ""));
        let (calls, _receivers): (Vec<_>, Vec<_>) = (0..5).map(|n| pending(&api, &format!("q{n}"))).unzip();
        assert!(over_limits(&calls), "five calls are past {limits:?}");
        assert_eq!(split(calls).iter().map(Vec::len).collect::<Vec<_>>(), sizes, "{limits:?}");
    }
}

#[test]
fn the_open_batch_is_due_once_every_running_loop_waits_else_at_its_window() {
    let hub = BatchHub::new(Duration::from_secs(600), Duration::from_secs(600));
    let api: Arc<dyn BatchApi> = Arc::new(Stub::new(BatchLimits { requests: 100, bytes: 1 << 20 }, true, ""));
    let (_a, _b) = (hub.loop_started(), hub.loop_started());
    let (call, _receiver) = pending(&api, "q1");
    let waiting = hub.waiting(&call.request.key, 0.25);
    {
        let mut state = hub.lock();
        state.pending.push(call);
        state.opened = Some(Instant::now());
    }
    assert!(matches!(hub.due(), Err(Some(_))), "one of two loops waits: the batch stays open");
    let (other, _other_receiver) = pending(&api, "q2");
    let _also = hub.waiting(&other.request.key, 0.5);
    assert!((hub.waiting_usd() - 0.75).abs() < 1e-12, "waiting calls count at their estimates");
    assert_eq!(hub.due(), Ok(true), "every running loop waits: sent now");
    drop(waiting);
    assert_eq!(hub.due(), Err(Some(hub.lock().opened.unwrap() + Duration::from_secs(600))));
    assert_eq!(hub.take().len(), 1);
    assert_eq!(hub.due(), Err(None), "nothing left to send");
}

/// A hub with the batch `batch_adopted` adopted on resume at a [`Stub`],
/// holding the call of question `q1`; that call's `custom_id`.
fn adopting(ends_when_cancelled: bool, cancel_wait: Duration) -> (BatchHub, String) {
    let key = CallKey { question_id: Some("q1".into()), ..CallKey::run_wide(LlmRole::DagBuild) };
    let line = crate::domain::custom_id(&key);
    let hub = BatchHub::new(Duration::from_secs(600), cancel_wait);
    let limits = BatchLimits { requests: 100, bytes: 1 << 20 };
    hub.register(LlmRole::DagBuild, Arc::new(Stub::new(limits, ends_when_cancelled, &line)));
    assert!(hub.adopt("batch_adopted".into(), LlmRole::DagBuild, &[key]));
    (hub, line)
}

#[tokio::test]
async fn a_cancel_waits_for_a_call_in_an_adopted_batch_to_take_what_its_batch_finished() {
    let (hub, line) = adopting(true, Duration::from_secs(60));
    let taken = Arc::new(AtomicBool::new(false));
    // The call waits on the adopted batch as `BatchClient::complete` does.
    let waiter = {
        let (hub, taken, line) = (hub.clone(), taken.clone(), line.clone());
        tokio::spawn(async move {
            let outcome = hub.adopted(&line).await;
            taken.store(true, Ordering::SeqCst);
            outcome
        })
    };
    for _ in 0..1_000 {
        if hub.lock().adopted.is_empty() {
            break;
        }
        tokio::task::yield_now().await;
    }
    assert!(hub.lock().adopted.is_empty(), "the call waits on its adopted batch");
    assert_eq!(hub.lock().unread, 1, "a call waiting on an adopted batch counts as unread, as one in a new batch");
    assert_eq!(hub.cancel().await, Cancelled { cancelled: 1, left: 0 });
    assert!(taken.load(Ordering::SeqCst), "the cancel returned before the call took its reply");
    let (batch, outcome) = waiter.await.unwrap().expect("the call's line is in the batch");
    assert_eq!((batch.to_string().as_str(), outcome), ("batch_adopted", LineOutcome::Reply(json!({"finished": true}))));
}

#[tokio::test]
async fn a_cancel_gives_up_on_a_batch_still_running_after_the_cancel_wait() {
    let (hub, _) = adopting(false, Duration::from_millis(300));
    let started = std::time::Instant::now();
    assert_eq!(hub.cancel().await, Cancelled { cancelled: 0, left: 1 }, "the batch still runs at its provider");
    assert!(started.elapsed() < Duration::from_secs(10), "the cancel waited {:?}", started.elapsed());
}
