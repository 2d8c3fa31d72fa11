//! Everything the engine reports, and everything it can be told. The TUI, the
//! headless progress output and the trace writer all consume the same
//! [`EngineEvent`] stream; [`Command`]s flow the other way.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::{AttemptAt, ForkedFrom, IterationAt, NodeId, QuestionId};
use crate::domain::{CallKey, ChatMessage, FinishReason, TokenUsage};
use crate::domain::{CriticFeedback, ExecutionResult, GeneratedDag, Question};

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
        [Self::Passed, Self::Failed, Self::Exhausted, Self::Cancelled, Self::Drafted, Self::FixedByHand, Self::Budget];

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

/// Settings a run was started with (recorded in the trace header and first event).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RunSettings {
    /// Dataset directory as given (written as text, lossily where it is not UTF-8).
    #[serde(with = "crate::domain::lossy_path")]
    pub dataset_dir: std::path::PathBuf,
    /// SHA-256 of the dataset files.
    pub dataset_hash: String,
    /// The builder's provider: `offline`, `openai`, `anthropic` or `replay`.
    pub provider: crate::domain::Provider,
    /// Model name.
    pub model: String,
    /// Questions requested.
    pub questions: u32,
    /// Iteration budget per attempt.
    pub max_iterations: u32,
    /// Critic loops at once.
    pub concurrency: u32,
    /// Layer reviews at once per DAG; 0 reviews every layer at once.
    #[serde(default)]
    pub review_concurrency: u32,
    /// Seed of everything random.
    pub seed: u64,
    /// Whether the run started paused.
    pub step: bool,
    /// How answers are graded.
    #[serde(default)]
    pub grading: crate::domain::GradingSettings,
    /// Who plays each role (`provider` and `model` above are the builder's).
    #[serde(default)]
    pub roles: crate::domain::RoleModels,
    /// Every dataset of a run over several (a question set's `datasets/`), with
    /// its hash; empty in a single-dataset run, whose one dataset is
    /// `dataset_dir` and `dataset_hash`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub datasets: Vec<DatasetRef>,
    /// The spending limits (`--max-cost`, `--max-tokens`, `[budget]`), when any;
    /// a continued run records the ones it was continued with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<crate::domain::Budget>,
    /// Independent epochs per question (`run --repeat`); 0 or 1 means one.
    #[serde(default, skip_serializing_if = "at_most_one")]
    pub repeat: u32,
    /// Independent DAGs per question and epoch (`run --consensus`); 0 or 1 means one.
    #[serde(default, skip_serializing_if = "at_most_one")]
    pub consensus: u32,
    /// Whether approved DAGs run again on transformed copies of the data (`run --metamorphic`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub metamorphic: bool,
    /// Repair exchanges per unreadable reply (`--repair`, `[llm] repair`), when
    /// given; the default otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repair: Option<u32>,
    /// Which shard of a run split with `run --shard K/N` this one is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<crate::domain::Shard>,
    /// Whether each question's baselines are asked and scored beside the loop (`run --baselines`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub baselines: bool,
    /// The run's clock: the instant node code's `datetime.now()` and
    /// `date.today()` read — when the run started, unless `--now` set it.
    /// Absent in a shard started without `--now` (shards started apart share
    /// no instant) and in traces before version 8: node code then reads the
    /// machine's clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub now: Option<crate::domain::RunClock>,
    /// The Python that ran DAGs (`--engine`; left out when RustPython).
    #[serde(default, skip_serializing_if = "crate::domain::Engine::is_default")]
    pub engine: crate::domain::Engine,
    /// Whether every approved DAG's final execution also ran on the other
    /// engine (`--differential`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub differential: bool,
    /// The CPython the run used, when it used one (as engine or as the
    /// differential check's other engine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python: Option<crate::domain::PythonRecord>,
}

fn at_most_one(repeat: &u32) -> bool {
    *repeat <= 1
}

/// One dataset of a run over several.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatasetRef {
    /// The name questions give in their `dataset` field.
    pub name: String,
    /// Its directory as the run found it.
    pub dir: String,
    /// SHA-256 of its files.
    pub hash: String,
}

impl RunSettings {
    /// Epochs per question: 1 unless the run repeats its questions.
    pub fn epochs(&self) -> u32 {
        self.repeat.max(1)
    }

    /// Drafts (independent DAGs) per question and epoch: 1 unless the run asks for consensus.
    pub fn drafts(&self) -> u32 {
        self.consensus.max(1)
    }

    /// The roles the run plays: every role but `baseline` unless the run asks for baselines.
    pub fn roles_played(&self) -> impl Iterator<Item = crate::domain::LlmRole> + '_ {
        crate::domain::LlmRole::ALL
            .into_iter()
            .filter(|role| *role != crate::domain::LlmRole::Baseline || self.baselines)
    }

    /// Who plays `role`: its entry in `roles`, else the run's provider and model.
    pub fn role(&self, role: crate::domain::LlmRole) -> crate::domain::RoleModel {
        self.roles.get(&role).cloned().unwrap_or_else(|| crate::domain::RoleModel {
            provider: self.provider.clone(),
            model: self.model.clone(),
            base_url: None,
        })
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
