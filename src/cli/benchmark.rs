//! Arguments of `import`: a published benchmark's files into a benchmark directory.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

/// The published benchmarks `import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchmarkKind {
    /// InfiAgent-DABench: `da-dev-questions.jsonl`, `da-dev-labels.jsonl`, `da-dev-tables/`.
    Infiagent,
    /// DABstep: `context/` (tables, JSON files, manuals) and `tasks/*.jsonl`, under `data/` or not.
    Dabstep,
    /// QRData: `QRData.json` and its data files (in `data/` beside it), under `benchmark/` or not.
    Qrdata,
}

/// Arguments of `import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Which benchmark's files.
    #[arg(value_enum)]
    pub benchmark: BenchmarkKind,
    /// The directory holding its files as published.
    pub dir: PathBuf,
    /// The benchmark directory to write (questions.jsonl + datasets/); it must not exist.
    #[arg(long, value_name = "BENCH_DIR")]
    pub out: PathBuf,
}
