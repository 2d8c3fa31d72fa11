//! Where a run's tokens went as the results document holds it: the token
//! economy and each role's calls (computed in `report/analyses/economy.rs`
//! and `report/analyses/roles.rs`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::domain::{LlmRole, Provider};

/// Where a run's tokens went (`eval_results.json` `summary.token_economy`).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct TokenEconomy {
    /// Prompt tokens the provider served from its cache.
    pub cached_tokens: u64,
    /// `cached_tokens` / prompt tokens (none without prompt tokens).
    pub cache_hit_rate: Option<f64>,
    /// Prompt tokens written to the provider's cache (Anthropic; 0 elsewhere).
    #[serde(default)]
    pub cache_write_tokens: u64,
    /// Share of prompt bytes within a prefix shared with an earlier call (see
    /// [`crate::report::analyses::economy::prefix_reuse`]).
    pub prompt_prefix_shared: Option<f64>,
    /// All tokens / questions.
    pub tokens_per_question: Option<f64>,
    /// All cost / questions, USD.
    pub cost_per_question_usd: Option<f64>,
    /// All tokens / passed questions: what one pass cost, failures included.
    pub tokens_per_passed_question: Option<f64>,
    /// All cost / passed questions, USD.
    pub cost_per_passed_question_usd: Option<f64>,
    /// Tokens of the calls of iterations the critic rejected.
    pub rejected_iteration_tokens: u64,
    /// `rejected_iteration_tokens` / all tokens.
    pub rejected_iteration_token_share: Option<f64>,
}

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
