//! `eval-dag replay TRACE --verify`: re-execute the trace's approved DAGs and
//! report drift; exit 1 when anything drifted.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;

use crate::dataset::Dataset;
use crate::grade::{Grader, GradingSettings};
use crate::report::{fold_indexed, verify};

/// Run `replay --verify` headlessly.
/// Re-run the approved DAGs of the trace at `trace_path`, nodes limited to
/// `node_timeout` (default: by the dataset's size).
pub fn run(trace_path: &Path, node_timeout: Option<Duration>) -> anyhow::Result<ExitCode> {
    let trace = super::read_trace(trace_path)?;
    let settings = &trace.header.settings;
    let dataset = Dataset::load(&settings.dataset_dir)
        .with_context(|| format!("the dataset named in the trace ({}) cannot be loaded", settings.dataset_dir))?;
    let dataset = Arc::new(dataset);
    let sandbox = super::providers::sandbox_config(&dataset, node_timeout)?;
    let state = fold_indexed(&trace, |_| {})?;
    let changed = dataset.content_hash != settings.dataset_hash;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let report = runtime.block_on(async {
        let executor = super::providers::build_executor(&dataset, sandbox)?;
        // Ground truth only: judges would need an LLM, and verify never calls one.
        let grader = Grader::from_settings(&GradingSettings { judges: Vec::new(), ..settings.grading.clone() })?;
        anyhow::Ok(verify(&state, executor.as_ref(), &grader, settings.seed, changed).await)
    })?;
    if report.dataset_changed {
        say!("DRIFT dataset {} changed since the run (content hash differs)", settings.dataset_dir);
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
        if report.has_drift() {
            format!("{} drifts", report.drifts.len() + usize::from(report.dataset_changed))
        } else {
            "no drift".into()
        }
    );
    Ok(if report.has_drift() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
