//! DABstep as published: `context/` (the payments CSV and the other tables,
//! JSON files such as `fees.json`, markdown such as `manual.md`) and
//! `tasks/*.jsonl` (`task_id, question, level, answer, guidelines`; the
//! answer is public for the dev tasks only), under `data/` or not. The whole
//! context is one dataset, `dabstep`, whose keys are its files: a table's
//! rows (every row, typed; its columns under `tables.<key>` of the metadata)
//! or a JSON file's contents under the file's name;
//! the markdown files go into the metadata's `documentation`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use crate::dataset::BenchmarkRoot;

use super::{
    Bench, BenchDataset, ImportError, QuestionLine, Skipped, dataset_name, id_text, level, prepare_table, read_jsonl,
};

/// The dataset's name under `datasets/`.
pub const DATASET: &str = "dabstep";

/// Where the context and the task files are.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The benchmark's folder: every context and task file must be inside it.
    pub root: PathBuf,
    /// The context directory.
    pub context: PathBuf,
    /// The task files, in the order they are read.
    pub tasks: Vec<PathBuf>,
}

fn files_with(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| extensions.iter().any(|x| e == *x)))
        .collect();
    files.sort();
    files
}

/// The files of DABstep in `dir`, when it holds them: a context directory
/// with a CSV, and task files whose first line has a `task_id`.
pub fn find(dir: &Path) -> Option<Layout> {
    let bases = [dir.join("data"), dir.to_path_buf()];
    let context = bases.iter().map(|b| b.join("context")).find(|c| !files_with(c, &["csv"]).is_empty())?;
    let mut tasks: Vec<PathBuf> = bases.iter().flat_map(|b| files_with(&b.join("tasks"), &["jsonl"])).collect();
    // The dev tasks (with answers) first, so their answers win.
    tasks.sort_by_key(|p| p.file_stem().is_none_or(|s| s != "dev"));
    let first_line_has_task_id = |path: &PathBuf| {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        text.lines().find(|l| !l.trim().is_empty()).is_some_and(|l| l.contains("\"task_id\""))
    };
    // A file leading outside the folder is not read here: `read` leaves it out, saying why.
    let contained = BenchmarkRoot::new(dir);
    tasks.retain(|path| contained.resolve(path).is_err() || first_line_has_task_id(path));
    (!tasks.is_empty()).then_some(Layout { root: dir.to_path_buf(), context, tasks })
}

/// Why `path`, a file of the benchmark, is not read: it leads outside the
/// benchmark's folder (a symlink out, or a folder linked out).
fn outside(contained: &BenchmarkRoot, path: &Path) -> Option<Skipped> {
    let err = contained.resolve(path).err()?;
    Some(Skipped { id: path.display().to_string(), reason: err.to_string() })
}

/// The context as one dataset: keys by file, markdown as documentation; a
/// file leading outside the benchmark's folder is left out, with its reason.
fn dataset(context: &Path, contained: &BenchmarkRoot, skipped: &mut Vec<Skipped>) -> Result<BenchDataset, ImportError> {
    let mut data = Map::new();
    let mut keys = Map::new();
    let mut tables = IndexMap::new();
    let mut notes: Vec<Value> = Vec::new();
    let mut documentation = Map::new();
    for path in files_with(context, &["csv", "json", "md"]) {
        if let Some(left_out) = outside(contained, &path) {
            skipped.push(left_out);
            continue;
        }
        let file = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let key = dataset_name(&file);
        match path.extension().and_then(|e| e.to_str()) {
            Some("csv") => {
                let prepared = prepare_table(&path)?;
                let rows = prepared.data.get("rows").cloned().unwrap_or(Value::Array(Vec::new()));
                let count = rows.as_array().map_or(0, Vec::len);
                keys.insert(key.clone(), json!(format!("every one of the {count} rows of {file}, each column typed")));
                tables.insert(key.clone(), prepared.table("rows"));
                data.insert(key, rows);
                let table_notes = prepared.metadata.get("important_notes").and_then(Value::as_array);
                // The first note is about the row sample, which is every row here.
                for note in table_notes.into_iter().flatten().skip(1).filter_map(Value::as_str) {
                    notes.push(json!(format!("{file}: {note}")));
                }
            }
            Some("json") => {
                let text = std::fs::read_to_string(&path).map_err(|err| ImportError::io(&path, err))?;
                let value: Value =
                    serde_json::from_str(&text).map_err(|err| ImportError::io(&path, format!("not JSON ({err})")))?;
                keys.insert(key.clone(), json!(format!("the contents of {file}")));
                data.insert(key, value);
            }
            _ => {
                let text = std::fs::read_to_string(&path).map_err(|err| ImportError::io(&path, err))?;
                documentation.insert(file, Value::String(text));
            }
        }
    }
    let metadata = json!({
        "description": format!("DABstep's context: {}", keys.keys().cloned().collect::<Vec<_>>().join(", ")),
        "domain": "payments",
        "tables": tables,
        "dataset_keys": keys,
        "important_notes": notes,
        "documentation": documentation,
    });
    Ok(BenchDataset { name: DATASET.into(), data: Value::Object(data), metadata })
}

/// The expected answer of a task: its text (a number stands for its text);
/// none when the benchmark keeps it private (absent, null or empty).
fn expected(task: &Map<String, Value>) -> Result<Option<Value>, String> {
    match task.get("answer") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) if text.is_empty() => Ok(None),
        Some(Value::String(text)) => Ok(Some(Value::String(text.clone()))),
        Some(Value::Number(n)) => Ok(Some(Value::String(n.to_string()))),
        Some(other) => Err(format!("its answer is not text: {other}")),
    }
}

/// Read the benchmark in `layout` into a benchmark directory's contents.
pub fn read(layout: &Layout) -> Result<Bench, ImportError> {
    let mut bench = Bench::default();
    let mut seen: HashSet<String> = HashSet::new();
    let mut lines: Vec<(&'static str, Map<String, Value>)> = Vec::new();
    let contained = BenchmarkRoot::new(&layout.root);
    for file in &layout.tasks {
        if let Some(left_out) = outside(&contained, file) {
            bench.skipped.push(left_out);
            continue;
        }
        for (line, task) in read_jsonl(file)? {
            let Some(id) = id_text(task.get("task_id")) else {
                return Err(ImportError::BadLine { file: file.clone(), line, message: "no \"task_id\"".into() });
            };
            if !seen.insert(id.clone()) {
                continue;
            }
            let skip = |reason: &str| Skipped { id: id.clone(), reason: reason.to_string() };
            let Some(text) = task.get("question").and_then(Value::as_str).filter(|t| !t.trim().is_empty()) else {
                bench.skipped.push(skip("the task has no \"question\""));
                continue;
            };
            let expected = match expected(&task) {
                Ok(expected) => expected,
                Err(reason) => {
                    bench.skipped.push(skip(&reason));
                    continue;
                }
            };
            let difficulty = level(task.get("level"));
            let out = QuestionLine {
                id: format!("task_{id}"),
                source_id: &id,
                question: text,
                difficulty,
                dataset: DATASET,
                answer_format: task.get("guidelines").and_then(Value::as_str),
                constraints: None,
                expected_answer: expected,
                scorer: "dabstep",
            }
            .into_map();
            lines.push((difficulty, out));
        }
    }
    if lines.is_empty() {
        return Ok(bench);
    }
    if let Some(left_out) = outside(&contained, &layout.context) {
        // The context is every question's dataset: without it, no question is imported.
        let reason = format!("its context folder {}", left_out.reason);
        bench.skipped.extend(lines.iter().map(|(_, line)| Skipped {
            id: line.get("source_id").and_then(Value::as_str).unwrap_or_default().to_string(),
            reason: reason.clone(),
        }));
        return Ok(bench);
    }
    bench.datasets.push(dataset(&layout.context, &contained, &mut bench.skipped)?);
    let rank = |level: &str| ["easy", "medium", "hard"].iter().position(|l| *l == level).unwrap_or(1);
    lines.sort_by_key(|(level, _)| rank(level));
    bench.questions = lines.into_iter().map(|(_, line)| line).collect();
    Ok(bench)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Metadata;

    #[test]
    fn two_tables_with_a_column_of_one_name_keep_their_own_annotations() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("payments.csv"), "merchant,eur_amount\nShop_A,10.5\nShop_B,20\n").unwrap();
        std::fs::write(dir.path().join("merchants.csv"), "merchant,mcc\n1,5411\n2,7997\n").unwrap();
        let mut skipped = Vec::new();
        let dataset = dataset(dir.path(), &BenchmarkRoot::new(dir.path()), &mut skipped).unwrap();
        let metadata: Metadata = serde_json::from_value(dataset.metadata).unwrap();
        let kind = |table: &str| metadata.columns_of(table)["merchant"].column_type.clone();
        // The first table's annotation once stood for both.
        assert_eq!((kind("payments").as_deref(), kind("merchants").as_deref()), (Some("categorical"), Some("integer")));
        assert!(metadata.columns.is_empty() && skipped.is_empty());
    }
}
