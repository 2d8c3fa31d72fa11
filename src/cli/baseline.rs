//! Arguments of `baseline`: a finished run's baselines, as a derived run.

use std::path::PathBuf;

use clap::Args;

use super::RoleFlags;
use crate::domain::{ProviderKind, StructuredOutput};

/// Arguments of `baseline`.
#[derive(Debug, Args)]
pub struct BaselineArgs {
    /// The finished run: its directory or its trace.jsonl (never written to).
    pub run: PathBuf,
    /// LLM provider of the baseline role (default: openai when OPENAI_API_KEY is set, else offline).
    #[arg(long, env = "EVAL_DAG_LLM", value_enum)]
    pub llm: Option<ProviderKind>,
    /// Who answers the baselines (--baseline-model, else the builder's settings).
    #[command(flatten)]
    pub roles: RoleFlags,
    /// How replies that must be JSON objects are asked for (as `run
    /// --structured`): `schema`, `json` or `off` [default: the config file's, else schema].
    #[arg(long, value_name = "schema|json|off")]
    pub structured: Option<StructuredOutput>,
    /// Output directory of the derived run (default: runs/<timestamp>); it must not hold a run.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Where the run's benchmark directory is now, when it moved.
    #[arg(long, value_name = "DIR")]
    pub dataset_root: Option<PathBuf>,
    /// Read a dataset the run's trace names outside the benchmark's folder. Not recorded.
    #[arg(long)]
    pub allow_outside_datasets: bool,
    /// Config file to read instead of $XDG_CONFIG_HOME/eval-dag/config.toml.
    #[arg(long, env = "EVAL_DAG_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
}
