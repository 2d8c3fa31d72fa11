//! `eval-dag replay TRACE --verify`: re-execute the trace's approved DAGs and
//! report drift; exit 1 when anything drifted.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;

use super::datasets::DatasetsAt;

use crate::dataset::Dataset;
use crate::domain::{Engine, GradingSettings};
use crate::grade::Grader;
use crate::report::{fold_indexed, verify};
use crate::run::RunSettings;

/// The data a recorded run is verified on: its datasets as they are now
/// (each question's own in a run over several), with one line for each that
/// changed since the run.
enum VerifiedData {
    One(Arc<Dataset>),
    Several(super::datasets::RunDatasets),
}

fn load(settings: &RunSettings, at: DatasetsAt<'_>) -> anyhow::Result<(VerifiedData, Vec<String>)> {
    if !settings.datasets.is_empty() {
        let (several, changed) = super::datasets::recorded_datasets(settings, at)?;
        return Ok((VerifiedData::Several(several), changed));
    }
    let dataset = Dataset::load(&settings.dataset_dir).with_context(|| {
        format!("the dataset named in the trace ({}) cannot be loaded", settings.dataset_dir.display())
    })?;
    let changed = (dataset.content_hash != settings.dataset_hash)
        .then(|| format!("dataset {} changed since the run (content hash differs)", settings.dataset_dir.display()));
    Ok((VerifiedData::One(Arc::new(dataset)), changed.into_iter().collect()))
}

/// The recorded settings with the engine DAGs are re-executed on: `engine`
/// (`--engine`), else the recorded one, with this machine's CPython when it
/// needs one; and a line for each way that differs from the run.
fn on_engine(recorded: &RunSettings, engine: Option<Engine>) -> anyhow::Result<(RunSettings, Vec<String>)> {
    let engine = engine.unwrap_or(recorded.engine);
    let mut notes = Vec::new();
    if engine != recorded.engine {
        notes.push(format!("re-executing on {engine}; the run used {}", recorded.engine));
    }
    let python = match engine {
        Engine::CPython => Some(super::providers::cpython_of(recorded)?.record()),
        Engine::RustPython => None,
    };
    if let (Some(here), Some(then)) = (&python, &recorded.python)
        && engine == recorded.engine
        && here != then
    {
        notes.push(format!(
            "this machine's Python ({} {}) is not the run's ({} {})",
            here.path, here.version, then.path, then.version
        ));
    }
    let settings = RunSettings { engine, python: python.or_else(|| recorded.python.clone()), ..recorded.clone() };
    Ok((settings, notes))
}

/// Run `replay --verify` headlessly.
/// Re-run the approved DAGs of the trace at `trace_path` on `engine` (default:
/// the recorded one), nodes limited to `node_timeout` (default: by the
/// dataset's size); a run over several datasets finds them where `at` says.
pub fn run(
    trace_path: &Path,
    node_timeout: Option<Duration>,
    engine: Option<Engine>,
    at: DatasetsAt<'_>,
) -> anyhow::Result<ExitCode> {
    let trace = super::recorded::read_trace(trace_path)?;
    let (settings, engine_notes) = on_engine(&trace.header.settings, engine)?;
    for note in &engine_notes {
        say!("NOTE {note}");
    }
    let settings = &settings;
    let (data, changed) = load(settings, at)?;
    let state = fold_indexed(&trace, |_| {})?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let report = runtime.block_on(async {
        // Ground truth only: judges would need an LLM, and verify never calls one.
        let grader = Grader::from_settings(&GradingSettings { judges: Vec::new(), ..settings.grading.clone() })?;
        let (seed, drifted) = (settings.seed, !changed.is_empty());
        let report = match &data {
            VerifiedData::One(dataset) => {
                let sandbox = super::providers::sandbox_config(dataset, node_timeout, settings)?;
                let executor = super::providers::build_executor(dataset, sandbox)?;
                verify(&state, |_| executor.as_ref(), &grader, seed, drifted).await
            }
            VerifiedData::Several(several) => {
                let keep = settings.concurrency.max(1) as usize;
                let data = several.engine_data(node_timeout, keep, settings)?;
                let executor_of = |question: &crate::domain::Question| {
                    let named = question.dataset.as_ref().and_then(|name| data.named.get(name));
                    named.map_or(data.executor.as_ref(), |named| named.executor.as_ref())
                };
                verify(&state, executor_of, &grader, seed, drifted).await
            }
        };
        anyhow::Ok(report)
    })?;
    for line in &changed {
        say!("DRIFT {line}");
    }
    for drift in &report.drifts {
        say!("DRIFT {} attempt {}: {}", drift.question_id, drift.attempt, drift.what);
        for line in drift.detail.lines() {
            say!("    {line}");
        }
    }
    say!(
        "verified {} executed DAGs: {}",
        report.checked,
        if report.has_drift() { format!("{} drifts", report.drifts.len() + changed.len()) } else { "no drift".into() }
    );
    Ok(if report.has_drift() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
