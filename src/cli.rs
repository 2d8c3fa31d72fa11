//! Command-line contract (DESIGN.md §4). Scripts and tests depend on it.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Watch LLMs build, critique and run Python DAGs over your data.
#[derive(Debug, Parser)]
#[command(name = "eval-dag", version, about, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Generate questions for a dataset and run a critic loop per question.
    Run(RunArgs),
    /// Open a saved trace (TUI, or headless summary).
    Replay(ReplayArgs),
    /// Turn a CSV into data.json + metadata.json.
    Prepare(PrepareArgs),
    /// Execute a DAG in the sandbox and print the execution result as JSON.
    Exec(ExecArgs),
    /// Check a DAG statically and print its findings as JSON.
    Validate(ValidateArgs),
    /// Write the HTML report of a results file or trace.
    Report(ReportArgs),
    /// Compare two runs (results files or traces) question by question: a
    /// terminal UI on a terminal, a table otherwise.
    Compare(CompareArgs),
    /// Grade a finished run's answers again (ground truth), without re-running.
    Grade(GradeArgs),
    /// Sandbox worker process (internal).
    #[command(hide = true)]
    SandboxWorker(SandboxWorkerArgs),
}

/// Which LLM provider answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LlmKind {
    /// Deterministic schema planner, no model, no network.
    Offline,
    /// Any OpenAI-compatible chat-completions server.
    Openai,
}

/// Arguments of `run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Directory holding data.json and metadata.json.
    #[arg(required_unless_present_any = ["resume", "retry_failed"])]
    pub dataset: Option<PathBuf>,
    /// Continue the interrupted run in DIR: finished questions are kept,
    /// unfinished ones restart with their recorded LLM responses reused.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["dataset", "retry_failed"])]
    pub resume: Option<PathBuf>,
    /// Rerun only the questions of the run in DIR that failed or exhausted.
    #[arg(long, value_name = "DIR", conflicts_with = "dataset")]
    pub retry_failed: Option<PathBuf>,
    /// LLM provider (default: openai when OPENAI_API_KEY is set, else offline).
    #[arg(long, env = "EVAL_DAG_LLM", value_enum)]
    pub llm: Option<LlmKind>,
    /// Model name for the openai provider.
    #[arg(long, env = "EVAL_DAG_MODEL")]
    pub model: Option<String>,
    /// Base URL of the OpenAI-compatible server.
    #[arg(long, env = "OPENAI_BASE_URL")]
    pub base_url: Option<String>,
    /// Number of questions to generate.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub questions: u32,
    /// Critic-loop iterations per question before giving up.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub max_iterations: u32,
    /// Critic loops running at once.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=1_000))]
    pub concurrency: u32,
    /// Output directory (default: runs/<timestamp>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// No TUI: progress on stderr.
    #[arg(long)]
    pub headless: bool,
    /// Start paused; advance one stage at a time.
    #[arg(long)]
    pub step: bool,
    /// Seed for everything random (sampling, node `random`).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
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
    /// Open at the first event instead of the final state.
    #[arg(long)]
    pub from_start: bool,
}

/// Arguments of `prepare`.
#[derive(Debug, Args)]
pub struct PrepareArgs {
    /// The CSV file (header row first).
    pub csv: PathBuf,
    /// Directory to write data.json and metadata.json into.
    #[arg(long)]
    pub out: PathBuf,
    /// Rows kept in the row sample.
    #[arg(long, default_value_t = 5000)]
    pub sample_size: usize,
    /// Binary label column (stratifies the sample, adds label rates).
    #[arg(long)]
    pub label: Option<String>,
    /// Seed of the row sample.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Name of the row-sample key in data.json.
    #[arg(long, default_value = "rows")]
    pub rows_key: String,
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

/// Arguments of `compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The baseline: eval_results.json or trace.jsonl.
    pub a: PathBuf,
    /// The candidate: eval_results.json or trace.jsonl.
    pub b: PathBuf,
    /// Print the comparison as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Print the table even on a terminal (without this flag, a terminal gets
    /// the interactive view; pipes and CI always get the table).
    #[arg(long)]
    pub headless: bool,
}

/// Arguments of `grade`.
#[derive(Debug, Args)]
pub struct GradeArgs {
    /// trace.jsonl, or eval_results.json with its trace beside it.
    pub input: PathBuf,
}

/// Arguments of the hidden sandbox worker.
#[derive(Debug, Args)]
pub struct SandboxWorkerArgs {
    /// Dataset directory the worker loads once.
    #[arg(long)]
    pub dataset: PathBuf,
}
