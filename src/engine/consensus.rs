//! Consensus of independent DAGs (`run --consensus K`): the K drafts of one
//! question's epoch run side by side, each its own critic loop; once all have
//! ended, their approved answers are compared with the run's matching rules
//! and the consensus is recorded.
//!
//! - The K drafts of a question's epoch run side by side under the loop slots.
//! - Their approved answers are grouped with the run's matching rules; the largest
//!   group is the majority (`consensus`).
//! - `record_consensus` records `consensus_reached`, and again when the
//!   orchestrator restarts a draft (rerun, fork) or a draft's answer is accepted by
//!   hand.
//! - `QuestionState::speaking_in_epoch` lets the majority draft speak.
//!
//! Elsewhere: `report/analyses/consensus.rs` sums agreement for the results,
//! `report/views/trust_section.rs` shows it with the minority answers and DAGs, and
//! `report::label_free_signals` sets disagreement and broken invariants against the
//! grades for the scorecard. In the TUI: the dashboard's agreement column,
//! `QuestionScreen::draft_step`/`other_draft` and the diff screen's draft mode.

use std::sync::Arc;

use serde_json::Value;
use tokio::sync::Semaphore;

use super::context::RunContext;
use super::critic::{Seed, run_attempt};
use super::loop_slot::run_in_slot;
use crate::domain::{AttemptAt, Consensus, DraftAnswer, ForkedFrom, Question};
use crate::grade::{MatchOptions, match_values};
use crate::llm::LoopGuard;
use crate::run::{EngineEvent, Outcome};

/// One draft to start: where, seeded and forked as a resumed run says.
pub(super) type DraftStart = (AttemptAt, Seed, Option<ForkedFrom>);

/// Run `starts` (drafts of `question`'s `epoch` not finished yet), each under
/// one of `slots` (and counted as running in the run's batches by its guard in
/// `batching`), side by side; then record the consensus of all `drafts`.
pub(super) async fn run_drafts(
    (ctx, slots): (Arc<RunContext>, Arc<Semaphore>),
    question: Question,
    (epoch, drafts): (u32, u32),
    starts: Vec<DraftStart>,
    batching: Vec<Option<LoopGuard>>,
) {
    let loops = starts.into_iter().zip(batching).map(|((at, seed, forked_from), guard)| {
        let (ctx, slots, question) = (ctx.clone(), slots.clone(), &question);
        async move {
            run_in_slot(slots, guard, async { run_attempt(&ctx, question, at, seed, forked_from).await }).await;
        }
    });
    futures::future::join_all(loops).await;
    record_consensus(&ctx, &question, epoch, drafts);
}

/// Record the consensus of `question`'s `epoch` over its `drafts` drafts —
/// each draft's latest attempt that counts — once every draft has ended (a
/// draft cancelled or stopped by the budget leaves it open). Recorded again
/// after a draft is rerun, forked or fixed by hand.
pub(super) fn record_consensus(ctx: &RunContext, question: &Question, epoch: u32, drafts: u32) {
    let options = ctx.parts.grader.options_for(question).unwrap_or_default();
    let answers = ctx.emitter.with_state(|s| {
        let q = s.question(&question.id)?;
        (1..=drafts)
            .map(|draft| {
                let attempt = q.latest_in(epoch, draft)?;
                match attempt.outcome? {
                    Outcome::Cancelled | Outcome::Budget => None,
                    Outcome::Passed | Outcome::FixedByHand => Some(attempt.final_answer.clone()),
                    _ => Some(None),
                }
            })
            .collect::<Option<Vec<Option<Value>>>>()
    });
    if let Some(answers) = answers {
        let consensus = consensus(&answers, &options);
        ctx.emitter.emit(EngineEvent::ConsensusReached { question_id: question.id.clone(), epoch, consensus });
    }
}

/// The consensus of `answers` (draft 1 first; none where a draft was not
/// approved): answers in one group when they match under `options`; the
/// largest group is the majority (ties go to answers over none, then to the
/// group holding the lowest draft).
pub fn consensus(answers: &[Option<Value>], options: &MatchOptions) -> Consensus {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (index, answer) in answers.iter().enumerate() {
        let same = |group: &&mut Vec<usize>| match (&answers[group[0]], answer) {
            (Some(held), Some(answer)) => match_values(held, answer, options).passed,
            (None, None) => true,
            _ => false,
        };
        match groups.iter_mut().find(same) {
            Some(group) => group.push(index),
            None => groups.push(vec![index]),
        }
    }
    let majority = groups
        .iter()
        .max_by_key(|group| (group.len(), answers[group[0]].is_some(), std::cmp::Reverse(group[0])))
        .cloned()
        .unwrap_or_default();
    Consensus {
        answers: answers
            .iter()
            .enumerate()
            .map(|(index, answer)| DraftAnswer {
                draft: index as u32 + 1,
                answer: answer.clone(),
                in_majority: majority.contains(&index),
            })
            .collect(),
        agreement: if answers.is_empty() { 0.0 } else { majority.len() as f64 / answers.len() as f64 },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn majority(answers: &[Option<Value>]) -> (Vec<bool>, f64) {
        let c = consensus(answers, &MatchOptions::default());
        (c.answers.iter().map(|a| a.in_majority).collect(), c.agreement)
    }

    #[test]
    fn the_largest_group_of_matching_answers_is_the_majority() {
        assert_eq!(
            majority(&[Some(json!(0.3)), Some(json!(0.30000000000000004)), Some(json!(2))]),
            (vec![true, true, false], 2.0 / 3.0),
            "matched by the run's rules, not as bytes"
        );
        assert_eq!(
            majority(&[None, Some(json!("a")), None]),
            (vec![true, false, true], 2.0 / 3.0),
            "two drafts without an answer outvote one"
        );
        assert_eq!(majority(&[None, Some(json!("a"))]), (vec![false, true], 0.5), "a tie goes to an answer");
        assert_eq!(majority(&[Some(json!(1)), Some(json!(2))]), (vec![true, false], 0.5), "then to the lowest draft");
        assert_eq!(
            majority(&[Some(json!("Gas")), Some(json!("gas "))]),
            (vec![true, true], 1.0),
            "strings as the rules compare them"
        );
    }
}
