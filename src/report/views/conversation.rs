//! The view of a question's conversation log for `templates/question_body.html.j2`:
//! each call collapsed to a line with what it was for, tokens and latency;
//! opened, its prompt — whole for the first call of its kind, else only the
//! lines changed since the previous one (the trace keeps every prompt whole) —
//! and its response; between the calls, iterations, verdicts and outcomes.

use serde::Serialize;

use crate::run::conversation::{Entry, call_label, changed_lines, entries, user_prompt};
use crate::run::{Attempt, Iteration, LlmCall, QuestionState, RunState};
use crate::text::plural;

/// A call's prompt as shown.
#[derive(Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PromptView {
    /// The first call of its kind: the prompt whole.
    Whole {
        /// The prompt.
        text: String,
    },
    /// The same prompt as the last call of its kind.
    Same {
        /// "N lines".
        lines: String,
    },
    /// The lines changed since the last call of its kind (`None`: a gap).
    Changed {
        /// "N lines".
        lines: String,
        /// Changed lines, gaps between them.
        changes: Vec<Option<String>>,
    },
    /// No user message.
    None,
}

/// One entry of the conversation log.
#[derive(Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ConversationEntry {
    /// An LLM call.
    Call {
        /// What it was for.
        label: String,
        /// Its tokens.
        tokens: u64,
        /// Its latency.
        latency_ms: u64,
        /// "N retries", when it had any.
        retries: Option<String>,
        /// Its prompt.
        prompt: PromptView,
        /// Its response, or why it failed.
        response: String,
    },
    /// A heading: an iteration begins, or the attempt's grading.
    Turn {
        /// The attempt.
        attempt: u32,
        /// "iteration N" or "grading".
        what: String,
    },
    /// The critic approved.
    Approved,
    /// The critic rejected.
    Rejected {
        /// "N findings".
        findings: String,
    },
    /// An attempt ended.
    Outcome {
        /// The attempt.
        attempt: u32,
        /// How it ended.
        outcome: &'static str,
    },
}

fn call_entry(call: &LlmCall, previous: Option<&LlmCall>) -> ConversationEntry {
    let label = call_label(call);
    let prompt = match (user_prompt(call), previous.and_then(user_prompt)) {
        (Some(prompt), Some(before)) => {
            let changes = changed_lines(&before, &prompt);
            let lines = plural(prompt.lines().count(), "line");
            match changes.is_empty() {
                true => PromptView::Same { lines },
                false => {
                    PromptView::Changed { lines, changes: changes.into_iter().map(|l| l.map(str::to_string)).collect() }
                }
            }
        }
        (Some(prompt), None) => PromptView::Whole { text: prompt.into_owned() },
        (None, _) => PromptView::None,
    };
    ConversationEntry::Call {
        label,
        tokens: call.usage.total(),
        latency_ms: call.latency_ms,
        retries: (call.retries > 0).then(|| plural(call.retries as usize, "retry")),
        prompt,
        response: call.error.as_deref().map_or(call.response.clone(), |e| format!("(call failed: {e})")),
    }
}

/// The conversation log of `q`.
pub fn conversation(state: &RunState, q: &QuestionState) -> Vec<ConversationEntry> {
    entries(state, q)
        .into_iter()
        .filter_map(|entry| match entry {
            Entry::Call { call, previous } => Some(call_entry(call, previous)),
            Entry::Iteration { attempt, iteration } => Some(ConversationEntry::Turn {
                attempt: attempt.number,
                what: format!("iteration {}", iteration.number),
            }),
            Entry::Verdict(Iteration { feedback: Some(feedback), .. }) if feedback.is_approved => {
                Some(ConversationEntry::Approved)
            }
            Entry::Verdict(Iteration { feedback: Some(feedback), .. }) => {
                Some(ConversationEntry::Rejected { findings: plural(feedback.findings.len(), "finding") })
            }
            Entry::Verdict(_) => None,
            Entry::Outcome(Attempt { number, outcome: Some(outcome), .. }) => {
                Some(ConversationEntry::Outcome { attempt: *number, outcome: outcome.label() })
            }
            Entry::Outcome(_) => None,
            Entry::Grading(attempt) => {
                Some(ConversationEntry::Turn { attempt: attempt.number, what: "grading".into() })
            }
        })
        .collect()
}
