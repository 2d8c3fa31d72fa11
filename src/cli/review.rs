//! Arguments of `review` and `agreement`: people's reviews of a run's
//! answers and how far reviewers and machines agree.

use std::path::PathBuf;

use clap::Args;

use crate::domain::ReviewerName;

/// Arguments of `review`.
#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// The run directory whose answers are reviewed.
    #[arg(value_name = "RUN_DIR")]
    pub run: PathBuf,
    /// Who reviews [default: `[review] reviewer` in the config, else the user's login name]: 1 to 64 letters, digits,
    /// `_`, `.` or `-`; it names the file `RUN_DIR/reviews/<reviewer>.jsonl`.
    #[arg(long, value_name = "NAME")]
    pub reviewer: Option<ReviewerName>,
    /// Reviews made elsewhere, as CSV or JSON Lines (`question_id`, optional
    /// `epoch`, `draft`, `iteration`, then `verdict` — right, wrong or unsure —
    /// `reason`, `correct_answer` as JSON): recorded as this reviewer's
    /// reviews of what the run shows now; a bad row is one line, nothing written.
    #[arg(long, value_name = "FILE")]
    pub import: Option<PathBuf>,
    /// Review N answers drawn at random (seeded with --seed) instead of all.
    #[arg(long, value_name = "N")]
    pub sample: Option<usize>,
    /// The seed of --sample.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
}

/// Arguments of `agreement`.
#[derive(Debug, Args)]
pub struct AgreementArgs {
    /// Run directories whose reviews are read.
    #[arg(value_name = "RUN_DIR", required = true)]
    pub runs: Vec<PathBuf>,
    /// Print the figures as JSON.
    #[arg(long)]
    pub json: bool,
    /// This reviewer's verdict decides an item whenever they gave one.
    #[arg(long, value_name = "NAME")]
    pub adjudicator: Option<ReviewerName>,
}
