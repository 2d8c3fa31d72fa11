//! One LLM call of a run as the reducer has seen it so far: what was asked,
//! by whom, and what came back.

use std::sync::Arc;

use crate::domain::{CallKey, ChatMessage, TokenUsage};

/// One LLM call as seen so far.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmCall {
    /// Unique id.
    pub call_id: u64,
    /// What it was for.
    pub key: CallKey,
    /// Provider that served it.
    pub provider: String,
    /// Model asked.
    pub model: String,
    /// Prompt.
    pub messages: Arc<Vec<ChatMessage>>,
    /// Text streamed so far, or the full response once finished.
    pub response: String,
    /// Whether the call has ended.
    pub finished: bool,
    /// Failure, if any.
    pub error: Option<String>,
    /// Tokens.
    pub usage: TokenUsage,
    /// Estimated cost in USD, by the client that served it.
    pub cost_usd: f64,
    /// Wall time.
    pub latency_ms: u64,
    /// Retries spent.
    pub retries: u32,
}

impl LlmCall {
    /// A call just sent: nothing answered yet.
    pub(super) fn sent(
        call_id: u64,
        key: CallKey,
        provider: String,
        model: String,
        messages: Arc<Vec<ChatMessage>>,
    ) -> Self {
        Self {
            call_id,
            key,
            provider,
            model,
            messages,
            response: String::new(),
            finished: false,
            error: None,
            usage: TokenUsage::default(),
            cost_usd: 0.0,
            latency_ms: 0,
            retries: 0,
        }
    }
}
