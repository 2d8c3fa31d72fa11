//! Importing a published benchmark's files as published into a benchmark
//! directory: `questions.jsonl` (one question line each, with `dataset`,
//! `source_id`, `answer_format`, `constraints`, `expected_answer` and
//! `scorer`) and `datasets/<name>/{data.json,metadata.json}`, every table
//! prepared with every row. The directory is written under a temporary name
//! beside its place and renamed there once complete, so it is whole or absent.

pub mod dabstep;
pub mod infiagent;
pub mod qrdata;

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::dataset::prepare::{PrepareError, PrepareOptions, Prepared, prepare};

/// Why an import did not happen (one line).
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The directory holds neither benchmark's files.
    #[error("{dir}: {message}")]
    NotBenchmark {
        /// The directory given.
        dir: PathBuf,
        /// What is missing.
        message: String,
    },
    /// A line of a JSON Lines file is not a JSON object.
    #[error("{file} line {line}: not a JSON object ({message})")]
    BadLine {
        /// The file.
        file: PathBuf,
        /// 1-based.
        line: usize,
        /// The parser's words.
        message: String,
    },
    /// A table every question needs cannot be prepared.
    #[error("cannot prepare {0}")]
    Table(#[from] PrepareError),
    /// A file cannot be read or written.
    #[error("{path}: {message}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The system's words.
        message: String,
    },
    /// The output directory is already there.
    #[error("{0} already exists; choose another --out or remove it")]
    OutExists(PathBuf),
    /// A file the import needs leads outside the benchmark's folder.
    #[error(transparent)]
    Outside(#[from] crate::dataset::OutsideBenchmark),
    /// Every question was skipped.
    #[error("no question could be imported ({0} skipped)")]
    Empty(usize),
}

impl ImportError {
    fn io(path: &Path, err: impl std::fmt::Display) -> Self {
        Self::Io { path: path.to_path_buf(), message: err.to_string() }
    }
}

/// A question left out, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    /// The benchmark's own id of the question.
    pub id: String,
    /// Why (one line).
    pub reason: String,
}

/// One dataset of a benchmark directory.
#[derive(Debug, Clone)]
pub struct BenchDataset {
    /// Its name under `datasets/`.
    pub name: String,
    /// `data.json`.
    pub data: Value,
    /// `metadata.json`.
    pub metadata: Value,
}

/// A benchmark directory's contents, before it is written.
#[derive(Debug, Clone, Default)]
pub struct Bench {
    /// Question lines, in the order they are ranked.
    pub questions: Vec<Map<String, Value>>,
    /// Datasets by name.
    pub datasets: Vec<BenchDataset>,
    /// Questions left out.
    pub skipped: Vec<Skipped>,
}

/// What an import wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// Questions written.
    pub questions: usize,
    /// Datasets written.
    pub datasets: usize,
    /// Questions left out, each with its reason.
    pub skipped: Vec<Skipped>,
}

/// How every table of a benchmark is prepared: every row kept.
pub fn table_options() -> PrepareOptions {
    PrepareOptions {
        sample_size: None,
        label: None,
        seed: 0,
        rows_key: "rows".into(),
        encoding: None,
        header_row: None,
        table: None,
    }
}

/// Prepare one table with every row.
pub fn prepare_table(path: &Path) -> Result<Prepared, PrepareError> {
    prepare(path, &table_options())
}

/// A line of a JSON Lines file: its 1-based number and its object.
pub type JsonLine = (usize, Map<String, Value>);

/// Every line of a JSON Lines file as a JSON object (blank lines skipped).
pub fn read_jsonl(path: &Path) -> Result<Vec<JsonLine>, ImportError> {
    let text = std::fs::read_to_string(path).map_err(|err| ImportError::io(path, err))?;
    let mut lines = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |message: String| ImportError::BadLine { file: path.to_path_buf(), line: index + 1, message };
        match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(map)) => lines.push((index + 1, map)),
            Ok(_) => return Err(bad("a JSON value but not an object".into())),
            Err(err) => return Err(bad(err.to_string())),
        }
    }
    Ok(lines)
}

/// A JSON id (number or text) as text.
pub fn id_text(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(text) if !text.trim().is_empty() => Some(text.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A dataset name from a file name: letters, digits, `-` and `_` kept, the rest `_`.
pub fn dataset_name(file: &str) -> String {
    let stem = Path::new(file).file_stem().map_or(file.into(), |s| s.to_string_lossy());
    let name: String =
        stem.chars().map(|c| if c.is_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
    if name.is_empty() { "table".into() } else { name }
}

/// Write `bench` as the benchmark directory `out`: into a temporary
/// directory beside it first, renamed to `out` once every file is written.
pub fn write_bench(bench: Bench, out: &Path) -> Result<Imported, ImportError> {
    if out.exists() {
        return Err(ImportError::OutExists(out.to_path_buf()));
    }
    if bench.questions.is_empty() {
        return Err(ImportError::Empty(bench.skipped.len()));
    }
    let parent = match out.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|err| ImportError::io(&parent, err))?;
    let staging =
        tempfile::Builder::new().prefix(".import-").tempdir_in(&parent).map_err(|err| ImportError::io(&parent, err))?;
    for dataset in &bench.datasets {
        let dir = staging.path().join("datasets").join(&dataset.name);
        std::fs::create_dir_all(&dir).map_err(|err| ImportError::io(&dir, err))?;
        write_json(&dir.join("data.json"), &dataset.data, false)?;
        write_json(&dir.join("metadata.json"), &dataset.metadata, true)?;
    }
    let mut lines = String::new();
    for question in &bench.questions {
        let line = serde_json::to_string(question).map_err(|err| ImportError::io(out, err))?;
        lines.push_str(&line);
        lines.push('\n');
    }
    let questions = staging.path().join("questions.jsonl");
    std::fs::write(&questions, lines).map_err(|err| ImportError::io(&questions, err))?;
    std::fs::rename(staging.path(), out).map_err(|err| ImportError::io(out, err))?;
    Ok(Imported { questions: bench.questions.len(), datasets: bench.datasets.len(), skipped: bench.skipped })
}

fn write_json(path: &Path, value: &Value, pretty: bool) -> Result<(), ImportError> {
    let text = if pretty { serde_json::to_string_pretty(value) } else { serde_json::to_string(value) };
    let text = text.map_err(|err| ImportError::io(path, err))?;
    std::fs::write(path, text + "\n").map_err(|err| ImportError::io(path, err))
}

/// A question line with the fields every benchmark fills.
pub struct QuestionLine<'a> {
    /// The line's `id` (unique in the directory).
    pub id: String,
    /// The benchmark's own id.
    pub source_id: &'a str,
    /// The question text.
    pub question: &'a str,
    /// `easy`, `medium` or `hard`.
    pub difficulty: &'a str,
    /// The dataset's name under `datasets/`.
    pub dataset: &'a str,
    /// How the answer must be written.
    pub answer_format: Option<&'a str>,
    /// What the analysis must respect.
    pub constraints: Option<&'a str>,
    /// The expected answer; none when the benchmark keeps it private.
    pub expected_answer: Option<Value>,
    /// `infiagent`, `dabstep` or `qrdata`.
    pub scorer: &'a str,
}

impl QuestionLine<'_> {
    /// The line as a JSON object (absent optional fields left out).
    pub fn into_map(self) -> Map<String, Value> {
        let mut line = Map::new();
        line.insert("id".into(), self.id.into());
        line.insert("question".into(), self.question.into());
        line.insert("difficulty".into(), self.difficulty.into());
        line.insert("dataset".into(), self.dataset.into());
        line.insert("source_id".into(), self.source_id.into());
        if let Some(format) = self.answer_format.filter(|f| !f.trim().is_empty()) {
            line.insert("answer_format".into(), format.into());
        }
        if let Some(constraints) = self.constraints.filter(|c| !c.trim().is_empty()) {
            line.insert("constraints".into(), constraints.into());
        }
        line.insert("expected_answer".into(), self.expected_answer.unwrap_or(Value::Null));
        line.insert("scorer".into(), self.scorer.into());
        line
    }
}

/// A difficulty level of a benchmark's own words (`easy`, `medium`, `hard`;
/// anything else is `medium`).
pub fn level(value: Option<&Value>) -> &'static str {
    match value.and_then(Value::as_str).map(str::to_ascii_lowercase).as_deref() {
        Some("easy") => "easy",
        Some("hard") => "hard",
        _ => "medium",
    }
}
