//! A critic loop's slot (`--concurrency`), given up while the loop's calls
//! wait in a provider's batch (`run --batch`): a batch can then hold every
//! question's build, not `--concurrency` of them, while the work a loop does
//! between its calls stays bounded by the slots and the sandbox pools.

use std::future::Future;
use std::sync::Arc;

use tokio::sync::{Mutex, OwnedSemaphorePermit, Semaphore};

use crate::llm::LoopGuard;

tokio::task_local! {
    static SLOT: Arc<LoopSlot>;
}

/// The slot a loop holds, and how many of its calls wait without it.
pub(super) struct LoopSlot {
    slots: Arc<Semaphore>,
    held: Mutex<(usize, Option<OwnedSemaphorePermit>)>,
}

/// Run `work` (a critic loop) under one of `slots`; with `batching` (the
/// loop counted as running in the run's batches from now on), its calls give
/// the slot up while they wait in a batch.
pub(super) async fn run_in_slot<F: Future<Output = ()>>(slots: Arc<Semaphore>, batching: Option<LoopGuard>, work: F) {
    let Ok(permit) = slots.clone().acquire_owned().await else { return };
    match batching {
        None => {
            work.await;
            drop(permit);
        }
        Some(guard) => {
            let slot = Arc::new(LoopSlot { slots, held: Mutex::new((0, Some(permit))) });
            SLOT.scope(slot, work).await;
            drop(guard);
        }
    }
}

/// Await `call` (one LLM call) with the loop's slot given up while it waits,
/// when the loop runs under [`run_in_slot`] with batching.
pub(super) async fn without_slot<F: Future>(call: F) -> F::Output {
    let Ok(slot) = SLOT.try_with(Arc::clone) else { return call.await };
    // The call's first step runs with the slot still held: a batched call
    // joins its batch (and its estimate counts against the budget) before
    // another loop may start and check the budget.
    let mut call = std::pin::pin!(call);
    if let std::task::Poll::Ready(output) = futures::poll!(call.as_mut()) {
        return output;
    }
    {
        let mut held = slot.held.lock().await;
        held.0 += 1;
        held.1 = None;
    }
    let output = call.await;
    let mut held = slot.held.lock().await;
    held.0 -= 1;
    if held.0 == 0 && held.1.is_none() {
        held.1 = slot.slots.clone().acquire_owned().await.ok();
    }
    output
}
