//! The terms of a preparation: what to prepare, what comes out, why it can
//! fail, and the limits and percentiles every step shares.

use std::path::PathBuf;

use serde_json::Value;

use crate::dataset::{Metadata, TableMeta};

/// Largest field accepted, in bytes.
pub const MAX_FIELD_BYTES: usize = 1 << 20;
/// Rows in a one-table dataset's sample when `--sample-size` is not given (a
/// dataset of several tables keeps every row, so joins hold).
pub const DEFAULT_SAMPLE_SIZE: usize = 5000;
/// Percentiles reported per numeric column.
pub const PERCENTILES: [(&str, f64); 5] = [("p25", 0.25), ("median", 0.5), ("p75", 0.75), ("p95", 0.95), ("p99", 0.99)];

/// What to prepare.
#[derive(Debug, Clone)]
pub struct PrepareOptions {
    /// Rows in the sample; `None` keeps every row.
    pub sample_size: Option<usize>,
    /// Binary label column.
    pub label: Option<String>,
    /// Seed of the sample.
    pub seed: u64,
    /// Name of the row-sample key in `data.json`.
    pub rows_key: String,
    /// The file's character encoding (a WHATWG label such as `latin1`), detected when `None`.
    pub encoding: Option<String>,
    /// The 1-based row holding the header (rows above it are skipped); found
    /// when `None`: the first row at least half filled after leading rows that are mostly empty (a title).
    /// CSV files and sheets only.
    pub header_row: Option<u64>,
    /// The sheet of a workbook or the table of a SQLite database to prepare;
    /// needed when it holds several.
    pub table: Option<String>,
}

/// The two files' contents.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// `data.json`.
    pub data: Value,
    /// `metadata.json`.
    pub metadata: Value,
    /// The 1-based row the header was read from.
    pub header_row: u64,
    /// What the table was: `CSV`, `sheet "Data"`, `Parquet file`, `SQLite table "sales"`.
    pub what: String,
    /// Each table's key and rows, for a dataset of several tables (empty for one).
    pub tables: Vec<(String, u64)>,
    /// Why each empty table of a dataset of several was left out, one line each.
    pub left_out: Vec<String>,
}

impl Prepared {
    /// The annotations of the table prepared under `rows_key`, as a table of
    /// a dataset of several (its columns read through [`Metadata::columns_of`]).
    pub fn table(&self, rows_key: &str) -> TableMeta {
        let metadata: Metadata = serde_json::from_value(self.metadata.clone()).unwrap_or_default();
        TableMeta { columns: metadata.columns_of(rows_key).clone() }
    }
}

/// Why a file could not be prepared (one line).
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct PrepareError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong.
    pub message: String,
}

/// Why one table was not prepared: it is empty (no header, no columns or
/// no rows: a dataset of several tables leaves it out) or it cannot be read.
#[derive(Debug)]
pub(super) enum Unprepared {
    /// The table holds nothing to prepare.
    Empty(PrepareError),
    /// The table cannot be read or prepared.
    Failed(PrepareError),
}

impl Unprepared {
    /// The error, whichever it is.
    pub(super) fn into_error(self) -> PrepareError {
        match self {
            Self::Empty(error) | Self::Failed(error) => error,
        }
    }
}

impl From<PrepareError> for Unprepared {
    fn from(error: PrepareError) -> Self {
        Self::Failed(error)
    }
}

/// The earliest and latest time of a datetime column, with their text in `data.json`.
pub(super) type TimeRange = ((chrono::NaiveDateTime, String), (chrono::NaiveDateTime, String));
