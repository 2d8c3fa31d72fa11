//! The provider trait every LLM backend implements.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;

use crate::domain::{BatchId, Provider};
use crate::domain::{CallKey, ChatMessage, FinishReason, LlmRole, ReplySchema, TokenUsage};

/// What a running call reports before it ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StreamUpdate<'a> {
    /// More text of the answer.
    Text(&'a str),
    /// The attempt failed and the call starts again after `wait`; the text
    /// streamed so far is void.
    Retrying {
        /// Retries so far, this one included.
        retry: u32,
        /// Why the attempt failed.
        error: &'a LlmError,
        /// Backoff before the next attempt.
        wait: Duration,
    },
}

/// Receives a running call's updates as they happen.
pub type DeltaSink = Arc<dyn Fn(StreamUpdate<'_>) + Send + Sync>;

/// A sink for callers that do not watch the stream.
pub fn ignore_stream() -> DeltaSink {
    Arc::new(|_| {})
}

/// One chat-completion request.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmRequest {
    /// What the call is for (replay matches on it; the offline planner answers by it).
    pub key: CallKey,
    /// The rendered prompt.
    pub messages: Vec<ChatMessage>,
    /// The shape of the JSON object the reply must be (`None`: free text).
    /// Providers ask for it as far as the role's [`crate::domain::StructuredOutput`] goes.
    pub schema: Option<ReplySchema>,
}

/// A successful reply.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LlmResponse {
    /// Full response text.
    pub text: String,
    /// Token usage: the server's, else counted locally (`estimated`); zero
    /// for offline and replayed replies.
    pub usage: TokenUsage,
    /// Retries spent before this reply.
    pub retries: u32,
    /// Served by the response cache: no request was sent.
    pub from_cache: bool,
    /// Why the reply ended, as the provider said (`None` where nothing says:
    /// offline replies; a replayed reply has the one it was recorded with).
    pub finish_reason: Option<FinishReason>,
    /// `usage` was counted locally because the server sent none.
    pub estimated: bool,
    /// The provider's batch the reply was read from (`run --batch`).
    pub batch_id: Option<BatchId>,
}

/// Why a call failed for good.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum LlmErrorKind {
    /// Still rate-limited after every retry.
    RateLimited,
    /// The account's quota is used up (not retried).
    QuotaExhausted,
    /// The prompt is longer than the model's context.
    ContextLength,
    /// The server refused the request (4xx other than the above).
    BadRequest,
    /// The server failed (5xx) after every retry.
    Server,
    /// No answer in time.
    Timeout,
    /// Could not connect.
    Connection,
    /// The answer could not be understood (bad stream, cut off).
    BadResponse,
    /// Nothing recorded for this call (replay).
    NotRecorded,
    /// Not sent: the run's budget is spent.
    Budget,
}

/// A failed call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct LlmError {
    /// Category.
    pub kind: LlmErrorKind,
    /// One-line description.
    pub message: String,
    /// Retries spent.
    pub retries: u32,
}

impl LlmError {
    /// An error of `kind` with `message` and no retries.
    pub fn new(kind: LlmErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into(), retries: 0 }
    }
}

/// An LLM provider.
pub trait LlmClient: Send + Sync {
    /// The provider, for the header and trace (`openai`, `anthropic`, `offline`, `replay`).
    fn provider(&self) -> Provider;

    /// Model name.
    fn model(&self) -> &str;

    /// Send `request`; streamed text goes to `sink` as it arrives.
    fn complete<'a>(&'a self, request: &'a LlmRequest, sink: DeltaSink)
    -> BoxFuture<'a, Result<LlmResponse, LlmError>>;

    /// Estimated cost of `usage` in USD (0 when unknown).
    fn cost_usd(&self, usage: TokenUsage) -> f64 {
        let _ = usage;
        0.0
    }

    /// The cost of `usage` in the provider's batch API, when it has one
    /// (`run --batch`; the dry run shows it beside the live price).
    fn batch_cost_usd(&self, usage: TokenUsage) -> Option<f64> {
        let _ = usage;
        None
    }

    /// The client that serves calls of `role`, when it is not this one (a
    /// client routing by role, [`super::RoleRouter`]): the provider and model
    /// a call records, and the prices its cost is reckoned with, are that client's.
    fn for_role(&self, role: LlmRole) -> Option<&dyn LlmClient> {
        let _ = role;
        None
    }

    /// The run's batches, when some of its calls go through a provider's
    /// batch API (`run --batch`): the engine counts its critic loops there.
    fn batch_hub(&self) -> Option<&super::BatchHub> {
        None
    }
}

/// The client that serves calls of `role` through `client`: the one it routes
/// them to, else itself.
pub fn serving(client: &dyn LlmClient, role: LlmRole) -> &dyn LlmClient {
    client.for_role(role).unwrap_or(client)
}
