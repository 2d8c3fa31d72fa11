//! Datasets: `data.json` + `metadata.json` in one directory.
//!
//! [`Dataset::load`] reads and validates both files and builds the
//! [`SchemaCatalogue`] that prompts and static checks are derived from;
//! [`BenchmarkRoot`] keeps the datasets and files a benchmark names inside
//! the benchmark's folder.

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
pub use metadata::{ColumnMeta, Metadata};
