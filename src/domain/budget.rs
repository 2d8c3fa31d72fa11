//! A run's spending limits (`--max-cost`, `--max-tokens`, `[budget]
//! per_question_usd`) and which of them a spend has reached.

use serde::{Deserialize, Serialize};

/// The limits a run was given; each is off when unset.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Budget {
    /// Most US dollars the whole run may spend.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cost_usd: Option<f64>,
    /// Most tokens (prompt + completion) the whole run may use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Most US dollars one question may spend.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_question_usd: Option<f64>,
}

/// What has been spent so far.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Spend {
    /// US dollars, by the run.
    pub run_usd: f64,
    /// Tokens, by the run.
    pub run_tokens: u64,
    /// US dollars, by the question about to call (0 for a run-wide call).
    pub question_usd: f64,
}

/// A limit that was reached.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BudgetLimit {
    /// `--max-cost`, in US dollars.
    MaxCost(f64),
    /// `--max-tokens`.
    MaxTokens(u64),
    /// `[budget] per_question_usd`.
    PerQuestion(f64),
}

impl std::fmt::Display for BudgetLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::MaxCost(usd) => write!(f, "--max-cost ${usd}"),
            Self::MaxTokens(tokens) => write!(f, "--max-tokens {tokens}"),
            Self::PerQuestion(usd) => write!(f, "per_question_usd ${usd}"),
        }
    }
}

impl BudgetLimit {
    /// Whether the limit is the whole run's (else one question's).
    pub fn is_run_wide(self) -> bool {
        !matches!(self, Self::PerQuestion(_))
    }

    /// By how much `spend` went past the limit (0 when it did not), in its unit.
    pub fn overshoot(self, spend: Spend) -> f64 {
        let over = match self {
            Self::MaxCost(usd) => spend.run_usd - usd,
            Self::MaxTokens(tokens) => spend.run_tokens as f64 - tokens as f64,
            Self::PerQuestion(usd) => spend.question_usd - usd,
        };
        over.max(0.0)
    }
}

impl Budget {
    /// Whether no limit is set.
    pub fn is_unlimited(&self) -> bool {
        *self == Self::default()
    }

    /// The first limit `spend` has reached: no new call may start then.
    pub fn reached(&self, spend: Spend) -> Option<BudgetLimit> {
        let cost = self.max_cost_usd.filter(|&max| spend.run_usd >= max).map(BudgetLimit::MaxCost);
        let tokens = self.max_tokens.filter(|&max| spend.run_tokens >= max).map(BudgetLimit::MaxTokens);
        let question = self.per_question_usd.filter(|&max| spend.question_usd >= max).map(BudgetLimit::PerQuestion);
        cost.or(tokens).or(question)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_limit_reached_is_named_with_its_overshoot() {
        let budget = Budget { max_cost_usd: Some(0.5), max_tokens: Some(1000), per_question_usd: Some(0.1) };
        let under = Spend { run_usd: 0.2, run_tokens: 999, question_usd: 0.05 };
        assert_eq!(budget.reached(under), None);
        let tokens = Spend { run_tokens: 1200, ..under };
        assert_eq!(budget.reached(tokens), Some(BudgetLimit::MaxTokens(1000)));
        assert_eq!(BudgetLimit::MaxTokens(1000).overshoot(tokens), 200.0);
        let cost = Spend { run_usd: 0.75, ..tokens };
        assert_eq!(budget.reached(cost).map(|l| l.to_string()).as_deref(), Some("--max-cost $0.5"));
        let question = Spend { question_usd: 0.1, ..under };
        assert_eq!(budget.reached(question), Some(BudgetLimit::PerQuestion(0.1)));
        assert!(!BudgetLimit::PerQuestion(0.1).is_run_wide());
        assert!(Budget::default().reached(Spend { run_usd: 1e9, run_tokens: u64::MAX, question_usd: 1e9 }).is_none());
    }
}
