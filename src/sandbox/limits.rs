//! Limits that follow the dataset's size (`data.json` in bytes), and whether
//! the machine has the memory for a run's workers.
//!
//! A worker holds the dataset as Python objects: measured at about 8 bytes
//! resident per byte of JSON on top of ~64 MiB for the interpreter (see
//! BENCHMARKS.md). Nodes then build their own lists and dicts over the rows,
//! so a worker is given room for twice the dataset:
//! - **resident need** per worker: 64 MiB + 16 × the JSON's size; a template
//!   and each of its clones, when the clones share the template's dataset
//!   (RustPython's dataset objects are immortal: reading them copies no page),
//!   half of it each: the template's objects are the dataset, a clone's those
//!   its nodes build;
//! - **address-space limit**: 2 GiB + 16 × the JSON's size (the 2 GiB of a
//!   small dataset cover the interpreter's reserved stack and allocator arenas);
//! - **start limit**: 60 s + 1 s per 2 MB (reading and building the objects);
//! - **default node limit**: 5 s, or 1 s per 2 MB when that is longer;
//!   `--node-timeout` (or `[run] node_timeout_secs`) sets it instead;
//! - **DAG limit**: 30 s, or six node limits when that is longer.

use std::time::Duration;

const MIB: u64 = 1 << 20;
/// Resident memory of a worker whatever its data.
const BASE_RESIDENT: u64 = 64 * MIB;
/// Address space of a worker whatever its data.
const BASE_ADDRESS_SPACE: u64 = 2 << 30;
/// Bytes of memory a worker is given per byte of JSON.
const PER_JSON_BYTE: u64 = 16;
/// JSON bytes read and built per second of the start and node limits.
const BYTES_PER_SECOND: u64 = 2_000_000;

/// The dataset is too big for the machine's memory.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the dataset is too big for this machine: data.json is {}, a sandbox worker needs about {} for it, and {} is available",
    size(*data_bytes),
    size(*need),
    size(*available)
)]
pub struct TooBig {
    /// Size of data.json.
    pub data_bytes: u64,
    /// Resident memory one worker needs for it.
    pub need: u64,
    /// Memory the machine has available.
    pub available: u64,
}

/// `bytes` as MB or GB, one decimal.
fn size(bytes: u64) -> String {
    let mb = bytes as f64 / 1e6;
    if mb >= 1000.0 { format!("{:.1} GB", mb / 1000.0) } else { format!("{mb:.1} MB") }
}

/// The limits of workers over a dataset of a given size; see the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataLimits {
    /// Size of data.json.
    pub data_bytes: u64,
}

impl DataLimits {
    /// Resident memory one worker needs.
    pub fn resident_need(self) -> u64 {
        BASE_RESIDENT.saturating_add(self.data_bytes.saturating_mul(PER_JSON_BYTE))
    }

    /// Resident memory of a template, or of one of its clones when the clones
    /// share its dataset: the interpreter and one dataset's worth of objects.
    pub fn shared_need(self) -> u64 {
        BASE_RESIDENT.saturating_add(self.data_bytes.saturating_mul(PER_JSON_BYTE / 2))
    }

    /// A worker's address-space limit.
    pub fn address_space(self) -> u64 {
        BASE_ADDRESS_SPACE.saturating_add(self.data_bytes.saturating_mul(PER_JSON_BYTE))
    }

    /// How long a worker may take to start.
    pub fn startup(self) -> Duration {
        Duration::from_secs(60 + self.data_bytes / BYTES_PER_SECOND)
    }

    /// The node limit when none is given.
    pub fn default_node_timeout(self) -> Duration {
        Duration::from_secs((self.data_bytes / BYTES_PER_SECOND).max(5))
    }

    /// The DAG limit for a node limit.
    pub fn dag_timeout(node_timeout: Duration) -> Duration {
        (node_timeout * 6).max(Duration::from_secs(30))
    }

    /// How many of `wanted` workers fit in `available` bytes of memory (at
    /// least one), and whether they are clones of a template: clones when the
    /// template and one clone fit, else one spawned worker; why not when not
    /// even that fits. Clones that `share` the template's dataset need
    /// [`Self::shared_need`] each, as the template does; otherwise each holds
    /// its own copy of the pages its DAGs read, so it and the template need a
    /// whole worker's [`Self::resident_need`].
    pub fn workers_that_fit(self, wanted: usize, available: u64, share: bool) -> Result<(usize, bool), TooBig> {
        let need = if share { self.shared_need() } else { self.resident_need() };
        let clones = usize::try_from(available.saturating_sub(need) / need).unwrap_or(usize::MAX);
        if clones > 0 {
            return Ok((wanted.clamp(1, clones), true));
        }
        let need = self.resident_need();
        if available < need {
            return Err(TooBig { data_bytes: self.data_bytes, need, available });
        }
        Ok((1, false))
    }
}

/// Memory the machine has available (`MemAvailable` of /proc/meminfo), if known.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|line| line.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_grow_with_the_data() {
        let small = DataLimits { data_bytes: 1_000_000 };
        assert_eq!(small.address_space(), (2 << 30) + 16_000_000);
        assert_eq!(small.startup(), Duration::from_secs(60));
        assert_eq!(small.default_node_timeout(), Duration::from_secs(5));
        let million_rows = DataLimits { data_bytes: 133_000_000 };
        assert_eq!(million_rows.address_space(), (2 << 30) + 2_128_000_000);
        assert_eq!(million_rows.startup(), Duration::from_secs(126));
        assert_eq!(million_rows.default_node_timeout(), Duration::from_secs(66));
        assert_eq!(DataLimits::dag_timeout(Duration::from_secs(5)), Duration::from_secs(30));
        assert_eq!(DataLimits::dag_timeout(Duration::from_secs(66)), Duration::from_secs(396));
    }

    #[test]
    fn workers_are_fewer_when_memory_is_short_and_none_is_an_error() {
        let limits = DataLimits { data_bytes: 100_000_000 };
        let need = limits.resident_need();
        for share in [false, true] {
            assert_eq!(limits.workers_that_fit(4, 10 * need, share), Ok((4, true)));
            assert_eq!(limits.workers_that_fit(4, need + 1, share), Ok((1, false)), "a spawned worker alone");
            assert!(limits.workers_that_fit(1, need - 1, share).is_err());
        }
        assert_eq!(limits.workers_that_fit(4, 3 * need + 1, false), Ok((2, true)), "each clone a whole worker");
        let shared = limits.shared_need();
        assert_eq!(shared, 64 * MIB + 800_000_000);
        assert_eq!(limits.workers_that_fit(4, 3 * shared, true), Ok((2, true)), "a shared clone half of one");
        assert_eq!(limits.workers_that_fit(4, 3 * need + 1, true), Ok((4, true)));
        let err = limits.workers_that_fit(4, 500_000_000, true).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the dataset is too big for this machine: data.json is 100.0 MB, a sandbox worker needs about 1.7 GB for it, and 500.0 MB is available"
        );
    }
}
