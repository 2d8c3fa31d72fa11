//! `eval-dag import infiagent|dabstep|qrdata DIR --out BENCH_DIR`: a published
//! benchmark's files into a benchmark directory.

use std::process::ExitCode;

use crate::benchmark::import::{ImportError, dabstep, infiagent, qrdata, write_bench};
use crate::cli::{BenchmarkKind, ImportArgs};

/// Run the `import` subcommand: each skipped question on a line of its own
/// (stderr), then the count; the directory is written whole or not at all.
pub fn run(args: &ImportArgs) -> anyhow::Result<ExitCode> {
    if args.out.exists() {
        return Err(ImportError::OutExists(args.out.clone()).into());
    }
    let not_found = |message: &str| ImportError::NotBenchmark { dir: args.dir.clone(), message: message.into() };
    let bench = match args.benchmark {
        BenchmarkKind::Infiagent => {
            let layout = infiagent::find(&args.dir).ok_or_else(|| {
                not_found(
                    "not InfiAgent-DABench's files (a *questions.jsonl with its *labels.jsonl and *tables/ beside it)",
                )
            })?;
            infiagent::read(&layout)?
        }
        BenchmarkKind::Dabstep => {
            let layout = dabstep::find(&args.dir).ok_or_else(|| {
                not_found("not DABstep's files (context/ with its tables and tasks/*.jsonl, under data/ or not)")
            })?;
            dabstep::read(&layout)?
        }
        BenchmarkKind::Qrdata => {
            let layout = qrdata::find(&args.dir).ok_or_else(|| {
                not_found("not QRData's files (QRData.json with its data files in data/, under benchmark/ or not)")
            })?;
            qrdata::read(&layout)?
        }
    };
    for skipped in &bench.skipped {
        eprintln!("skipped {}: {}", skipped.id, skipped.reason);
    }
    let audit = super::scorer_audit::scorer_audit(&bench.questions);
    let imported = write_bench(bench, &args.out)?;
    eprintln!(
        "imported {} questions over {} datasets into {} ({} skipped)",
        imported.questions,
        imported.datasets,
        args.out.display(),
        imported.skipped.len()
    );
    for line in audit {
        eprintln!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}
