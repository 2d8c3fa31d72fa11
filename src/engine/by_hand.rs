//! Attempts by hand: a DAG the user wrote goes through the same structural
//! checks and trial run as a builder's — no LLM call — and becomes an attempt
//! of its own, a draft; accepting an iteration executes and grades its DAG and
//! counts the question as fixed by hand, apart from the model's passes.

use super::context::RunContext;
use super::critic::{Attempt, Checked};
use crate::domain::{
    AttemptAt, ExecutionResult, Finding, FindingSource, ForkedFrom, GeneratedDag, IterationAt, Question, Rule, Severity,
};
use crate::run::{EngineEvent, HandEdit, Outcome};

/// What the verdict on a draft says besides its findings.
const NOT_REVIEWED: &str = "Written by hand: checked and trial-run, not reviewed by the critic.";

/// How a hand attempt begins: a new attempt, numbered `attempt` in the epoch
/// and draft of `from`, started from `from`.
pub struct HandStart<'a> {
    /// The run.
    pub ctx: &'a RunContext,
    /// The question.
    pub question: &'a Question,
    /// The new attempt's number.
    pub attempt: u32,
    /// The iteration the DAG came from.
    pub from: IterationAt,
}

impl<'a> HandStart<'a> {
    fn begin(&self) -> Attempt<'a> {
        let at = AttemptAt::new(self.question.id.clone(), self.attempt).in_epoch(self.from.epoch, self.from.draft);
        let forked_from = Some(ForkedFrom::of(&self.from));
        self.ctx.emitter.emit(EngineEvent::QuestionStarted { at: at.clone(), forked_from, by_hand: true });
        Attempt { ctx: self.ctx, question: self.question, at }
    }
}

impl Attempt<'_> {
    /// Check and trial-run `dag` as iteration 1 of this hand attempt and give
    /// the verdict; the trial's result when it reached an answer.
    async fn check_by_hand(&self, dag: GeneratedDag) -> Option<ExecutionResult> {
        self.ctx.emitter.emit(EngineEvent::DagBuilt { at: self.at.iteration(1), dag: dag.clone() });
        let checked = self.check_and_trial(1, &dag).await.ok()?;
        let (feedback, trial) = match checked {
            Checked::Failed(mut feedback, _) => {
                feedback.overall_reasoning = format!("{NOT_REVIEWED} {}", feedback.overall_reasoning);
                (feedback, None)
            }
            Checked::Ran(findings, trial) => (Self::rejection(findings, NOT_REVIEWED.into()), Some(*trial)),
        };
        self.verdict(1, &feedback);
        trial.filter(|t| t.success)
    }

    /// End a draft: it stays beside the model's attempts, not an answer.
    fn drafted(&self, reason: &str) {
        self.finish(Outcome::Drafted, 1, None, Some(reason.to_string()));
    }
}

/// Check and trial-run a DAG the user wrote, as a new draft attempt.
pub async fn try_dag(start: HandStart<'_>, edit: HandEdit) {
    let attempt = start.begin();
    match edit {
        HandEdit::Dag { mut dag } => {
            if dag.question_id.is_empty() {
                dag.question_id = start.question.id.clone();
            }
            let reason = match attempt.check_by_hand(dag).await {
                Some(_) => "written by hand: accept it to make it the answer",
                None => "written by hand: it did not produce an answer",
            };
            attempt.drafted(reason);
        }
        HandEdit::Unreadable { error, .. } => {
            let finding = Finding {
                node_id: None,
                layer: None,
                rule: Rule::UnparseableDag,
                source: FindingSource::Structural,
                message: format!("The edited text is not a DAG: {error}"),
                severity: Severity::Error,
            };
            let feedback = Attempt::rejection(vec![finding], NOT_REVIEWED.into());
            attempt.verdict(1, &feedback);
            attempt.drafted("written by hand: not a DAG");
        }
    }
}

/// Where an accepted iteration's DAG stands.
pub enum Acceptance {
    /// A draft by hand whose trial reached an answer: its attempt goes on to
    /// execution.
    Draft(Box<ExecutionResult>),
    /// Any other iteration with a DAG (a model's rejected one, a failed
    /// draft): checked and trial-run again as a new attempt by hand.
    Copy(GeneratedDag),
}

/// Accept an iteration as the question's answer: executed, graded and finished
/// as fixed by hand. A draft goes on in its own attempt (`start.attempt` is
/// then ignored); another iteration's DAG is copied into a new hand attempt.
pub async fn accept(start: HandStart<'_>, acceptance: Acceptance) {
    match acceptance {
        Acceptance::Draft(trial) => {
            let at = start.from.attempt_at();
            let attempt = Attempt { ctx: start.ctx, question: start.question, at };
            attempt.answer(start.from.iteration, *trial, Outcome::FixedByHand, None).await;
        }
        Acceptance::Copy(dag) => {
            let attempt = start.begin();
            match attempt.check_by_hand(dag).await {
                Some(trial) => attempt.answer(1, trial, Outcome::FixedByHand, None).await,
                None => attempt.drafted("not accepted: the DAG did not produce an answer"),
            }
        }
    }
}
