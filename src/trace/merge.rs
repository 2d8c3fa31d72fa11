//! Shards of one run (`run --shard K/N`) merged back into one trace
//! (`eval-dag merge`), streamed: a shard's events are read a block at a time
//! and written on at once, so memory holds one block, never a shard or the run.
//!
//! The merged trace is: its header (the shards' shared settings with no
//! `shard`, `merged_from` naming each shard's trace and SHA-256), one
//! `run_started`, one `questions_generated` with the whole list in list
//! order, then each shard's other events as one block in shard order —
//! `seq` numbered anew and `call_id` moved past the calls of the shards
//! before, `t_ms` kept — and one `run_finished`. The shards' own
//! `run_started`, `questions_generated` and `run_finished` (a resumed shard
//! has several) are dropped.
//!
//! Shards merge only when they split the same run: the same `questions_hash`
//! and shard count, the same hash for every dataset they share by name, the
//! same provider and model for each role, and the same `max_iterations`,
//! `repeat`, `consensus`, grading, `metamorphic`, `repair`, `seed`,
//! `baselines` and the run's clock (`now`). Paths and base URLs are never compared: they differ per node.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::lines::PARSE_BLOCK;
use super::{TraceError, TraceHeader, TraceRecord, TraceScan};
use crate::domain::LlmRole;
use crate::run::{EngineEvent, RunSettings};

/// The first setting two shards' runs differ in, for people
/// (`max_iterations: 3 and 5`); `None` when they split the same run.
pub fn settings_differ(first: &RunSettings, other: &RunSettings) -> Option<String> {
    let differ = |name: &str, a: String, b: String| (a != b).then(|| format!("{name}: {a} and {b}"));
    let (a, b) = (first.shard.as_ref(), other.shard.as_ref());
    let fields = [
        differ("questions_hash", debug(a.map(|s| &s.questions_hash)), debug(b.map(|s| &s.questions_hash))),
        differ("shard count", debug(a.map(|s| s.count)), debug(b.map(|s| s.count))),
        differ("max_iterations", first.max_iterations.to_string(), other.max_iterations.to_string()),
        differ("repeat", first.epochs().to_string(), other.epochs().to_string()),
        differ("consensus", first.drafts().to_string(), other.drafts().to_string()),
        differ("grading", json(&first.grading), json(&other.grading)),
        differ("metamorphic", first.metamorphic.to_string(), other.metamorphic.to_string()),
        differ("repair", debug(first.repair), debug(other.repair)),
        differ("seed", first.seed.to_string(), other.seed.to_string()),
        differ("baselines", first.baselines.to_string(), other.baselines.to_string()),
        differ("now (give every shard the same --now)", debug(first.now), debug(other.now)),
    ];
    fields.into_iter().flatten().next().or_else(|| roles_differ(first, other)).or_else(|| datasets_differ(first, other))
}

fn debug(value: impl std::fmt::Debug) -> String {
    format!("{value:?}")
}

fn json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// The first role played by another provider or model.
fn roles_differ(first: &RunSettings, other: &RunSettings) -> Option<String> {
    LlmRole::ALL.into_iter().find_map(|role| {
        let (a, b) = (first.role(role), other.role(role));
        let (a, b) = (format!("{} {}", a.provider, a.model), format!("{} {}", b.provider, b.model));
        (a != b).then(|| format!("role {}: {a} and {b}", role.setting_name()))
    })
}

/// The first dataset both runs name whose hash differs; a single-dataset
/// run's one dataset by its hash.
fn datasets_differ(first: &RunSettings, other: &RunSettings) -> Option<String> {
    if first.datasets.is_empty() || other.datasets.is_empty() {
        let same = first.datasets.is_empty() == other.datasets.is_empty() && first.dataset_hash == other.dataset_hash;
        return (!same).then(|| "the dataset: its hash differs".to_string());
    }
    first.datasets.iter().find_map(|a| {
        let b = other.datasets.iter().find(|b| b.name == a.name)?;
        (a.hash != b.hash).then(|| format!("dataset {}: its hash differs", a.name))
    })
}

/// How one shard's trace ended, as the merge read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardEnd {
    /// Whether its last `run_started` was followed by a `run_finished`.
    pub finished: bool,
    /// Events copied.
    pub events: u64,
}

/// The merged trace being written: buffered, and renamed into place only
/// once whole ([`MergedTrace::finish`]).
pub struct MergedTrace {
    writer: BufWriter<File>,
    partial: PathBuf,
    path: PathBuf,
    next_seq: u64,
    /// Added to the call ids of the shard being copied.
    call_offset: u64,
    /// The largest `t_ms` written.
    pub end_ms: u64,
}

impl MergedTrace {
    /// Start `path` (written as `<path>.partial` until finished) with `header`.
    pub fn create(path: &Path, header: &TraceHeader) -> Result<Self, TraceError> {
        let mut partial = path.as_os_str().to_owned();
        partial.push(".partial");
        let partial = PathBuf::from(partial);
        let file = File::create(&partial).map_err(|source| TraceError::Io { path: partial.clone(), source })?;
        let mut trace = Self {
            writer: BufWriter::with_capacity(1 << 20, file),
            partial,
            path: path.to_path_buf(),
            next_seq: 0,
            call_offset: 0,
            end_ms: 0,
        };
        let line = serde_json::to_string(header).map_err(|err| trace.io(err.into()))?;
        trace.line(&line)?;
        Ok(trace)
    }

    fn io(&self, source: std::io::Error) -> TraceError {
        TraceError::Io { path: self.partial.clone(), source }
    }

    fn line(&mut self, line: &str) -> Result<(), TraceError> {
        let written = self.writer.write_all(line.as_bytes()).and_then(|()| self.writer.write_all(b"\n"));
        written.map_err(|source| self.io(source))
    }

    /// Write `event` at `t_ms` as the next record and return it.
    pub fn record(&mut self, t_ms: u64, event: EngineEvent) -> Result<TraceRecord, TraceError> {
        let record = TraceRecord { seq: self.next_seq, t_ms, event };
        let line = serde_json::to_string(&record).map_err(|err| self.io(err.into()))?;
        self.line(&line)?;
        self.next_seq += 1;
        self.end_ms = self.end_ms.max(t_ms);
        Ok(record)
    }

    /// Copy the events of the shard trace at `path`, a block at a time, each
    /// handed to `fold` once written; its run-wide events are left out.
    pub fn append_shard(&mut self, path: &Path, mut fold: impl FnMut(TraceRecord)) -> Result<ShardEnd, TraceError> {
        let mut scan = TraceScan::open(path)?;
        let (offset, mut last_call) = (self.call_offset, self.call_offset);
        let mut end = ShardEnd { finished: false, events: 0 };
        while let Some(block) = scan.next_block(PARSE_BLOCK, |_| false)? {
            for TraceRecord { t_ms, mut event, .. } in block.records {
                match event {
                    EngineEvent::RunStarted { .. } => end.finished = false,
                    EngineEvent::RunFinished { .. } => end.finished = true,
                    EngineEvent::QuestionsGenerated { .. } => {}
                    _ => {
                        if let Some(id) = call_id(&mut event) {
                            *id += offset;
                            last_call = last_call.max(*id);
                        }
                        fold(self.record(t_ms, event)?);
                        end.events += 1;
                    }
                }
            }
        }
        self.call_offset = last_call;
        Ok(end)
    }

    /// Flush, sync and rename the trace into place.
    pub fn finish(self) -> Result<(), TraceError> {
        let Self { writer, partial, path, .. } = self;
        let io = |source| TraceError::Io { path: partial.clone(), source };
        let file = writer.into_inner().map_err(|err| io(err.into_error()))?;
        file.sync_all().map_err(io)?;
        std::fs::rename(&partial, &path).map_err(io)
    }
}

/// The call id an event carries, to renumber.
fn call_id(event: &mut EngineEvent) -> Option<&mut u64> {
    match event {
        EngineEvent::LlmCallStarted { call_id, .. }
        | EngineEvent::LlmCallFinished { call_id, .. }
        | EngineEvent::LlmCallRetrying { call_id, .. }
        | EngineEvent::LlmTextDelta { call_id, .. } => Some(call_id),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{RoleModel, Shard};
    use crate::run::DatasetRef;

    fn shard_settings(index: u32) -> RunSettings {
        let dataset = |dir: &str| DatasetRef { name: "shop".into(), dir: dir.into(), hash: "h1".into() };
        RunSettings {
            dataset_dir: format!("/node{index}/bench").into(),
            max_iterations: 3,
            datasets: vec![dataset(&format!("/node{index}/bench/datasets/shop"))],
            shard: Some(Shard { index, count: 3, questions_hash: "abc".into() }),
            ..RunSettings::default()
        }
    }

    #[test]
    fn shards_of_one_run_differ_only_in_paths_and_servers() {
        let (first, mut other) = (shard_settings(1), shard_settings(2));
        let builder = |url: &str| RoleModel {
            provider: crate::domain::Provider::Replay,
            model: "m".into(),
            base_url: Some(url.into()),
        };
        let mut first = first;
        first.roles.insert(LlmRole::DagBuild, builder("http://a"));
        other.roles.insert(LlmRole::DagBuild, builder("http://b"));
        assert_eq!(settings_differ(&first, &other), None);
        let changed = |change: fn(&mut RunSettings)| {
            let mut changed = other.clone();
            change(&mut changed);
            settings_differ(&first, &changed).unwrap_or_default()
        };
        assert_eq!(changed(|s| s.max_iterations = 5), "max_iterations: 3 and 5");
        assert!(changed(|s| s.shard.as_mut().unwrap().questions_hash = "x".into()).starts_with("questions_hash"));
        assert!(changed(|s| s.shard.as_mut().unwrap().count = 4).starts_with("shard count"));
        assert!(changed(|s| s.datasets[0].hash = "h2".into()).starts_with("dataset shop"));
        assert!(
            changed(|s| s.roles.get_mut(&LlmRole::DagBuild).unwrap().model = "n".into()).starts_with("role builder")
        );
        assert!(changed(|s| s.seed = 9).starts_with("seed"));
        let clocked = |s: &mut RunSettings| s.now = crate::domain::RunClock::parse("2026-12-05T14:30:00Z").ok();
        assert!(changed(clocked).starts_with("now (give every shard the same --now)"));
        assert!(changed(|s| s.repeat = 2).starts_with("repeat"));
        // A dataset only one shard's questions name is no difference.
        let extra =
            |s: &mut RunSettings| s.datasets.push(DatasetRef { name: "zoo".into(), dir: "z".into(), hash: "h".into() });
        assert_eq!(changed(extra), "");
    }
}
