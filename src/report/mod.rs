//! What a run leaves behind and how people come back to it: the results
//! document `eval_results.json`, the figures worked out from runs, and the
//! HTML report. Three folders, each layer using those before it:
//!
//! - `documents/`: the results document's types, serialised as
//!   `documents/eval_results.schema.json` describes.
//! - `analyses/`: what is worked out from one run or several: the document
//!   written and read back, the critic's scorecard, comparisons, the
//!   frontier, significance, people's reviews and agreement, the list of runs.
//! - `views/`: `eval_report.html` and `compare --html`, one view per section,
//!   filled into the top-level `templates/`.
//!
//! The names below are the ones other modules use; the rest stays inside.

mod analyses;
mod documents;
#[cfg(test)]
pub(crate) mod test_run;
mod views;

pub use analyses::agreement::{agreement_lines, agreement_report, kappa_text, krippendorff_alpha};
pub use analyses::baselines::{
    baselines_line, baselines_summary, baselines_text, constant_answers, question_baselines, tally_text,
};
pub use analyses::benchmark::{benchmark_summary, dabstep_submission};
pub use analyses::bootstrap::{RESAMPLES, SEED};
pub use analyses::compare::{Change, Row, Side, compare};
pub use analyses::convergence::convergence;
pub use analyses::economy::prefix_reuse;
pub use analyses::frontier::{Axis, AxisScale, Frontier, FrontierPoint};
pub use analyses::lift::{benchmark_lift, lift_lines, per_extra_right_line, rebuild_lift};
pub use analyses::listing::{RESULTS_FILE, RunRow, RunStatus, TRACE_FILE, list_runs, scan_new_runs, scan_runs};
pub use analyses::load_results::{fold_indexed, fold_trace, is_trace, load_results};
pub use analyses::matrix::{AnswerSpread, Entry, Matrix, MatrixRow, RunSummary, compare_runs};
pub use analyses::metamorphic::metamorphic_summary;
pub use analyses::pairwise::shared_questions;
pub use analyses::recritic_verdicts::{VerdictOverlap, verdict_overlap};
pub use analyses::review_items::review_items;
pub use analyses::reviews::{
    HumanVerdict, REVIEWS_DIR, RunReviews, append_review, apply_human_verdicts, has_reviews, human_verdicts,
    read_reviews, shown,
};
pub use analyses::roles::role_usage;
pub use analyses::scorecard::{critic_scorecard, label_free_signals, scorecard_graded_by};
pub use analyses::taxonomy::{attempt_oscillations, findings_taxonomy};
pub use analyses::verify::verify;
pub use analyses::write_results::{eval_results, graded_tally, write_eval_results};
pub use documents::{
    AgreementReport, AnswerGrade, ApprovalHistogram, AttemptTrace, BaselineAnswer, BaselineFloors, BaselineLift,
    BaselineTally, BatchUse, BenchmarkMetrics, BenchmarkSummary, BudgetUse, CacheUse, CallMeta, ConsensusSummary,
    Convergence, CriticScorecard, DetailedResult, DifferentialSummary, DifficultyBreakdown, DivergenceCounts,
    EpochResult, EvalResults, FailureAnalysis, FateCounts, FindingGroup, FindingsTaxonomy, GradedBy, Grading,
    IterationTrace, JudgedIteration, KappaFigure, LabelFreeSignal, LevelBreakdown, Lift, LiftQuestion, LiftSide,
    LiftTally, LogEntry, LogRole, MachineAgreement, MetamorphicSummary, Oscillation, OscillationKind, PairAgreement,
    PairwiseTally, QuestionTrace, ReferenceLogEntry, ReferenceRole, Repeats, RoleUsage, SignalAgainstLabels,
    StageTiming, Summary, Table as AgreementTable, TokenEconomy, Tokens, VerdictFate,
};
pub use views::{REPORT_TEMPLATES, ReportTemplates, report_html};
