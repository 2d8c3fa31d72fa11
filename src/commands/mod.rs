//! One function per subcommand; each returns the process exit code.
//!
//! Exit codes: 0 success; 1 the evaluation ran but something
//! failed; 2 bad usage or bad input (an `Err` here).
//!
//! Besides one file per subcommand:
//! - `derive.rs`: a replay's derived run — its directory, a trace that begins with
//!   the source's events, an idle engine, results and report at the end.
//! - `recritic.rs`: `eval-dag recritic`, a derived run that begins with the
//!   source's question list, its recorded DAGs judged by another critic, the
//!   comparison printed.
//! - `cache.rs`: `eval-dag cache stats|prune`, and the run's cache put in front of
//!   its clients (one `CacheScope` per role with an HTTP provider).
//! - `dry_run.rs`: `run --dry-run` — the real prompts rendered and counted
//!   (bytes/4), replies at typical sizes, a range of calls, tokens and cost per
//!   model priced by the run's own clients.
//! - `completions.rs` and `man.rs`: shell completion scripts and man pages
//!   generated from `cli/` with clap_complete and clap_mangen.
//! - `export.rs`: `eval-dag export` (a run sent to an OTLP receiver or written as
//!   OTLP JSON), and `run --otlp`'s live export, which reads the trace every two
//!   seconds and sends the spans that are over.
//! - `datasets.rs`: a benchmark directory — its questions selected, the datasets
//!   they name loaded and hashed, a pool per dataset — and a recorded run's
//!   datasets found again (under `--dataset-root` when moved), one line for each
//!   that changed.

use std::process::ExitCode;

use crate::cli::CliCommand;

/// `println!` for a command's output on stdout: a reader that went away
/// (`… | head`) ends the command quietly instead of a panic.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::commands::write_line(format_args!($($arg)*))
    };
}

mod baseline;
mod batch;
mod cache;
mod compare;
mod completions;
mod datasets;
mod derive;
mod dry_run;
mod exec;
mod export;
mod grade;
mod headless;
mod import;
mod man;
mod merge;
mod metamorphic;
mod output;
mod prepare;
mod providers;
mod recorded;
mod recritic;
mod replay_headless;
mod report;
mod results_file;
mod review;
mod run;
mod runs;
mod scorer_audit;
mod shard;
mod signals;
mod validate;
mod verify;

pub use output::{one_line, write_line};
pub use runs::browse_default;

/// Run `command` and return its exit code; `Err` means bad input (exit 2).
pub fn dispatch(command: CliCommand) -> anyhow::Result<ExitCode> {
    match command {
        CliCommand::Run(args) => run::run(*args),
        CliCommand::Replay(args) if args.headless && !args.verify => replay_headless::replay(&args.trace),
        CliCommand::Replay(args) if args.verify => {
            let file = crate::config::Config::load(args.config.as_deref())?;
            let at =
                datasets::DatasetsAt { root: args.dataset_root.as_deref(), allow_outside: args.allow_outside_datasets };
            verify::run(&args.trace, file.node_timeout(args.node_timeout), args.engine, at)
        }
        CliCommand::Replay(args) => derive::replay(&args),
        CliCommand::Prepare(args) => prepare::run(args),
        CliCommand::Import(args) => import::run(&args),
        CliCommand::Exec(args) => exec::run(args),
        CliCommand::Validate(args) => validate::run(args),
        CliCommand::Merge(args) => merge::run(&args),
        CliCommand::Report(args) => report::run(args),
        CliCommand::Compare(args) => compare::run(args),
        CliCommand::Grade(args) => grade::run(args),
        CliCommand::Review(args) => review::run(&args),
        CliCommand::Agreement(args) => review::agreement(&args),
        CliCommand::Recritic(args) => recritic::run(args),
        CliCommand::Baseline(args) => baseline::run(args),
        CliCommand::Export(args) => export::run(args),
        CliCommand::Runs(args) => runs::run(args),
        CliCommand::Cache(args) => cache::run(args),
        CliCommand::Completions(args) => completions::run(&args),
        CliCommand::Man(args) => man::run(&args),
        CliCommand::SandboxWorker(args) => {
            crate::sandbox::serve(&args.dataset, args.template, args.hash_seed)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
