//! Following one batch at its provider: polled until it ends (at once and
//! often once the hub's batches are cancelled), then its lines read.

use std::collections::HashMap;
use std::time::Duration;

use crate::domain::{BatchId, BatchStatus};
use crate::llm::batch::api::{BatchApi, LineOutcome, Polled};
use crate::llm::http::{Failure, Next};
use crate::llm::{LlmError, LlmErrorKind};
use tokio::sync::Notify;

/// The first wait between polls of a batch; it doubles up to [`LONGEST_POLL`].
const FIRST_POLL: Duration = Duration::from_millis(500);
/// The longest wait between polls of a batch.
const LONGEST_POLL: Duration = Duration::from_secs(60);
/// Failed polls in a row before a batch's calls fail.
const POLL_FAILURES: u32 = 8;

/// Ask `api` to cancel batch `id`; a failure is logged (the batch is followed to its end either way).
pub(super) async fn cancel_one(api: &dyn BatchApi, id: &BatchId) {
    if let Err(failure) = api.cancel(id).await {
        tracing::warn!("batch {id} could not be cancelled: {}", failure.error.message);
    }
}

/// Poll batch `id` until it ends (at once and often once `cancelling` says
/// the hub's batches were cancelled; `poke` wakes a wait), then read its
/// lines' outcomes.
pub(super) async fn follow(
    api: &dyn BatchApi,
    id: &BatchId,
    cancelling: impl Fn() -> bool,
    poke: &Notify,
) -> Result<(BatchStatus, HashMap<String, LineOutcome>), LlmError> {
    let (mut wait, mut failures) = (FIRST_POLL, 0);
    let (status, places) = loop {
        let asked = match api.poll(id).await {
            Ok(Polled::Ended(status, places)) => break (status, places),
            Ok(Polled::Refused(reason)) => return Err(LlmError::new(LlmErrorKind::BadRequest, reason)),
            Ok(Polled::Running(after)) => after,
            Err(failure) => tolerate(failure, &mut failures)?,
        };
        let pause = if cancelling() { FIRST_POLL } else { asked.unwrap_or(wait) };
        tokio::select! {
            () = tokio::time::sleep(pause) => {}
            () = poke.notified() => {}
        }
        wait = (wait * 2).min(LONGEST_POLL);
    };
    let mut failures = 0;
    loop {
        match api.results(&places).await {
            Ok(outcomes) => return Ok((status, outcomes)),
            Err(failure) => {
                let asked = tolerate(failure, &mut failures)?;
                tokio::time::sleep(asked.unwrap_or(wait)).await;
            }
        }
    }
}

/// A failed poll: the wait it asks for, or its error once it is fatal or one too many.
fn tolerate(failure: Failure, failures: &mut u32) -> Result<Option<Duration>, LlmError> {
    *failures += 1;
    match failure.next {
        Next::Retry(after) if *failures < POLL_FAILURES => Ok(after),
        Next::Without if *failures < POLL_FAILURES => Ok(None),
        _ => Err(failure.error),
    }
}
