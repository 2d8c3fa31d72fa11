//! What is selected of an open question: the question, its iteration and the
//! node. The question screen owns it; the screens opened over it (diff,
//! schema, inspector) are handed a copy and send back where they moved it,
//! and the app's work by hand acts on it.

use crate::domain::{IterationAt, QuestionId};
use crate::run::{Attempt, Iteration, QuestionState, RunState};

/// An open question's selected iteration and node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// The question's id.
    pub id: QuestionId,
    /// Iteration selected (index over all attempts' iterations).
    pub iteration: usize,
    /// Node selected in the DAG.
    pub node: usize,
}

impl Selection {
    /// `question` at its last iteration, first node.
    pub fn last_of(question: &QuestionState) -> Self {
        let last = question.attempts().iter().map(|a| a.iterations.len()).sum::<usize>().saturating_sub(1);
        Self { id: question.question.id.clone(), iteration: last, node: 0 }
    }

    /// The question in `state`.
    pub fn question<'a>(&self, state: &'a RunState) -> Option<&'a QuestionState> {
        state.question(&self.id)
    }

    /// Every iteration of the question with its attempt, oldest first.
    pub fn iterations<'a>(&self, state: &'a RunState) -> Vec<(&'a Attempt, &'a Iteration)> {
        self.question(state)
            .map(|q| q.attempts().iter().flat_map(|a| a.iterations.iter().map(move |i| (a, i))).collect())
            .unwrap_or_default()
    }

    /// The selected iteration.
    pub fn current_iteration<'a>(&self, state: &'a RunState) -> Option<(&'a Attempt, &'a Iteration)> {
        let all = self.iterations(state);
        let index = self.iteration.min(all.len().saturating_sub(1));
        all.get(index).copied()
    }

    /// The selected iteration's place, if one is selected.
    pub fn selected_iteration(&self, state: &RunState) -> Option<IterationAt> {
        let (attempt, it) = self.current_iteration(state)?;
        Some(attempt.at(&self.id).iteration(it.number))
    }

    /// Keep the iteration and the node within what `state` has.
    pub fn clamp(&mut self, state: &RunState) {
        let iterations = self.iterations(state).len();
        self.iteration = self.iteration.min(iterations.saturating_sub(1));
        let nodes = self.current_iteration(state).and_then(|(_, it)| it.dag.as_ref()).map_or(0, |dag| dag.nodes.len());
        self.node = self.node.min(nodes.saturating_sub(1));
    }

    /// The index of the last iteration of the selected epoch's draft before
    /// or after the selected one (`run --consensus`; round the drafts, past
    /// those not started): its latest attempt that counts, else its latest.
    pub fn draft_step(&self, state: &RunState, later: bool) -> Result<usize, &'static str> {
        let drafts = state.settings.as_ref().map_or(1, |s| s.drafts());
        if drafts < 2 {
            return Err("this run built one DAG per question (run --consensus K builds K)");
        }
        let (q, (attempt, _)) = self.question(state).zip(self.current_iteration(state)).ok_or("no draft selected")?;
        let all = self.iterations(state);
        (1..drafts)
            .map(|step| if later { step } else { drafts - step })
            .map(|step| (attempt.draft - 1 + step) % drafts + 1)
            .find_map(|draft| {
                let target = q
                    .latest_in(attempt.epoch, draft)
                    .or_else(|| q.attempts().iter().rev().find(|a| (a.epoch, a.draft) == (attempt.epoch, draft)))?;
                all.iter().rposition(|(a, _)| a.is_at(&target.at(&self.id)))
            })
            .ok_or("no other draft of this epoch has started")
    }

    /// The iteration a draft diff sets the selected one against: the last
    /// iteration of the draft speaking for the epoch (the consensus majority's,
    /// else draft 1's) — or, when the selected draft is that one, of the next
    /// draft that has one.
    pub fn other_draft<'a>(&self, state: &'a RunState) -> Option<(&'a Attempt, &'a Iteration)> {
        let q = self.question(state)?;
        let (attempt, _) = self.current_iteration(state)?;
        let speaking = q.speaking_in_epoch(attempt.epoch).filter(|s| s.draft != attempt.draft);
        let other = match speaking {
            Some(speaking) => speaking,
            None => {
                let index = self.draft_step(state, true).ok()?;
                self.iterations(state).get(index)?.0
            }
        };
        Some((other, other.iterations.last()?))
    }
}
