//! Calls sent through the providers' batch APIs (`run --batch`): half the
//! price, answered within the provider's window instead of at once.
//!
//! A [`BatchClient`] stands in for a role's HTTP client. Its calls do not go
//! out one request each: each joins the run's open batch in the
//! [`BatchHub`], which sends it — grouped by client and role, one batch per
//! group — when every running critic loop waits in a batch (a loop counts as
//! running from the moment it is started, before it takes a loop slot), when
//! the window ends (`--batch-window`, counted from the batch's first call),
//! or when a group reaches the provider's size limits (requests per batch,
//! bytes per file). Each batch is then polled (backoff from half a second to
//! a minute, `Retry-After` honoured) and its result lines matched to their
//! calls by `custom_id` (`domain::custom_id`, the SHA-256 of the call key).
//!
//! A line that failed is judged as the provider client judges a live reply
//! of that status (`openai.rs`, `anthropic.rs`): what is worth another
//! attempt — a rate limit, a server error, a refused `response_format` form,
//! stepped down as a live call would be — goes into the next batch, up to
//! [`MAX_LINE_TRIES`] times; the rest fails the call. An expired or cancelled
//! batch's unprocessed lines go into the next batch. A batch the provider
//! refuses as a whole fails its calls with the provider's reason, naming the
//! line.
//!
//! The hub reports `batch_submitted` and `batch_ended` through the observer
//! the engine gives it, so they are written by the engine's emitter with the
//! calls' own events. On `--resume`, batches the trace saw submitted and not
//! ended are [adopted](BatchHub::adopt): their results are fetched, never
//! submitted again, and each of their calls is answered from them when the
//! continued loop makes it (a line that failed there is batched anew).
//!
//! The protocols: `openai.rs` (a JSONL file uploaded with purpose `batch`,
//! `POST /batches`, the output and error files), `anthropic.rs` (`POST
//! /v1/messages/batches`, its `results_url`).

mod anthropic;
mod hub;
mod openai;

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;

use super::tokens::count_locally;
use super::{AnthropicClient, DeltaSink, LlmClient, LlmError, LlmErrorKind, LlmRequest, LlmResponse, OpenAiClient};
use crate::domain::{LlmRole, Provider, TokenUsage, custom_id};

mod api;

pub use api::MAX_LINE_TRIES;
use api::{BatchApi, LineOutcome, LiveSide};
pub use hub::{BatchHub, Cancelled, LoopGuard};

/// The default `--batch-window`: a batch is sent at the latest this long after its first call.
pub const DEFAULT_WINDOW: Duration = Duration::from_secs(10);

/// The default `--batch-cancel-wait`: how long cancelling the batches in
/// flight waits for them to end before the run ends without them.
pub const DEFAULT_CANCEL_WAIT: Duration = Duration::from_secs(120);

impl<T: LlmClient> LiveSide for T {
    fn provider(&self) -> Provider {
        LlmClient::provider(self)
    }

    fn model(&self) -> &str {
        LlmClient::model(self)
    }

    fn cost_usd(&self, usage: TokenUsage) -> f64 {
        LlmClient::cost_usd(self, usage)
    }

    fn batch_cost_usd(&self, usage: TokenUsage) -> Option<f64> {
        LlmClient::batch_cost_usd(self, usage)
    }

    fn context_tokens(&self) -> Option<u64> {
        LlmClient::context_tokens(self)
    }
}

/// A role's client whose calls go through the provider's batch API.
pub struct BatchClient {
    api: Arc<dyn BatchApi>,
    hub: BatchHub,
}

impl BatchClient {
    /// Batch the calls of `client` (OpenAI) in `hub`.
    pub fn openai(client: OpenAiClient, hub: &BatchHub) -> Self {
        Self { api: Arc::new(client), hub: hub.clone() }
    }

    /// Batch the calls of `client` (Anthropic) in `hub`.
    pub fn anthropic(client: AnthropicClient, hub: &BatchHub) -> Self {
        Self { api: Arc::new(client), hub: hub.clone() }
    }

    /// Serve `role`'s calls: batches of `role` adopted on resume are fetched with this client.
    pub fn serve(&self, role: LlmRole) {
        self.hub.register(role, self.api.clone());
    }
}

impl BatchClient {
    /// What `request` will cost at most, at the batch price: its prompt
    /// counted locally and the role's `max_tokens` of reply.
    fn estimate(&self, request: &LlmRequest) -> f64 {
        let mut usage = count_locally(self.api.model(), &request.messages, "");
        usage.completion_tokens = u64::from(self.api.max_tokens());
        self.api.batch_cost_usd(usage).unwrap_or_default()
    }
}

impl LlmClient for BatchClient {
    fn provider(&self) -> Provider {
        self.api.provider()
    }

    fn model(&self) -> &str {
        self.api.model()
    }

    fn complete<'a>(&'a self, request: &'a LlmRequest, _: DeltaSink) -> BoxFuture<'a, Result<LlmResponse, LlmError>> {
        Box::pin(async move {
            let id = custom_id(&request.key);
            let _waiting = self.hub.waiting(&request.key, self.estimate(request));
            if let Some((batch_id, outcome)) = self.hub.adopted(&id).await {
                match outcome {
                    LineOutcome::Reply(body) => {
                        return self
                            .api
                            .reply(request, &body)
                            .map(|reply| LlmResponse { batch_id: Some(batch_id), ..reply });
                    }
                    LineOutcome::Failed(status, body) => {
                        tracing::warn!("{}", self.api.line_failure(status, &body).error.message);
                    }
                    LineOutcome::Unprocessed => {}
                }
            }
            let reply = self.hub.enqueue(self.api.clone(), request.clone(), id);
            let handed = reply.await.map(|handed| handed.result);
            handed.unwrap_or_else(|_| Err(LlmError::new(LlmErrorKind::Connection, "the batch was dropped")))
        })
    }

    fn cost_usd(&self, usage: TokenUsage) -> f64 {
        self.api.cost_usd(usage)
    }

    fn batch_cost_usd(&self, usage: TokenUsage) -> Option<f64> {
        self.api.batch_cost_usd(usage)
    }

    fn context_tokens(&self) -> Option<u64> {
        self.api.context_tokens()
    }

    fn batch_hub(&self) -> Option<&BatchHub> {
        Some(&self.hub)
    }
}
