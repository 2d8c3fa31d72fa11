//! The hub's own rules: groups split at the providers' limits, when the open batch is due.

use super::super::api::{BatchLimits, LiveSide};
use super::*;
use crate::domain::{ChatMessage, Provider, TokenUsage};
use futures::future::BoxFuture;
use serde_json::{Value, json};

/// A provider that is never called: its limits and lines only.
struct Stub(BatchLimits);

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
        self.0
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
        Box::pin(async { Err(Failure::fatal(LlmErrorKind::Connection, "never called".into())) })
    }
    fn poll<'a>(&'a self, _: &'a BatchId) -> BoxFuture<'a, Result<Polled, Failure>> {
        Box::pin(async { Err(Failure::fatal(LlmErrorKind::Connection, "never called".into())) })
    }
    fn results<'a>(&'a self, _: &'a [String]) -> BoxFuture<'a, Result<HashMap<String, LineOutcome>, Failure>> {
        Box::pin(async { Err(Failure::fatal(LlmErrorKind::Connection, "never called".into())) })
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
        let api: Arc<dyn BatchApi> = Arc::new(Stub(limits));
        let (calls, _receivers): (Vec<_>, Vec<_>) = (0..5).map(|n| pending(&api, &format!("q{n}"))).unzip();
        assert!(over_limits(&calls), "five calls are past {limits:?}");
        assert_eq!(split(calls).iter().map(Vec::len).collect::<Vec<_>>(), sizes, "{limits:?}");
    }
}

#[test]
fn the_open_batch_is_due_once_every_running_loop_waits_else_at_its_window() {
    let hub = BatchHub::new(Duration::from_secs(600));
    let api: Arc<dyn BatchApi> = Arc::new(Stub(BatchLimits { requests: 100, bytes: 1 << 20 }));
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
