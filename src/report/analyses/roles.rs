//! Who played each role of a run, and what each role's calls used: tokens and
//! cost per role, each call priced by the client that served it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::domain::{LlmRole, Provider, TokenUsage};
use crate::run::RunState;

/// One role's model and what its calls used.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RoleUsage {
    /// Provider that played the role.
    pub provider: Provider,
    /// Model that played the role.
    pub model: String,
    /// Calls made in the role.
    pub calls: usize,
    /// Prompt tokens over those calls.
    pub prompt_tokens: u64,
    /// Generated tokens.
    pub completion_tokens: u64,
    /// Prompt tokens served from the provider's cache.
    pub cached_tokens: u64,
    /// Estimated cost in USD.
    pub cost_usd: f64,
}

/// Every role that made a call, by role.
pub type RoleUsages = BTreeMap<LlmRole, RoleUsage>;

/// Tokens and cost of each role of `state` that made a call; the model of a
/// role is the one its latest call asked (else the run settings').
pub fn role_usage(state: &RunState) -> RoleUsages {
    let mut roles = RoleUsages::new();
    for call in state.calls.values() {
        let role = roles.entry(call.key.role).or_insert_with(|| {
            let played = state.settings.as_ref().map(|s| s.role(call.key.role)).unwrap_or_default();
            RoleUsage { provider: played.provider, model: played.model, ..RoleUsage::default() }
        });
        if !call.model.is_empty() {
            (role.provider, role.model) = (call.provider.clone(), call.model.clone());
        }
        let TokenUsage { prompt_tokens, completion_tokens, cached_tokens, .. } = call.usage;
        role.calls += 1;
        role.prompt_tokens += prompt_tokens;
        role.completion_tokens += completion_tokens;
        role.cached_tokens += cached_tokens;
        role.cost_usd += call.cost_usd;
    }
    roles
}
