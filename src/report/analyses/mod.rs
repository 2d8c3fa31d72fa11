//! What the report works out from a run, or from several: each file one
//! analysis, reading a run's state or its results document (`documents/`) and
//! answering in the document's types or its own.
//!
//! The results document, built and read back:
//! - `write_results.rs`: builds `eval_results.json` from a run and writes it,
//!   one question trace at a time.
//! - `load_results.rs`: reads a finished run back, from its results or its
//!   trace.
//!
//! The run's critic:
//! - `scorecard.rs`: every judged iteration's answer graded (the run's
//!   matching rules, else a person's label, else the judges), the verdicts
//!   counted against the grades.
//! - `taxonomy.rs`: findings grouped by source, rule and exception, what they
//!   cost, oscillations (also read by the TUI's diff screen).
//! - `convergence.rs`: iterations to approval.
//! - `recritic_verdicts.rs`: two critics' verdicts on the same iterations.
//!
//! Where the tokens went:
//! - `economy.rs`: prompt prefix reuse, cache hits, tokens and cost per
//!   question, the share on rejected iterations.
//! - `roles.rs`: who played each role, with its calls, tokens and cost.
//!
//! What a run's features add: `baselines.rs`, `benchmark.rs` (a published
//! benchmark's own figures), `repeats.rs`, `consensus.rs`, `metamorphic.rs`,
//! `differential.rs`.
//!
//! Finished runs, compared:
//! - `compare.rs`: two runs; `matrix.rs`: several against a baseline.
//! - `lift/`: the critic's lift, each scored question without and with
//!   rebuilds, between two runs or within one.
//! - `frontier/`: several runs' accuracy against cost, tokens or wall time,
//!   and the runs none beats on both.
//! - `significance.rs`: each run's paired test against the baseline, which
//!   alone decides a regression's exit code.
//! - `bootstrap.rs`: the one seeded bootstrap every interval draws with.
//!
//! People's reviews:
//! - `reviews.rs`: reviews kept beside a run (`reviews/<reviewer>.jsonl`),
//!   read against what it shows now; the human verdict of an item.
//! - `review_items.rs`: which answers a review queue holds, in which order.
//! - `pairwise.rs`: two runs' answers side by side, wins and losses.
//! - `agreement/`: Cohen's κ, Krippendorff's α, each machine against people,
//!   and the same figures in words.
//!
//! Elsewhere: `verify.rs` re-executes a trace's DAGs (`replay --verify`);
//! `listing/` lists the runs under some directories (`eval-dag runs`, the run
//! browser).

pub(super) mod agreement;
pub(super) mod baselines;
pub(super) mod benchmark;
pub(super) mod bootstrap;
pub(super) mod compare;
pub(super) mod consensus;
pub(super) mod convergence;
pub(super) mod differential;
pub(super) mod economy;
pub(super) mod frontier;
pub(super) mod lift;
pub(super) mod listing;
pub(super) mod load_results;
pub(super) mod matrix;
pub(super) mod metamorphic;
pub(super) mod pairwise;
pub(super) mod recritic_verdicts;
pub(super) mod repeats;
pub(super) mod review_items;
pub(super) mod reviews;
pub(super) mod roles;
pub(super) mod scorecard;
pub(super) mod significance;
pub(super) mod taxonomy;
pub(super) mod verify;
pub(super) mod write_results;
