//! Command-line contract. Scripts and tests depend on it.
//!
//! `Cli` and its `CliCommand` subcommands (the engine's `run::Command` is another
//! thing). `values.rs`: parsers of flag values clap's own do not cover, and
//! `--llm`'s choices (`clap::ValueEnum` for `domain::ProviderKind`).
#![allow(
    rustdoc::invalid_html_tags,
    reason = "these doc comments are the --help text, where `<timestamp>` and `<name>` are placeholders"
)]

use std::ops::RangeInclusive;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::domain::{ProviderKind, StructuredOutput};

mod baseline;
mod benchmark;
mod merge;
mod review;
mod roles;
mod run;
mod values;
pub use baseline::BaselineArgs;
pub use benchmark::{BenchmarkKind, ImportArgs};
pub use merge::MergeArgs;
pub use review::{AgreementArgs, ReviewArgs};
pub use roles::RoleFlags;
pub use run::{HarnessFlags, RunArgs};
pub use values::SampleSize;
use values::{
    parse_header, parse_json_object, parse_node_timeout, parse_sample_size, parse_seconds, significance_level,
};

/// `compare --significance` unless given.
pub const DEFAULT_SIGNIFICANCE: f64 = 0.05;
/// Accepted `--questions` (and config `questions`).
pub const QUESTIONS_RANGE: RangeInclusive<i64> = 1..=10_000;
/// Accepted `--max-iterations`.
pub const MAX_ITERATIONS_RANGE: RangeInclusive<i64> = 1..=100;
/// Accepted `--concurrency`.
pub const CONCURRENCY_RANGE: RangeInclusive<i64> = 1..=1_000;
/// Accepted `--review-concurrency` (0: every layer at once).
pub const REVIEW_CONCURRENCY_RANGE: RangeInclusive<i64> = 0..=1_000;
/// Accepted values of `run --repeat`.
pub const REPEAT_RANGE: RangeInclusive<i64> = 1..=100;
/// Accepted values of `run --consensus`.
pub const CONSENSUS_RANGE: RangeInclusive<i64> = 1..=9;
/// Accepted repair exchanges per unreadable reply (`--repair`, `[llm] repair`).
pub const REPAIR_RANGE: RangeInclusive<i64> = 0..=10;
/// Accepted `--schema-budget` (and config `schema_budget`), tokens.
pub const SCHEMA_BUDGET_RANGE: RangeInclusive<i64> = 100..=10_000_000;

/// Watch LLMs build, critique and run Python DAGs over your data.
#[derive(Debug, Parser)]
#[command(name = "eval-dag", version, about, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: CliCommand,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum CliCommand {
    /// Generate questions for a dataset and run a critic loop per question.
    Run(Box<RunArgs>),
    /// Open a saved trace (TUI, or headless summary).
    Replay(ReplayArgs),
    /// Turn one table (CSV, Parquet, workbook sheet, JSON, SQLite) into data.json + metadata.json.
    Prepare(PrepareArgs),
    /// Turn a published benchmark's files (InfiAgent-DABench, DABstep, QRData) into a
    /// benchmark directory: questions.jsonl scored by the benchmark's rules, datasets/.
    Import(ImportArgs),
    /// Execute a DAG in the sandbox and print the execution result as JSON.
    Exec(ExecArgs),
    /// Check a DAG statically and print its findings as JSON.
    Validate(ValidateArgs),
    /// Join the shards of a run (`run --shard K/N`) into one run directory:
    /// one trace, eval_results.json and the report, read like any other run.
    Merge(MergeArgs),
    /// Write the HTML report of a results file or trace.
    Report(ReportArgs),
    /// Compare two runs or more (results files or traces) question by
    /// question against the first: a terminal UI on a terminal, a table otherwise.
    Compare(CompareArgs),
    /// Grade a finished run's answers again (ground truth), without re-running.
    Grade(GradeArgs),
    /// Record people's reviews of a run's answers (`--import` a CSV or JSON
    /// Lines file of them) in RUN_DIR/reviews/<reviewer>.jsonl.
    Review(ReviewArgs),
    /// How far a run's reviewers agree with each other (Cohen's κ per pair,
    /// Krippendorff's α) and the critic, judges and scorer with them.
    Agreement(AgreementArgs),
    /// Score a finished run's baselines (as `run --baselines`) in a derived
    /// run, asking only the baseline calls it has no reply for.
    Baseline(BaselineArgs),
    /// Judge every recorded iteration of a run again with another critic
    /// (model or prompts), never rebuilding a DAG, and compare the verdicts.
    Recritic(RecriticArgs),
    /// Send a run to a tracing tool over OpenTelemetry (OTLP/HTTP), or write
    /// it as an OTLP JSON file: one trace per run, a span per question,
    /// attempt, iteration, stage and model call.
    Export(ExportArgs),
    /// List the runs under directories (default `runs/`): a browser on a
    /// terminal (as `eval-dag` alone), a table otherwise, JSON with `--json`.
    Runs(RunsArgs),
    /// Look into or trim the response cache (`stats`, `prune`).
    Cache(CacheArgs),
    /// Print a shell completion script on stdout.
    Completions(CompletionsArgs),
    /// Print the man page (roff) on stdout, or write one page per command into a directory.
    Man(ManArgs),
    /// Sandbox worker process (internal).
    #[command(hide = true)]
    SandboxWorker(SandboxWorkerArgs),
}

/// Arguments of `replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// A trace.jsonl written by `run`.
    pub trace: PathBuf,
    /// No TUI: print a summary.
    #[arg(long)]
    pub headless: bool,
    /// Re-execute approved DAGs and report drift.
    #[arg(long)]
    pub verify: bool,
    /// The engine `--verify` re-executes on [default: the one the trace recorded].
    #[arg(long, value_enum, requires = "verify")]
    pub engine: Option<crate::domain::Engine>,
    /// Open at the first event instead of the final state.
    #[arg(long)]
    pub from_start: bool,
    /// Longest wait between two events when playing, in seconds: longer
    /// recorded gaps are shortened to it (and say so); 0 plays every gap in full.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, value_parser = parse_seconds)]
    pub max_gap: f64,
    /// Longest a re-run DAG node may run in the sandbox, seconds [default: 5, or 1 per 2 MB of data.json].
    #[arg(long, value_name = "SECONDS", value_parser = parse_node_timeout)]
    pub node_timeout: Option<f64>,
    /// LLM that answers reruns, forks and send-backs started in the replay
    /// (none unless given here, by EVAL_DAG_LLM or in the config file; editing
    /// and accepting by hand need none).
    #[arg(long, env = "EVAL_DAG_LLM", value_enum)]
    pub llm: Option<ProviderKind>,
    /// Who plays each role.
    #[command(flatten)]
    pub roles: RoleFlags,
    /// How replies that must be JSON objects are asked for (as `run
    /// --structured`): `schema`, `json` or `off` [default: the config file's, else schema].
    #[arg(long, value_name = "schema|json|off")]
    pub structured: Option<StructuredOutput>,
    /// Config file to read instead of $XDG_CONFIG_HOME/eval-dag/config.toml.
    #[arg(long, env = "EVAL_DAG_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Dataset directory of the replayed run, when it is not where the run
    /// found it (work by hand re-runs DAGs on it; it must hold the same data).
    #[arg(long, value_name = "DIR")]
    pub dataset: Option<PathBuf>,
    /// Where the replayed run's benchmark directory is now, when it moved.
    #[arg(long, value_name = "DIR")]
    pub dataset_root: Option<PathBuf>,
    /// Read a dataset a benchmark (or the run's trace) names outside the
    /// benchmark's folder: for datasets shared between benchmarks on purpose.
    /// Not recorded in the trace.
    #[arg(long)]
    pub allow_outside_datasets: bool,
    /// Directory of the derived run that records work started in the replay
    /// (default: runs/<timestamp>); the replayed trace is never written to.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Arguments of `prepare`.
#[derive(Debug, Args)]
pub struct PrepareArgs {
    /// The file: CSV or TSV (header row first, or below a title), Parquet,
    /// workbook (.xlsx, .xls, .ods), JSON (.json, .jsonl) or SQLite (.sqlite,
    /// .db); or a directory of such files, one dataset of several tables.
    pub file: PathBuf,
    /// Directory to write data.json and metadata.json into.
    #[arg(long)]
    pub out: PathBuf,
    /// Rows kept in the row sample (of each table), or `all` to keep every
    /// row [default: 5000 for one table; every row for several, so joins hold].
    #[arg(long, value_name = "N|all", value_parser = parse_sample_size)]
    pub sample_size: Option<SampleSize>,
    /// Binary label column (stratifies the sample, adds label rates);
    /// TABLE.COLUMN with several tables.
    #[arg(long)]
    pub label: Option<String>,
    /// Seed of the row sample.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Name of the row-sample key in data.json [default: rows]; TABLE.NAME
    /// renames a table's key with several tables.
    #[arg(long)]
    pub rows_key: Option<String>,
    /// The CSV's character encoding (e.g. latin1, windows-1252, utf-16le);
    /// detected when not given. CSV files only.
    #[arg(long)]
    pub encoding: Option<String>,
    /// The row holding the header, counted from 1 (rows above it are
    /// skipped); when not given, a title row above the header is found.
    /// CSV files and sheets only.
    #[arg(long, value_name = "N")]
    pub header_row: Option<u64>,
    /// The one sheet of a workbook or table of a SQLite database to prepare
    /// (without it, each of several is a table of the dataset).
    #[arg(long, value_name = "NAME")]
    pub table: Option<String>,
}

/// Which Python runs DAGs, and whether each answer is checked on both.
#[derive(Debug, Clone, Default, Args)]
pub struct EngineFlags {
    /// The Python that runs DAGs [default: the config's `[sandbox] engine`, else rustpython].
    #[arg(long, value_enum)]
    pub engine: Option<crate::domain::Engine>,
    /// The CPython for `--engine cpython` and `--differential` [default: the first python3 on PATH].
    #[arg(long, env = "EVAL_DAG_PYTHON", value_name = "PATH")]
    pub python: Option<PathBuf>,
    /// Run every approved DAG's final execution on both engines and record
    /// where they differ (the question keeps its engine's answer).
    #[arg(long)]
    pub differential: bool,
}

/// Arguments of `exec`.
#[derive(Debug, Args)]
pub struct ExecArgs {
    /// DAG JSON file.
    pub dag: PathBuf,
    /// Dataset directory.
    #[arg(long)]
    pub dataset: PathBuf,
    /// Per-node time limit in seconds.
    #[arg(long, default_value_t = 5.0)]
    pub node_timeout: f64,
    /// Whole-DAG time limit in seconds.
    #[arg(long, default_value_t = 30.0)]
    pub dag_timeout: f64,
    /// Also run the DAG on transformed copies of the dataset (rows shuffled and
    /// duplicated, categories renamed, measures scaled) and print the checks.
    #[arg(long)]
    pub metamorphic: bool,
    /// The question the DAG answers (with --metamorphic: a question about
    /// order makes the shuffle check informational).
    #[arg(long, value_name = "TEXT", requires = "metamorphic")]
    pub question: Option<String>,
    /// The engine (with --differential: both, exit 1 when they differ).
    #[command(flatten)]
    pub engine: EngineFlags,
}

/// Arguments of `validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// DAG JSON file.
    pub dag: PathBuf,
    /// Dataset directory.
    #[arg(long)]
    pub dataset: PathBuf,
}

/// Arguments of `report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// eval_results.json or trace.jsonl.
    pub input: PathBuf,
    /// HTML file to write.
    #[arg(long)]
    pub out: PathBuf,
}

/// Arguments of `runs`.
#[derive(Debug, Args)]
pub struct RunsArgs {
    /// Directories to look for runs in (a run is a directory holding
    /// trace.jsonl, at any depth) [default: runs].
    #[arg(value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Print the runs as a JSON array instead: path, started, dataset,
    /// models, questions, status, pass_rate, accuracy, benchmark_accuracy,
    /// epochs, drafts, tokens, cost_usd, wall_ms (null where unknown).
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The runs, each a run directory, an eval_results.json or a trace.jsonl
    /// (in any mix): the first is the baseline, every later one is compared with it.
    #[arg(value_name = "RUN", required = true, num_args = 2..)]
    pub runs: Vec<PathBuf>,
    /// Print the comparison as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Print the table even on a terminal (without this flag, a terminal gets
    /// the interactive view; pipes and CI always get the table).
    #[arg(long)]
    pub headless: bool,
    /// Also write the matrix of questions × runs to FILE as a self-contained
    /// HTML page (the table or JSON is printed, no interactive view).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// A later run is called worse than the baseline (exit 1) only when its
    /// paired test's p value is at most LEVEL (exact McNemar with one epoch
    /// per question, else a seeded paired bootstrap); 1 calls any drop.
    #[arg(long, value_name = "LEVEL", default_value_t = DEFAULT_SIGNIFICANCE, value_parser = significance_level)]
    pub significance: f64,
}

/// Arguments of `grade`.
#[derive(Debug, Args)]
pub struct GradeArgs {
    /// trace.jsonl, or eval_results.json with its trace beside it.
    pub input: PathBuf,
    /// Grade with this judge too (a judge file or a built-in judge's name);
    /// judge calls recorded in the trace are reused, others go to the
    /// OpenAI-compatible server. Repeatable.
    #[arg(long = "judge", value_name = "FILE|NAME")]
    pub judges: Vec<String>,
    /// Matching options for every expected answer, as a JSON object; default:
    /// the run's own.
    #[arg(long = "match", value_name = "JSON", value_parser = parse_json_object)]
    pub match_options: Option<serde_json::Map<String, serde_json::Value>>,
    /// Judge every answer R times (the first judgement reuses the trace's
    /// calls, the others ask the judge model again) and report each judge's
    /// noise floor: how often it disagrees with itself. The majority verdict counts.
    #[arg(long, value_name = "R", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeat_judges: u32,
    /// Who answers judge calls not found in the trace (--judge-model, or --model).
    #[command(flatten)]
    pub roles: RoleFlags,
    /// How replies that must be JSON objects are asked for (as `run
    /// --structured`): `schema`, `json` or `off` [default: the config file's, else schema].
    #[arg(long, value_name = "schema|json|off")]
    pub structured: Option<StructuredOutput>,
}

/// Arguments of `recritic`.
#[derive(Debug, Args)]
pub struct RecriticArgs {
    /// The run to re-criticise: its directory or its trace.jsonl.
    pub run: PathBuf,
    /// LLM provider of the layer reviews (default: openai when OPENAI_API_KEY is set, else offline).
    #[arg(long, env = "EVAL_DAG_LLM", value_enum)]
    pub llm: Option<ProviderKind>,
    /// Who answers the layer reviews (--critic-model, or --model).
    #[command(flatten)]
    pub roles: RoleFlags,
    /// How replies that must be JSON objects are asked for (as `run
    /// --structured`): `schema`, `json` or `off` [default: the config file's, else schema].
    #[arg(long, value_name = "schema|json|off")]
    pub structured: Option<StructuredOutput>,
    /// Directory of prompt templates replacing the built-in ones by file name
    /// (over $EVAL_DAG_PROMPTS and the config directory's prompts/).
    #[arg(long, value_name = "DIR")]
    pub prompts: Option<PathBuf>,
    /// Output directory of the derived run (default: runs/<timestamp>); a
    /// directory holding an interrupted re-criticism of the same run is continued.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Where the run's benchmark directory is now, when it moved.
    #[arg(long, value_name = "DIR")]
    pub dataset_root: Option<PathBuf>,
    /// Read a dataset a benchmark (or the run's trace) names outside the
    /// benchmark's folder: for datasets shared between benchmarks on purpose.
    /// Not recorded in the trace.
    #[arg(long)]
    pub allow_outside_datasets: bool,
    /// Questions re-criticised at once [default: the config file's, else the run's].
    #[arg(long, value_parser = clap::value_parser!(u32).range(CONCURRENCY_RANGE))]
    pub concurrency: Option<u32>,
    /// Layer reviews running at once per DAG; 0 reviews every layer at once
    /// [default: the config file's, else the run's].
    #[arg(long, value_parser = clap::value_parser!(u32).range(REVIEW_CONCURRENCY_RANGE))]
    pub review_concurrency: Option<u32>,
    /// Config file to read instead of $XDG_CONFIG_HOME/eval-dag/config.toml.
    #[arg(long, env = "EVAL_DAG_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// File formats `export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// The OTLP JSON encoding of one export request holding every span.
    OtlpJson,
    /// A DABstep submission: one JSON line per task with `task_id`,
    /// `agent_answer` and `reasoning_trace`.
    Dabstep,
}

/// Arguments of `export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The run: its directory or its trace.jsonl.
    pub run: PathBuf,
    /// Base URL of an OTLP/HTTP receiver (spans go to URL/v1/traces unless the
    /// URL already ends in /v1/traces), e.g. http://localhost:6006 for Arize Phoenix.
    #[arg(long, value_name = "URL", required_unless_present = "format", conflicts_with = "format")]
    pub otlp: Option<String>,
    /// Write a file instead of sending (with --out): the spans as OTLP JSON,
    /// or a DABstep submission of the run's answers.
    #[arg(long, value_enum, requires = "out")]
    pub format: Option<ExportFormat>,
    /// The file --format writes.
    #[arg(long, value_name = "FILE", requires = "format")]
    pub out: Option<PathBuf>,
    /// An HTTP header for every request, e.g. `Authorization=Basic …` for Langfuse. Repeatable.
    #[arg(long = "header", value_name = "NAME=VALUE", value_parser = parse_header, requires = "otlp")]
    pub headers: Vec<(String, String)>,
    /// The project the spans belong to (`openinference.project.name`, which
    /// Phoenix groups by) [default: the run directory's name].
    #[arg(long)]
    pub project: Option<String>,
    /// Spans per request sent to the receiver.
    #[arg(long, value_name = "N", default_value_t = 512, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub batch_size: u32,
}

/// Arguments of `completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell the script is for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Arguments of `man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write eval-dag.1 and one eval-dag-<command>.1 per subcommand into DIR
    /// (created if missing) instead of printing eval-dag.1 on stdout.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Arguments of the hidden sandbox worker.
#[derive(Debug, Args)]
pub struct SandboxWorkerArgs {
    /// Dataset directory the worker loads once.
    #[arg(long)]
    pub dataset: PathBuf,
    /// Load the dataset, then clone into new workers on requests read from
    /// stdin (a Unix socket) instead of running DAGs.
    #[arg(long)]
    pub template: bool,
    /// The key of `hash()` for strs and bytes (the run's: see `SandboxConfig`).
    #[arg(long, default_value_t = 0)]
    pub hash_seed: u32,
}

/// Arguments of `cache`.
#[derive(Debug, Args)]
pub struct CacheArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: CacheAction,
}

/// `cache stats` or `cache prune`.
#[derive(Debug, Subcommand)]
pub enum CacheAction {
    /// Entries, size and hits by model.
    Stats {
        /// The cache file (default: the one `run` uses).
        file: Option<PathBuf>,
    },
    /// Delete stored responses: those older than DAYS and/or of model M, else all.
    Prune {
        /// The cache file (default: the one `run` uses).
        file: Option<PathBuf>,
        /// Only responses stored more than DAYS days ago.
        #[arg(long, value_name = "DAYS", value_parser = clap::value_parser!(u32))]
        older_than: Option<u32>,
        /// Only responses of model M.
        #[arg(long, value_name = "M")]
        model: Option<String>,
    },
}
