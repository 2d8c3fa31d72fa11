//! What a run leaves behind and how people come back to it: `eval_results.json`
//! (written from and read back into the types of `doc`), loading
//! finished runs, comparing two runs or several (and the critic's lift: accuracy without and with rebuilds); what the run says about its
//! critic (scorecard, findings taxonomy, convergence), where its tokens went (prompt cache, per question) and two critics' verdicts on one run.
//!
//! Analyses of a run's critic:
//! - `scorecard.rs`: the critic's scorecard. Every judged iteration's answer is
//!   graded with the run's matching rules, else a person's label, else the judges'
//!   grades of a rejected iteration (`run --judge-rejected`), each marked by
//!   `GradedBy`; the verdicts are counted against the grades.
//! - `taxonomy.rs`: the findings taxonomy — findings grouped by source, rule and
//!   exception, what they cost, oscillations (also read by the TUI's diff screen).
//! - `convergence.rs`: iterations to approval.
//! - `recritic_verdicts.rs`: two critics' verdicts on the same iterations, agreement and
//!   flips.
//!
//! Where the tokens went:
//! - `economy.rs`: prompt prefix reuse, cache hit rate, tokens and cost per question
//!   and per passed question, the share on rejected iterations.
//! - `roles.rs`: who played each role, with its calls, tokens and cost.
//!
//! `eval_results.json`:
//! - its types are in `doc/`; `results.rs` writes it, streaming one question trace
//!   at a time through `EvalResults<Traces>`; `load.rs` reads it back;
//! - `eval_results.schema.json` describes the same shape, and
//!   `tests/suite/results_schema.rs` keeps the two in step.
//!
//! The HTML report (`html/`):
//! - the top-level `templates/` (minijinja, auto-escaped as HTML; a user's
//!   `templates/` directory replaces them by file name) are filled with typed view
//!   structs, one per section: `summary.rs`, `benchmark.rs` (a published
//!   benchmark's own figures), `run_charts.rs` (pass rate and accuracy per
//!   difficulty, tokens and time per question, in ranges above 100 questions),
//!   `scorecard.rs`, `taxonomy.rs` (taxonomy and convergence), `question.rs` and
//!   `conversation.rs` (a question's summary line and details), `svg.rs` (a DAG
//!   placed for `dag.svg.j2`) and `chart.rs` (the one horizontal bar chart every
//!   section draws with, the `bar_chart` macro);
//! - `untrusted.rs`: the formatter that also shows characters that reorder text as
//!   code points;
//! - `compress.rs`: above 1,000 questions the question bodies wait gzip-compressed
//!   in base64 chunks that `templates/sections.js` opens with
//!   `DecompressionStream` when a question is opened.
//!
//! Finished runs, loaded and compared:
//! - `compare.rs`: two runs; `matrix.rs`: several against a baseline, with
//!   `html/matrix.rs` its page.
//! - `lift/`: the critic's lift — each scored question right without and with
//!   rebuilds, paired between a run allowed fewer iterations and one allowed more,
//!   or within one run from its first DAG's trial answer; tallied per level and
//!   dataset with the questions fixed and broken and the tokens per extra right
//!   answer. Shown by `compare` (table, JSON, `html/matrix.rs`, the TUI's compare
//!   screen) and by one run's results and `html/benchmark.rs`.
//! - `frontier/`: several runs' accuracy (with its 95 % interval) against cost,
//!   tokens or wall time, and the runs none beats on both; per level and per
//!   dataset too. `bootstrap.rs` is the one seeded bootstrap its intervals and
//!   the significance test draw with.
//! - `pairwise.rs`: two runs' answers side by side — the questions they share
//!   and, per other run, wins, losses, ties, a Wilson interval and a sign test.
//! - `review_items.rs`: which answers a review queue holds (a seeded sample,
//!   stratified or not, rejected iterations' answers too) and in which order
//!   (the machines' disagreements first).
//! - `reviews.rs`: people's reviews kept beside a run (`reviews/<reviewer>.jsonl`),
//!   read against what it shows now (stale ones apart), the trace's labels among
//!   them; the human verdict of an item. `agreement/`: Cohen's κ per pair of
//!   reviewers, Krippendorff's α, each machine against people, with intervals,
//!   and the same figures in words (`text.rs`, for `agreement` and the TUI).
//! - `significance.rs`: each run's paired test against the baseline — exact
//!   McNemar without repeats, a seeded paired bootstrap with them — which alone
//!   decides a regression's exit code.
//! - `verify.rs`: `replay --verify`.
//! - `listing/`: the list of runs under some directories, one row per run
//!   directory read from the trace's ends and the results' summary only, for
//!   `eval-dag runs` and the run browser.

mod analyses;
mod documents;
#[cfg(test)]
pub(crate) mod test_run;
mod views;

pub use analyses::agreement::{agreement_lines, agreement_report, alpha_text, kappa_text, krippendorff_alpha};
pub use analyses::baselines::{
    baselines_line, baselines_summary, baselines_text, constant_answers, question_baselines, tally_text,
};
pub use analyses::benchmark::{SubmissionLine, benchmark_score, benchmark_summary, dabstep_submission};
pub use analyses::compare::{Change, Row, Side, compare};
pub use analyses::consensus::consensus_summary;
pub use analyses::convergence::{ApprovalHistogram, Convergence, convergence};
pub use analyses::economy::{PrefixReuse, TokenEconomy, prefix_reuse, token_economy};
pub use analyses::frontier::{
    AXES, Axis, AxisScale, Basis, Frontier, FrontierPoint, FrontierSlice, IntervalMethod, OnFrontier, frontier, pareto,
    wilson,
};
pub use analyses::lift::{
    benchmark_lift, first_iteration, lift, lift_lines, pairs_between_runs, pairs_within_run, per_extra_right_line,
    rebuild_lift,
};
pub use analyses::listing::{RESULTS_FILE, RunRow, RunStatus, Stamp, TRACE_FILE, list_runs, scan_new_runs, scan_runs};
pub use analyses::load_results::{fold_indexed, fold_trace, is_trace, load_results};
pub use analyses::matrix::{AnswerSpread, Entry, Matrix, MatrixRow, RunSummary, compare_runs};
pub use analyses::metamorphic::metamorphic_summary;
pub use analyses::pairwise::{pairwise_tallies, shared_questions};
pub use analyses::recritic_verdicts::{Flip, VerdictOverlap, verdict_overlap};
pub use analyses::review_items::{disagreements, review_items};
pub use analyses::reviews::{
    HumanVerdict, REVIEWS_DIR, RunReviews, Shown, append_review, apply_human_verdicts, has_reviews, human_verdicts,
    read_reviews, shown,
};
pub use analyses::roles::{RoleUsage, RoleUsages, role_usage};
pub use analyses::scorecard::{critic_scorecard, label_free_signals, scorecard_graded_by};
pub use analyses::significance::{Measure, RESAMPLES, SEED, Significance, Test, mcnemar_exact, paired_test};
pub use analyses::taxonomy::{
    FindingGroup, FindingsTaxonomy, Oscillation, OscillationKind, attempt_oscillations, exception_type,
    findings_taxonomy,
};
pub use analyses::verify::{Drift, Drifted, VerifyReport, json_diff, verify};
pub use analyses::write_results::{eval_results, graded_tally, write_eval_results};
pub use documents::{
    AgreementReport, AlphaFigure, KappaFigure, MachineAgreement, PairAgreement, PairwiseTally, Table as AgreementTable,
};
pub use documents::{
    AnswerGrade, AttemptTrace, BaselineAnswer, BaselineFloors, BaselineLift, BaselineTally, BatchUse, BenchmarkMetrics,
    BenchmarkSummary, BudgetUse, CacheUse, CallMeta, ConsensusSummary, CriticScorecard, DetailedResult,
    DifferentialSummary, DifficultyBreakdown, DivergenceCounts, EpochResult, EvalResults, FailureAnalysis, FateCounts,
    GradedBy, Grading, IterationTrace, JudgedIteration, LabelFreeSignal, LevelBreakdown, Lift, LiftPair, LiftQuestion,
    LiftSide, LiftTally, LogEntry, LogRole, MetamorphicSummary, QuestionTrace, ReferenceLogEntry, ReferenceRole,
    Repeats, ResultStatus, ScoredBy, SignalAgainstLabels, StageTiming, Summary, Tokens, VerdictFate,
};
pub use views::{REPORT_TEMPLATES, ReportTemplates, report_html};
