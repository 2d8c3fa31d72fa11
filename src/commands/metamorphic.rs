//! The transformed copies of a dataset written to a directory, each with a
//! sandbox pool of its own, ready for metamorphic checks (`exec
//! --metamorphic`, `run --metamorphic`).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;

use crate::dataset::Dataset;
use crate::engine::metamorphic::{MetamorphicChecks, PreparedCopy, row_lists, transformed_copies};
use crate::sandbox::{DataLimits, SandboxConfig, SandboxPool};

/// Write every transformed copy of `dataset` under `dir` and give each a pool
/// of one worker (it starts when first needed) whose limits follow the copy's
/// size — a duplicated copy is twice the data — with the node limit
/// `node_timeout` when given: the copies run side by side, each copy's checks
/// one after another.
pub fn prepare_checks(
    dataset: &Dataset,
    node_timeout: Option<Duration>,
    dir: &Path,
) -> anyhow::Result<MetamorphicChecks> {
    let copies = transformed_copies(&dataset.data, &dataset.metadata)
        .into_iter()
        .map(|copy| {
            let written = copy.write(dir, &dataset.metadata).with_context(|| {
                format!("cannot write the transformed copies of the dataset under {}", dir.display())
            })?;
            let data_bytes = std::fs::metadata(written.join("data.json"))?.len();
            let config = SandboxConfig::for_data(DataLimits { data_bytes }, node_timeout, None)?;
            let pool = SandboxPool::new(&written, SandboxConfig { workers: 1, ..config })?;
            Ok(PreparedCopy { transform: copy.transform, changes: copy.changes, executor: Arc::new(pool) })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(MetamorphicChecks::new(row_lists(&dataset.data), copies))
}
