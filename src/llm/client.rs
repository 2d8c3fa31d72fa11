//! The provider trait every LLM backend implements (its calls' types are in `call.rs`).

use futures::future::BoxFuture;

use super::call::{DeltaSink, LlmError, LlmRequest, LlmResponse};
use crate::domain::{LlmRole, Provider, TokenUsage};

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

    /// The model's context window in tokens (prompt and reply), when known.
    fn context_tokens(&self) -> Option<u64> {
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
