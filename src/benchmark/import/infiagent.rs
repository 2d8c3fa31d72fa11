//! InfiAgent-DABench as published: `<prefix>questions.jsonl` (`id, question,
//! concepts, constraints, format, file_name, level`), `<prefix>labels.jsonl`
//! (`id, common_answers: [[name, value], ...]`) and `<prefix>tables/*.csv`,
//! the prefix being `da-dev-` in the published files. Each table becomes a
//! dataset of its own; questions are ranked easy, medium, hard, in file order
//! within a level.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::dataset::BenchmarkRoot;

use super::{
    Bench, BenchDataset, ImportError, QuestionLine, Skipped, dataset_name, id_text, level, prepare_table, read_jsonl,
};

/// Where the three parts of the benchmark are.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The benchmark's folder: every table a question names must be inside it.
    pub root: PathBuf,
    /// The questions file.
    pub questions: PathBuf,
    /// The labels file.
    pub labels: PathBuf,
    /// The tables' directory.
    pub tables: PathBuf,
}

/// The files of InfiAgent-DABench in `dir`, when it holds them.
pub fn find(dir: &Path) -> Option<Layout> {
    let entries = std::fs::read_dir(dir).ok()?;
    let mut names: Vec<String> =
        entries.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names.iter().find_map(|name| {
        let prefix = name.strip_suffix("questions.jsonl")?;
        let layout = Layout {
            root: dir.to_path_buf(),
            questions: dir.join(name),
            labels: dir.join(format!("{prefix}labels.jsonl")),
            tables: dir.join(format!("{prefix}tables")),
        };
        (layout.labels.is_file() && layout.tables.is_dir()).then_some(layout)
    })
}

/// The labels of each question id, or why a label line is malformed.
fn labels(path: &Path) -> Result<HashMap<String, Result<Value, String>>, ImportError> {
    let mut labels = HashMap::new();
    for (line, map) in read_jsonl(path)? {
        let Some(id) = id_text(map.get("id")) else {
            return Err(ImportError::BadLine { file: path.to_path_buf(), line, message: "no \"id\"".into() });
        };
        labels.insert(id, common_answers(map.get("common_answers")));
    }
    Ok(labels)
}

/// `[[name, value], ...]` as the expected answer `{name: value}`.
fn common_answers(value: Option<&Value>) -> Result<Value, String> {
    let Some(Value::Array(pairs)) = value else {
        return Err("its label has no \"common_answers\" list".into());
    };
    let mut expected = Map::new();
    for pair in pairs {
        match pair.as_array().map(Vec::as_slice) {
            Some([Value::String(name), Value::String(text)]) => {
                expected.insert(name.clone(), Value::String(text.clone()));
            }
            Some([Value::String(name), Value::Number(n)]) => {
                expected.insert(name.clone(), Value::String(n.to_string()));
            }
            _ => return Err(format!("its label has a part that is not [name, text]: {pair}")),
        }
    }
    if expected.is_empty() {
        return Err("its label names no part".into());
    }
    Ok(Value::Object(expected))
}

/// Read the benchmark in `layout` into a benchmark directory's contents.
pub fn read(layout: &Layout) -> Result<Bench, ImportError> {
    let contained = BenchmarkRoot::new(&layout.root);
    // The questions and labels files are every question's: one leading out stops the import.
    contained.resolve(&layout.questions)?;
    contained.resolve(&layout.labels)?;
    let labels = labels(&layout.labels)?;
    let questions = read_jsonl(&layout.questions)?;
    let mut bench = Bench::default();
    let mut tables: BTreeMap<String, Result<String, String>> = BTreeMap::new();
    let mut names_taken: HashMap<String, String> = HashMap::new();
    let mut lines: Vec<(&'static str, Map<String, Value>)> = Vec::new();
    for (line, q) in &questions {
        let Some(id) = id_text(q.get("id")) else {
            return Err(ImportError::BadLine {
                file: layout.questions.clone(),
                line: *line,
                message: "no \"id\"".into(),
            });
        };
        let skip = |reason: String| Skipped { id: id.clone(), reason };
        let text = q.get("question").and_then(Value::as_str).filter(|t| !t.trim().is_empty());
        let file = q.get("file_name").and_then(Value::as_str).filter(|f| !f.trim().is_empty());
        let (Some(text), Some(file)) = (text, file) else {
            bench.skipped.push(skip("the question line lacks \"question\" or \"file_name\"".into()));
            continue;
        };
        let expected = match labels.get(&id) {
            None => {
                bench.skipped.push(skip("no label line has its id".into()));
                continue;
            }
            Some(Err(reason)) => {
                bench.skipped.push(skip(reason.clone()));
                continue;
            }
            Some(Ok(expected)) => expected.clone(),
        };
        let table = tables.entry(file.to_string()).or_insert_with(|| {
            let path = match contained.resolve(&layout.tables.join(file)) {
                Ok(Some(path)) if path.is_file() => path,
                Ok(_) => return Err(format!("its table {file} is not in {}", layout.tables.display())),
                Err(outside) => return Err(format!("its table {file:?}: {outside}")),
            };
            let prepared = prepare_table(&path).map_err(|err| format!("its table cannot be prepared: {err}"))?;
            let mut name = dataset_name(file);
            while names_taken.get(&name).is_some_and(|taken| taken != file) {
                name.push('_');
            }
            names_taken.insert(name.clone(), file.to_string());
            bench.datasets.push(BenchDataset { name: name.clone(), data: prepared.data, metadata: prepared.metadata });
            Ok(name)
        });
        let dataset = match table {
            Ok(name) => name.clone(),
            Err(reason) => {
                bench.skipped.push(skip(reason.clone()));
                continue;
            }
        };
        let difficulty = level(q.get("level"));
        let mut out = QuestionLine {
            id: format!("da_{id}"),
            source_id: &id,
            question: text,
            difficulty,
            dataset: &dataset,
            answer_format: q.get("format").and_then(Value::as_str),
            constraints: q.get("constraints").and_then(Value::as_str),
            expected_answer: Some(expected),
            scorer: "infiagent",
        }
        .into_map();
        if let Some(concepts) = q.get("concepts") {
            out.insert("concepts".into(), concepts.clone());
        }
        lines.push((difficulty, out));
    }
    let rank = |level: &str| ["easy", "medium", "hard"].iter().position(|l| *l == level).unwrap_or(1);
    lines.sort_by_key(|(level, _)| rank(level));
    bench.questions = lines.into_iter().map(|(_, line)| line).collect();
    Ok(bench)
}
