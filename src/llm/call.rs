//! One call to a model: the request, the reply, what streams while it runs,
//! and how it fails.

use std::sync::Arc;
use std::time::Duration;

use crate::domain::{BatchId, CallKey, ChatMessage, FinishReason, ReplySchema, TokenUsage};

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
    /// For a reply the response cache served: the tokens the call used when it
    /// was sent (counted locally for entries stored without them): what
    /// prices it at list price.
    pub list_usage: Option<TokenUsage>,
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
