//! What a run leaves behind and how people come back to it: `eval_results.json`
//! (written from and read back into the types of `results_doc`), loading
//! finished runs, comparing two runs or several (and the critic's lift: accuracy without and with rebuilds); what the run says about its
//! critic (scorecard, findings taxonomy, convergence), where its tokens went (prompt cache, per question) and two critics' verdicts on one run.

mod agreement;
mod baselines;
mod benchmark;
mod compare;
mod consensus;
mod convergence;
mod economy;
mod html;
mod lift;
mod load;
mod matrix;
mod metamorphic;
mod repeats;
mod results;
mod results_doc;
mod results_harness;
mod roles;
mod scorecard;
mod significance;
mod taxonomy;
#[cfg(test)]
pub(crate) mod test_run;
mod verify;

pub use agreement::{Flip, VerdictAgreement, verdict_agreement};
pub use baselines::{
    BaselineAnswer, BaselineFloors, BaselineLift, BaselineTally, baselines_line, baselines_summary, baselines_text,
    constant_answers, question_baselines, tally_text,
};
pub use benchmark::{SubmissionLine, benchmark_score, benchmark_summary, dabstep_submission};
pub use compare::{Change, Row, Side, compare};
pub use consensus::consensus_summary;
pub use convergence::{ApprovalHistogram, Convergence, convergence};
pub use economy::{PrefixReuse, TokenEconomy, prefix_reuse, token_economy};
pub use html::{REPORT_TEMPLATES, ReportTemplates, report_html};
pub use lift::{
    Lift, LiftPair, LiftQuestion, LiftSide, LiftTally, ScoredBy, benchmark_lift, first_iteration, lift, lift_lines,
    pairs_between_runs, pairs_within_run, per_extra_right_line, rebuild_lift,
};
pub use load::{fold_indexed, fold_trace, is_trace, load_results};
pub use matrix::{Agreement, Entry, Matrix, MatrixRow, RunSummary, compare_runs};
pub use metamorphic::metamorphic_summary;
pub use results::{eval_results, graded_tally, write_eval_results};
pub use results_doc::{
    AttemptTrace, CallMeta, DetailedResult, DifficultyBreakdown, EvalResults, FailureAnalysis, Grading, IterationTrace,
    LevelBreakdown, LogEntry, LogRole, QuestionTrace, ReferenceLogEntry, ReferenceRole, StageTiming, Summary, Tokens,
};
pub use results_harness::{
    BatchUse, BenchmarkMetrics, BenchmarkSummary, BudgetUse, CacheUse, ConsensusSummary, EpochResult,
    MetamorphicSummary, Repeats, SignalAgainstLabels,
};
pub use roles::{RoleUsage, RoleUsages, role_usage};
pub use scorecard::{
    AnswerGrade, CriticScorecard, FateCounts, GradedBy, JudgedIteration, LabelFreeSignal, VerdictFate,
    critic_scorecard, label_free_signals, scorecard_graded_by,
};
pub use significance::{Measure, RESAMPLES, SEED, Significance, Test, mcnemar_exact, paired_test};
pub use taxonomy::{
    FindingGroup, FindingsTaxonomy, Oscillation, OscillationKind, attempt_oscillations, exception_type,
    findings_taxonomy,
};
pub use verify::{Drift, Drifted, VerifyReport, json_diff, verify};
