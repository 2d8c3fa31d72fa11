//! The results document, `eval_results.json`, as types: what a run's
//! questions, iterations and calls came to, and the figures the analyses
//! compute into it. No analysis here.
//!
//! - `eval_results.rs`: the document and its base parts (summary, per
//!   question results, traces, calls).
//! - `result_status.rs`: a question's or an epoch's status.
//! - `scorecard_figures.rs`, `taxonomy_figures.rs`, `convergence_figures.rs`,
//!   `lift_figures.rs`: the critic's scorecard, its findings, iterations to
//!   approval, its lift.
//! - `usage_figures.rs`: where the tokens went, per role too.
//! - `baseline_figures.rs`, `agreement_figures.rs`: the baselines, reviewers'
//!   agreement.
//! - `harness_figures.rs`: what repeats, consensus, metamorphic and
//!   differential checks, benchmarks, the cache, budgets and batches add.
//! - `eval_results.schema.json`: the same shape as a JSON Schema;
//!   `tests/suite/results_schema.rs` keeps the two in step.

mod agreement_figures;
mod baseline_figures;
mod convergence_figures;
mod eval_results;
mod harness_figures;
mod lift_figures;
mod result_status;
mod scorecard_figures;
mod taxonomy_figures;
mod usage_figures;

pub use agreement_figures::{
    AgreementReport, AlphaFigure, KappaFigure, MachineAgreement, PairAgreement, PairwiseTally, Table,
};
pub use baseline_figures::{BaselineAnswer, BaselineFloors, BaselineLift, BaselineTally};
pub use convergence_figures::{ApprovalHistogram, Convergence};
pub use eval_results::{
    AttemptTrace, CallMeta, DetailedResult, DifficultyBreakdown, EvalResults, FailureAnalysis, Grading, IterationTrace,
    LevelBreakdown, LogEntry, LogRole, QuestionTrace, ReferenceLogEntry, ReferenceRole, StageTiming, Summary,
};
pub use harness_figures::{
    BatchUse, BenchmarkMetrics, BenchmarkSummary, BudgetUse, CacheUse, ConsensusSummary, DifferentialSummary,
    DivergenceCounts, EpochResult, MetamorphicSummary, Repeats, SignalAgainstLabels, Tokens,
};
pub use lift_figures::{Lift, LiftPair, LiftQuestion, LiftSide, LiftTally, ScoredBy};
pub use result_status::ResultStatus;
pub use scorecard_figures::{
    AnswerGrade, CriticScorecard, FateCounts, GradedBy, JudgedIteration, LabelFreeSignal, VerdictFate,
};
pub use taxonomy_figures::{FindingGroup, FindingsTaxonomy, Oscillation, OscillationKind};
pub use usage_figures::{RoleUsage, RoleUsages, TokenEconomy};
