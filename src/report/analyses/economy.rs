//! What a run's tokens bought: how much of its prompt text a provider's prompt
//! cache could reuse, how much it did reuse, tokens and cost per question and
//! per passed question, and the share spent on rejected iterations.

use std::collections::BTreeSet;

use crate::report::documents::TokenEconomy;
use crate::run::{Outcome, QuestionStatus, RunState};

/// Prompt bytes that repeat the start of an earlier call's prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PrefixReuse {
    /// Bytes of each prompt within its longest common prefix with an earlier prompt, summed.
    pub shared_bytes: u64,
    /// Bytes of every prompt.
    pub total_bytes: u64,
}

impl PrefixReuse {
    /// `shared_bytes / total_bytes` (none for no prompt text).
    pub fn fraction(self) -> Option<f64> {
        (self.total_bytes > 0).then(|| self.shared_bytes as f64 / self.total_bytes as f64)
    }
}

/// How much of `prompts` (each a call's full prompt as sent, in sending order)
/// sits in a prefix shared with an earlier call: the most a prefix cache can reuse.
pub fn prefix_reuse<S: AsRef<str>>(prompts: impl IntoIterator<Item = S>) -> PrefixReuse {
    let prompts: Vec<S> = prompts.into_iter().collect();
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut reuse = PrefixReuse::default();
    for prompt in &prompts {
        let prompt = prompt.as_ref();
        // The earlier prompt sharing the longest prefix is a sorted neighbour.
        let before = seen.range(..prompt).next_back();
        let after = seen.range(prompt..).next();
        let shared = before.into_iter().chain(after).map(|p| common_prefix(p, prompt)).max().unwrap_or(0);
        reuse.shared_bytes += shared as u64;
        reuse.total_bytes += prompt.len() as u64;
        seen.insert(prompt);
    }
    reuse
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// The token economy of `state`.
pub fn token_economy(state: &RunState) -> TokenEconomy {
    let per = |amount: f64, count: usize| (count > 0).then(|| amount / count as f64);
    let total = state.usage.total();
    let questions = state.questions.len();
    let passed = state.count(|s| s == QuestionStatus::Done(Outcome::Passed));
    let rejected_iteration_tokens: u64 = state
        .questions
        .iter()
        .flat_map(|q| q.attempts())
        .flat_map(|a| &a.iterations)
        .filter(|i| i.feedback.as_ref().is_some_and(|f| !f.is_approved))
        .flat_map(|i| &i.calls)
        .filter_map(|id| state.calls.get(id))
        .map(|call| call.usage.total())
        .sum();
    let prompts = state.calls.values().map(|call| call.messages.iter().map(|m| m.text()).collect::<String>());
    TokenEconomy {
        cached_tokens: state.usage.cached_tokens,
        cache_hit_rate: state.usage.cache_hit_rate(),
        cache_write_tokens: state.usage.cache_write_tokens,
        prompt_prefix_shared: prefix_reuse(prompts).fraction(),
        tokens_per_question: per(total as f64, questions),
        cost_per_question_usd: per(state.cost_usd, questions),
        tokens_per_passed_question: per(total as f64, passed),
        cost_per_passed_question_usd: per(state.cost_usd, passed),
        rejected_iteration_tokens,
        rejected_iteration_token_share: per(rejected_iteration_tokens as f64, total as usize),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute_force(prompts: &[&str]) -> u64 {
        (0..prompts.len())
            .map(|i| prompts[..i].iter().map(|p| common_prefix(p, prompts[i])).max().unwrap_or(0) as u64)
            .sum()
    }

    #[test]
    fn each_prompt_counts_its_longest_prefix_shared_with_any_earlier_prompt() {
        let prompts = ["system A user 1", "system A user 2", "system B", "system A user 1 again", "other", "system A"];
        let reuse = prefix_reuse(prompts);
        assert_eq!(reuse.total_bytes, prompts.iter().map(|p| p.len() as u64).sum::<u64>());
        assert_eq!(reuse.shared_bytes, brute_force(&prompts));
        assert_eq!(reuse.shared_bytes, 14 + 7 + 15 + 8);
        assert_eq!(prefix_reuse(Vec::<String>::new()).fraction(), None);
        assert_eq!(prefix_reuse(["same", "same"]).fraction(), Some(0.5));
    }
}
