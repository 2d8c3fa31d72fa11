//! Pause / step / cancel: every critic loop passes the gate at each stage
//! boundary, so pause and step take effect between stages; a cancel also
//! interrupts the stage under way (see [`Gate::cancelled`]).

use std::collections::{HashSet, VecDeque};
use std::sync::{Mutex, PoisonError};

use tokio::sync::Notify;

use crate::domain::{AttemptAt, QuestionId};

/// The loop should stop: its attempt or the run was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

#[derive(Debug, Default)]
struct GateState {
    paused: bool,
    /// Pending single-stage permits; `None` = for whichever loop asks first.
    steps: VecDeque<Option<QuestionId>>,
    /// Cancelled attempts.
    cancelled: HashSet<AttemptAt>,
    run_cancelled: bool,
}

/// Shared control state of a run.
#[derive(Debug, Default)]
pub struct Gate {
    state: Mutex<GateState>,
    changed: Notify,
}

impl Gate {
    /// A gate, paused when `paused`.
    pub fn new(paused: bool) -> Self {
        Self { state: Mutex::new(GateState { paused, ..GateState::default() }), changed: Notify::new() }
    }

    fn update(&self, f: impl FnOnce(&mut GateState)) {
        f(&mut self.state.lock().unwrap_or_else(PoisonError::into_inner));
        self.changed.notify_waiters();
    }

    /// Hold loops at their next boundary.
    pub fn pause(&self) {
        self.update(|s| s.paused = true);
    }

    /// Release all loops.
    pub fn resume(&self) {
        self.update(|s| {
            s.paused = false;
            s.steps.clear();
        });
    }

    /// Let one waiting stage through (of `question`, or of anyone).
    pub fn step(&self, question: Option<QuestionId>) {
        self.update(|s| s.steps.push_back(question));
    }

    /// Stop one attempt at its next boundary.
    pub fn cancel_attempt(&self, at: AttemptAt) {
        self.update(|s| {
            s.cancelled.insert(at);
        });
    }

    /// Stop everything at the next boundary.
    pub fn cancel_run(&self) {
        self.update(|s| s.run_cancelled = true);
    }

    /// Resolves once attempt `at` (or the whole run) is cancelled: work
    /// under way races it and is dropped, so a cancel does not wait for a slow
    /// LLM call or DAG to end.
    pub async fn cancelled(&self, at: &AttemptAt) {
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
                if state.run_cancelled || state.cancelled.contains(at) {
                    return;
                }
            }
            notified.await;
        }
    }

    /// Wait until attempt `at` may start its next stage.
    pub async fn pass(&self, at: &AttemptAt) -> Result<(), Cancelled> {
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
                if state.run_cancelled || state.cancelled.contains(at) {
                    return Err(Cancelled);
                }
                if !state.paused {
                    return Ok(());
                }
                let permit =
                    state.steps.iter().position(|target| target.as_deref().is_none_or(|q| q == at.question_id));
                if let Some(index) = permit {
                    state.steps.remove(index);
                    return Ok(());
                }
            }
            notified.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    #[tokio::test]
    async fn a_step_lets_exactly_one_stage_through() {
        let gate = Arc::new(Gate::new(true));
        let passed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for q in ["q_01", "q_02"] {
            let (gate, passed) = (gate.clone(), passed.clone());
            tasks.push(tokio::spawn(async move {
                gate.pass(&AttemptAt::new(q, 1)).await.unwrap();
                passed.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(passed.load(std::sync::atomic::Ordering::SeqCst), 0);
        gate.step(Some("q_02".into()));
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(passed.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert!(tasks[1].is_finished() && !tasks[0].is_finished());
        gate.step(None);
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(passed.load(std::sync::atomic::Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn cancel_releases_a_paused_waiter_with_an_error() {
        let gate = Arc::new(Gate::new(true));
        let waiter = tokio::spawn({
            let gate = gate.clone();
            async move { gate.pass(&AttemptAt::new("q_01", 2)).await }
        });
        tokio::time::sleep(Duration::from_millis(10)).await;
        gate.cancel_attempt(AttemptAt::new("q_01", 2));
        assert_eq!(waiter.await.unwrap(), Err(Cancelled));
        gate.resume();
        assert_eq!(gate.pass(&AttemptAt::new("q_01", 3)).await, Ok(()), "other attempts are not cancelled");
        assert_eq!(gate.pass(&AttemptAt::new("q_01", 2)).await, Err(Cancelled));
    }
}
