//! `run --batch`: the servers' batch APIs probed before anything is sent,
//! the batches an interrupted run left in flight fetched on `--resume`
//! (never submitted again), and the line a run ending with batches in
//! flight says.

use crate::domain::{BatchId, CallKey, LlmRole};
use crate::llm::LlmClient;
use crate::run::RunState;

/// Refuse the run, in one line, when a server its calls are batched with
/// has no batch API; nothing is sent before.
pub(super) fn probe(llm: &dyn LlmClient) -> anyhow::Result<()> {
    let Some(hub) = llm.batch_hub() else { return Ok(()) };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(hub.probe()).map_err(|reason| anyhow::anyhow!("--batch refused: {reason}"))
}

/// The batches `state` saw submitted and not ended, with the calls that still wait in each.
pub(super) fn open_batches(state: &RunState) -> Vec<(BatchId, LlmRole, Vec<CallKey>)> {
    state
        .batches
        .values()
        .filter(|batch| batch.ended.is_none())
        .map(|batch| {
            let waiting = batch.calls.iter().filter(|id| state.waiting_in_batch(**id).is_some());
            let keys = waiting.filter_map(|id| state.calls.get(id).map(|call| call.key.clone())).collect();
            (batch.batch_id.clone(), batch.role, keys)
        })
        .collect()
}

/// Fetch the results of the batches the continued run (`prior`) left in
/// flight instead of batching their calls again (call within the runtime);
/// the batches adopted.
pub(super) fn adopt(llm: &dyn LlmClient, prior: &RunState) -> usize {
    let Some(hub) = llm.batch_hub() else { return 0 };
    open_batches(prior).into_iter().filter(|(batch_id, role, keys)| hub.adopt(batch_id.clone(), *role, keys)).count()
}

/// What happens to the batches a run ended with in flight, in one line.
pub(super) fn in_flight_line(state: &RunState, resume: &str) -> Option<String> {
    let open = open_batches(state);
    let calls: usize = open.iter().map(|(.., keys)| keys.len()).sum();
    (calls > 0).then(|| {
        format!(
            "batches: {} left running at the provider with {}; `{resume}` fetches their results without sending them again",
            open.len(),
            crate::text::plural(calls, "call")
        )
    })
}
