//! `trace.jsonl`: a header line, then one engine event per line, appended and
//! flushed as events happen, so a run killed at any moment keeps every
//! finished event.

use std::{
    fs::{File, OpenOptions},
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
};

use serde::{Deserialize, Serialize};

use crate::engine::{EngineEvent, RunSettings};

/// The `format` field of every trace header.
pub const TRACE_FORMAT: &str = "eval-dag-trace";
/// Current trace format version.
pub const TRACE_VERSION: u32 = 1;

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
    /// Create `path` (truncating) and write the header.
    pub fn create(path: &Path, header: &TraceHeader) -> Result<Self, TraceError> {
        let io = |source| TraceError::Io { path: path.to_path_buf(), source };
        let file = File::create(path).map_err(io)?;
        let mut writer = Self { file, path: path.to_path_buf(), next_seq: 0 };
        writer.write_line(&serde_json::to_string(header).expect("header serialises"))?;
        Ok(writer)
    }

    /// Continue `trace` (read from `path`): a cut-off last line is cut away
    /// first, and numbering goes on after its last event.
    pub fn append(path: &Path, trace: &Trace) -> Result<Self, TraceError> {
        let io = |source| TraceError::Io { path: path.to_path_buf(), source };
        let file = OpenOptions::new().write(true).open(path).map_err(io)?;
        file.set_len(trace.complete_len).map_err(io)?;
        drop(file);
        let file = OpenOptions::new().append(true).open(path).map_err(io)?;
        let next_seq = trace.records.last().map_or(0, |r| r.seq + 1);
        Ok(Self { file, path: path.to_path_buf(), next_seq })
    }

    /// Append one event (transient events are skipped) and flush it to the OS.
    pub fn record(&mut self, t_ms: u64, event: &EngineEvent) -> Result<(), TraceError> {
        if event.is_transient() {
            return Ok(());
        }
        let record = TraceRecord { seq: self.next_seq, t_ms, event: event.clone() };
        self.next_seq += 1;
        self.write_line(&serde_json::to_string(&record).expect("events serialise"))
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

/// A trace read back from disk.
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
}

impl Trace {
    /// Read `path`. A cut-off last line is dropped; a bad line elsewhere is an error.
    pub fn read(path: &Path) -> Result<Self, TraceError> {
        let io = |source| TraceError::Io { path: path.to_path_buf(), source };
        let malformed =
            |line: usize, message: String| TraceError::Malformed { path: path.to_path_buf(), line, message };
        let reader = BufReader::new(File::open(path).map_err(io)?);
        let mut lines = Vec::new();
        for line in reader.split(b'\n') {
            lines.push(line.map_err(io)?);
        }
        while lines.last().is_some_and(|l| l.iter().all(u8::is_ascii_whitespace)) {
            lines.pop();
        }
        let Some(first) = lines.first() else {
            return Err(malformed(1, "empty file, expected a trace header".into()));
        };
        let header: TraceHeader = serde_json::from_slice(first)
            .map_err(|err| malformed(1, format!("not an eval-dag trace header ({err})")))?;
        if header.format != TRACE_FORMAT {
            return Err(malformed(1, format!("format is {:?}, expected {TRACE_FORMAT:?}", header.format)));
        }
        if header.version > TRACE_VERSION {
            return Err(malformed(
                1,
                format!("trace version {} is newer than this eval-dag understands ({TRACE_VERSION})", header.version),
            ));
        }
        let mut records = Vec::with_capacity(lines.len());
        let mut truncated_tail = false;
        let mut complete_len = first.len() as u64 + 1;
        let last = lines.len() - 1;
        for (index, line) in lines.iter().enumerate().skip(1) {
            match serde_json::from_slice::<TraceRecord>(line) {
                Ok(record) => {
                    records.push(record);
                    complete_len += line.len() as u64 + 1;
                }
                Err(_) if index == last => truncated_tail = true,
                Err(err) => return Err(malformed(index + 1, err.to_string())),
            }
        }
        Ok(Self { header, records, truncated_tail, complete_len })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ControlAction;

    fn header() -> TraceHeader {
        TraceHeader {
            format: TRACE_FORMAT.into(),
            version: TRACE_VERSION,
            created_at: "2026-01-01T00:00:00Z".into(),
            settings: RunSettings::default(),
        }
    }

    #[test]
    fn events_round_trip_and_transient_ones_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut writer = TraceWriter::create(&path, &header()).unwrap();
        writer.record(5, &EngineEvent::Control(ControlAction::Paused)).unwrap();
        writer.record(6, &EngineEvent::LlmTextDelta { call_id: 1, text: "x".into() }).unwrap();
        writer.record(9, &EngineEvent::Control(ControlAction::Resumed)).unwrap();
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
        writer.record(1, &EngineEvent::Control(ControlAction::Paused)).unwrap();
        drop(writer);
        std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"{\"seq\":1,\"t_ms\":2,\"ev").unwrap();
        let trace = Trace::read(&path).unwrap();
        assert!(trace.truncated_tail);
        assert_eq!(trace.records.len(), 1);
        let mut writer = TraceWriter::append(&path, &trace).unwrap();
        writer.record(3, &EngineEvent::Control(ControlAction::Resumed)).unwrap();
        let trace = Trace::read(&path).unwrap();
        assert!(!trace.truncated_tail);
        assert_eq!(trace.records.iter().map(|r| r.seq).collect::<Vec<_>>(), vec![0, 1]);
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
}
