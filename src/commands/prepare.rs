//! `eval-dag prepare FILE|DIR --out DIR`: data.json + metadata.json from one
//! table of a CSV, Parquet, workbook, JSON or SQLite file, or from several
//! (a directory of them, a workbook's sheets, a database's tables).

use std::process::ExitCode;

use anyhow::Context;

use crate::cli::{PrepareArgs, SampleSize};
use crate::dataset::prepare::{
    DEFAULT_SAMPLE_SIZE, PrepareOptions, prepare, prepare_several, tables_at, tables_word, write,
};

/// Run the `prepare` subcommand.
pub fn run(args: PrepareArgs) -> anyhow::Result<ExitCode> {
    let places = tables_at(&args.file, args.table.as_deref())?;
    let several = places.len() > 1;
    let sample_size = match args.sample_size {
        Some(SampleSize::Rows(rows)) => Some(rows),
        Some(SampleSize::All) => None,
        None if several => None,
        None => Some(DEFAULT_SAMPLE_SIZE),
    };
    if several && sample_size.is_some() {
        eprintln!(
            "--sample-size bounds each table on its own: rows that join across tables may be left out, so joins may break"
        );
    }
    let options = PrepareOptions {
        sample_size,
        label: args.label,
        seed: args.seed,
        rows_key: args.rows_key.clone().unwrap_or_else(|| "rows".into()),
        encoding: args.encoding,
        header_row: args.header_row,
        table: args.table,
    };
    let prepared = match places.as_slice() {
        [one] if !several => prepare(&one.path, &PrepareOptions { table: one.table.clone(), ..options })?,
        _ => prepare_several(&args.file, &places, &options, args.rows_key.as_deref())?,
    };
    write(&prepared, &args.out).with_context(|| format!("cannot write into {}", args.out.display()))?;
    if several {
        for line in &prepared.left_out {
            eprintln!("{line}");
        }
        let tables: Vec<String> = prepared.tables.iter().map(|(key, rows)| format!("{key} ({rows} rows)")).collect();
        eprintln!("prepared {} into {}: {}", tables_word(tables.len()), args.out.display(), tables.join(", "));
        return Ok(ExitCode::SUCCESS);
    }
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
