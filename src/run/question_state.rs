//! What happened to one question: its attempts, their iterations and the
//! stages, calls, verdicts and grades of each, as the reducer
//! ([`super::RunState::apply`]) records them.

use serde_json::Value;

use super::events::{Outcome, Stage};
use crate::domain::{AttemptAt, ForkedFrom, IterationAt, NodeId, Rule, TokenUsage};
use crate::domain::{CriticFeedback, ExecutionResult, Finding, FindingSource, GeneratedDag, Grade, Question, Severity};

/// Where a question stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QuestionStatus {
    /// Not started.
    Queued,
    /// A stage is running.
    Working(Stage),
    /// The critic approved; final execution pending.
    Approved,
    /// The critic rejected; a rebuild is pending.
    Rejected,
    /// Finished.
    Done(Outcome),
}

impl QuestionStatus {
    /// Human name as shown in tables.
    pub fn label(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Working(Stage::Build) => "building",
            Self::Working(Stage::StructuralCheck) => "checking",
            Self::Working(Stage::TrialRun) => "trial run",
            Self::Working(Stage::SemanticReview) => "reviewing",
            Self::Working(Stage::Execute) => "executing",
            Self::Approved => "approved",
            Self::Rejected => "rejected",
            Self::Done(outcome) => outcome.label(),
        }
    }

    /// Whether work is under way or pending.
    pub fn is_active(self) -> bool {
        matches!(self, Self::Working(_) | Self::Approved | Self::Rejected)
    }

    /// Whether the question did not reach an outcome of its own (not started,
    /// under way, cancelled, or stopped by the budget): `run --resume` continues it.
    pub fn is_unfinished(self) -> bool {
        !matches!(self, Self::Done(Outcome::Passed | Outcome::Failed | Outcome::Exhausted | Outcome::FixedByHand))
    }
}

/// One stage's timing within an iteration.
#[derive(Debug, Clone, PartialEq)]
pub struct StageRecord {
    /// Which stage.
    pub stage: Stage,
    /// When it started (ms since run start).
    pub started_ms: u64,
    /// `(ok, duration_ms)` once finished.
    pub finished: Option<(bool, u64)>,
}

/// One iteration of a critic loop.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Iteration {
    /// 1-based.
    pub number: u32,
    /// The DAG, once built.
    pub dag: Option<GeneratedDag>,
    /// The verdict, once given.
    pub feedback: Option<CriticFeedback>,
    /// The trial run's result.
    pub trial: Option<ExecutionResult>,
    /// Stages in the order they ran.
    pub stages: Vec<StageRecord>,
    /// LLM calls of the iteration, by call id.
    pub calls: Vec<u64>,
    /// Its nodes run on their own, oldest first.
    pub node_runs: Vec<NodeRun>,
    /// People's labels of its answer, oldest first; the last one counts.
    pub labels: Vec<AnswerLabel>,
    /// The judges' grades of its trial answer, when it was rejected and the
    /// run judges rejected iterations (`run --judge-rejected`).
    pub judge_grades: Vec<Grade>,
}

/// A person's verdict on an answer, with its provenance.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AnswerLabel {
    /// Whether the answer is right.
    pub right: bool,
    /// Why, in one line.
    pub reason: String,
    /// When it was given (ms since the run started).
    pub t_ms: u64,
}

impl Iteration {
    /// The label that counts (the latest), if any.
    pub fn label(&self) -> Option<&AnswerLabel> {
        self.labels.last()
    }

    /// The judges' verdict on its trial answer: right when every judge that
    /// could grade it passed it; none when no judge graded it.
    pub fn judge_verdict(&self) -> Option<bool> {
        let graded: Vec<&Grade> = self.judge_grades.iter().filter(|g| g.error.is_none()).collect();
        (!graded.is_empty()).then(|| graded.iter().all(|g| g.passed))
    }
}

/// One node of an iteration run on its own.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeRun {
    /// The node.
    pub node_id: NodeId,
    /// The edited code it ran with; none = as recorded.
    pub code: Option<String>,
    /// What it and the nodes feeding it gave.
    pub result: ExecutionResult,
}

/// One attempt at a question (reruns and forks add attempts).
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    /// 1-based, within its epoch and draft.
    pub number: u32,
    /// The repeat of the question it belongs to (1 in a run without repeats).
    pub epoch: u32,
    /// The independent DAG of the epoch it belongs to (1 without consensus).
    pub draft: u32,
    /// `(attempt, iteration)` this attempt was forked from.
    pub forked_from: Option<ForkedFrom>,
    /// Whether the user wrote or accepted its DAG (no LLM built or reviewed it).
    pub by_hand: bool,
    /// Iterations so far.
    pub iterations: Vec<Iteration>,
    /// How it ended.
    pub outcome: Option<Outcome>,
    /// Final execution result.
    pub execution: Option<ExecutionResult>,
    /// The answer.
    pub final_answer: Option<Value>,
    /// Why it did not pass.
    pub reason: Option<String>,
    /// Grades of the answer.
    pub grades: Vec<crate::domain::Grade>,
    /// LLM calls made by judges grading the answer, by call id.
    pub judge_calls: Vec<u64>,
    /// The one-sentence narrative of the answer, when one was written for grading.
    pub narrative: Option<String>,
    /// Its approved DAG run again on transformed copies of the data (`run --metamorphic`).
    pub metamorphic: Option<crate::domain::Metamorphic>,
    /// Where the other engine's run of its approved DAG differed (`run --differential`).
    pub divergence: Option<crate::domain::EngineDivergence>,
}

impl Attempt {
    /// Attempt `at` (its question aside), nothing recorded yet.
    pub(super) fn new(at: &AttemptAt) -> Self {
        Self {
            number: at.attempt,
            epoch: at.epoch,
            draft: at.draft,
            forked_from: None,
            by_hand: false,
            iterations: Vec::new(),
            outcome: None,
            execution: None,
            final_answer: None,
            reason: None,
            grades: Vec::new(),
            judge_calls: Vec::new(),
            narrative: None,
            metamorphic: None,
            divergence: None,
        }
    }

    /// Whether it is attempt `at` (its question aside).
    pub fn is_at(&self, at: &AttemptAt) -> bool {
        (self.epoch, self.draft, self.number) == (at.epoch, at.draft, at.attempt)
    }

    /// Where it is in question `question_id`.
    pub fn at(&self, question_id: &str) -> AttemptAt {
        AttemptAt::new(question_id, self.number).in_epoch(self.epoch, self.draft)
    }

    /// The iteration numbered `number`.
    pub fn iteration(&self, number: u32) -> Option<&Iteration> {
        self.iterations.iter().find(|i| i.number == number)
    }

    /// Whether its answer was graded right — by its grades, else by a
    /// person's label of the iteration that gave it (none when neither).
    pub fn correct(&self) -> Option<bool> {
        if !self.grades.is_empty() {
            return Some(self.grades.iter().all(|g| g.passed));
        }
        self.final_answer.as_ref()?;
        self.iterations.last()?.label().map(|label| label.right)
    }

    /// Whether the attempt speaks for the question: the model's attempts, and
    /// an answer the user accepted — not a draft written by hand.
    pub fn counts(&self) -> bool {
        !self.by_hand || self.outcome == Some(Outcome::FixedByHand)
    }

    pub(super) fn iteration_mut(&mut self, number: u32) -> &mut Iteration {
        if let Some(index) = self.iterations.iter().position(|i| i.number == number) {
            return &mut self.iterations[index];
        }
        self.iterations.push(Iteration { number, ..Iteration::default() });
        let last = self.iterations.len() - 1;
        &mut self.iterations[last]
    }
}

/// A question and everything that happened to it.
#[derive(Debug, Clone, PartialEq)]
pub struct QuestionState {
    /// The question.
    pub question: Question,
    /// Attempts, oldest first (read with [`Self::attempts`]; only the reducer
    /// adds them, so what speaks for the question is worked out again).
    attempts: Vec<Attempt>,
    /// Current status.
    pub status: QuestionStatus,
    /// First activity (ms since run start).
    pub started_ms: Option<u64>,
    /// End of the latest attempt.
    pub finished_ms: Option<u64>,
    /// Tokens spent on this question's critic loops (its baseline calls count run-wide only).
    pub usage: TokenUsage,
    /// Cost spent on this question's critic loops, USD.
    pub cost_usd: f64,
    /// Per epoch: how far its drafts agree (`run --consensus`), once every draft has ended.
    pub consensus: std::collections::BTreeMap<u32, crate::domain::Consensus>,
    /// Its baseline calls (`run --baselines`), by id: asked beside the critic
    /// loop, in none of its attempts.
    pub baseline_calls: Vec<u64>,
    /// Which attempt speaks for the question, worked out on first use after a change.
    speaker: Speaker,
}

/// The index of the attempt that speaks for a question and how many epochs
/// gave its answer (see [`QuestionState::majority_epoch`]): worked out once
/// after each change the reducer makes to the attempts or the consensus, so
/// drawing a question many times a second costs no more than reading it.
/// Derived data: it never makes two states unequal.
#[derive(Debug, Clone, Default)]
struct Speaker(std::sync::OnceLock<Option<(usize, usize)>>);

impl PartialEq for Speaker {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl QuestionState {
    /// `question`, not started yet.
    pub(super) fn queued(question: Question) -> Self {
        Self {
            question,
            attempts: Vec::new(),
            status: QuestionStatus::Queued,
            started_ms: None,
            finished_ms: None,
            usage: TokenUsage::default(),
            cost_usd: 0.0,
            consensus: Default::default(),
            baseline_calls: Vec::new(),
            speaker: Speaker::default(),
        }
    }

    /// The attempt that speaks for the question: the latest that counts (see
    /// [`Attempt::counts`]; drafts written by hand never replace the model's
    /// result). A question asked in several epochs speaks with the majority:
    /// the epoch whose answer most epochs gave (see [`Self::majority_epoch`]).
    pub fn latest(&self) -> Option<&Attempt> {
        self.majority_epoch().map(|(attempt, _)| attempt)
    }

    /// The attempt that speaks for `epoch`: with several drafts (`run
    /// --consensus`), the latest of the first draft in the recorded consensus
    /// majority; else, or until the consensus is recorded, draft 1's.
    pub fn speaking_in_epoch(&self, epoch: u32) -> Option<&Attempt> {
        self.speaking_index_in(epoch).and_then(|index| self.attempts.get(index))
    }

    /// The index of [`Self::speaking_in_epoch`].
    fn speaking_index_in(&self, epoch: u32) -> Option<usize> {
        let majority = self.consensus.get(&epoch).and_then(|c| c.answers.iter().find(|a| a.in_majority));
        self.latest_index_in(epoch, majority.map_or(1, |a| a.draft))
    }

    /// Whether every critic loop of the question (each epoch and draft) has ended.
    pub fn loops_ended(&self) -> bool {
        let mut loops: Vec<(u32, u32)> = self.attempts.iter().map(|a| (a.epoch, a.draft)).collect();
        loops.sort_unstable();
        loops.dedup();
        loops.into_iter().all(|(epoch, draft)| self.latest_in(epoch, draft).is_some_and(|a| a.outcome.is_some()))
    }

    /// Of the epochs' attempts that speak for them, one whose answer most
    /// epochs gave (no answer counts as an answer), with how many gave it. Ties
    /// go to an answer over none, then to the lowest epoch. Answers are the same
    /// when their JSON is equal.
    pub fn majority_epoch(&self) -> Option<(&Attempt, usize)> {
        let (index, count) = (*self.speaker.0.get_or_init(|| self.find_majority()))?;
        Some((self.attempts.get(index)?, count))
    }

    /// [`Self::majority_epoch`] worked out: the index of the attempt and its count.
    fn find_majority(&self) -> Option<(usize, usize)> {
        let speakers: Vec<(usize, &Attempt)> = self
            .epoch_speakers()
            .into_iter()
            .filter_map(|(_, index)| Some((index, self.attempts.get(index)?)))
            .collect();
        let agreeing =
            |attempt: &Attempt| speakers.iter().filter(|(_, a)| a.final_answer == attempt.final_answer).count();
        let mut best: Option<(usize, &Attempt, usize)> = None;
        for &(index, attempt) in &speakers {
            let count = agreeing(attempt);
            let better = match best {
                None => true,
                Some((_, held, held_count)) => {
                    count > held_count
                        || count == held_count && held.final_answer.is_none() && attempt.final_answer.is_some()
                }
            };
            if better {
                best = Some((index, attempt, count));
            }
        }
        best.map(|(index, _, count)| (index, count))
    }

    /// The highest attempt number of epoch 1, draft 1 so far (drafts by hand
    /// included; 0 before any).
    pub fn last_attempt_number(&self) -> u32 {
        self.last_attempt_in(1, 1)
    }

    /// The highest attempt number of `epoch` and `draft` so far (0 before any).
    pub fn last_attempt_in(&self, epoch: u32, draft: u32) -> u32 {
        self.attempts.iter().filter(|a| (a.epoch, a.draft) == (epoch, draft)).map(|a| a.number).max().unwrap_or(0)
    }

    /// The latest attempt of `epoch` and `draft` that counts.
    pub fn latest_in(&self, epoch: u32, draft: u32) -> Option<&Attempt> {
        self.latest_index_in(epoch, draft).and_then(|index| self.attempts.get(index))
    }

    /// The index of [`Self::latest_in`].
    fn latest_index_in(&self, epoch: u32, draft: u32) -> Option<usize> {
        self.attempts.iter().rposition(|a| (a.epoch, a.draft) == (epoch, draft) && a.counts())
    }

    /// Attempt numbered `number` of epoch 1, draft 1.
    pub fn attempt(&self, number: u32) -> Option<&Attempt> {
        self.attempt_at(&AttemptAt::new(self.question.id.as_str(), number))
    }

    /// Attempt `at` (its question aside).
    pub fn attempt_at(&self, at: &AttemptAt) -> Option<&Attempt> {
        self.attempts.iter().find(|a| a.is_at(at))
    }

    /// Iteration `at` (its question aside).
    pub fn iteration_at(&self, at: &IterationAt) -> Option<&Iteration> {
        self.attempt_at(&at.attempt_at())?.iteration(at.iteration)
    }

    /// The epochs the question was asked in, each with the latest attempt that
    /// speaks for it (see [`Self::latest`]), lowest epoch first.
    pub fn epochs(&self) -> Vec<(u32, &Attempt)> {
        self.epoch_speakers()
            .into_iter()
            .filter_map(|(epoch, index)| Some((epoch, self.attempts.get(index)?)))
            .collect()
    }

    /// [`Self::epochs`] as indices into the attempts.
    fn epoch_speakers(&self) -> Vec<(u32, usize)> {
        let mut epochs: Vec<u32> = self.attempts.iter().map(|a| a.epoch).collect();
        epochs.sort_unstable();
        epochs.dedup();
        epochs.into_iter().filter_map(|epoch| Some((epoch, self.speaking_index_in(epoch)?))).collect()
    }

    /// Pin the user's note to an iteration as a `human` finding (a warning:
    /// it never turns a verdict), on `node_id` or the whole DAG.
    pub(super) fn add_note(&mut self, at: &IterationAt, node_id: Option<NodeId>, text: String) {
        let it = self.attempt_mut(&at.attempt_at()).iteration_mut(at.iteration);
        let layer =
            node_id.as_deref().and_then(|id| it.dag.as_ref()?.nodes.iter().find(|n| n.node_id == id)).map(|n| n.layer);
        let feedback = it.feedback.get_or_insert_with(CriticFeedback::default);
        feedback.findings.push(Finding {
            node_id,
            layer,
            rule: Rule::Note,
            source: FindingSource::Human,
            message: text,
            severity: Severity::Warning,
        });
    }

    /// Attempts, oldest first.
    pub fn attempts(&self) -> &[Attempt] {
        &self.attempts
    }

    /// Attempt `at`, added when new; what speaks for the question is worked out again on next use.
    pub(super) fn attempt_mut(&mut self, at: &AttemptAt) -> &mut Attempt {
        self.speaker = Speaker::default();
        let index = match self.attempts.iter().position(|a| a.is_at(at)) {
            Some(index) => index,
            None => {
                self.attempts.push(Attempt::new(at));
                self.attempts.len() - 1
            }
        };
        &mut self.attempts[index]
    }

    /// Record how far the drafts of `epoch` agree; the majority draft speaks for it from now on.
    pub(super) fn record_consensus(&mut self, epoch: u32, consensus: crate::domain::Consensus) {
        self.speaker = Speaker::default();
        self.consensus.insert(epoch, consensus);
    }

    /// Whether the latest attempt's answer was graded right — by its grades,
    /// else by a person's label of the iteration that gave it (none when neither).
    pub fn correct(&self) -> Option<bool> {
        self.latest()?.correct()
    }

    /// Findings per iteration of the latest attempt (for sparklines).
    pub fn findings_per_iteration(&self) -> Vec<u64> {
        self.latest()
            .map(|a| a.iterations.iter().map(|i| i.feedback.as_ref().map_or(0, |f| f.findings.len() as u64)).collect())
            .unwrap_or_default()
    }
}
