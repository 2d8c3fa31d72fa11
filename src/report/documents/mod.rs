//! The results document's types (`eval_results.json`), with no analysis in
//! them: what the run's questions, iterations and calls came to, and the
//! summaries the analyses of `report` compute into it. Serialised as the
//! schema `report/documents/eval_results.schema.json` describes.

mod agreement_figures;
mod baseline_figures;
mod eval_results;
mod harness_figures;
mod lift_figures;
mod result_status;
mod scorecard_figures;

pub use agreement_figures::{
    AgreementReport, AlphaFigure, KappaFigure, MachineAgreement, PairAgreement, PairwiseTally, Table,
};
pub use baseline_figures::{BaselineAnswer, BaselineFloors, BaselineLift, BaselineTally};
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
