//! The transformed copies of a dataset written to a directory, each with a
//! sandbox pool of its own, ready for metamorphic checks (`exec
//! --metamorphic`, `run --metamorphic`); over a benchmark directory, the
//! copies of each dataset, their pools sharing one limit.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;

use crate::dataset::Dataset;
use crate::domain::Transform;
use crate::engine::metamorphic::{Changes, MetamorphicChecks, PreparedCopy, RunChecks, row_lists, transformed_copies};
use crate::run::RunSettings;
use crate::sandbox::{DataLimits, SandboxConfig, SandboxPool, SandboxPools};

/// One copy written: its transformation and changes, its directory and the
/// limits of a one-worker pool over it.
struct WrittenCopy {
    transform: Transform,
    changes: Changes,
    dir: PathBuf,
    config: SandboxConfig,
}

/// Write every transformed copy of `dataset` under `dir`, each with limits
/// that follow its size — a duplicated copy is twice the data — and the node
/// limit `node_timeout` when given.
fn write_copies(
    dataset: &Dataset,
    node_timeout: Option<Duration>,
    dir: &Path,
    settings: &RunSettings,
) -> anyhow::Result<Vec<WrittenCopy>> {
    transformed_copies(&dataset.data, &dataset.metadata)
        .into_iter()
        .map(|copy| {
            let written = copy.write(dir, &dataset.metadata).with_context(|| {
                format!("cannot write the transformed copies of the dataset under {}", dir.display())
            })?;
            let data_bytes = std::fs::metadata(written.join("data.json"))?.len();
            let config = SandboxConfig::for_data(DataLimits { data_bytes }, node_timeout, None, settings.engine)?;
            // A copy runs each checked DAG on one worker at a time; each DAG takes
            // a fresh worker, cloned from a template that read the copy once.
            let config = SandboxConfig { workers: 1, ..config }.for_run(settings.seed, settings.now);
            Ok(WrittenCopy { transform: copy.transform, changes: copy.changes, dir: written, config })
        })
        .collect()
}

/// Write every transformed copy of `dataset` under `dir` and give each a pool
/// of one worker (it starts when first needed) keyed and clocked as the run of
/// `settings`: the copies run side by side, each copy's checks one after another.
pub fn prepare_checks(
    dataset: &Dataset,
    node_timeout: Option<Duration>,
    dir: &Path,
    settings: &RunSettings,
) -> anyhow::Result<MetamorphicChecks> {
    let copies = write_copies(dataset, node_timeout, dir, settings)?
        .into_iter()
        .map(|copy| {
            let pool = SandboxPool::new(&copy.dir, copy.config)?;
            Ok(PreparedCopy { transform: copy.transform, changes: copy.changes, executor: Arc::new(pool) })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(MetamorphicChecks::new(row_lists(&dataset.data), copies))
}

/// The copies of each of `datasets` (by name) under `dir`, one sub-directory
/// a dataset; their one-worker pools start when first needed and at most
/// `keep` hold workers at once, as the datasets' own pools do.
pub fn prepare_checks_each(
    datasets: &[(String, Arc<Dataset>)],
    node_timeout: Option<Duration>,
    dir: &Path,
    keep: usize,
    settings: &RunSettings,
) -> anyhow::Result<RunChecks> {
    let written = datasets
        .iter()
        .enumerate()
        .map(|(index, (_, dataset))| write_copies(dataset, node_timeout, &dir.join(index.to_string()), settings))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let configs = written.iter().flatten().map(|copy| (copy.dir.clone(), copy.config.clone())).collect();
    let pools = SandboxPools::new(configs, keep);
    let mut next = 0;
    let mut named = BTreeMap::new();
    for ((name, dataset), copies) in datasets.iter().zip(written) {
        let copies = copies
            .into_iter()
            .map(|copy| {
                let executor = Arc::new(pools.executor(next));
                next += 1;
                PreparedCopy { transform: copy.transform, changes: copy.changes, executor }
            })
            .collect();
        named.insert(name.clone(), MetamorphicChecks::new(row_lists(&dataset.data), copies));
    }
    Ok(RunChecks::Each(named))
}
