//! A question's baselines (`run --baselines`): the baseline role asked the
//! question directly, once per question — without the data (`no_data`) and
//! with what the builder is shown of it (`no_code`) — as ordinary recorded
//! calls (cache, budget, batches and resume apply). Scoring them is the
//! results' job (`report/analyses/baselines.rs`).

use std::sync::Arc;

use schemars::JsonSchema;
use tokio::sync::Semaphore;

use super::context::RunContext;
use super::loop_slot::run_in_slot;
use crate::domain::{BaselineCall, CallKey, Question, ReplySchema};
use crate::llm::LoopGuard;
use crate::prompts::baseline_answer;
use crate::run::RunState;

/// What a baseline reply holds.
#[derive(Debug, JsonSchema)]
struct BaselineReply {
    /// The answer: a number, a string, a list or an object, as the question asks.
    #[allow(dead_code, reason = "read leniently by `baseline_answer`; the type only gives the schema")]
    answer: serde_json::Value,
}

/// The baselines of `question` still to ask: those `prior` (a continued run)
/// has no reply for.
pub(super) fn unasked(prior: Option<&RunState>, question: &Question) -> Vec<BaselineCall> {
    let replied: Vec<BaselineCall> = prior
        .and_then(|state| Some((state, state.question(&question.id)?)))
        .map(|(state, q)| {
            q.baseline_calls
                .iter()
                .filter_map(|id| state.calls.get(id))
                .filter(|call| call.finished && call.error.is_none())
                .filter_map(|call| call.key.baseline)
                .collect()
        })
        .unwrap_or_default();
    BaselineCall::ALL.into_iter().filter(|call| !replied.contains(call)).collect()
}

/// Ask `question`'s baseline `calls`, one loop slot held while they run
/// (given up while they wait in a batch, counted there by `batching`).
pub(super) async fn ask_baselines(
    ctx: Arc<RunContext>,
    slots: Arc<Semaphore>,
    batching: Option<LoopGuard>,
    question: Question,
    calls: Vec<BaselineCall>,
) {
    run_in_slot(slots, batching, ask(&ctx, &question, calls)).await;
}

async fn ask(ctx: &RunContext, question: &Question, calls: Vec<BaselineCall>) {
    let dataset = ctx.parts.data_of(question).0.clone();
    for call in calls {
        let key = CallKey::for_baseline(question.id.clone(), call);
        let messages = ctx.parts.prompts.baseline(&dataset, question, call);
        let schema = Some(ReplySchema::of::<BaselineReply>("baseline_answer"));
        let read = |reply: &str| baseline_answer(reply).ok_or_else(|| "the reply holds no answer".to_string());
        // A failed or refused call is recorded as such; the baseline then has no answer.
        if let Err(err) = ctx.call_readable(key, messages, schema, read).await {
            tracing::warn!("baseline {call:?} of {}: {err}", question.id);
        }
    }
}
