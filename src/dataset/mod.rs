//! Datasets: `data.json` + `metadata.json` in one directory.
//!
//! [`Dataset::load`] reads and validates both files and builds the
//! [`SchemaCatalogue`] that prompts and static checks are derived from;
//! [`BenchmarkRoot`] keeps the datasets and files a benchmark names inside
//! the benchmark's folder.
//!
//! Parts:
//! - Loading and checking `data.json` + `metadata.json`; the schema catalogue of
//!   fields.
//! - `contain.rs`: the paths a benchmark names kept inside its folder.
//!   `BenchmarkRoot` canonicalises the folder, then a dataset directory and its two
//!   files or an importer's file (symlinks followed), and refuses what leads out.
//!   Used by `import`, `run BENCH_DIR`, every command that finds a recorded run's
//!   datasets again, and the inspector.
//! - `prepare/`: `prepare` from one table of a file — `format.rs` (which
//!   format), `records.rs` (a table as rows of text, read again for every
//!   pass) with one source per format (`csv_source.rs`, `parquet.rs`,
//!   `sheet.rs`, `json.rs`, `sqlite.rs`), `several.rs` (several tables, one
//!   dataset: a key per table, its aggregates prefixed, its columns under
//!   `tables.<key>` of the metadata, read through `Metadata::columns_of`), `source.rs` (a CSV's encoding and
//!   delimiter), `values.rs` (nulls, booleans, styled numbers), `dates.rs`
//!   (datetime formats and epochs), `clock.rs` (times of day and durations),
//!   `infer.rs` (a column's type and reading).
//! - `strptime.rs`: Python's `strptime`, natively — the sandbox's fast path, and
//!   the test `prepare` puts datetime formats to.

mod catalogue;
mod contain;
mod file_names;
mod files;
mod metadata;
pub mod prepare;
pub mod strptime;
pub mod synthetic;
mod validate;
pub use file_names::{DATA_FILE, METADATA_FILE};
pub use files::{Dataset, DatasetError, is_measure};

pub use catalogue::{FieldInfo, KeyEntry, SchemaCatalogue, Shape, python_type_name};
pub use contain::{BenchmarkRoot, OutsideBenchmark};
pub use metadata::{ColumnMeta, Metadata, TableMeta};
