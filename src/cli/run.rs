//! Arguments of `run`: the critic loops over a dataset or a benchmark directory.

use std::path::PathBuf;

use clap::Args;

use super::values::{parse_header, parse_json_object, parse_node_timeout};
use super::{
    CONCURRENCY_RANGE, CONSENSUS_RANGE, MAX_ITERATIONS_RANGE, QUESTIONS_RANGE, REPAIR_RANGE, REPEAT_RANGE,
    REVIEW_CONCURRENCY_RANGE, RoleFlags, SCHEMA_BUDGET_RANGE,
};
use crate::domain::shard::ShardSpec;
use crate::domain::{ProviderKind, StructuredOutput};

/// Arguments of `run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Directory holding data.json and metadata.json, or a benchmark directory
    /// (questions.jsonl and datasets/<name>/): each question on its own dataset.
    #[arg(required_unless_present_any = ["resume", "retry_failed"])]
    pub dataset: Option<PathBuf>,
    /// Benchmark directory: only the questions with these ids (comma-separated).
    #[arg(long, value_name = "IDS", value_delimiter = ',', conflicts_with_all = ["resume", "retry_failed"])]
    pub only: Vec<String>,
    /// Benchmark directory: only the questions on dataset NAME.
    #[arg(long = "dataset", value_name = "NAME", conflicts_with_all = ["resume", "retry_failed"])]
    pub only_dataset: Option<String>,
    /// Where the continued run's benchmark directory is now, when it moved.
    #[arg(long, value_name = "DIR")]
    pub dataset_root: Option<PathBuf>,
    /// Read a dataset a benchmark (or the run's trace) names outside the
    /// benchmark's folder: for datasets shared between benchmarks on purpose.
    /// Not recorded in the trace.
    #[arg(long)]
    pub allow_outside_datasets: bool,
    /// Continue the interrupted run in DIR: finished questions are kept,
    /// unfinished and cancelled ones go on with their recorded LLM responses reused.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["dataset", "retry_failed"])]
    pub resume: Option<PathBuf>,
    /// Like --resume, and also a new attempt for every question of the run in
    /// DIR that failed or exhausted.
    #[arg(long, value_name = "DIR", conflicts_with = "dataset")]
    pub retry_failed: Option<PathBuf>,
    /// LLM provider (default: openai when OPENAI_API_KEY is set, else offline).
    #[arg(long, env = "EVAL_DAG_LLM", value_enum)]
    pub llm: Option<ProviderKind>,
    /// Who plays each role.
    #[command(flatten)]
    pub roles: RoleFlags,
    /// The same as `--structured json`.
    #[arg(long, conflicts_with = "structured")]
    pub json_mode: bool,
    /// How replies that must be JSON objects are asked for, for every role:
    /// `schema` (the reply's JSON Schema; the default), `json` (a JSON object)
    /// or `off`; a server that refuses one is asked again with the next.
    #[arg(long, value_name = "schema|json|off")]
    pub structured: Option<StructuredOutput>,
    /// Repair exchanges per reply that cannot be read (empty, cut off, not
    /// JSON, the wrong shape), within its iteration: the model is told what
    /// was wrong and asked again; 0 turns repairs off [default: 2].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(REPAIR_RANGE))]
    pub repair: Option<u32>,
    /// Number of questions to generate [default: 10].
    #[arg(long, value_parser = clap::value_parser!(u32).range(QUESTIONS_RANGE))]
    pub questions: Option<u32>,
    /// Critic-loop iterations per question before giving up [default: 3].
    #[arg(long, value_parser = clap::value_parser!(u32).range(MAX_ITERATIONS_RANGE))]
    pub max_iterations: Option<u32>,
    /// Critic loops running at once [default: 10].
    #[arg(long, value_parser = clap::value_parser!(u32).range(CONCURRENCY_RANGE))]
    pub concurrency: Option<u32>,
    /// Layer reviews running at once per DAG; 0 reviews every layer at once [default: 0].
    #[arg(long, value_parser = clap::value_parser!(u32).range(REVIEW_CONCURRENCY_RANGE))]
    pub review_concurrency: Option<u32>,
    /// Longest a DAG node may run in the sandbox, seconds [default: 5, or 1 per 2 MB of data.json].
    #[arg(long, value_name = "SECONDS", value_parser = parse_node_timeout)]
    pub node_timeout: Option<f64>,
    /// Tokens (estimated, 4 bytes each) the dataset's schema may take in a
    /// prompt; a longer schema is shortened: the columns the prompt is about
    /// in full, every other by name [default: 32000].
    #[arg(long, value_name = "TOKENS", value_parser = clap::value_parser!(u32).range(SCHEMA_BUDGET_RANGE))]
    pub schema_budget: Option<u32>,
    /// Ask every question R times, each an independent critic loop (an epoch):
    /// the results give each epoch, the majority answer, accuracy's mean and
    /// spread over epochs and pass@k [default: 1].
    #[arg(long, value_name = "R", value_parser = clap::value_parser!(u32).range(REPEAT_RANGE), conflicts_with_all = ["resume", "retry_failed"])]
    pub repeat: Option<u32>,
    /// Build K independent DAGs per question (and per epoch), each through its
    /// own critic loop; the approved answers' agreement is recorded and the
    /// majority answer speaks for the question [default: 1].
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(CONSENSUS_RANGE), conflicts_with_all = ["resume", "retry_failed"])]
    pub consensus: Option<u32>,
    /// Config file to read instead of $XDG_CONFIG_HOME/eval-dag/config.toml.
    #[arg(long, env = "EVAL_DAG_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Output directory (default: runs/<timestamp>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// No TUI: progress on stderr (the default when stdout is not a terminal).
    #[arg(long)]
    pub headless: bool,
    /// Start paused; advance one stage at a time.
    #[arg(long)]
    pub step: bool,
    /// Seed for everything random (sampling, node `random`).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The instant node code reads as now (`datetime.now()`, `date.today()`):
    /// RFC 3339 with an offset, e.g. 2026-12-05T14:30:00+01:00. Default: when
    /// the run starts; a shard reads the machine's clock unless given one
    /// (give every shard the same).
    #[arg(long, value_name = "RFC3339", value_parser = crate::domain::RunClock::parse, conflicts_with_all = ["resume", "retry_failed"])]
    pub now: Option<crate::domain::RunClock>,
    /// Use the questions in FILE (JSON Lines: question, difficulty, optional
    /// id, expected_answer, match) instead of generating them.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["resume", "retry_failed"])]
    pub questions_file: Option<PathBuf>,
    /// Grade answers with this judge too: a judge file, or a built-in judge's
    /// name (well_formed_value, addresses_question). Repeatable.
    #[arg(long = "judge", value_name = "FILE|NAME", conflicts_with_all = ["resume", "retry_failed"])]
    pub judges: Vec<String>,
    /// The judges also grade the answer of every iteration the critic
    /// rejected whose trial run reached one (needs --judge): the critic
    /// scorecard grades such rejections where no expected answer does.
    #[arg(long, conflicts_with_all = ["resume", "retry_failed"])]
    pub judge_rejected: bool,
    /// Run every approved DAG again on transformed copies of its data (rows
    /// shuffled and duplicated, categories renamed, measures scaled) and
    /// record which answers break what the transformation implies.
    #[arg(long, conflicts_with_all = ["resume", "retry_failed"])]
    pub metamorphic: bool,
    /// Also score each question's baselines beside the loop's answer: an
    /// empty answer, the most common expected answer, and the baseline role's
    /// direct answer without the data (no_data) and from the schema with no
    /// code (no_code); the baseline role is the builder's model unless
    /// --baseline-model or [roles.baseline] say otherwise.
    #[arg(long, conflicts_with_all = ["resume", "retry_failed"])]
    pub baselines: bool,
    /// The engine that runs DAGs, and the differential check.
    #[command(flatten)]
    pub engine: super::EngineFlags,
    /// Offline planner: first drafts are clean (no planted mistakes for the
    /// critic to catch).
    #[arg(long)]
    pub clean_drafts: bool,
    /// Offline planner: typical milliseconds per answer, jittered ±50% and
    /// streamed [default: 550 in the terminal UI, 0 headless].
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(0..=60_000))]
    pub offline_delay: Option<u64>,
    /// Also send the run's spans to this OTLP/HTTP receiver as they end, the
    /// rest when the run ends (the spans `export --otlp` sends; project: the run
    /// directory's name).
    #[arg(long, value_name = "URL")]
    pub otlp: Option<String>,
    /// An HTTP header for every --otlp request. Repeatable.
    #[arg(long = "otlp-header", value_name = "NAME=VALUE", value_parser = parse_header, requires = "otlp")]
    pub otlp_headers: Vec<(String, String)>,
    /// Matching options for every expected answer, as a JSON object
    /// (e.g. '{"abs_tol": 0.5, "ignore_order": true}').
    #[arg(long = "match", value_name = "JSON", value_parser = parse_json_object, conflicts_with_all = ["resume", "retry_failed"])]
    pub match_options: Option<serde_json::Map<String, serde_json::Value>>,
    /// Run only shard K of N (1-based) of a fixed question list (a benchmark
    /// directory or --questions-file): a question's shard follows from its id
    /// and dataset. `auto/N` reads the index (0-based) from
    /// JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID or RAY_SHARD_INDEX. The
    /// shard writes the whole list into --out as questions.jsonl; `eval-dag
    /// merge` joins the shards into one run.
    #[arg(long, value_name = "K/N|auto/N", conflicts_with_all = ["resume", "retry_failed"])]
    pub shard: Option<ShardSpec>,
    /// Write the question list into --out as questions.jsonl (the
    /// --questions-file format) and stop: no trace, no critic loop. Generated
    /// questions are asked for once, so every shard can share them.
    #[arg(long, conflicts_with_all = ["resume", "retry_failed", "shard"])]
    pub questions_only: bool,
    /// The response cache, the spending limits and the dry run.
    #[command(flatten)]
    pub harness: HarnessFlags,
    /// Send every role's calls through its provider's batch API (OpenAI's
    /// Batch API, Anthropic's Message Batches): half the price, each answer
    /// within the provider's window (up to 24 hours) instead of at once — for
    /// sweeps nobody watches live. `[llm] batch` or `[roles.<name>] batch` set
    /// it per role. Refused (exit 2) when the server has no batch API.
    #[arg(long)]
    pub batch: bool,
    /// With batches: send a batch at the latest this many seconds after its
    /// first call (sooner once every running loop waits in one) [default: 10].
    #[arg(long, value_name = "SECONDS", value_parser = parse_node_timeout)]
    pub batch_window: Option<f64>,
    /// With batches: how long quitting with `c` (cancel the batches in
    /// flight) waits for them to end at the provider; those still running
    /// then are left there, and `--resume` fetches what they finished
    /// [default: 120; config: `[llm] batch_cancel_wait`].
    #[arg(long, value_name = "SECONDS", value_parser = parse_node_timeout)]
    pub batch_cancel_wait: Option<f64>,
}

impl RunArgs {
    /// The structured outputs the flags ask of every role: `--structured`, or
    /// `json` for `--json-mode`.
    pub fn structured_outputs(&self) -> Option<StructuredOutput> {
        self.structured.or(self.json_mode.then_some(StructuredOutput::Json))
    }
}

/// `run`'s response cache, spending limits and dry run.
#[derive(Debug, Clone, Default, Args)]
pub struct HarnessFlags {
    /// The response cache file (default: responses.sqlite in the user cache
    /// directory, or `[cache] path`): a call answered before is answered from it.
    #[arg(long, value_name = "FILE", env = "EVAL_DAG_CACHE", conflicts_with = "no_cache")]
    pub cache: Option<PathBuf>,
    /// Neither read nor write the response cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Stop the run once it has spent this many US dollars (prices as in the
    /// header); `--resume` with a larger limit finishes it.
    #[arg(long, value_name = "USD", allow_negative_numbers = true)]
    pub max_cost: Option<f64>,
    /// Stop the run once it has used this many tokens (prompt + completion).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub max_tokens: Option<i64>,
    /// Call no model: print the calls, tokens and cost the run would take, per model.
    #[arg(long, conflicts_with_all = ["resume", "retry_failed"])]
    pub dry_run: bool,
}
