//! `trace.jsonl`: a header line, then one engine event per line, appended and
//! flushed as events happen, so a run killed at any moment keeps every
//! finished event. Which field arrived with which version, who writes it and
//! who reads it: [`fields`].
//!
//! Parts:
//! - The header is versioned: version 5 names who played each role; version 6 adds
//!   epochs, drafts, repairs, finish reasons, cached and estimated calls, the budget
//!   outcome and several datasets; version 7 adds batches, shards and baselines. A
//!   derived run's header names its source.
//! - The writer appends and flushes, and holds an advisory exclusive lock on the file
//!   while it lives: the mark of a live run (`being_written` probes it).
//! - The reader (`lines.rs`) indexes the event lines by byte offset in one buffered
//!   pass and parses events on demand with positional reads, so the file is never
//!   held in memory. `TraceScan` hands over blocks of events as it reads, for a
//!   replay that folds while it loads; `Trace` parses every event, for tests and the
//!   commands that need them all at once.
//! - `upgrade` reads earlier versions into the current shape. Continuing an older
//!   trace rewrites it in the current version and keeps the original as
//!   `trace.jsonl.v<N>`.

use std::{
    collections::BTreeMap,
    fs::{File, OpenOptions},
    io::Write,
    path::{Path, PathBuf},
};

use serde::{Deserialize, Serialize};

use crate::run::{EngineEvent, RunSettings};

#[doc = include_str!("fields.md")]
pub mod fields {}
mod lines;
mod merge;
mod upgrade;

pub use lines::{TraceBlock, TraceEnding, TraceLines, TraceScan};
pub use merge::{MergedTrace, ShardEnd, settings_differ};

/// The `format` field of every trace header.
pub const TRACE_FORMAT: &str = "eval-dag-trace";
/// Current trace format version (see `upgrade.rs` for what changed since 1).
pub const TRACE_VERSION: u32 = 8;

/// First line of a trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceHeader {
    /// Always [`TRACE_FORMAT`].
    pub format: String,
    /// Format version.
    pub version: u32,
    /// When the run started (RFC 3339).
    pub created_at: String,
    /// Run settings.
    pub settings: RunSettings,
    /// The saved run this one was derived from (work by hand or a fork in a
    /// replay), whose events this trace begins with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derived_from: Option<DerivedFrom>,
    /// The shards a merged run was made of (`eval-dag merge`), in shard order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<crate::domain::MergedShard>,
}

/// Where a derived run's first events come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DerivedFrom {
    /// The source trace, as given.
    pub path: String,
    /// SHA-256 of the source trace file when the derived run began.
    pub sha256: String,
    /// Events of the source copied: its records `0..up_to_seq`.
    pub up_to_seq: u64,
}

impl TraceHeader {
    /// The header of a trace of the current format, for a run starting now with `settings`.
    pub fn new(settings: RunSettings) -> Self {
        Self {
            format: TRACE_FORMAT.into(),
            version: TRACE_VERSION,
            created_at: chrono::Utc::now().to_rfc3339(),
            settings,
            derived_from: None,
            merged_from: Vec::new(),
        }
    }
}

/// One event line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceRecord {
    /// Position in the trace, from 0.
    pub seq: u64,
    /// Milliseconds since the run started.
    pub t_ms: u64,
    /// The event.
    pub event: EngineEvent,
}

/// Errors reading or writing a trace.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// File-system failure.
    #[error("trace {path}: {source}")]
    Io {
        /// The trace file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A line is not what the format says.
    #[error("trace {path}, line {line}: {message}")]
    Malformed {
        /// The trace file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// Appends events to a trace file.
#[derive(Debug)]
pub struct TraceWriter {
    file: File,
    path: PathBuf,
    next_seq: u64,
}

impl TraceWriter {
    /// Create `path` (truncating, once its lock is held: a trace another run
    /// is writing is refused untouched) and write the header.
    pub fn create(path: &Path, header: &TraceHeader) -> Result<Self, TraceError> {
        let io = |source| TraceError::Io { path: path.to_path_buf(), source };
        let line = serde_json::to_string(header).map_err(|err| io(err.into()))?;
        let file = OpenOptions::new().write(true).create(true).truncate(false).open(path).map_err(io)?;
        hold_lock(&file).map_err(io)?;
        file.set_len(0).map_err(io)?;
        let mut writer = Self { file, path: path.to_path_buf(), next_seq: 0 };
        writer.write_line(&line)?;
        Ok(writer)
    }

    /// Continue `trace` (read from `path`): a cut-off last line is cut away
    /// first, and numbering goes on after its last event. A trace of an
    /// earlier version is first rewritten in the current one (the original
    /// kept beside it as `<file>.v<N>`), so one file never mixes versions.
    pub fn append(path: &Path, trace: &impl AsRef<TraceLines>) -> Result<Self, TraceError> {
        let trace = trace.as_ref();
        let io = |source| TraceError::Io { path: path.to_path_buf(), source };
        if trace.header.version < TRACE_VERSION {
            return Self::rewrite_current(path, trace);
        }
        if trace.header.version > TRACE_VERSION {
            let message = format!(
                "trace version {} is newer than this eval-dag ({TRACE_VERSION}); continue it with that eval-dag",
                trace.header.version
            );
            return Err(TraceError::Malformed { path: path.to_path_buf(), line: 1, message });
        }
        let file = OpenOptions::new().write(true).open(path).map_err(io)?;
        file.set_len(trace.complete_len()).map_err(io)?;
        drop(file);
        let next_seq = match trace.len().checked_sub(1) {
            Some(last) => trace.record(last)?.seq + 1,
            None => 0,
        };
        let file = OpenOptions::new().append(true).open(path).map_err(io)?;
        hold_lock(&file).map_err(io)?;
        Ok(Self { file, path: path.to_path_buf(), next_seq })
    }

    /// Append one event (transient events are skipped) and flush it to the OS.
    pub fn record(&mut self, t_ms: u64, event: &EngineEvent) -> Result<(), TraceError> {
        if event.is_transient() {
            return Ok(());
        }
        let record = TraceRecord { seq: self.next_seq, t_ms, event: event.clone() };
        self.next_seq += 1;
        let line = serde_json::to_string(&record)
            .map_err(|err| TraceError::Io { path: self.path.clone(), source: err.into() })?;
        self.write_line(&line)
    }

    /// Keep `path` as `<path>.v<N>` and write `trace` anew at `path` in the
    /// current version (same header otherwise, same events, same numbering).
    fn rewrite_current(path: &Path, trace: &TraceLines) -> Result<Self, TraceError> {
        let io = |source| TraceError::Io { path: path.to_path_buf(), source };
        let mut kept = path.as_os_str().to_owned();
        kept.push(format!(".v{}", trace.header.version));
        std::fs::copy(path, &kept).map_err(io)?;
        let partial = path.with_extension("upgrading");
        let header = TraceHeader { version: TRACE_VERSION, ..trace.header.clone() };
        let mut writer = Self::create(&partial, &header)?;
        let mut written = Ok(());
        trace.for_each(|record| {
            if written.is_ok() {
                writer.next_seq = record.seq;
                written = writer.record(record.t_ms, &record.event);
            }
        })?;
        written?;
        std::fs::rename(&partial, path).map_err(io)?;
        writer.path = path.to_path_buf();
        Ok(writer)
    }

    fn write_line(&mut self, line: &str) -> Result<(), TraceError> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        self.file
            .write_all(&bytes)
            .and_then(|()| self.file.flush())
            .map_err(|source| TraceError::Io { path: self.path.clone(), source })
    }
}

/// Take the advisory exclusive lock a live run holds on its trace for as
/// long as its writer lives (the OS frees it with the file, also on SIGKILL).
/// A reader's probe ([`being_written`]) holds its shared lock only for an
/// instant, so a few short waits get past one; a trace another run is
/// writing is refused.
fn hold_lock(file: &File) -> std::io::Result<()> {
    for _ in 0..50 {
        match file.try_lock() {
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::WouldBlock) => std::thread::sleep(std::time::Duration::from_millis(20)),
            Err(std::fs::TryLockError::Error(err)) => return Err(err),
        }
    }
    Err(std::io::Error::other("another process is writing this trace"))
}

/// Whether another process (or another writer of this one) is writing the
/// trace at `path` now: it holds the lock [`TraceWriter`] takes. Probed with
/// a shared lock on a handle of its own, released at once; a trace that
/// cannot be opened is not being written.
pub fn being_written(path: &Path) -> bool {
    let Ok(file) = File::open(path) else { return false };
    matches!(file.try_lock_shared(), Err(std::fs::TryLockError::WouldBlock))
}

/// A trace read back from disk, every event parsed (for tests and the
/// commands that work on a whole run's events at once; the others read
/// through [`TraceLines`]).
#[derive(Debug, Clone)]
pub struct Trace {
    /// The header.
    pub header: TraceHeader,
    /// Every complete event, in order.
    pub records: Vec<TraceRecord>,
    /// Whether the last line was cut off (the run was killed mid-write).
    pub truncated_tail: bool,
    /// Length in bytes of the complete lines (where appending must start).
    pub complete_len: u64,
    /// Events of kinds this version does not know, skipped (a newer trace only).
    pub skipped: BTreeMap<String, usize>,
    /// The index the events were read through.
    pub lines: TraceLines,
}

/// The note for a trace written by a newer eval-dag: which event kinds were skipped.
fn newer_version_note(header: &TraceHeader, skipped: &BTreeMap<String, usize>) -> Option<String> {
    if header.version <= TRACE_VERSION {
        return None;
    }
    let kinds: Vec<String> = skipped.iter().map(|(kind, n)| format!("{kind} ×{n}")).collect();
    let what =
        if kinds.is_empty() { "every event was read".to_string() } else { format!("skipped {}", kinds.join(", ")) };
    Some(format!(
        "trace version {} is newer than this eval-dag ({TRACE_VERSION}): {what}; update eval-dag to see everything",
        header.version
    ))
}

impl Trace {
    /// Read `path`. A cut-off last line is dropped; a bad line elsewhere is an error.
    pub fn read(path: &Path) -> Result<Self, TraceError> {
        Self::from_lines(TraceLines::read(path)?)
    }

    /// Parse every event of the trace `lines` indexes.
    pub fn from_lines(lines: TraceLines) -> Result<Self, TraceError> {
        let mut records = Vec::with_capacity(lines.len());
        lines.for_each(|record| records.push(record))?;
        Ok(Self {
            header: lines.header.clone(),
            records,
            truncated_tail: lines.truncated_tail,
            complete_len: lines.complete_len(),
            skipped: lines.skipped.clone(),
            lines,
        })
    }

    /// What a reader should say once about a trace of a newer version, if it is one.
    pub fn newer_version_note(&self) -> Option<String> {
        newer_version_note(&self.header, &self.skipped)
    }
}

/// `header` and `records` written to a file and read back (for tests that build a trace by hand).
#[cfg(test)]
pub(crate) fn written_trace(header: &TraceHeader, records: &[TraceRecord]) -> Trace {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("trace.jsonl");
    let mut text = serde_json::to_string(header).expect("header serialises") + "\n";
    for record in records {
        text.push_str(&(serde_json::to_string(record).expect("record serialises") + "\n"));
    }
    std::fs::write(&path, text).expect("the trace is written");
    // The open file is read through after the directory is gone.
    Trace::read(&path).expect("the trace reads back")
}

impl AsRef<TraceLines> for Trace {
    fn as_ref(&self) -> &TraceLines {
        &self.lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::Command;

    fn header() -> TraceHeader {
        TraceHeader { created_at: "2026-01-01T00:00:00Z".into(), ..TraceHeader::new(RunSettings::default()) }
    }

    #[test]
    fn events_round_trip_and_transient_ones_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut writer = TraceWriter::create(&path, &header()).unwrap();
        writer.record(5, &EngineEvent::Control(Command::Pause)).unwrap();
        writer.record(6, &EngineEvent::LlmTextDelta { call_id: 1, text: "x".into() }).unwrap();
        writer.record(9, &EngineEvent::Control(Command::Resume)).unwrap();
        let trace = Trace::read(&path).unwrap();
        assert_eq!(trace.header, header());
        let seqs: Vec<(u64, u64)> = trace.records.iter().map(|r| (r.seq, r.t_ms)).collect();
        assert_eq!(seqs, vec![(0, 5), (1, 9)]);
        assert!(!trace.truncated_tail);
    }

    #[test]
    fn a_cut_off_last_line_is_dropped_and_appending_continues_cleanly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut writer = TraceWriter::create(&path, &header()).unwrap();
        writer.record(1, &EngineEvent::Control(Command::Pause)).unwrap();
        drop(writer);
        std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"{\"seq\":1,\"t_ms\":2,\"ev").unwrap();
        let trace = Trace::read(&path).unwrap();
        assert!(trace.truncated_tail);
        assert_eq!(trace.records.len(), 1);
        let mut writer = TraceWriter::append(&path, &trace).unwrap();
        writer.record(3, &EngineEvent::Control(Command::Resume)).unwrap();
        let trace = Trace::read(&path).unwrap();
        assert!(!trace.truncated_tail);
        assert_eq!(trace.records.iter().map(|r| r.seq).collect::<Vec<_>>(), vec![0, 1]);
    }

    #[test]
    fn many_events_come_back_in_order_and_a_bad_line_late_in_the_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut writer = TraceWriter::create(&path, &header()).unwrap();
        let count = lines::PARSE_BLOCK * 5 + 7;
        for t in 0..count as u64 {
            writer.record(t, &EngineEvent::Control(Command::Pause)).unwrap();
        }
        let trace = Trace::read(&path).unwrap();
        assert_eq!(trace.records.len(), count);
        assert!(trace.records.iter().enumerate().all(|(i, r)| r.seq == i as u64 && r.t_ms == i as u64));
        assert_eq!(trace.complete_len, std::fs::metadata(&path).unwrap().len());
        let mut text = std::fs::read_to_string(&path).unwrap();
        text = text.replacen("{\"seq\":2000,", "{\"seq\":oops,", 1);
        std::fs::write(&path, text).unwrap();
        let Err(err) = Trace::read(&path) else { panic!("a bad line is an error") };
        let err = err.to_string();
        assert!(err.contains("line 2002"), "{err}");
    }

    #[test]
    fn a_last_line_cut_inside_a_character_is_dropped_but_bad_text_elsewhere_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut writer = TraceWriter::create(&path, &header()).unwrap();
        writer.record(1, &EngineEvent::RunFailed { error: "é".into() }).unwrap();
        let whole = std::fs::read(&path).unwrap();
        let complete = whole.len() as u64;
        let mut cut = whole.clone();
        cut.extend_from_slice("{\"seq\":1,\"t_ms\":2,\"event\":{\"type\":\"run_failed\",\"error\":\"é".as_bytes());
        cut.pop();
        std::fs::write(&path, &cut).unwrap();
        let trace = Trace::read(&path).unwrap();
        assert!(trace.truncated_tail);
        assert_eq!((trace.records.len(), trace.complete_len), (1, complete));
        let mut bad = whole;
        bad.extend_from_slice(b"\xff\n");
        bad.extend_from_slice(&cut[complete as usize..]);
        std::fs::write(&path, &bad).unwrap();
        let err = Trace::read(&path).unwrap_err().to_string();
        assert!(err.contains("line 3") && err.contains("UTF-8"), "{err}");
    }

    #[test]
    fn a_bad_line_in_the_middle_or_a_foreign_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let head = serde_json::to_string(&header()).unwrap();
        std::fs::write(&path, format!("{head}\nnot json\n{{}}\n")).unwrap();
        let err = Trace::read(&path).unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
        std::fs::write(&path, "{\"format\": \"other\", \"version\": 1}\n").unwrap();
        assert!(Trace::read(&path).is_err());
        std::fs::write(&path, "").unwrap();
        assert!(Trace::read(&path).unwrap_err().to_string().contains("empty file"));
    }

    /// One line of every kind of event that names a question or a node and
    /// that the recorded sample runs lack (the version 5 fixture's continuation
    /// covers questions, DAGs, executions, findings and call keys), as the
    /// trace writer writes it: every id a plain JSON string.
    const ID_LINES: [&str; 9] = [
        r#"{"seq":0,"t_ms":1,"event":{"type":"dag_built","at":{"question_id":"q_07","attempt":1,"iteration":1},"dag":{"question_id":"q_07","description":"d","nodes":[{"node_id":"a","operation":"o","function_name":"f","inputs":{"rows":"dataset.rows"},"expected_output_type":"list","layer":0,"code":"def f(rows):\n    return rows\n"},{"node_id":"b","operation":"o","function_name":"g","inputs":{"v":"prev_node.a.output"},"expected_output_type":"int","layer":1,"code":"def g(v):\n    return len(v)\n"}],"edges":[{"source":"a","target":"b"}],"final_answer_node":"b"}}}"#,
        r#"{"seq":1,"t_ms":2,"event":{"type":"critic_verdict","at":{"question_id":"q_07","attempt":1,"iteration":1},"feedback":{"is_approved":false,"overall_reasoning":"r","layer_validations":[{"layer_index":1,"nodes_in_layer":["b"],"is_valid":false,"issues":["i"]}],"specific_errors":[],"suggestions":[],"findings":[{"node_id":"b","layer":1,"rule":"semantic_issue","source":"semantic","message":"m","severity":"error"}]}}}"#,
        r#"{"seq":2,"t_ms":3,"event":{"type":"node_ran","at":{"question_id":"q_07","attempt":1,"iteration":1},"node_id":"b","code":"def g(v):\n    return 1 / 0\n","result":{"question_id":"q_07","success":false,"final_answer":null,"node_outputs":{"a":[1]},"error":"node b: ZeroDivisionError","execution_time_ms":1.5,"node_timings_ms":{"a":0.5,"b":0.25},"printed":{"a":"hi\n"},"error_node":"b","traceback":"t"}}}"#,
        r#"{"seq":3,"t_ms":4,"event":{"type":"control","command":"note","at":{"question_id":"q_07","attempt":1,"iteration":1},"node_id":"b","text":"n"}}"#,
        r#"{"seq":4,"t_ms":5,"event":{"type":"control","command":"run_node","at":{"question_id":"q_07","attempt":1,"iteration":1},"node_id":"a"}}"#,
        r#"{"seq":5,"t_ms":6,"event":{"type":"control","command":"step","question_id":"q_07"}}"#,
        r#"{"seq":6,"t_ms":7,"event":{"type":"control","command":"rerun","question_id":"q_07","epoch":2}}"#,
        r#"{"seq":7,"t_ms":8,"event":{"type":"control","command":"cancel_question","question_id":"q_07"}}"#,
        r#"{"seq":8,"t_ms":9,"event":{"type":"consensus_reached","question_id":"q_07","epoch":2,"consensus":{"answers":[{"draft":1,"answer":3,"in_majority":true}],"agreement":1.0}}}"#,
    ];

    #[test]
    fn every_event_naming_a_question_or_a_node_is_written_back_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut writer = TraceWriter::create(&path, &header()).unwrap();
        for line in ID_LINES {
            let record: TraceRecord = serde_json::from_str(line).unwrap();
            writer.record(record.t_ms, &record.event).unwrap();
        }
        drop(writer);
        let written = std::fs::read_to_string(&path).unwrap();
        assert_eq!(written.lines().skip(1).collect::<Vec<_>>(), ID_LINES);
        let events = Trace::read(&path).unwrap().records;
        let EngineEvent::NodeRan { at, node_id, result, .. } = &events[2].event else { panic!("{:?}", events[2]) };
        assert_eq!((at.question_id.as_str(), node_id.as_str()), ("q_07", "b"));
        assert_eq!((result.error_node.as_deref(), result.node_timings_ms.get("b")), (Some("b"), Some(&0.25)));
    }
}
