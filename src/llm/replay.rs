//! Answers LLM calls with the responses recorded in a trace, matched by
//! question, role, attempt, iteration and layer, so a run can be reproduced
//! exactly, resumed or forked without spending tokens. With a fallback client,
//! calls the trace never saw go live.

use std::collections::HashMap;
use std::sync::Arc;

use futures::future::BoxFuture;

use super::{DeltaSink, LlmClient, LlmError, LlmErrorKind, LlmRequest, LlmResponse, StreamUpdate};
use crate::domain::Provider;
use crate::domain::{CallKey, FinishReason, LlmRole, TokenUsage};
use crate::run::EngineEvent;
use crate::trace::Trace;

/// Serves recorded responses, then the fallback's.
#[derive(Clone)]
pub struct ReplayClient {
    model: String,
    /// Each key's reply and why it ended (a cut-off reply is repaired the same way again).
    recorded: HashMap<CallKey, (String, Option<FinishReason>)>,
    fallback: Option<Arc<dyn LlmClient>>,
}

impl ReplayClient {
    /// Every successful response of `trace`; a later call with the same key wins.
    pub fn from_trace(trace: &Trace) -> Self {
        let mut client = Self::new(&trace.header.settings.model);
        trace.records.iter().for_each(|record| client.learn(&record.event));
        client
    }

    /// A client of `model` with nothing recorded yet (see [`Self::learn`]).
    pub fn new(model: &str) -> Self {
        Self { model: model.to_string(), recorded: HashMap::new(), fallback: None }
    }

    /// Record the response of `event` if it is a successful call's; a later
    /// call with the same key wins.
    pub fn learn(&mut self, event: &EngineEvent) {
        if let EngineEvent::LlmCallFinished { key, response: Some(text), error: None, finish_reason, .. } = event {
            self.recorded.insert(key.clone(), (text.clone(), finish_reason.clone()));
        }
    }

    /// Send calls without a recorded response to `client`.
    pub fn with_fallback(mut self, client: Arc<dyn LlmClient>) -> Self {
        self.model = client.model().to_string();
        self.fallback = Some(client);
        self
    }

    /// Number of recorded responses.
    pub fn len(&self) -> usize {
        self.recorded.len()
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.recorded.is_empty()
    }
}

impl LlmClient for ReplayClient {
    fn provider(&self) -> Provider {
        self.fallback.as_ref().map_or(Provider::Replay, |f| f.provider())
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn complete<'a>(
        &'a self,
        request: &'a LlmRequest,
        sink: DeltaSink,
    ) -> BoxFuture<'a, Result<LlmResponse, LlmError>> {
        Box::pin(async move {
            if let Some((text, finish_reason)) = self.recorded.get(&request.key) {
                sink(StreamUpdate::Text(text));
                // The recorded tokens were paid for by the original run.
                let finish_reason = finish_reason.clone();
                return Ok(LlmResponse { text: text.clone(), finish_reason, ..LlmResponse::default() });
            }
            if let Some(fallback) = &self.fallback {
                return fallback.complete(request, sink).await;
            }
            let key = &request.key;
            Err(LlmError::new(
                LlmErrorKind::NotRecorded,
                format!(
                    "the trace has no recorded {} response for {} attempt {} iteration {}{}",
                    key.role.label(),
                    key.question_id.as_deref().unwrap_or("the run"),
                    key.attempt,
                    key.iteration,
                    key.layer.map(|l| format!(" layer {l}")).unwrap_or_default()
                ),
            ))
        })
    }

    fn cost_usd(&self, usage: TokenUsage) -> f64 {
        self.fallback.as_ref().map_or(0.0, |f| f.cost_usd(usage))
    }

    fn for_role(&self, role: LlmRole) -> Option<&dyn LlmClient> {
        self.fallback.as_deref().map(|f| super::serving(f, role))
    }

    fn batch_hub(&self) -> Option<&super::BatchHub> {
        self.fallback.as_deref().and_then(LlmClient::batch_hub)
    }
}
