//! Who played each role of a run, and what each role's calls used: tokens and
//! cost per role, each call priced by the client that served it.

use crate::domain::TokenUsage;
use crate::report::documents::{RoleUsage, RoleUsages};
use crate::run::RunState;

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
