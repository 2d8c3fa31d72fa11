//! eval-dag: LLMs turn a dataset into ranked questions, build a Python DAG per
//! question under a critic loop, and run approved DAGs in a sandbox.
//!
//! The library holds every part; `main.rs` only parses the command line and
//! dispatches to [`commands`].
//!
//! # Decisions the code relies on
//!
//! - **Base formats.** The question list, DAG, critic feedback and `eval_results.json`
//!   keep the field names of the base JSON formats the project started from
//!   (`question_text`, `difficulty`, `successful_executions`, `execution_failures`,
//!   `critic_loop_exhausted`, `total_iterations`, `execution_error`, `node_outputs`,
//!   a `conversation_log` of `dag_builder` / `executor` / `critic` entries), so files
//!   in those shapes load unchanged and tools reading them keep working. Fields the
//!   project adds are optional on input; unknown fields are ignored
//!   (`tests/suite/model_roundtrip.rs`). A question's difficulty is a 1-10 score:
//!   1-3 easy, 4-7 medium, 8-10 hard.
//! - **Typed values, the same JSON.** A value that crosses modules has a type, and the
//!   type writes the JSON its string did: a finding's `domain::Rule` (the checks' own
//!   rules, `Other` for what a model or a person names) is its snake_case name;
//!   `Drifted` (`report/analyses/verify.rs`) is `final_answer`, `node_output:<id>`, `now_fails`,
//!   `now_succeeds` or `grade`; `domain::ForkedFrom` is `[attempt, iteration]`. A change to what a trace holds is a new trace
//!   version with its fixture under `tests/fixtures/`.
//! - **Two provider types.** What a user can choose and what a trace records differ:
//!   `domain::ProviderKind` (`offline`, `openai`, `anthropic`) is what `--llm`, `[llm]`
//!   and `[roles.<name>]` accept — any other name is a one-line error listing them, from
//!   clap (`cli/values.rs` implements `clap::ValueEnum` for it, so `config` no longer
//!   needs `cli` for it) or from the config file's parser; `domain::Provider` is what
//!   `RunSettings`, `RoleModel`, `LlmCallStarted` and `LlmClient::provider()` hold: a
//!   `ProviderKind`, `replay` (recorded responses with nothing behind them), or `Other`
//!   for a name this version does not know, kept as written so an older, newer or
//!   hand-written trace loads and is written back byte for byte. Both are their
//!   lowercase name in JSON, as the strings were; equality goes by the name. The
//!   response cache's `CacheScope` holds a `ProviderKind` (only HTTP providers are
//!   cached); `Provider::kind()` tells which recorded roles a replay can call again.
//! - **Ids are types.** A question's id is a `domain::QuestionId` and a node's a `domain::NodeId` wherever one crosses modules (domain types, run events and commands, the engine, the sandbox protocol, report and TUI state); each is `#[serde(transparent)]`, the plain JSON string it wraps, dereferences to `str` (an id has no rule of its own to protect, so `&id` goes where a `&str` is read) and is looked up in maps by `&str` (`Borrow<str>`); `eval_results.json`'s documents (`report/documents/eval_results.rs`) keep `String` ids and convert where the results are built.
//! - **No panic for bad input or a poisoned lock.** Cargo.toml denies clippy's
//!   `unwrap_used` and `expect_used` outside tests (`clippy.toml` allows them in
//!   tests; `tests/all.rs` and the benches allow them for their helpers). A lock is
//!   recovered with `PoisonError::into_inner`; a `select!` arm guarded by an `Option`
//!   awaits a helper that yields `None` without one. The few `expect`s left say why
//!   in their `#[allow(…, reason = "…")]`: built-in assets (literal regex patterns,
//!   which clippy's `invalid_regex` checks; the built-in theme and templates, which
//!   the tests compile).
//! - **One import path per type.** A type is imported from the module that defines
//!   it: no module re-exports another top-level module's items (`pub use crate::…`),
//!   so `CallKey` is `domain::CallKey`, never also `llm::CallKey`
//!   (`tests/suite/architecture.rs` refuses a `pub use crate::` line).
//! - **Lists of every variant are checked.** A hand-kept list of an enum's
//!   variants (`Outcome::ALL`, `Screen::ALL`, …) is written with `every_variant!`,
//!   whose exhaustive `match` fails the build when a variant is missing.
//! - **Short functions.** No function in `src/` is over 100 lines; long ones are
//!   split by responsibility: the reducer `RunState::apply_owned` hands each event to
//!   the method of its family (`run/state/reduce.rs`: the run, LLM calls,
//!   iterations, outcomes, commands), `export::spans` folds by the same families,
//!   `dag::structure` checks ids, inputs, edges and reachability in turn, and
//!   `dataset::prepare` reads the header, then makes its passes one function each.
//!   `.ci/code_stats.py` counts long functions and `unwrap`/`expect` calls outside
//!   tests.

/// The variants `$variant…` of enum `$enum`, as an array in the order given,
/// for a hand-kept list of every variant (`ALL`). The list and an exhaustive
/// `match` are written from the same names, so the build fails when the enum
/// gains a variant the list lacks, and (`unreachable_patterns`) when the list
/// names one twice.
macro_rules! every_variant {
    ($enum:ident: $($variant:ident),+ $(,)?) => {{
        #[deny(unreachable_patterns)]
        let _every_variant_listed = |value: $enum| match value {
            $($enum::$variant => {})+
        };
        [$($enum::$variant),+]
    }};
}

pub mod benchmark;
pub mod cli;
pub mod commands;
pub mod config;
pub mod dag;
pub mod dataset;
pub mod domain;
pub mod engine;
pub mod export;
pub mod grade;
pub mod llm;
pub mod logging;
pub mod prompts;
pub mod render;
pub mod report;
pub mod run;
pub mod sandbox;
pub mod templating;
pub mod text;
pub mod trace;
pub mod tui;
