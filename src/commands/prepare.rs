//! `eval-dag prepare FILE --out DIR`: data.json + metadata.json from one table
//! of a CSV, Parquet, workbook, JSON or SQLite file.

use std::process::ExitCode;

use anyhow::Context;

use crate::cli::{PrepareArgs, SampleSize};
use crate::dataset::prepare::{PrepareOptions, prepare, write};

/// Run the `prepare` subcommand.
pub fn run(args: PrepareArgs) -> anyhow::Result<ExitCode> {
    let options = PrepareOptions {
        sample_size: match args.sample_size {
            SampleSize::Rows(rows) => Some(rows),
            SampleSize::All => None,
        },
        label: args.label,
        seed: args.seed,
        rows_key: args.rows_key,
        encoding: args.encoding,
        header_row: args.header_row,
        table: args.table,
    };
    let prepared = prepare(&args.file, &options)?;
    write(&prepared, &args.out).with_context(|| format!("cannot write into {}", args.out.display()))?;
    let rows = prepared.data.pointer("/overview/row_count").cloned().unwrap_or_default();
    if prepared.header_row > 1 {
        eprintln!(
            "header: row {} of the {} (the rows above it are skipped as a title)",
            prepared.header_row, prepared.what
        );
    }
    eprintln!("prepared {} rows into {}", rows, args.out.display());
    Ok(ExitCode::SUCCESS)
}
