//! The `eval_results.json` document as types: what [`crate::report::eval_results`]
//! writes and [`crate::report::load_results`] reads back. Fields keep the file's names,
//! nesting and order; `eval_results.schema.json` describes the same shape (a
//! test keeps the two in step). Fields added after the first version default
//! when absent, so results files of earlier versions still load.

use super::baseline_figures::{BaselineAnswer, BaselineTally};
use super::convergence_figures::Convergence;
use super::harness_figures::{BatchUse, BenchmarkSummary, BudgetUse, CacheUse, EpochResult, Repeats, Tokens};
use super::result_status::ResultStatus;
use super::scorecard_figures::CriticScorecard;
use super::taxonomy_figures::FindingsTaxonomy;
use super::usage_figures::{RoleUsages, TokenEconomy};
use crate::benchmark::BenchmarkScore;
use crate::run::AnswerLabel;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::{
    Baseline, BaselineCall, BatchId, CriticFeedback, DifficultyLevel, ExecutionResult, Finding, GeneratedDag, Grade,
    LlmRole,
};
use crate::domain::{is_one, is_zero, one};
use crate::run::{Outcome, RunSettings, Stage};

/// A whole `eval_results.json`. `Traces` is how the question traces are held:
/// a `Vec` when read back, or a sequence built one question at a time while
/// the file is written ([`crate::report::write_eval_results`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalResults<Traces = Vec<QuestionTrace>> {
    /// Totals of the run.
    pub summary: Summary,
    /// Totals per difficulty level.
    pub difficulty_breakdown: DifficultyBreakdown,
    /// Totals per dataset, in a run over several, in the order of their first
    /// question; absent in a single-dataset run.
    #[serde(default, skip_serializing_if = "indexmap::IndexMap::is_empty")]
    pub dataset_breakdown: indexmap::IndexMap<String, LevelBreakdown>,
    /// One entry per question, in run order.
    pub detailed_results: Vec<DetailedResult>,
    /// One entry per question that did not pass.
    pub failure_analysis: Vec<FailureAnalysis>,
    /// Every attempt, iteration and LLM exchange per question.
    pub question_traces: Traces,
    /// Whether the critic was right (absent in files written before it existed).
    #[serde(default)]
    pub critic_scorecard: CriticScorecard,
    /// The run's findings by source, rule and exception, and its
    /// oscillations (absent in files written before it existed).
    #[serde(default)]
    pub findings_taxonomy: FindingsTaxonomy,
    /// Iterations to approval, over the run and per difficulty (absent in
    /// files written before it existed).
    #[serde(default)]
    pub convergence: Convergence,
    /// Who played each role that made a call, with its tokens and cost
    /// (absent in files written before it existed).
    #[serde(default)]
    pub roles: RoleUsages,
}

impl Tokens {
    /// These counts, marked estimated when `estimated`.
    pub fn estimated_if(self, estimated: bool) -> Self {
        Self { estimated, ..self }
    }
}

/// How many answers were graded and how many of those were right.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Grading {
    /// Answers graded.
    pub graded: usize,
    /// Answers graded right.
    pub correct: usize,
    /// `correct / graded`; none when nothing was graded.
    pub accuracy: Option<f64>,
}

/// Totals of the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Questions in the run.
    pub total_questions: usize,
    /// Questions whose latest attempt passed.
    pub passed: usize,
    /// Questions that finished without passing (any other outcome).
    pub failed: usize,
    /// Questions that never finished (the run was stopped or killed first):
    /// in neither `passed` nor `failed` (absent in files written before it existed).
    #[serde(default)]
    pub unfinished: usize,
    /// `passed / total_questions` (0 for no questions).
    pub pass_rate: f64,
    /// When the document was written (RFC 3339).
    pub generated_at: String,
    /// Questions whose every iteration was rejected.
    pub exhausted: usize,
    /// Questions approved whose final execution failed.
    pub execution_failed: usize,
    /// Questions stopped by the user.
    pub cancelled: usize,
    /// Questions whose answer the user accepted by hand: in `failed`, never in
    /// `passed`, `pass_rate` or `grading`.
    #[serde(default)]
    pub fixed_by_hand: usize,
    /// The run's budget and the questions it stopped, when it stopped any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetUse>,
    /// The response cache's hits and misses, when it served any call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheUse>,
    /// Accuracy over repeats, with its spread and pass@k (`run --repeat`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeats: Option<Repeats>,
    /// What the metamorphic checks found (`run --metamorphic`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metamorphic: Option<super::harness_figures::MetamorphicSummary>,
    /// The engines checked against each other (`run --differential`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub differential: Option<super::harness_figures::DifferentialSummary>,
    /// How far independently built DAGs agreed (`run --consensus`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consensus: Option<super::harness_figures::ConsensusSummary>,
    /// A published benchmark's own metrics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub benchmark: Option<BenchmarkSummary>,
    /// People's reviews of the run and how far everyone agrees, when anyone
    /// reviewed it (its own reviews and its sources').
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reviews: Option<super::AgreementReport>,
    /// Calls sent in providers' batches against live ones, when any went in a batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batches: Option<BatchUse>,
    /// Each baseline's accuracy beside the loop's (`run --baselines`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baselines: Option<IndexMap<Baseline, BaselineTally>>,
    /// The loop's accuracy over the questions that need the data: those the
    /// `no_data` baseline gets wrong (`run --baselines`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs_data: Option<BaselineTally>,
    /// The base format's name for `passed`.
    #[serde(default)]
    pub successful_executions: usize,
    /// The base format's name for `execution_failed`.
    #[serde(default)]
    pub execution_failures: usize,
    /// The base format's name for `exhausted`.
    #[serde(default)]
    pub critic_loop_exhausted: usize,
    /// Grading over all questions (absent before grading existed).
    #[serde(default)]
    pub grading: Grading,
    /// Tokens over all calls.
    pub tokens: Tokens,
    /// Estimated cost over all calls, USD.
    pub cost_usd: f64,
    /// Prompt cache use, tokens per question and on rejected iterations
    /// (absent in files written before it existed).
    #[serde(default)]
    pub token_economy: TokenEconomy,
    /// Wall time of the run, once it finished.
    pub elapsed_ms: Option<u64>,
    /// Why the run ended early, if it did.
    pub run_failure: Option<String>,
    /// The settings the run started with.
    pub settings: Option<RunSettings>,
}

/// Totals of the questions of one difficulty level (or of one dataset).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelBreakdown {
    /// Questions of the level.
    pub total: usize,
    /// Of those, passed.
    pub passed: usize,
    /// Of those, finished without passing.
    pub failed: usize,
    /// Of those, never finished (absent in files written before it existed).
    #[serde(default)]
    pub unfinished: usize,
    /// `passed / total` (0 for none).
    pub pass_rate: f64,
    /// Grading of the level's answers (absent before grading existed).
    #[serde(default)]
    pub grading: Grading,
    /// Each baseline's accuracy over the level's questions (`run --baselines`).
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub baselines: IndexMap<Baseline, BaselineTally>,
    /// The loop's accuracy over the level's questions that need the data (`run --baselines`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs_data: Option<BaselineTally>,
}

/// Totals per difficulty level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DifficultyBreakdown {
    /// Easy questions.
    pub easy: LevelBreakdown,
    /// Medium questions.
    pub medium: LevelBreakdown,
    /// Hard questions.
    pub hard: LevelBreakdown,
}

/// One question's result: its latest attempt, with the question's totals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DetailedResult {
    /// Question id.
    pub question_id: String,
    /// Question text.
    pub question: String,
    /// The base format's name for `question`.
    #[serde(default)]
    pub question_text: String,
    /// The question's dataset, in a run over several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<String>,
    /// 1-based rank, easiest first.
    pub difficulty_rank: usize,
    /// Difficulty bucket.
    pub difficulty_level: DifficultyLevel,
    /// Whether the latest attempt passed or was accepted by hand.
    pub success: bool,
    /// Whether the answer was accepted by hand (not the model's pass).
    #[serde(default)]
    pub fixed_by_hand: bool,
    /// Status label (`passed`, `exhausted`, `building`, …).
    pub status: ResultStatus,
    /// The answer, when one was produced.
    pub final_answer: Option<Value>,
    /// One-sentence narrative of the answer, when a faithfulness judge graded it.
    #[serde(default)]
    pub narrative: Option<String>,
    /// The expected answer, when the question has one.
    pub expected_answer: Option<Value>,
    /// Whether every grade passed; none when ungraded.
    #[serde(default)]
    pub correct: Option<bool>,
    /// Grades of the answer.
    #[serde(default)]
    pub grades: Vec<Grade>,
    /// Why the latest attempt did not pass.
    pub error: Option<String>,
    /// Iterations of the latest attempt.
    pub iterations: usize,
    /// Attempts made.
    pub attempts: usize,
    /// Time of the final execution.
    pub execution_time_ms: Option<f64>,
    /// Time of each node in the final execution.
    pub node_timings_ms: Option<IndexMap<String, f64>>,
    /// Critic findings per iteration of the latest attempt.
    pub findings_per_iteration: Vec<u64>,
    /// Tokens spent on the question.
    pub tokens: Tokens,
    /// Cost spent on the question, USD.
    pub cost_usd: f64,
    /// From the question's first activity to its end.
    pub elapsed_ms: Option<u64>,
    /// Each repeat of the question, when it was asked more than once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub epochs: Vec<EpochResult>,
    /// The approved DAG's checks on transformed copies of its data (`run --metamorphic`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metamorphic: Option<crate::domain::Metamorphic>,
    /// Where the other engine's run of the approved DAG differed (`run --differential`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub divergence: Option<crate::domain::EngineDivergence>,
    /// Independently built DAGs' answers and their agreement (`run --consensus`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consensus: Option<crate::domain::Consensus>,
    /// The answer scored by its benchmark's rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub benchmark: Option<BenchmarkScore>,
    /// The first DAG's trial answer graded the same way (by the benchmark's
    /// rules, else against the expected answer), with the first iteration's
    /// tokens and cost; none when the question is not scored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_iteration: Option<super::lift_figures::LiftSide>,
    /// Each baseline's answer, scored (`run --baselines`).
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub baselines: IndexMap<Baseline, BaselineAnswer>,
    /// Whether the baseline model answers it right without the data (its `no_data` baseline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answerable_without_data: Option<bool>,
    /// Whether its scorer accepts an empty answer (its `empty` baseline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scorer_accepts_empty: Option<bool>,
}

/// Why a question did not pass.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailureAnalysis {
    /// Question id.
    pub question_id: String,
    /// Question text.
    pub question: String,
    /// Difficulty bucket.
    pub difficulty_level: DifficultyLevel,
    /// Status label.
    pub status: ResultStatus,
    /// Why the latest attempt did not pass.
    pub reason: Option<String>,
    /// The last critic verdict's specific errors.
    pub last_errors: Vec<String>,
    /// The last critic verdict's findings.
    pub last_findings: Vec<Finding>,
}

/// Everything that happened to one question. The keys the reference
/// implementation writes (and its report generator reads) come with ours.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionTrace {
    /// Question id.
    pub question_id: String,
    /// Question text.
    pub question: String,
    /// The base format's name for `question`.
    #[serde(default)]
    pub question_text: String,
    /// The question's dataset, in a run over several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<String>,
    /// Difficulty bucket (absent in files of earlier versions).
    #[serde(default)]
    pub difficulty: Option<DifficultyLevel>,
    /// 1-based rank, easiest first.
    #[serde(default)]
    pub difficulty_rank: usize,
    /// Iterations of the latest attempt.
    #[serde(default)]
    pub total_iterations: usize,
    /// Whether the latest attempt passed or was accepted by hand.
    #[serde(default)]
    pub success: bool,
    /// Whether the answer was accepted by hand (not the model's pass).
    #[serde(default)]
    pub fixed_by_hand: bool,
    /// The latest attempt's answer, when one was produced.
    #[serde(default)]
    pub final_answer: Option<Value>,
    /// Why the latest attempt did not pass.
    #[serde(default)]
    pub execution_error: Option<String>,
    /// Time of the final execution.
    #[serde(default)]
    pub execution_time_ms: Option<f64>,
    /// Every node's output in the final execution.
    #[serde(default)]
    pub node_outputs: Option<IndexMap<String, Value>>,
    /// The latest attempt's iterations.
    pub iterations: Vec<IterationTrace>,
    /// Every attempt, oldest first.
    pub attempts: Vec<AttemptTrace>,
    /// The base format's log: who said what, iteration by iteration.
    pub conversation_log: Vec<ReferenceLogEntry>,
    /// Every LLM exchange about the question (prompts and replies), in order.
    #[serde(default)]
    pub llm_exchanges: Vec<LogEntry>,
}

/// Who speaks in the base format's conversation log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReferenceRole {
    /// The builder's reply.
    DagBuilder,
    /// The critic's verdict.
    Critic,
    /// What a run of the DAG gave.
    Executor,
    /// A role of an earlier version's log (`user`, `assistant`): read, never written.
    #[serde(other)]
    Earlier,
}

/// One entry of the base format's conversation log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceLogEntry {
    /// Who speaks.
    pub role: ReferenceRole,
    /// What was said.
    pub content: String,
}

/// One attempt at a question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttemptTrace {
    /// 1-based, within its epoch and draft.
    pub attempt: u32,
    /// The repeat it belongs to (written when not 1).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub epoch: u32,
    /// The independent DAG of its epoch (written when not 1).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub draft: u32,
    /// `[attempt, iteration]` the attempt was forked from.
    pub forked_from: Option<(u32, u32)>,
    /// Whether the user wrote or accepted its DAG (no LLM built or reviewed it).
    #[serde(default)]
    pub by_hand: bool,
    /// How it ended, once it did.
    pub outcome: Option<Outcome>,
    /// Why it did not pass.
    pub reason: Option<String>,
    /// The answer.
    pub final_answer: Option<Value>,
    /// Its iterations.
    pub iterations: Vec<IterationTrace>,
}

/// One iteration of a critic loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IterationTrace {
    /// 1-based.
    pub iteration: u32,
    /// The DAG, once built.
    pub dag: Option<GeneratedDag>,
    /// The critic's verdict, once given.
    pub critic_feedback: Option<CriticFeedback>,
    /// The trial run's result.
    pub trial_run: Option<ExecutionResult>,
    /// Stages in the order they ran.
    pub stages: Vec<StageTiming>,
    /// People's labels of its answer, oldest first (the last counts).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<AnswerLabel>,
}

/// When one stage ran and how it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageTiming {
    /// Which stage.
    pub stage: Stage,
    /// When it started (ms since run start).
    pub started_ms: u64,
    /// Whether it succeeded, once finished.
    pub ok: Option<bool>,
    /// How long it took, once finished.
    pub duration_ms: Option<u64>,
}

/// Who speaks in a conversation log entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogRole {
    /// The prompt sent.
    User,
    /// The reply, or why the call failed.
    Assistant,
}

/// One message of a question's conversation log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogEntry {
    /// Prompt or reply.
    pub role: LogRole,
    /// The text (`(call failed: …)` for a failed call).
    pub content: String,
    /// Which call it belongs to.
    pub meta: CallMeta,
}

/// Which LLM call a log entry belongs to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum CallMeta {
    /// A call of a critic loop (build, layer review, narrative).
    Loop {
        /// Attempt.
        attempt: u32,
        /// Iteration.
        iteration: u32,
        /// What the call was for.
        call: LlmRole,
        /// Layer under review.
        layer: Option<usize>,
        /// The repeat (written when not 1).
        #[serde(default = "one", skip_serializing_if = "is_one")]
        epoch: u32,
        /// The independent DAG of the epoch (written when not 1).
        #[serde(default = "one", skip_serializing_if = "is_one")]
        draft: u32,
        /// A repair exchange's number (written when not 0).
        #[serde(default, skip_serializing_if = "is_zero")]
        repair: u32,
        /// Whether the response cache served it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        from_cache: bool,
        /// The provider batch its reply was read from (`run --batch`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        batch_id: Option<BatchId>,
        /// The baseline it answers (`run --baselines`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        baseline: Option<BaselineCall>,
    },
    /// A judge grading the attempt's answer (or a rejected iteration's).
    Judge {
        /// Attempt.
        attempt: u32,
        /// Which judge (1-based).
        judge: u32,
        /// Always `judge`.
        call: LlmRole,
        /// Step within the judge.
        step: Option<usize>,
        /// The rejected iteration whose answer the judge graded; none for the attempt's answer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        judged_iteration: Option<u32>,
        /// The provider batch its reply was read from (`run --batch`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        batch_id: Option<BatchId>,
    },
}
