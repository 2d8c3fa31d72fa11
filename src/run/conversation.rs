//! The conversation of one question in reading order: per attempt each
//! iteration's calls and the critic's verdict, the attempt's outcome and its
//! grading calls, then its baseline calls (the run's question generation is listed on its own). Each call comes with
//! the earlier call of the same kind, so a reader can be shown only what a
//! prompt changed (a rebuild's new part is the rejected DAG and the feedback).
//! The TUI's conversation tab and the HTML report both render this list.

use std::borrow::Cow;

use similar::{DiffTag, TextDiff};

use super::{Attempt, Iteration, LlmCall, QuestionState, RunState};
use crate::domain::LlmRole;

/// One entry of a question's conversation.
pub enum Entry<'a> {
    /// An LLM call, and the earlier call of the same kind (same role and
    /// layer; for judges, the same judge and step) whose prompt it follows.
    Call {
        /// The call.
        call: &'a LlmCall,
        /// The earlier call of the same kind, if any.
        previous: Option<&'a LlmCall>,
    },
    /// An iteration begins; its calls and then its verdict follow.
    Iteration {
        /// The attempt it belongs to.
        attempt: &'a Attempt,
        /// The iteration.
        iteration: &'a Iteration,
    },
    /// The critic's verdict on the iteration just listed (or its absence, while it runs).
    Verdict(&'a Iteration),
    /// The end of an attempt's iterations (its outcome, once it has one).
    Outcome(&'a Attempt),
    /// The attempt's answer was graded by judges; their calls follow.
    Grading(&'a Attempt),
}

/// The run's question-generation calls, each with the one before it.
pub fn generation_entries(state: &RunState) -> Vec<Entry<'_>> {
    let mut out = Vec::new();
    let mut previous: Option<&LlmCall> = None;
    for call in state.calls.values().filter(|c| c.key.role == LlmRole::QuestionGeneration) {
        out.push(Entry::Call { call, previous });
        previous = Some(call);
    }
    out
}

/// The conversation of `question` in `state`, in reading order.
pub fn entries<'a>(state: &'a RunState, question: &'a QuestionState) -> Vec<Entry<'a>> {
    let mut out = Vec::new();
    let mut earlier: Vec<&LlmCall> = Vec::new();
    let mut push_call = |out: &mut Vec<Entry<'a>>, call: &'a LlmCall| {
        let previous = earlier.iter().rev().find(|p| same_kind(p, call)).copied();
        out.push(Entry::Call { call, previous });
        earlier.push(call);
    };
    for attempt in question.attempts() {
        for iteration in &attempt.iterations {
            out.push(Entry::Iteration { attempt, iteration });
            for call in iteration.calls.iter().filter_map(|id| state.calls.get(id)) {
                push_call(&mut out, call);
            }
            out.push(Entry::Verdict(iteration));
        }
        out.push(Entry::Outcome(attempt));
        let judged: Vec<&LlmCall> =
            attempt.judge_calls.iter().filter_map(|id| state.calls.get(id)).map(|c| &**c).collect();
        if !judged.is_empty() {
            out.push(Entry::Grading(attempt));
        }
        for call in judged {
            push_call(&mut out, call);
        }
    }
    for call in question.baseline_calls.iter().filter_map(|id| state.calls.get(id)) {
        push_call(&mut out, call);
    }
    out
}

/// Whether two calls are of the same kind: same role and layer, and for
/// judges also the same judge (a judge's "iteration" is its panel position).
fn same_kind(a: &LlmCall, b: &LlmCall) -> bool {
    a.key.role == b.key.role
        && a.key.layer == b.key.layer
        && (a.key.role != LlmRole::Judge || a.key.iteration == b.key.iteration)
        && a.key.baseline == b.key.baseline
}

/// What a call was for, e.g. `review layer 1`.
pub fn call_label(call: &LlmCall) -> String {
    let what = match (call.key.role, call.key.layer) {
        (LlmRole::LayerReview, Some(layer)) => format!("review layer {layer}"),
        (LlmRole::QuestionGeneration, _) => "question generation".into(),
        (LlmRole::Judge, step) => format!("judge {} step {}", call.key.iteration, step.unwrap_or(0)),
        (LlmRole::Baseline, _) => match call.key.baseline {
            Some(baseline) => format!("baseline {}", crate::domain::Baseline::from(baseline).name()),
            None => "baseline".into(),
        },
        (role, _) => role.label().to_string(),
    };
    match call.key.repair {
        0 => what,
        repair => format!("{what} · repair {repair}"),
    }
}

/// The last user message of a call's prompt (the part that changes between calls).
pub fn user_prompt(call: &LlmCall) -> Option<Cow<'_, str>> {
    call.messages.iter().rev().find(|m| m.role == crate::domain::MessageRole::User).map(|m| m.text())
}

/// Lines of `after` that are new or changed against `before`; `None` marks
/// unchanged lines left out between two changes.
pub fn changed_lines<'a>(before: &str, after: &'a str) -> Vec<Option<&'a str>> {
    let lines: Vec<&str> = after.lines().collect();
    let diff = TextDiff::from_lines(before, after);
    let mut out = Vec::new();
    let mut last_end = None;
    for op in diff.ops() {
        if op.tag() == DiffTag::Equal || op.tag() == DiffTag::Delete {
            continue;
        }
        let range = op.new_range();
        if last_end.is_some_and(|end| end < range.start) {
            out.push(None);
        }
        out.extend(lines[range.start.min(lines.len())..range.end.min(lines.len())].iter().map(|l| Some(*l)));
        last_end = Some(range.end);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::changed_lines;

    #[test]
    fn only_new_lines_of_a_prompt_are_kept_with_gaps_between_changes() {
        let before = "a\nb\nc\nd\ne\n";
        let after = "a\nB\nc\nd\nnew\ne\n";
        assert_eq!(changed_lines(before, after), vec![Some("B"), None, Some("new")]);
        assert!(changed_lines(before, before).is_empty());
    }
}
