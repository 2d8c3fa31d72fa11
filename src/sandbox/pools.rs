//! The pools of a run over several datasets: one [`SandboxPool`] per dataset,
//! started when a question on it first runs a DAG, and at most `keep` of them
//! alive at once — the least recently used one is let go (its idle workers
//! end; a DAG still running on it finishes first).

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use futures::future::BoxFuture;

use super::config::SandboxConfig;
use super::error::SandboxError;
use super::pool::SandboxPool;
use crate::dag::DagExecutor;
use crate::domain::{ExecutionResult, GeneratedDag};

/// One dataset's place in the set: where it is, its limits, its pool when alive.
struct Slot {
    dir: PathBuf,
    config: SandboxConfig,
    pool: Option<SandboxPool>,
    last_used: u64,
}

struct Pools {
    slots: Vec<Slot>,
    clock: u64,
}

/// Lazily started pools, one per dataset, at most `keep` alive; cheap to clone.
#[derive(Clone)]
pub struct SandboxPools {
    pools: Arc<Mutex<Pools>>,
    keep: usize,
}

impl SandboxPools {
    /// Pools over `datasets` (each its directory and limits), no more than
    /// `keep` (at least one) holding workers at once.
    pub fn new(datasets: Vec<(PathBuf, SandboxConfig)>, keep: usize) -> Self {
        let slots = datasets.into_iter().map(|(dir, config)| Slot { dir, config, pool: None, last_used: 0 }).collect();
        Self { pools: Arc::new(Mutex::new(Pools { slots, clock: 0 })), keep: keep.max(1) }
    }

    /// The executor of the `index`-th dataset given to [`SandboxPools::new`].
    pub fn executor(&self, index: usize) -> DatasetPool {
        DatasetPool { pools: self.clone(), index }
    }

    /// The pool of dataset `index`, started if need be; the least recently
    /// used other one let go when more than `keep` are alive.
    fn pool(&self, index: usize) -> Result<SandboxPool, SandboxError> {
        let mut pools = self.pools.lock().unwrap_or_else(PoisonError::into_inner);
        pools.clock += 1;
        let now = pools.clock;
        let slot = pools.slots.get_mut(index).ok_or(SandboxError::ShuttingDown)?;
        slot.last_used = now;
        if let Some(pool) = &slot.pool {
            return Ok(pool.clone());
        }
        let pool = SandboxPool::new(&slot.dir, slot.config.clone())?;
        slot.pool = Some(pool.clone());
        while pools.slots.iter().filter(|s| s.pool.is_some()).count() > self.keep {
            let oldest = pools
                .slots
                .iter_mut()
                .enumerate()
                .filter(|(other, s)| *other != index && s.pool.is_some())
                .min_by_key(|(_, s)| s.last_used)
                .map(|(_, s)| s);
            match oldest {
                Some(slot) => slot.pool = None,
                None => break,
            }
        }
        Ok(pool)
    }
}

/// Runs DAGs on one dataset of a [`SandboxPools`].
#[derive(Clone)]
pub struct DatasetPool {
    pools: SandboxPools,
    index: usize,
}

impl DagExecutor for DatasetPool {
    fn execute<'a>(&'a self, dag: &'a GeneratedDag, seed: u64) -> BoxFuture<'a, ExecutionResult> {
        Box::pin(async move {
            match self.pools.pool(self.index) {
                Ok(pool) => pool.run(dag, seed).await,
                Err(error) => ExecutionResult {
                    question_id: dag.question_id.clone(),
                    success: false,
                    error: Some(error.to_string()),
                    ..Default::default()
                },
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_more_than_keep_pools_are_alive_and_the_least_recently_used_goes() {
        let config = SandboxConfig { executable: Some(PathBuf::from("/bin/true")), ..SandboxConfig::default() };
        let datasets = (0..4).map(|i| (PathBuf::from(format!("/tmp/d{i}")), config.clone())).collect();
        let pools = SandboxPools::new(datasets, 2);
        for index in [0, 1, 0, 2] {
            assert!(pools.pool(index).is_ok());
        }
        let guard = pools.pools.lock().unwrap_or_else(PoisonError::into_inner);
        let alive: Vec<usize> = (0..4).filter(|i| guard.slots[*i].pool.is_some()).collect();
        assert_eq!(alive, vec![0, 2], "dataset 1 was the least recently used");
    }
}
