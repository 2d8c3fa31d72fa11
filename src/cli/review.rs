//! Arguments of `review` and `agreement`: people's reviews of a run's
//! answers and how far reviewers and machines agree.

use std::path::PathBuf;

use clap::Args;

use crate::domain::{ReviewOrder, ReviewSelection, ReviewerName, Stratum};

/// Arguments of `review`.
#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// The run directory whose answers are reviewed.
    #[arg(value_name = "RUN_DIR")]
    pub run: PathBuf,
    /// Another run of the same questions: review the two runs' final answers
    /// side by side (which is on which side drawn per question with --seed,
    /// the runs' names hidden); the reviews go under RUN_DIR.
    #[arg(value_name = "OTHER_RUN_DIR", conflicts_with_all = ["import", "include", "stratify"])]
    pub other: Option<PathBuf>,
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
    /// Draw --sample from each level, dataset or status in proportion to its size.
    #[arg(long, value_name = "BY", requires = "sample")]
    pub stratify: Option<Stratum>,
    /// `rejected`: also review the answers of iterations the critic rejected.
    #[arg(long, value_name = "WHAT", value_parser = ["rejected"])]
    pub include: Option<String>,
    /// The queue's order: the run's, or first the answers the machines disagree on.
    #[arg(long, value_name = "ORDER", default_value = "run")]
    pub order: ReviewOrder,
}

impl ReviewArgs {
    /// What the review queue holds and in which order.
    pub fn selection(&self) -> ReviewSelection {
        ReviewSelection {
            sample: self.sample,
            seed: self.seed,
            stratify: self.stratify,
            include_rejected: self.include.is_some(),
            order: self.order,
        }
    }
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
