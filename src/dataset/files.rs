//! A dataset on disk: its two files, loading and checking them together, and their errors.

use std::path::{Path, PathBuf};

use super::catalogue::SchemaCatalogue;
use super::contain::{BenchmarkRoot, OutsideBenchmark};
use super::file_names::{DATA_FILE, METADATA_FILE};
use super::metadata::Metadata;
use super::validate;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// Whether sums and means of a numeric column named `name` mean something:
/// codes, coordinates and timestamps are numbers whose totals do not.
pub fn is_measure(name: &str) -> bool {
    const NOT_MEASURES: [&str; 12] = [
        "zip",
        "zipcode",
        "postal",
        "code",
        "lat",
        "lon",
        "long",
        "latitude",
        "longitude",
        "time",
        "year",
        "timestamp",
    ];
    !name.to_ascii_lowercase().split(['_', ' ', '-']).any(|token| NOT_MEASURES.contains(&token))
}

/// Why a dataset could not be loaded. Each problem is one line.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    /// A file is missing or unreadable.
    #[error("dataset {dir}: cannot read {file}: {reason}")]
    Unreadable {
        /// Dataset directory.
        dir: PathBuf,
        /// File name.
        file: &'static str,
        /// What went wrong.
        reason: String,
    },
    /// The files were read but are not a valid dataset.
    #[error("{}", problems.iter().map(|p| format!("dataset {}: {p}", dir.display())).collect::<Vec<_>>().join("\n"))]
    Invalid {
        /// Dataset directory.
        dir: PathBuf,
        /// One line per problem.
        problems: Vec<String>,
    },
    /// A benchmark names a dataset outside its folder.
    #[error(transparent)]
    Outside(#[from] OutsideBenchmark),
}

/// A loaded, validated dataset.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// Directory it was loaded from.
    pub dir: PathBuf,
    /// Contents of `data.json`.
    pub data: Map<String, Value>,
    /// Contents of `metadata.json`.
    pub metadata: Metadata,
    /// Shapes of every top-level key, with column annotations.
    pub catalogue: SchemaCatalogue,
    /// SHA-256 of `data.json` followed by `metadata.json`, hex.
    pub content_hash: String,
}

/// A JSON object read from a file, with the file's bytes (for hashing).
type ParsedFile = (Map<String, Value>, Vec<u8>);

fn read_object(dir: &Path, file: &'static str, problems: &mut Vec<String>) -> Result<Option<ParsedFile>, DatasetError> {
    let path = dir.join(file);
    let bytes = std::fs::read(&path).map_err(|err| DatasetError::Unreadable {
        dir: dir.to_path_buf(),
        file,
        reason: if err.kind() == std::io::ErrorKind::NotFound { "file not found".into() } else { err.to_string() },
    })?;
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(map)) if map.is_empty() => {
            problems.push(format!("{file} is an empty object"));
            Ok(None)
        }
        Ok(Value::Object(map)) => Ok(Some((map, bytes))),
        Ok(other) => {
            let kind = match other {
                Value::Array(_) => "an array",
                Value::String(_) => "a string",
                Value::Number(_) => "a number",
                Value::Bool(_) => "a boolean",
                _ => "null",
            };
            problems.push(format!("{file} must hold a JSON object, found {kind}"));
            Ok(None)
        }
        Err(err) => {
            problems.push(format!("{file} is not valid JSON: {err}"));
            Ok(None)
        }
    }
}

impl Dataset {
    /// Load and validate the dataset in `dir`.
    pub fn load(dir: impl AsRef<Path>) -> Result<Self, DatasetError> {
        let dir = dir.as_ref();
        if !dir.is_dir() {
            return Err(DatasetError::Unreadable {
                dir: dir.to_path_buf(),
                file: "the directory",
                reason: "not a directory (expected one holding data.json and metadata.json)".into(),
            });
        }
        let mut problems = Vec::new();
        let data = read_object(dir, DATA_FILE, &mut problems)?;
        let metadata = read_object(dir, METADATA_FILE, &mut problems)?;
        if let Some((data, _)) = &data {
            problems.extend(validate::data_problems(data));
        }
        if let Some((metadata, _)) = &metadata {
            problems.extend(validate::metadata_problems(metadata));
        }
        if let (Some((data, _)), Some((metadata, _))) = (&data, &metadata) {
            problems.extend(validate::table_problems(data, metadata));
        }
        let invalid = |problems| DatasetError::Invalid { dir: dir.to_path_buf(), problems };
        let (Some((data, data_bytes)), Some((metadata_map, metadata_bytes))) = (data, metadata) else {
            return Err(invalid(problems));
        };
        if !problems.is_empty() {
            return Err(invalid(problems));
        }
        let metadata: Metadata = serde_json::from_value(Value::Object(metadata_map))
            .map_err(|err| invalid(vec![format!("metadata.json: {err}")]))?;
        let mut hasher = Sha256::new();
        hasher.update(&data_bytes);
        hasher.update(&metadata_bytes);
        let content_hash = hasher.finalize().iter().map(|b| format!("{b:02x}")).collect();
        let catalogue = SchemaCatalogue::build(&data, &metadata);
        Ok(Self { dir: dir.to_path_buf(), data, metadata, catalogue, content_hash })
    }
}

impl BenchmarkRoot {
    /// The dataset in `dir` once [`Self::check_dataset`] lets it through.
    pub fn load(&self, dir: &Path) -> Result<Dataset, DatasetError> {
        self.check_dataset(dir)?;
        Dataset::load(dir)
    }
}
