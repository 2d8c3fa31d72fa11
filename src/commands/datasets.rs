//! The datasets of a run over a benchmark directory (`questions.jsonl` and
//! `datasets/<name>/` holding `data.json` + `metadata.json`): its questions
//! selected, each dataset they name loaded and hashed, a sandbox pool per
//! dataset; and a recorded run's datasets found again (resume, replay and its
//! work by hand, `--verify`, recritic), under `--dataset-root` when the
//! directory moved. Every dataset directory a benchmark or a trace names is
//! kept inside the benchmark's folder ([`BenchmarkRoot`]) unless
//! `--allow-outside-datasets` lets it out.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use sha2::{Digest, Sha256};

use crate::dag::DagExecutor;
use crate::dataset::{BenchmarkRoot, Dataset};
use crate::domain::Question;
use crate::engine::NamedDataset;
use crate::grade::read_questions_file;
use crate::run::{DatasetRef, RunSettings};
use crate::sandbox::{SandboxConfig, SandboxPools};

/// The questions file of a benchmark directory.
const QUESTIONS_FILE: &str = "questions.jsonl";
/// The directory of a benchmark directory's datasets, one sub-directory each.
const DATASETS_DIR: &str = "datasets";

/// Whether `dir` is a benchmark directory rather than one dataset.
pub fn is_benchmark_dir(dir: &Path) -> bool {
    dir.join(QUESTIONS_FILE).is_file() && dir.join(DATASETS_DIR).is_dir()
}

/// Which of a benchmark directory's questions a run asks (`--questions N`,
/// `--only IDS`, `--dataset NAME`); all of them when nothing is given.
#[derive(Debug, Default, Clone)]
pub struct Selection {
    /// The first N questions (after the other filters).
    pub first: Option<u32>,
    /// Only these ids.
    pub only: Vec<String>,
    /// Only the questions on this dataset.
    pub dataset: Option<String>,
}

impl Selection {
    /// The selected questions of `questions`, in the file's order.
    fn apply(&self, questions: Vec<Question>) -> anyhow::Result<Vec<Question>> {
        if let Some(missing) = self.only.iter().find(|id| !questions.iter().any(|q| &q.id == *id)) {
            anyhow::bail!("--only: the benchmark has no question {missing:?}");
        }
        let selected: Vec<Question> = questions
            .into_iter()
            .filter(|q| self.only.is_empty() || self.only.iter().any(|id| q.id == *id))
            .filter(|q| self.dataset.as_ref().is_none_or(|name| q.dataset.as_ref() == Some(name)))
            .take(self.first.map_or(usize::MAX, |n| n as usize))
            .collect();
        if selected.is_empty() {
            anyhow::bail!("no question of the benchmark is selected (--questions, --only, --dataset)");
        }
        Ok(selected)
    }
}

/// The datasets of a run over several, in the order the run header lists them.
pub struct RunDatasets {
    /// Each name with its dataset.
    pub datasets: Vec<(String, Arc<Dataset>)>,
}

impl RunDatasets {
    /// The run header's list: every dataset with its directory and hash.
    pub fn refs(&self) -> Vec<DatasetRef> {
        let dir = |dataset: &Dataset| dataset.dir.display().to_string();
        self.datasets
            .iter()
            .map(|(name, dataset)| DatasetRef {
                name: name.clone(),
                dir: dir(dataset),
                hash: dataset.content_hash.clone(),
            })
            .collect()
    }

    /// One hash over every dataset's name and hash (the header's `dataset_hash`).
    pub fn combined_hash(&self) -> String {
        combined_hash(self.datasets.iter().map(|(name, dataset)| (name.as_str(), dataset.content_hash.as_str())))
    }

    /// The dataset `question` names, when it is one of these.
    pub fn of(&self, question: &Question) -> Option<&Arc<Dataset>> {
        let name = question.dataset.as_ref()?;
        self.datasets.iter().find(|(known, _)| known == name).map(|(_, dataset)| dataset)
    }

    /// The first dataset: the one a question naming none is asked about.
    pub fn first(&self) -> anyhow::Result<Arc<Dataset>> {
        self.datasets.first().map(|(_, dataset)| dataset.clone()).context("the run names no dataset")
    }

    /// A one-worker sandbox pool per dataset, started on first use, at most
    /// `keep` alive at once, for the run of `settings`; each dataset with its
    /// executor, by name.
    fn executors(
        &self,
        node_timeout: Option<Duration>,
        keep: usize,
        settings: &RunSettings,
    ) -> anyhow::Result<BTreeMap<String, NamedDataset>> {
        let configs = self
            .datasets
            .iter()
            .map(|(_, dataset)| {
                // One worker a dataset: its questions seldom run DAGs at the same
                // moment. Each DAG takes a fresh worker, so a template beside it
                // (where memory allows) saves reading the data again per DAG.
                let config = super::providers::sandbox_config(dataset, node_timeout, settings)?;
                Ok((dataset.dir.clone(), SandboxConfig { workers: 1, ..config }))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let pools = SandboxPools::new(configs, keep);
        Ok(self
            .datasets
            .iter()
            .enumerate()
            .map(|(index, (name, dataset))| {
                let executor: Arc<dyn DagExecutor> = Arc::new(pools.executor(index));
                (name.clone(), NamedDataset { dataset: dataset.clone(), executor })
            })
            .collect())
    }
}

/// One hash over datasets' names and hashes, in order: a run header's
/// `dataset_hash` when it is over several.
pub fn combined_hash<'a>(datasets: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut hasher = Sha256::new();
    for (name, hash) in datasets {
        hasher.update(name.as_bytes());
        hasher.update([0]);
        hasher.update(hash.as_bytes());
        hasher.update([b'\n']);
    }
    hasher.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// What an engine over several datasets is given: the first dataset and its
/// executor (for a question naming none), and every dataset by name.
pub struct EngineData {
    /// The first dataset.
    pub dataset: Arc<Dataset>,
    /// Runs DAGs on the first dataset.
    pub executor: Arc<dyn DagExecutor>,
    /// Every dataset with its executor, by name.
    pub named: BTreeMap<String, NamedDataset>,
}

impl RunDatasets {
    /// The engine's data for the run of `settings`: a pool per dataset, at
    /// most `keep` alive (see [`RunDatasets::executors`]).
    pub fn engine_data(
        &self,
        node_timeout: Option<Duration>,
        keep: usize,
        settings: &RunSettings,
    ) -> anyhow::Result<EngineData> {
        let named = self.executors(node_timeout, keep, settings)?;
        let first = self.datasets.first().and_then(|(name, _)| named.get(name)).context("the run names no dataset")?;
        Ok(EngineData { dataset: first.dataset.clone(), executor: first.executor.clone(), named })
    }
}

/// Where a question's `dataset` is: a name under `root/datasets/`, or a path
/// (relative to `root`).
fn dataset_dir(root: &Path, name: &str) -> PathBuf {
    let under = root.join(DATASETS_DIR).join(name);
    if name.contains('/') && !under.is_dir() { root.join(name) } else { under }
}

/// What `--allow-outside-datasets` adds to a refusal.
const ALLOW_HINT: &str = "pass --allow-outside-datasets to read it anyway";

/// The selected questions of the benchmark directory `root` and the datasets
/// they name (each loaded once, in the order of their first question), each
/// inside `root` unless `allow_outside`.
pub fn open_benchmark(
    root: &Path,
    selection: &Selection,
    allow_outside: bool,
) -> anyhow::Result<(Vec<Question>, RunDatasets)> {
    let contained = BenchmarkRoot::new(root).allowing_outside(allow_outside);
    let specs = read_questions_file(&root.join(QUESTIONS_FILE))?;
    let questions = selection.apply(specs.into_iter().map(|spec| spec.question).collect())?;
    let mut datasets: Vec<(String, Arc<Dataset>)> = Vec::new();
    for question in &questions {
        let name = question.dataset.as_ref().with_context(|| {
            format!("question {} names no dataset: every question of a benchmark directory needs one", question.id)
        })?;
        if datasets.iter().any(|(known, _)| known == name) {
            continue;
        }
        let dir = dataset_dir(root, name);
        if let Err(outside) = contained.check_dataset(&dir) {
            anyhow::bail!("question {} names dataset {name:?}: {outside}; {ALLOW_HINT}", question.id);
        }
        let dataset = Dataset::load(&dir)
            .with_context(|| format!("question {} names dataset {name:?}, which cannot be loaded", question.id))?;
        datasets.push((name.clone(), Arc::new(dataset)));
    }
    Ok((questions, RunDatasets { datasets }))
}

/// Where a recorded run's datasets are looked for.
#[derive(Debug, Clone, Copy, Default)]
pub struct DatasetsAt<'a> {
    /// The benchmark directory, moved (`--dataset-root`); else the one the run recorded.
    pub root: Option<&'a Path>,
    /// Whether a dataset may be outside it (`--allow-outside-datasets`).
    pub allow_outside: bool,
}

impl DatasetsAt<'_> {
    /// The benchmark folder the datasets of a run over `settings` must be in:
    /// `--dataset-root`, else the directory the run was started on.
    pub fn benchmark_root(&self, settings: &RunSettings) -> BenchmarkRoot {
        let dir = self.root.map_or_else(|| settings.dataset_dir.clone(), Path::to_path_buf);
        BenchmarkRoot::new(&dir).allowing_outside(self.allow_outside)
    }

    /// Record in a derived run's `settings` where its datasets are now:
    /// `several`'s directories, and the benchmark directory they were found
    /// under when it moved (so the derived run's datasets are inside it).
    pub fn record(&self, settings: &mut RunSettings, several: &RunDatasets) {
        settings.datasets = several.refs();
        if let Some(root) = self.root {
            settings.dataset_dir = root.to_path_buf();
        }
    }
}

/// A recorded run's datasets, found where the header says or under
/// `at.root` (`--dataset-root`: the benchmark directory, moved), each inside
/// that folder; one line for each dataset whose hash differs from the
/// recorded one.
pub fn recorded_datasets(settings: &RunSettings, at: DatasetsAt<'_>) -> anyhow::Result<(RunDatasets, Vec<String>)> {
    let mut datasets = Vec::new();
    let mut changed = Vec::new();
    let contained = at.benchmark_root(settings);
    for recorded in &settings.datasets {
        let dir = at.root.map_or_else(|| PathBuf::from(&recorded.dir), |root| dataset_dir(root, &recorded.name));
        if let Err(outside) = contained.check_dataset(&dir) {
            anyhow::bail!("the run's dataset {}: {outside}; {ALLOW_HINT}", recorded.name);
        }
        let dataset = Dataset::load(&dir).with_context(|| {
            format!(
                "the run's dataset {} cannot be loaded from {}; pass --dataset-root DIR",
                recorded.name,
                dir.display()
            )
        })?;
        if dataset.content_hash != recorded.hash {
            changed.push(format!(
                "dataset {} in {} changed since the run (its hash differs)",
                recorded.name,
                dir.display()
            ));
        }
        datasets.push((recorded.name.clone(), Arc::new(dataset)));
    }
    Ok((RunDatasets { datasets }, changed))
}

/// A recorded run's datasets, refused when one changed (resuming, re-running
/// and re-criticising need the same data).
pub fn same_datasets(settings: &RunSettings, at: DatasetsAt<'_>) -> anyhow::Result<RunDatasets> {
    let (datasets, changed) = recorded_datasets(settings, at)?;
    match changed.first() {
        Some(line) => anyhow::bail!("{line}; this needs the data the run had"),
        None => Ok(datasets),
    }
}

/// A recorded run's data for `work` (`re-criticising`): each dataset of a run
/// over several, found `at` where they are now (recorded in `settings`), with
/// the first of them; else its one dataset. Refused when one changed.
pub fn recorded_data(
    settings: &mut RunSettings,
    at: DatasetsAt<'_>,
    work: &str,
) -> anyhow::Result<(Arc<Dataset>, Option<RunDatasets>)> {
    if settings.datasets.is_empty() {
        return Ok((one_dataset(settings, work)?, None));
    }
    let several = same_datasets(settings, at)?;
    at.record(settings, &several);
    Ok((several.first()?, Some(several)))
}

/// The one dataset of a single-dataset run (`settings`), refused when it
/// changed since the run; `work` names what needs it (`re-criticising`).
fn one_dataset(settings: &RunSettings, work: &str) -> anyhow::Result<Arc<Dataset>> {
    let dataset_dir = &settings.dataset_dir;
    let dataset = Arc::new(
        Dataset::load(dataset_dir)
            .with_context(|| format!("{work} needs the run's dataset ({})", dataset_dir.display()))?,
    );
    if dataset.content_hash != settings.dataset_hash {
        anyhow::bail!("the dataset in {} changed since the run; {work} needs the same data", dataset_dir.display());
    }
    Ok(dataset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::DifficultyLevel;

    fn question(id: &str, dataset: &str) -> Question {
        Question { dataset: Some(dataset.into()), ..Question::new(id, "?", 1, DifficultyLevel::Easy) }
    }

    /// A dataset of one row in `dir`.
    fn write_dataset(dir: &Path) -> Dataset {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("data.json"), r#"{"rows": [{"v": 1}]}"#).unwrap();
        let metadata = r#"{"description": "d", "columns": {"v": {"type": "int"}}, "dataset_keys": {"rows": "r"}}"#;
        std::fs::write(dir.join("metadata.json"), metadata).unwrap();
        Dataset::load(dir).unwrap()
    }

    #[test]
    fn a_recorded_dataset_outside_the_runs_benchmark_folder_is_refused_unless_allowed() {
        // What resume, retry, replay, --verify and recritic all go through.
        let tmp = tempfile::tempdir().unwrap();
        let bench = tmp.path().join("bench");
        let inside = write_dataset(&bench.join("datasets/shop"));
        let outside = write_dataset(&tmp.path().join("elsewhere"));
        let recorded = |name: &str, dataset: &Dataset| DatasetRef {
            name: name.into(),
            dir: dataset.dir.display().to_string(),
            hash: dataset.content_hash.clone(),
        };
        let settings = RunSettings {
            dataset_dir: bench.clone(),
            datasets: vec![recorded("shop", &inside), recorded("elsewhere", &outside)],
            ..RunSettings::default()
        };
        let err = same_datasets(&settings, DatasetsAt::default()).err().unwrap().to_string();
        assert!(err.starts_with("the run's dataset elsewhere: "), "{err}");
        assert!(err.contains("outside the benchmark folder") && err.contains("--allow-outside-datasets"), "{err}");
        let allowed = same_datasets(&settings, DatasetsAt { root: None, allow_outside: true }).unwrap();
        assert_eq!(allowed.datasets.len(), 2);
        // Moved with --dataset-root: a name that climbs out is refused the same way.
        let moved = RunSettings { datasets: vec![recorded("../../elsewhere", &outside)], ..settings.clone() };
        let root = bench.join("datasets");
        let err = same_datasets(&moved, DatasetsAt { root: Some(&root), allow_outside: false }).err().unwrap();
        assert!(err.to_string().contains("outside the benchmark folder"), "{err}");
    }

    #[test]
    fn a_selection_filters_then_takes_the_first_n() {
        let all = || vec![question("a", "x"), question("b", "y"), question("c", "x"), question("d", "x")];
        let ids = |selection: Selection| -> Vec<String> {
            selection.apply(all()).map(|qs| qs.into_iter().map(|q| q.id.into()).collect()).unwrap_or_default()
        };
        assert_eq!(ids(Selection::default()), ["a", "b", "c", "d"]);
        assert_eq!(ids(Selection { dataset: Some("x".into()), first: Some(2), ..Selection::default() }), ["a", "c"]);
        assert_eq!(ids(Selection { only: vec!["d".into(), "b".into()], ..Selection::default() }), ["b", "d"]);
        let unknown = Selection { only: vec!["z".into()], ..Selection::default() }.apply(all());
        assert!(unknown.is_err_and(|err| err.to_string().contains("no question \"z\"")));
        let none = Selection { dataset: Some("w".into()), ..Selection::default() }.apply(all());
        assert!(none.is_err_and(|err| err.to_string().contains("no question of the benchmark is selected")));
    }
}
