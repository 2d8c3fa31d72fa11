//! A pool's limits and size: the defaults, and those a dataset's size and
//! the machine's memory give (see `limits`).

use std::path::PathBuf;
use std::time::Duration;

use super::cpython::CPython;
use super::limits::{DataLimits, TooBig};
use crate::domain::{Engine, RunClock};

/// The Python a pool's workers are.
#[derive(Debug, Clone, Default)]
pub enum Interpreter {
    /// RustPython, built into this program.
    #[default]
    RustPython,
    /// This CPython, found and checked on the machine.
    CPython(CPython),
}

impl Interpreter {
    /// Which engine it is.
    #[must_use]
    pub const fn engine(&self) -> Engine {
        match self {
            Self::RustPython => Engine::RustPython,
            Self::CPython(_) => Engine::CPython,
        }
    }
}

/// Limits and size of the pool.
#[derive(Debug, Clone)]
pub struct SandboxConfig {
    /// Worker processes (default: the machine's cores).
    pub workers: usize,
    /// Longest a single node may run.
    pub node_timeout: Duration,
    /// Longest a whole DAG may run.
    pub dag_timeout: Duration,
    /// Longest a worker may take to start (build the interpreter, convert the data).
    pub startup_timeout: Duration,
    /// Address-space limit of each worker.
    pub memory_limit_bytes: u64,
    /// CPU-seconds limit over a worker's life (a backstop; wall-clock kills come first).
    pub cpu_limit_seconds: u64,
    /// The executable that serves `sandbox-worker` (default: this program).
    pub executable: Option<PathBuf>,
    /// The Python the workers are (RustPython unless a CPython is given).
    pub interpreter: Interpreter,
    /// Whether workers are cloned from a template that loaded the dataset
    /// once (Linux; it costs one more process holding the data), rather than
    /// each started from the program.
    pub clone_workers: bool,
    /// The key of `hash()` for strs and bytes in node code, and so of the
    /// order of sets of them: fixed by the run's seed (see
    /// [`SandboxConfig::for_run`]), so that every worker, a replay and a rerun
    /// agree, where each process drawing its own would not.
    pub hash_seed: u32,
    /// The run's clock: what node code's `datetime.now()` and `date.today()`
    /// read (`None`: the machine's clock).
    pub now: Option<RunClock>,
    /// Whether workers apply the kernel layers (test builds can leave them
    /// off, to measure their cost).
    #[cfg(feature = "sandbox-test-hooks")]
    pub kernel_layers: bool,
    /// Whether workers apply Landlock among the kernel layers (test builds
    /// can leave it off, to stand for a kernel without it).
    #[cfg(feature = "sandbox-test-hooks")]
    pub landlock: bool,
}

impl SandboxConfig {
    /// The limits of workers over `limits`' dataset (see `limits`): as many
    /// workers of `engine` as the machine has cores and `available` bytes of
    /// memory hold, with the node limit `node_timeout` or the size's default;
    /// an error when not even one worker fits.
    pub fn for_data(
        limits: DataLimits,
        node_timeout: Option<Duration>,
        available: Option<u64>,
        engine: Engine,
    ) -> Result<Self, TooBig> {
        let defaults = Self::default();
        // RustPython clones keep sharing the template's dataset however much
        // they read; CPython's write reference counts into every object read.
        let share = engine == Engine::RustPython;
        let (workers, clone_workers) = match available {
            Some(available) => limits.workers_that_fit(defaults.workers, available, share)?,
            None => (defaults.workers, true),
        };
        let node_timeout = node_timeout.unwrap_or_else(|| limits.default_node_timeout());
        Ok(Self {
            workers,
            node_timeout,
            dag_timeout: DataLimits::dag_timeout(node_timeout),
            startup_timeout: limits.startup(),
            memory_limit_bytes: limits.address_space(),
            clone_workers,
            ..defaults
        })
    }
}

impl SandboxConfig {
    /// These limits for a run seeded with `seed` (its hash key follows from
    /// it) whose clock is `now`.
    #[must_use]
    pub fn for_run(self, seed: u64, now: Option<RunClock>) -> Self {
        // Both halves count: seeds that differ only above 32 bits differ here too.
        let folded = (seed ^ (seed >> 32)) as u32;
        Self { hash_seed: folded, now, ..self }
    }
}

impl SandboxConfig {
    /// These limits with workers that are `interpreter`.
    #[must_use]
    pub fn with_interpreter(self, interpreter: Interpreter) -> Self {
        Self { interpreter, ..self }
    }
}

impl Default for SandboxConfig {
    fn default() -> Self {
        Self {
            workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
            node_timeout: Duration::from_secs(5),
            dag_timeout: Duration::from_secs(30),
            startup_timeout: Duration::from_secs(60),
            memory_limit_bytes: 2 << 30,
            cpu_limit_seconds: 3600,
            executable: None,
            interpreter: Interpreter::RustPython,
            clone_workers: true,
            hash_seed: 0,
            now: None,
            #[cfg(feature = "sandbox-test-hooks")]
            kernel_layers: true,
            #[cfg(feature = "sandbox-test-hooks")]
            landlock: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_counts_as_one_more_worker_in_memory_and_shared_clones_as_half_of_one() {
        let limits = DataLimits { data_bytes: 100_000_000 };
        let need = limits.resident_need();
        for engine in [Engine::RustPython, Engine::CPython] {
            let plenty = SandboxConfig::for_data(limits, None, Some(100 * need), engine).unwrap();
            assert_eq!((plenty.workers, plenty.clone_workers), (SandboxConfig::default().workers, true));
            let one = SandboxConfig::for_data(limits, None, Some(need + 1), engine).unwrap();
            assert_eq!((one.workers, one.clone_workers), (1, false), "room for one process: spawned");
            assert!(SandboxConfig::for_data(limits, None, Some(need - 1), engine).is_err());
        }
        let two = SandboxConfig::for_data(limits, None, Some(2 * need + 1), Engine::CPython).unwrap();
        assert_eq!((two.workers, two.clone_workers), (1, true), "one worker and its template");
        let shared = limits.shared_need();
        let rustpython = SandboxConfig::for_data(limits, None, Some(3 * shared), Engine::RustPython).unwrap();
        let cpython = SandboxConfig::for_data(limits, None, Some(3 * shared), Engine::CPython).unwrap();
        let two_or_fewer = SandboxConfig::default().workers.min(2);
        assert_eq!((rustpython.workers, cpython.workers), (two_or_fewer, 1), "RustPython's clones share the data");
    }
}
