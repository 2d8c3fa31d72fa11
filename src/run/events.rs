//! Everything the engine reports, and everything it can be told. The TUI, the
//! headless progress output and the trace writer all consume the same
//! [`EngineEvent`] stream; [`Command`]s flow the other way.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::{AttemptAt, ForkedFrom, IterationAt, NodeId, QuestionId};
use crate::domain::{CallKey, ChatMessage, FinishReason, TokenUsage};
use crate::domain::{CriticFeedback, ExecutionResult, GeneratedDag, Question};

use super::settings::RunSettings;

/// The stages of one critic-loop iteration, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// The builder LLM writes the DAG.
    Build,
    /// Deterministic checks of structure and code.
    StructuralCheck,
    /// The DAG runs on the dataset in the sandbox.
    TrialRun,
    /// The LLM reviews every layer.
    SemanticReview,
    /// The approved DAG's final execution.
    Execute,
}

impl Stage {
    /// Human name.
    pub fn label(self) -> &'static str {
        match self {
            Self::Build => "build",
            Self::StructuralCheck => "check",
            Self::TrialRun => "trial run",
            Self::SemanticReview => "review",
            Self::Execute => "execute",
        }
    }
}

/// How a question's attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Approved and executed; an answer was produced.
    Passed,
    /// Approved but the final execution failed, or an LLM call failed for good.
    Failed,
    /// Every iteration was rejected.
    Exhausted,
    /// Stopped by the user.
    Cancelled,
    /// A DAG written by hand was checked and trial-run: a draft, not an answer
    /// (the question keeps the outcome of its other attempts).
    Drafted,
    /// The user accepted an iteration as the answer: executed and graded, and
    /// counted apart from the model's passes.
    FixedByHand,
    /// Not started, or stopped, because the run's budget (`--max-cost`,
    /// `--max-tokens`) was reached: `run --resume` with a larger budget finishes it.
    Budget,
}

impl Outcome {
    /// Every outcome.
    pub const ALL: [Outcome; 7] =
        every_variant!(Self: Passed, Failed, Exhausted, Cancelled, Drafted, FixedByHand, Budget);

    /// The outcome whose [`Self::label`] is `label`.
    pub fn from_label(label: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|outcome| outcome.label() == label)
    }

    /// Human name.
    pub fn label(self) -> &'static str {
        match self {
            Self::Passed => "passed",
            Self::Failed => "failed",
            Self::Exhausted => "exhausted",
            Self::Cancelled => "cancelled",
            Self::Drafted => "drafted by hand",
            Self::FixedByHand => "fixed by hand",
            Self::Budget => "budget",
        }
    }
}

/// Totals at the end of a run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RunSummary {
    /// Questions in the run.
    pub total: usize,
    /// Questions whose latest attempt passed.
    pub passed: usize,
    /// Questions whose latest attempt failed.
    pub failed: usize,
    /// Questions whose latest attempt exhausted its iterations.
    pub exhausted: usize,
    /// Questions cancelled.
    pub cancelled: usize,
    /// Questions whose answer the user accepted by hand (not the model's passes).
    #[serde(default)]
    pub fixed_by_hand: usize,
    /// Questions not started or stopped because the run's budget was reached.
    #[serde(default, skip_serializing_if = "crate::domain::is_zero")]
    pub budget: usize,
    /// Tokens over all calls.
    pub usage: TokenUsage,
    /// Estimated cost over all calls, USD.
    pub cost_usd: f64,
    /// Wall time of the run.
    pub elapsed_ms: u64,
}

/// The error a call records when its attempt was cancelled before it answered
/// (a batched call cancelled so still waits in its batch: `--resume` reads it).
pub const CALL_CANCELLED: &str = "cancelled";

/// One thing that happened in a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
// Events are built once and moved through one channel; boxing the large
// variants would only add allocations.
#[allow(clippy::large_enum_variant)]
pub enum EngineEvent {
    /// The run began.
    RunStarted {
        /// Its settings.
        settings: RunSettings,
    },
    /// The ranked questions exist.
    QuestionsGenerated {
        /// Easy → hard.
        questions: Vec<Question>,
    },
    /// Question generation (or another run-wide step) failed; the run ends.
    RunFailed {
        /// What went wrong.
        error: String,
    },
    /// A critic loop began an attempt at a question.
    QuestionStarted {
        /// The attempt.
        at: AttemptAt,
        /// `(attempt, iteration)` whose DAG and feedback seed this attempt (forks).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        forked_from: Option<ForkedFrom>,
        /// Whether the user wrote (or accepted) this attempt's DAG: no LLM builds or reviews it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        by_hand: bool,
    },
    /// A stage began.
    StageStarted {
        /// The iteration.
        at: IterationAt,
        /// Stage.
        stage: Stage,
    },
    /// A stage ended.
    StageFinished {
        /// The iteration.
        at: IterationAt,
        /// Stage.
        stage: Stage,
        /// Whether it succeeded (a rejection is not a success).
        ok: bool,
        /// Wall time.
        duration_ms: u64,
    },
    /// An LLM call was sent.
    LlmCallStarted {
        /// Unique within the run.
        call_id: u64,
        /// What it is for.
        key: CallKey,
        /// Provider that served it.
        provider: crate::domain::Provider,
        /// Model asked.
        model: String,
        /// The rendered prompt.
        messages: Vec<ChatMessage>,
    },
    /// Streamed text of a running call (live only; never written to the trace).
    LlmTextDelta {
        /// The call.
        call_id: u64,
        /// New text.
        text: String,
    },
    /// An attempt of an LLM call failed and the call will be sent again; the
    /// text streamed so far is void.
    LlmCallRetrying {
        /// The call.
        call_id: u64,
        /// Retries so far, this one included.
        retry: u32,
        /// Why the attempt failed.
        error: String,
        /// Backoff before the next attempt.
        wait_ms: u64,
    },
    /// An LLM call ended.
    LlmCallFinished {
        /// The call.
        call_id: u64,
        /// What it was for (repeated so replay can match without the start).
        key: CallKey,
        /// Raw response text, when any arrived.
        response: Option<String>,
        /// Token usage.
        usage: TokenUsage,
        /// Wall time including retries.
        latency_ms: u64,
        /// Failure, if the call failed for good.
        error: Option<String>,
        /// Retries spent.
        retries: u32,
        /// Estimated cost, USD.
        cost_usd: f64,
        /// Why the model stopped writing, when the provider said.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        finish_reason: Option<FinishReason>,
        /// Whether the response cache served the reply (no request was sent; cost 0).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        from_cache: bool,
        /// A cache hit's cost at list price on its stored usage, USD (v8).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        list_cost_usd: Option<f64>,
        /// Whether the token counts were computed locally because the server sent none.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        estimated: bool,
        /// The provider's batch the reply was read from (`run --batch`); none for a live call.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        batch_id: Option<crate::domain::BatchId>,
    },
    /// Open calls were sent together in one of a provider's batches: each
    /// waits in it until its `llm_call_finished` (or the batch's end).
    BatchSubmitted {
        /// The batch, as the provider named it.
        batch_id: crate::domain::BatchId,
        /// The provider that took it.
        provider: crate::domain::Provider,
        /// The role whose calls it holds.
        role: crate::domain::LlmRole,
        /// The calls in it: each names the open call with that key.
        calls: Vec<CallKey>,
    },
    /// A batch ended: its results were read, or it expired, was cancelled or failed.
    BatchEnded {
        /// The batch.
        batch_id: crate::domain::BatchId,
        /// How it ended.
        status: crate::domain::BatchStatus,
        /// Its calls that came back with a reply.
        succeeded: usize,
        /// Its calls that came back with an error.
        failed: usize,
    },
    /// A DAG was parsed from the builder's response.
    DagBuilt {
        /// The iteration.
        at: IterationAt,
        /// The DAG.
        dag: GeneratedDag,
    },
    /// One node ran on its own (`Command::RunNode`).
    NodeRan {
        /// The iteration.
        at: IterationAt,
        /// The node.
        node_id: NodeId,
        /// The code it ran with when the user edited it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
        /// What it and the nodes feeding it gave.
        result: ExecutionResult,
    },
    /// The critic's verdict on an iteration.
    CriticVerdict {
        /// The iteration.
        at: IterationAt,
        /// The verdict with its findings.
        feedback: CriticFeedback,
    },
    /// A DAG ran in the sandbox.
    Executed {
        /// The iteration.
        at: IterationAt,
        /// Trial run (during critique) or final execution.
        trial: bool,
        /// What it produced.
        result: ExecutionResult,
    },
    /// An attempt at a question ended.
    QuestionFinished {
        /// The attempt.
        at: AttemptAt,
        /// How it ended.
        outcome: Outcome,
        /// Iterations used.
        iterations: u32,
        /// The answer, when one was produced.
        final_answer: Option<Value>,
        /// Why it did not pass, in one line.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// The answer of an attempt was graded (ground truth and judges).
    Graded {
        /// The attempt.
        at: AttemptAt,
        /// One grade per method.
        grades: Vec<crate::domain::Grade>,
        /// The one-sentence narrative answer the grades judged, when one was written.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        narrative: Option<String>,
    },
    /// Every draft of a question's epoch ended (`run --consensus`): their
    /// answers compared with the run's matching rules.
    ConsensusReached {
        /// The question.
        question_id: QuestionId,
        /// The epoch (written when not 1).
        #[serde(default = "crate::domain::one", skip_serializing_if = "crate::domain::is_one")]
        epoch: u32,
        /// The drafts' answers and how far they agree.
        consensus: crate::domain::Consensus,
    },
    /// An approved DAG ran again on transformed copies of its data (`run --metamorphic`).
    MetamorphicChecked {
        /// The attempt whose approved DAG was checked.
        at: AttemptAt,
        /// The checks.
        metamorphic: crate::domain::Metamorphic,
    },
    /// An approved DAG's final execution, run again on the other engine
    /// (`run --differential`), came out differently; the question keeps the
    /// run's own engine's answer.
    EngineDivergence {
        /// The approved iteration.
        at: IterationAt,
        /// Both outcomes and where they part.
        divergence: crate::domain::EngineDivergence,
    },
    /// The answer of a rejected iteration's trial run was graded by the run's
    /// judges (`run --judge-rejected`).
    IterationGraded {
        /// The iteration.
        at: IterationAt,
        /// One grade per judge.
        grades: Vec<crate::domain::Grade>,
        /// The one-sentence narrative answer the grades judged, when one was written.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        narrative: Option<String>,
    },
    /// A command the engine carried out (recorded so replays show it).
    Control(Command),
    /// The run ended.
    RunFinished {
        /// Totals.
        summary: RunSummary,
    },
}

impl EngineEvent {
    /// Whether the event is live-only and stays out of the trace.
    pub fn is_transient(&self) -> bool {
        matches!(self, Self::LlmTextDelta { .. })
    }

    /// The question the event is about, if any.
    pub fn question_id(&self) -> Option<&QuestionId> {
        match self {
            Self::QuestionStarted { at, .. }
            | Self::QuestionFinished { at, .. }
            | Self::Graded { at, .. }
            | Self::MetamorphicChecked { at, .. } => Some(&at.question_id),
            Self::ConsensusReached { question_id, .. } => Some(question_id),
            Self::StageStarted { at, .. }
            | Self::StageFinished { at, .. }
            | Self::DagBuilt { at, .. }
            | Self::CriticVerdict { at, .. }
            | Self::Executed { at, .. }
            | Self::IterationGraded { at, .. }
            | Self::EngineDivergence { at, .. }
            | Self::NodeRan { at, .. } => Some(&at.question_id),
            Self::LlmCallStarted { key, .. } | Self::LlmCallFinished { key, .. } => key.question_id.as_ref(),
            _ => None,
        }
    }
}

/// A DAG the user wrote by hand, as the editor left it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HandEdit {
    /// A DAG in the DAG shape.
    Dag {
        /// The DAG.
        dag: GeneratedDag,
    },
    /// Text that is not a DAG: recorded with a finding saying why.
    Unreadable {
        /// What the editor saved.
        text: String,
        /// Why it is not a DAG.
        error: String,
    },
}

/// Instructions to a running engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum Command {
    /// Hold every critic loop at its next stage boundary.
    Pause,
    /// Let every loop go on.
    Resume,
    /// While paused, let exactly one pending stage proceed.
    Step {
        /// Only this question's stage; none = the next one anywhere.
        question_id: Option<QuestionId>,
    },
    /// Run the question again from scratch as a new attempt (of the epoch
    /// and draft given: the one on screen in a run with several).
    Rerun {
        /// The question.
        question_id: QuestionId,
        /// The epoch whose loop starts again (written when not 1).
        #[serde(default = "crate::domain::one", skip_serializing_if = "crate::domain::is_one")]
        epoch: u32,
        /// The draft whose loop starts again (`run --consensus`; written when not 1).
        #[serde(default = "crate::domain::one", skip_serializing_if = "crate::domain::is_one")]
        draft: u32,
    },
    /// Run the question again as a new attempt seeded by an earlier iteration's
    /// DAG and feedback, in that iteration's epoch and draft.
    Fork {
        /// The iteration to fork from.
        from: IterationAt,
    },
    /// Check and trial-run a DAG the user wrote, starting from an iteration,
    /// as a new attempt by hand (no LLM call).
    TryDag {
        /// The iteration the edit started from.
        from: IterationAt,
        /// What the user wrote.
        edit: HandEdit,
    },
    /// Accept an iteration's DAG as the question's answer: executed, graded and
    /// counted as fixed by hand.
    Accept {
        /// The iteration accepted.
        at: IterationAt,
    },
    /// The user's own critique of an iteration, recorded as a finding with
    /// source `human` (a fork from that iteration hands it to the builder).
    Note {
        /// The iteration it is about.
        at: IterationAt,
        /// The node it blames; none = the whole DAG.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        node_id: Option<NodeId>,
        /// What the user wrote.
        text: String,
    },
    /// A person's verdict on an iteration's answer (the attempt's final
    /// answer when it is the last iteration): ground truth wherever the
    /// question has no expected answer. The latest label counts.
    Label {
        /// The iteration whose answer is labelled.
        at: IterationAt,
        /// Whether the answer is right.
        right: bool,
        /// Why, in one line.
        reason: String,
    },
    /// Run one node of an iteration on its own (with the nodes feeding it),
    /// its code as recorded or as given.
    RunNode {
        /// The iteration.
        at: IterationAt,
        /// The node.
        node_id: NodeId,
        /// The user's edit of its code; none runs it as recorded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
    },
    /// Stop one question's current attempt.
    CancelQuestion {
        /// The question.
        question_id: QuestionId,
    },
    /// Cancel the run's batches in flight at their providers and record how
    /// each ended, before the run stops (`CancelRun` follows); not recorded.
    CancelBatches,
    /// Stop the run.
    CancelRun,
}
