//! A provider's batch protocol as the hub sees it: its limits, where a
//! batch stands, each line's outcome, and the calls every provider answers.

use std::collections::HashMap;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::Value;

use crate::domain::{BatchId, BatchStatus, Provider, TokenUsage};
use crate::llm::call::{LlmError, LlmRequest, LlmResponse};
use crate::llm::http::Failure;

/// How often one call is put into a batch before its last failure is its answer.
pub const MAX_LINE_TRIES: u32 = 4;

/// A provider's limits on one batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct BatchLimits {
    /// Requests per batch.
    pub requests: usize,
    /// Bytes of the batch's file (or body).
    pub bytes: usize,
}

/// Where a batch stands at the provider.
pub(super) enum Polled {
    /// Not done yet; poll again after the wait the provider asked for, if any.
    Running(Option<Duration>),
    /// Over: its results are at these places (file ids, a URL).
    Ended(BatchStatus, Vec<String>),
    /// Refused as a whole, for this reason (one line).
    Refused(String),
}

/// One line's outcome in a batch's results.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum LineOutcome {
    /// The reply's body, as a live non-streamed call would have it.
    Reply(Value),
    /// The request failed: its HTTP status and error body.
    Failed(u16, String),
    /// Never processed: the batch expired or was cancelled first.
    Unprocessed,
}

/// What a batch protocol takes from its provider's live client (every
/// `LlmClient` gives it, in `batch/mod.rs`).
pub(super) trait LiveSide: Send + Sync {
    /// The provider, as its live client names it.
    fn provider(&self) -> Provider;
    /// The model, as its live client names it.
    fn model(&self) -> &str;
    /// The live price of `usage`, USD.
    fn cost_usd(&self, usage: TokenUsage) -> f64;
    /// The batch price of `usage`, USD, when known.
    fn batch_cost_usd(&self, usage: TokenUsage) -> Option<f64>;
    /// The model's context window, tokens, when known.
    fn context_tokens(&self) -> Option<u64>;
}

/// A provider's batch protocol, on its HTTP client: the same request
/// bodies, reply reading and failure classification as its live calls.
pub(super) trait BatchApi: LiveSide {
    /// The provider's limits on one batch.
    fn limits(&self) -> BatchLimits;
    /// Whether the server has a batch API (one line saying why not).
    fn probe(&self) -> BoxFuture<'_, Result<(), String>>;
    /// The line of `request` in a batch, under `custom_id`.
    fn line(&self, custom_id: &str, request: &LlmRequest) -> Value;
    /// Submit `lines` as one batch.
    fn submit<'a>(&'a self, lines: &'a [Value]) -> BoxFuture<'a, Result<BatchId, LlmError>>;
    /// Ask the provider to cancel batch `id`: it ends soon after, with the lines it finished.
    fn cancel<'a>(&'a self, id: &'a BatchId) -> BoxFuture<'a, Result<(), Failure>>;
    /// Where batch `id` stands.
    fn poll<'a>(&'a self, id: &'a BatchId) -> BoxFuture<'a, Result<Polled, Failure>>;
    /// The outcomes of an ended batch's lines, by `custom_id`, read from `places`.
    fn results<'a>(&'a self, places: &'a [String]) -> BoxFuture<'a, Result<HashMap<String, LineOutcome>, Failure>>;
    /// The reply of `request` read from its line's body.
    fn reply(&self, request: &LlmRequest, body: &Value) -> Result<LlmResponse, LlmError>;
    /// A failed line judged as a live reply with that `status` and `body` would be.
    fn line_failure(&self, status: u16, body: &str) -> Failure;
    /// The longest reply a call may get, in tokens (a waiting call's estimate counts it).
    fn max_tokens(&self) -> u32;
}
