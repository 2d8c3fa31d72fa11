//! QRData as published: `QRData.json` (a list of `{data_description,
//! question, answer, data_files, meta_data {question_type, multiple_choices,
//! keywords, reference}}`) and its data files, in a `data/` folder beside it
//! or beside it directly (under `benchmark/` or not). Questions naming the
//! same data files (in any order) share one dataset (several files: several tables, each
//! under its file's name); the first such question's `data_description`
//! is the dataset's description, and each question keeps its own for the
//! builder. Questions keep the file's order (QRData has no levels).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::dataset::BenchmarkRoot;
use crate::dataset::prepare::{TablePlace, prepare_several, table_key};

use super::{Bench, BenchDataset, ImportError, QuestionLine, Skipped, dataset_name, prepare_table, table_options};

/// Where the questions and the data files are.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The benchmark's folder: every data file must be inside it.
    pub root: PathBuf,
    /// `QRData.json`.
    pub questions: PathBuf,
    /// The folder the data files are read from.
    pub data: PathBuf,
}

/// The files of QRData in `dir`, when it holds them.
pub fn find(dir: &Path) -> Option<Layout> {
    let questions = [dir.join("QRData.json"), dir.join("benchmark/QRData.json")].into_iter().find(|p| p.is_file())?;
    let beside = questions.parent().unwrap_or(dir).to_path_buf();
    let data = if beside.join("data").is_dir() { beside.join("data") } else { beside };
    Some(Layout { root: dir.to_path_buf(), questions, data })
}

/// The dataset of the files `files`: its name, or why it cannot be made.
type Made = Result<String, String>;

/// One question of `QRData.json`, read: its text, gold, type and files.
struct Entry<'q> {
    text: &'q str,
    answer: String,
    question_type: &'q str,
    files: Vec<&'q str>,
    description: Option<&'q str>,
    choices: Option<Vec<String>>,
}

/// Read entry `q`, or why it cannot be imported.
fn entry(q: &Value) -> Result<Entry<'_>, String> {
    let text = q.get("question").and_then(Value::as_str).filter(|t| !t.trim().is_empty());
    let text = text.ok_or("it has no \"question\"")?;
    let answer = match q.get("answer") {
        Some(Value::String(a)) if !a.is_empty() => a.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => return Err("its answer is not text".into()),
    };
    let meta = q.get("meta_data");
    let question_type = meta.and_then(|m| m.get("question_type")).and_then(Value::as_str);
    let question_type = question_type.filter(|t| matches!(*t, "numerical" | "multiple_choice"));
    let question_type = question_type.ok_or("its meta_data.question_type is neither numerical nor multiple_choice")?;
    let files: Option<Vec<&str>> =
        q.get("data_files").and_then(Value::as_array).map(|files| files.iter().filter_map(Value::as_str).collect());
    let mut files = files.filter(|f| !f.is_empty()).ok_or("it names no data_files")?;
    // The same files in another order, or named twice, are the same dataset.
    files.sort_unstable();
    files.dedup();
    let choices = meta
        .and_then(|m| m.get("multiple_choices"))
        .and_then(Value::as_array)
        .map(|choices| choices.iter().map(|c| c.as_str().map_or_else(|| c.to_string(), str::to_string)).collect());
    let description = q.get("data_description").and_then(Value::as_str).filter(|d| !d.trim().is_empty());
    Ok(Entry { text, answer, question_type, files, description, choices })
}

/// The files' paths inside the benchmark, or why one is missing or leads out.
fn paths(layout: &Layout, contained: &BenchmarkRoot, files: &[&str]) -> Result<Vec<PathBuf>, String> {
    files
        .iter()
        .map(|file| match contained.resolve(&layout.data.join(file)) {
            Ok(Some(path)) if path.is_file() => Ok(path),
            Ok(_) => Err(format!("its data file {file} is not in {}", layout.data.display())),
            Err(outside) => Err(format!("its data file {file:?}: {outside}")),
        })
        .collect()
}

/// The dataset of `files` (described by `description`): one table, or several.
fn dataset(name: String, files: &[&str], paths: &[PathBuf], description: Option<&str>) -> Result<BenchDataset, String> {
    let why = |err: crate::dataset::prepare::PrepareError| format!("its data cannot be prepared: {err}");
    let prepared = match paths {
        [one] => prepare_table(one).map_err(why)?,
        _ => {
            let places: Vec<TablePlace> = files
                .iter()
                .zip(paths)
                .map(|(file, path)| TablePlace { path: path.clone(), table: None, key: table_key(&dataset_name(file)) })
                .collect();
            let dir = paths[0].parent().unwrap_or(Path::new("."));
            prepare_several(dir, &places, &table_options(), None).map_err(why)?
        }
    };
    let mut metadata = prepared.metadata;
    if let (Some(description), Some(map)) = (description, metadata.as_object_mut()) {
        map.insert("description".into(), json!(description));
    }
    Ok(BenchDataset { name, data: prepared.data, metadata })
}

/// Read the benchmark in `layout` into a benchmark directory's contents.
pub fn read(layout: &Layout) -> Result<Bench, ImportError> {
    let contained = BenchmarkRoot::new(&layout.root);
    // The questions file is every question's: one leading out stops the import.
    contained.resolve(&layout.questions)?;
    let text = std::fs::read_to_string(&layout.questions).map_err(|err| ImportError::io(&layout.questions, err))?;
    let not_list = |message: String| ImportError::NotBenchmark { dir: layout.questions.clone(), message };
    let entries: Vec<Value> = match serde_json::from_str(&text) {
        Ok(Value::Array(entries)) => entries,
        Ok(_) => return Err(not_list("not a JSON list of questions".into())),
        Err(err) => return Err(not_list(format!("not JSON ({err})"))),
    };
    let mut bench = Bench::default();
    let mut made: BTreeMap<Vec<&str>, Made> = BTreeMap::new();
    for (index, q) in entries.iter().enumerate() {
        let id = index.to_string();
        let skip = |reason: String| Skipped { id: id.clone(), reason };
        let entry = match entry(q) {
            Ok(entry) => entry,
            Err(reason) => {
                bench.skipped.push(skip(reason));
                continue;
            }
        };
        let taken = made.len();
        let dataset = made.entry(entry.files.clone()).or_insert_with(|| {
            let paths = paths(layout, &contained, &entry.files)?;
            let mut name = entry.files.iter().map(|f| dataset_name(f)).collect::<Vec<_>>().join("__");
            if bench.datasets.iter().any(|d| d.name == name) {
                name = format!("{name}_{taken}");
            }
            let made = dataset(name.clone(), &entry.files, &paths, entry.description)?;
            bench.datasets.push(made);
            Ok(name)
        });
        let dataset = match dataset {
            Ok(name) => name.clone(),
            Err(reason) => {
                bench.skipped.push(skip(reason.clone()));
                continue;
            }
        };
        let answer_format =
            entry.choices.as_ref().filter(|_| entry.question_type == "multiple_choice").map(|choices| {
                let quoted: Vec<String> = choices.iter().map(|c| format!("{c:?}")).collect();
                format!("one of {}, written as given", quoted.join(", "))
            });
        let mut line = QuestionLine {
            id: format!("qr_{index}"),
            source_id: &id,
            question: entry.text,
            difficulty: "medium",
            dataset: &dataset,
            answer_format: answer_format.as_deref(),
            constraints: None,
            expected_answer: Some(json!({"answer": entry.answer, "question_type": entry.question_type})),
            scorer: "qrdata",
        }
        .into_map();
        if let Some(description) = entry.description {
            line.insert("data_description".into(), json!(description));
        }
        extras(q, &mut line);
        bench.questions.push(line);
    }
    Ok(bench)
}

/// QRData's keywords and reference, kept on the line.
fn extras(q: &Value, line: &mut Map<String, Value>) {
    for field in ["keywords", "reference"] {
        if let Some(value) = q.get("meta_data").and_then(|m| m.get(field)) {
            line.insert(field.into(), value.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_files_in_another_order_or_twice_are_one_dataset() {
        let q = |files: Value| json!({"question": "q", "answer": "1", "data_files": files, "meta_data": {"question_type": "numerical"}});
        let (a, b) = (q(json!(["shops.csv", "sales.csv", "shops.csv"])), q(json!(["sales.csv", "shops.csv"])));
        assert_eq!(entry(&a).unwrap().files, ["sales.csv", "shops.csv"]);
        assert_eq!(entry(&a).unwrap().files, entry(&b).unwrap().files);
        let none = q(json!([]));
        assert_eq!(entry(&none).err().as_deref(), Some("it names no data_files"));
    }
}
