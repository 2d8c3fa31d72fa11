//! The results document's types (`eval_results.json`), with no analysis in
//! them: what the run's questions, iterations and calls came to, and the
//! summaries the analyses of `report` compute into it. Serialised as the
//! schema `report/eval_results.schema.json` describes.

mod agreement;
mod baselines;
mod harness;
mod lift;
mod results;
mod scorecard;
mod status;

pub use agreement::{AgreementReport, AlphaFigure, KappaFigure, MachineAgreement, PairAgreement, PairwiseTally, Table};
pub use baselines::{BaselineAnswer, BaselineFloors, BaselineLift, BaselineTally};
pub use harness::{
    BatchUse, BenchmarkMetrics, BenchmarkSummary, BudgetUse, CacheUse, ConsensusSummary, DifferentialSummary,
    DivergenceCounts, EpochResult, MetamorphicSummary, Repeats, SignalAgainstLabels, Tokens,
};
pub use lift::{Lift, LiftPair, LiftQuestion, LiftSide, LiftTally, ScoredBy};
pub use results::{
    AttemptTrace, CallMeta, DetailedResult, DifficultyBreakdown, EvalResults, FailureAnalysis, Grading, IterationTrace,
    LevelBreakdown, LogEntry, LogRole, QuestionTrace, ReferenceLogEntry, ReferenceRole, StageTiming, Summary,
};
pub use scorecard::{
    AnswerGrade, CriticScorecard, FateCounts, GradedBy, JudgedIteration, LabelFreeSignal, VerdictFate,
};
pub use status::ResultStatus;
