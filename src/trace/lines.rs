//! Reading a trace without holding it: one pass over the file finds where each
//! event line sits (its byte offset and length) and keeps only that index;
//! events are parsed when asked for, read back with positional reads. The
//! pass reads the file a buffer at a time, so memory stays far below the
//! file's size; a reader that folds as it goes ([`TraceScan`]) hands over the
//! events of each block it read.
//!
//! Positional reads rather than a memory map: every page of a mapped file
//! the first pass touches stays in the process's resident set, which would
//! grow with the trace; reads through the page cache do not.

use std::{
    collections::BTreeMap,
    fs::File,
    io::{BufRead, BufReader, Seek},
    os::unix::fs::FileExt,
    path::{Path, PathBuf},
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
        mpsc,
    },
};

use serde::Deserialize;

use super::{TRACE_FORMAT, TRACE_VERSION, TraceError, TraceHeader, TraceRecord, newer_version_note, upgrade};

/// Event lines parsed per block by the workers of [`TraceLines::for_each`].
pub(super) const PARSE_BLOCK: usize = 512;
/// Bytes read from the file at a time by the first pass.
const READ_BUFFER: usize = 1 << 20;

/// Where one line sits in the file (without its newline).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LineSpan {
    offset: u64,
    len: usize,
}

impl LineSpan {
    fn end(&self) -> u64 {
        self.offset + self.len as u64
    }
}

/// One line read by the first pass.
struct Line {
    span: LineSpan,
    /// 1-based line number.
    number: usize,
    bytes: Vec<u8>,
}

/// A file's lines in order, a buffer at a time.
struct LineReader {
    reader: BufReader<File>,
    /// Offset of the next byte to read.
    offset: u64,
    /// Lines read so far.
    read: usize,
    path: PathBuf,
}

impl LineReader {
    /// The next line, without its newline.
    fn next(&mut self) -> Result<Option<Line>, TraceError> {
        let mut bytes = Vec::new();
        let read = self
            .reader
            .read_until(b'\n', &mut bytes)
            .map_err(|source| TraceError::Io { path: self.path.clone(), source })?;
        if read == 0 {
            return Ok(None);
        }
        let span = LineSpan { offset: self.offset, len: read - usize::from(bytes.last() == Some(&b'\n')) };
        self.offset += read as u64;
        bytes.truncate(span.len);
        self.read += 1;
        Ok(Some(Line { span, number: self.read, bytes }))
    }
}

/// How one event line reads.
enum Parsed {
    Record(Box<TraceRecord>),
    /// An event of a kind a newer version wrote and this one does not know.
    Skipped(String),
}

/// Parse one event line of a trace with `header`; a line of an earlier
/// version is read into the current shape.
fn parse(header: &TraceHeader, bytes: &[u8]) -> Result<TraceRecord, serde_json::Error> {
    // Versions 3 and 4 only added fields and kinds to version 2; version 5
    // names the provider of every call, the run's one before it; version 6
    // only added fields with defaults.
    match header.version {
        5.. => serde_json::from_slice(bytes),
        version => serde_json::from_slice(bytes).and_then(|mut record| {
            if version < 2 {
                upgrade::from_v1(&mut record);
            }
            upgrade::from_v4(&mut record, &header.settings.provider);
            serde_json::from_value(record)
        }),
    }
}

/// Reads a trace's lines in order, a buffer at a time. A line is handed on
/// only once the next non-blank line is known, so the last line can be
/// judged as the last: cut off (dropped, the trace `truncated_tail`) or
/// followed only by blank lines (dropped).
pub struct TraceScan {
    /// The header.
    pub header: TraceHeader,
    path: PathBuf,
    file: Arc<File>,
    lines: LineReader,
    /// Size of the file when it was opened.
    file_len: u64,
    /// Offset just after the header line.
    header_end: u64,
    /// The last non-blank line, held back, then blank lines after it.
    held: Vec<Line>,
    /// Lines ready to hand on, in order.
    ready: std::collections::VecDeque<Line>,
    at_end: bool,
    truncated_tail: bool,
    skipped: BTreeMap<String, usize>,
}

impl TraceScan {
    /// Open `path` and read its header.
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        let io = |source| TraceError::Io { path: path.to_path_buf(), source };
        let file = File::open(path).map_err(io)?;
        let file_len = file.metadata().map_err(io)?.len();
        let reader = BufReader::with_capacity(READ_BUFFER, file.try_clone().map_err(io)?);
        let mut lines = LineReader { reader, offset: 0, read: 0, path: path.to_path_buf() };
        let malformed = |message: String| TraceError::Malformed { path: path.to_path_buf(), line: 1, message };
        let Some(first) = lines.next()?.filter(|l| !l.bytes.trim_ascii().is_empty()) else {
            return Err(malformed("empty file, expected a trace header".into()));
        };
        let header: TraceHeader = serde_json::from_slice(&first.bytes)
            .and_then(|mut header: serde_json::Value| {
                if header.get("version").and_then(serde_json::Value::as_u64).is_some_and(|v| v < 5) {
                    upgrade::settings_from_v4(&mut header["settings"]);
                }
                serde_json::from_value(header)
            })
            .map_err(|err| malformed(format!("not an eval-dag trace header ({err})")))?;
        if header.format != TRACE_FORMAT {
            return Err(malformed(format!("format is {:?}, expected {TRACE_FORMAT:?}", header.format)));
        }
        Ok(Self {
            header,
            path: path.to_path_buf(),
            file: Arc::new(file),
            lines,
            file_len,
            header_end: first.span.end() + 1,
            held: Vec::new(),
            ready: Default::default(),
            at_end: false,
            truncated_tail: false,
            skipped: BTreeMap::new(),
        })
    }

    /// [`TraceScan::open`], then on from byte `offset`: the end of a block an
    /// earlier scan of the same trace read ([`TraceBlock::end`]), so a reader
    /// of a growing trace reads only what was appended since. Line numbers
    /// in errors then count from there.
    pub fn open_at(path: &Path, offset: u64) -> Result<Self, TraceError> {
        let mut scan = Self::open(path)?;
        if offset > scan.header_end {
            let io = |source| TraceError::Io { path: path.to_path_buf(), source };
            scan.lines.reader.seek(std::io::SeekFrom::Start(offset)).map_err(io)?;
            scan.lines.offset = offset;
        }
        Ok(scan)
    }

    /// An empty index of this trace, which the blocks read extend.
    pub fn index(&self) -> TraceLines {
        TraceLines {
            header: self.header.clone(),
            truncated_tail: false,
            skipped: BTreeMap::new(),
            path: self.path.clone(),
            file: self.file.clone(),
            header_end: self.header_end,
            spans: Vec::new(),
        }
    }

    /// Share of the file read so far, 0 to 1.
    pub fn progress(&self) -> f64 {
        if self.file_len == 0 { 1.0 } else { (self.lines.offset as f64 / self.file_len as f64).min(1.0) }
    }

    /// The next event line, judged against what follows it.
    fn next_line(&mut self) -> Result<Option<Line>, TraceError> {
        while self.ready.is_empty() && !self.at_end {
            match self.lines.next()? {
                Some(line) if line.bytes.trim_ascii().is_empty() => self.held.push(line),
                Some(line) => {
                    self.ready.extend(self.held.drain(..));
                    self.held.push(line);
                }
                None => {
                    self.at_end = true;
                    // Blank lines at the end are nothing; the last line counts if it reads.
                    self.held.truncate(1);
                    if let Some(last) = self.held.pop().filter(|l| !l.bytes.trim_ascii().is_empty()) {
                        match self.classify(&last) {
                            Ok(_) => self.ready.push_back(last),
                            Err(_) => self.truncated_tail = true,
                        }
                    }
                }
            }
        }
        Ok(self.ready.pop_front())
    }

    /// Read one line: an event, or one of a kind a newer version wrote.
    fn classify(&self, line: &Line) -> Result<Parsed, TraceError> {
        let malformed = |message: String| TraceError::Malformed { path: self.path.clone(), line: line.number, message };
        if std::str::from_utf8(&line.bytes).is_err() {
            return Err(malformed("not UTF-8 text".into()));
        }
        match parse(&self.header, &line.bytes) {
            Ok(record) => Ok(Parsed::Record(Box::new(record))),
            Err(err) => match self.unknown_kind(&line.bytes) {
                Some(kind) => Ok(Parsed::Skipped(kind)),
                None => Err(malformed(err.to_string())),
            },
        }
    }

    /// The kind (`event.type`) of a line this version cannot read, in a trace of a newer version.
    fn unknown_kind(&self, bytes: &[u8]) -> Option<String> {
        #[derive(Deserialize)]
        struct Kind {
            #[serde(rename = "type")]
            kind: String,
        }
        #[derive(Deserialize)]
        struct Line {
            event: Kind,
        }
        if self.header.version <= TRACE_VERSION {
            return None;
        }
        serde_json::from_slice::<Line>(bytes).ok().map(|l| l.event.kind)
    }

    /// Count a skipped kind.
    fn skip(&mut self, kind: String) {
        *self.skipped.entry(kind).or_default() += 1;
    }

    /// Parse up to `max` more events, stopping early after one that is `last`;
    /// `None` once every line was read.
    pub fn next_block(
        &mut self,
        max: usize,
        last: impl Fn(&TraceRecord) -> bool,
    ) -> Result<Option<TraceBlock>, TraceError> {
        let mut block = TraceBlock { records: Vec::new(), spans: Vec::new() };
        while block.records.len() < max {
            let Some(line) = self.next_line()? else { break };
            match self.classify(&line)? {
                Parsed::Record(record) => {
                    let stop = last(&record);
                    block.records.push(*record);
                    block.spans.push(line.span);
                    if stop {
                        break;
                    }
                }
                Parsed::Skipped(kind) => self.skip(kind),
            }
        }
        Ok((!block.records.is_empty()).then_some(block))
    }

    /// Index the rest of the file into `lines` without parsing its events
    /// (but those of a newer version's trace, to skip the kinds it cannot read).
    fn index_rest(&mut self, lines: &mut TraceLines) -> Result<(), TraceError> {
        let newer = self.header.version > TRACE_VERSION;
        while let Some(line) = self.next_line()? {
            if std::str::from_utf8(&line.bytes).is_err() {
                let message = "not UTF-8 text".to_string();
                return Err(TraceError::Malformed { path: self.path.clone(), line: line.number, message });
            }
            if newer && let Ok(Parsed::Skipped(kind)) = self.classify(&line) {
                self.skip(kind);
                continue;
            }
            lines.spans.push(line.span);
        }
        lines.finish(self.ending());
        Ok(())
    }

    /// What the pass found besides events (complete once the pass is over).
    pub fn ending(&self) -> TraceEnding {
        TraceEnding { truncated_tail: self.truncated_tail, skipped: self.skipped.clone() }
    }
}

/// What a whole pass over a trace found besides its events.
#[derive(Debug, Clone, Default)]
pub struct TraceEnding {
    /// Whether the last line was cut off.
    pub truncated_tail: bool,
    /// Events of kinds this version does not know, skipped, by kind.
    pub skipped: BTreeMap<String, usize>,
}

/// Events read by one [`TraceScan::next_block`], with where they sit.
pub struct TraceBlock {
    /// The events, in order.
    pub records: Vec<TraceRecord>,
    spans: Vec<LineSpan>,
}

impl TraceBlock {
    /// The byte offset past the last event's line and its newline: where a
    /// later scan of the grown file goes on ([`TraceScan::open_at`]).
    pub fn end(&self) -> Option<u64> {
        self.spans.last().map(|span| span.end() + 1)
    }
}

/// A trace's event lines indexed by byte offset: events are parsed on
/// demand, one at a time or all of them in parallel. A replay holds this
/// instead of parsed events.
#[derive(Debug, Clone)]
pub struct TraceLines {
    /// The header.
    pub header: TraceHeader,
    /// Whether the last line was cut off (the run was killed mid-write).
    pub truncated_tail: bool,
    /// Events of kinds this version does not know, skipped (a newer trace
    /// only), with how many of each.
    pub skipped: BTreeMap<String, usize>,
    path: PathBuf,
    file: Arc<File>,
    header_end: u64,
    /// Every event line.
    spans: Vec<LineSpan>,
}

impl TraceLines {
    /// Read and index `path`: the header is checked and a cut-off last line
    /// dropped now; the other lines are parsed when asked for.
    pub fn read(path: &Path) -> Result<Self, TraceError> {
        let mut scan = TraceScan::open(path)?;
        let mut lines = scan.index();
        scan.index_rest(&mut lines)?;
        Ok(lines)
    }

    /// Add the events of `block` (read from this trace) to the index.
    pub fn extend(&mut self, block: &TraceBlock) {
        self.spans.extend_from_slice(&block.spans);
    }

    /// Record what the pass found at the end of the file.
    pub fn finish(&mut self, ending: TraceEnding) {
        self.truncated_tail = ending.truncated_tail;
        self.skipped = ending.skipped;
    }

    /// What a reader should say once about a trace of a newer version, if it is one.
    pub fn newer_version_note(&self) -> Option<String> {
        newer_version_note(&self.header, &self.skipped)
    }

    /// Number of complete events.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether the trace has no events.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Length in bytes of the complete lines (where appending must start).
    pub fn complete_len(&self) -> u64 {
        self.spans.last().map_or(self.header_end, |l| l.end() + 1)
    }

    /// The bytes of the file from `from` to `to`.
    fn bytes(&self, from: u64, to: u64) -> Result<Vec<u8>, TraceError> {
        let mut buffer = vec![0; (to - from) as usize];
        self.file
            .read_exact_at(&mut buffer, from)
            .map_err(|source| TraceError::Io { path: self.path.clone(), source })?;
        Ok(buffer)
    }

    fn parse_at(&self, index: usize, bytes: &[u8]) -> Result<TraceRecord, TraceError> {
        parse(&self.header, bytes).map_err(|err| TraceError::Malformed {
            path: self.path.clone(),
            line: index + 2,
            message: err.to_string(),
        })
    }

    /// Parse event `index` (0-based).
    pub fn record(&self, index: usize) -> Result<TraceRecord, TraceError> {
        let span = self.spans[index];
        self.parse_at(index, &self.bytes(span.offset, span.end())?)
    }

    /// Parse events `range`, reading their lines at once.
    fn records(&self, range: std::ops::Range<usize>) -> Result<Vec<TraceRecord>, TraceError> {
        let Some(first) = self.spans.get(range.start) else { return Ok(Vec::new()) };
        let start = first.offset;
        let bytes = self.bytes(start, self.spans[range.end - 1].end())?;
        range
            .map(|i| {
                let from = (self.spans[i].offset - start) as usize;
                self.parse_at(i, &bytes[from..from + self.spans[i].len])
            })
            .collect()
    }

    /// Parse every event, blocks of lines on all cores at once, and hand them
    /// to `f` in order on this thread. Stops at the first bad line.
    pub fn for_each(&self, mut f: impl FnMut(TraceRecord)) -> Result<(), TraceError> {
        let blocks = self.len().div_ceil(PARSE_BLOCK);
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(blocks);
        let parse_block = |block: usize| self.records(block * PARSE_BLOCK..((block + 1) * PARSE_BLOCK).min(self.len()));
        if workers <= 1 {
            for block in 0..blocks {
                parse_block(block)?.into_iter().for_each(&mut f);
            }
            return Ok(());
        }
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            let (sender, receiver) = mpsc::sync_channel(workers * 2);
            for _ in 0..workers {
                let sender = sender.clone();
                let (next, parse_block) = (&next, &parse_block);
                scope.spawn(move || {
                    loop {
                        let block = next.fetch_add(1, Ordering::Relaxed);
                        // The receiver is gone after a bad line: stop.
                        if block >= blocks || sender.send((block, parse_block(block))).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(sender);
            let mut waiting = BTreeMap::new();
            let mut expected = 0;
            for (block, parsed) in receiver {
                waiting.insert(block, parsed);
                while let Some(parsed) = waiting.remove(&expected) {
                    parsed?.into_iter().for_each(&mut f);
                    expected += 1;
                }
            }
            Ok(())
        })
    }
}

impl AsRef<TraceLines> for TraceLines {
    fn as_ref(&self) -> &TraceLines {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{Command, EngineEvent, RunSettings};
    use crate::trace::{Trace, TraceWriter};

    /// A trace of `count` control events, its text, and where it is.
    fn written(dir: &Path, count: u64) -> (PathBuf, String) {
        let path = dir.join("t.jsonl");
        let mut writer = TraceWriter::create(&path, &TraceHeader::new(RunSettings::default())).unwrap();
        for t in 0..count {
            writer.record(t, &EngineEvent::Control(if t % 2 == 0 { Command::Pause } else { Command::Resume })).unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        (path, text)
    }

    #[test]
    fn blocks_read_as_they_come_index_the_same_events_as_a_whole_read() {
        let dir = tempfile::tempdir().unwrap();
        let (path, _) = written(dir.path(), 1000);
        let whole = Trace::read(&path).unwrap();
        let mut scan = TraceScan::open(&path).unwrap();
        let mut index = scan.index();
        let mut records = Vec::new();
        let mut progress = 0.0;
        while let Some(block) = scan.next_block(300, |r| r.seq == 10).unwrap() {
            assert!(scan.progress() >= progress);
            progress = scan.progress();
            index.extend(&block);
            records.extend(block.records);
        }
        assert_eq!(progress, 1.0);
        index.finish(scan.ending());
        assert_eq!(records, whole.records);
        assert_eq!(index.len(), 1000);
        assert_eq!(
            (index.record(777).unwrap(), index.complete_len()),
            (whole.records[777].clone(), whole.complete_len)
        );
    }

    #[test]
    fn blank_lines_at_the_end_are_nothing_but_one_in_the_middle_is_a_bad_line() {
        let dir = tempfile::tempdir().unwrap();
        let (path, text) = written(dir.path(), 3);
        std::fs::write(&path, format!("{text}\n  \n\n")).unwrap();
        let trace = Trace::read(&path).unwrap();
        assert_eq!((trace.records.len(), trace.truncated_tail), (3, false));
        let mut lines: Vec<&str> = text.lines().collect();
        lines.insert(2, "");
        std::fs::write(&path, lines.join("\n")).unwrap();
        let err = Trace::read(&path).unwrap_err().to_string();
        assert!(err.contains("line 3"), "{err}");
    }

    #[test]
    fn a_newer_traces_unknown_last_event_is_skipped_not_taken_for_a_cut_off_line() {
        let dir = tempfile::tempdir().unwrap();
        let (path, text) = written(dir.path(), 2);
        let newer =
            text.replacen(&format!("\"version\":{TRACE_VERSION}"), &format!("\"version\":{}", TRACE_VERSION + 1), 1);
        let future = r#"{"seq":2,"t_ms":2,"event":{"type":"from_the_future"}}"#;
        std::fs::write(&path, format!("{newer}{future}\n")).unwrap();
        let trace = TraceLines::read(&path).unwrap();
        assert_eq!((trace.len(), trace.truncated_tail), (2, false));
        assert_eq!(trace.skipped.get("from_the_future"), Some(&1));
        let mut scan = TraceScan::open(&path).unwrap();
        assert_eq!(scan.next_block(10, |_| false).unwrap().map(|b| b.records.len()), Some(2));
        assert!(scan.next_block(10, |_| false).unwrap().is_none());
        assert!(!scan.ending().truncated_tail && scan.ending().skipped.contains_key("from_the_future"));
    }
}
