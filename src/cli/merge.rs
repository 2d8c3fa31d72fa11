//! Arguments of `merge`: a run's shards joined into one run.

use std::path::PathBuf;

use clap::Args;

/// Arguments of `merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The shards' run directories (each written by `run --shard K/N`), in any order.
    #[arg(value_name = "SHARD_DIR", required = true, num_args = 1..)]
    pub shards: Vec<PathBuf>,
    /// The merged run's directory: trace.jsonl, eval_results.json,
    /// eval_report.html and questions.jsonl; it must not hold a run already.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}
