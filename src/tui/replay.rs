//! Replay of a saved trace: play/pause, step, seek and speed. The trace stays
//! in memory as text and events are parsed when needed; state snapshots taken
//! while the trace is first folded make scrubbing back and forth cheap.

use std::path::Path;
use std::time::Duration;

use crate::engine::RunState;
use crate::trace::{TraceError, TraceLines};

/// About this many snapshots are kept, whatever the trace's length: a seek
/// re-applies at most `len / SNAPSHOTS` events.
const SNAPSHOTS: usize = 64;
/// Fewest events between two snapshots (short traces need few).
const MIN_SNAPSHOT_GAP: usize = 256;
/// Longest pause between two replayed events, whatever the recorded gap.
const MAX_GAP: Duration = Duration::from_secs(2);

/// Where a replay stands.
pub struct Replay {
    trace: TraceLines,
    /// Recorded time of every event, ms.
    times: Vec<u64>,
    /// `(events applied, state)`; snapshots share unchanged questions and calls.
    snapshots: Vec<(usize, RunState)>,
    /// Events applied so far.
    pub position: usize,
    /// Whether events play on their own.
    pub playing: bool,
    /// Playback speed factor.
    pub speed: f64,
}

impl Replay {
    /// A replay of the trace at `path` and the state to show first: the final
    /// state, or the empty start when `from_start`.
    pub fn open(path: &Path, from_start: bool) -> Result<(Self, RunState), TraceError> {
        let trace = TraceLines::read(path)?;
        let every = (trace.len() / SNAPSHOTS).max(MIN_SNAPSHOT_GAP);
        let mut state = RunState::default();
        let mut snapshots = vec![(0, state.clone())];
        let mut times = Vec::with_capacity(trace.len());
        trace.for_each(|record| {
            times.push(record.t_ms);
            state.apply_owned(record.t_ms, record.event);
            if times.len() % every == 0 {
                snapshots.push((times.len(), state.clone()));
            }
        })?;
        let position = if from_start { 0 } else { times.len() };
        let replay = Self { trace, times, snapshots, position, playing: false, speed: 1.0 };
        Ok((replay, if from_start { RunState::default() } else { state }))
    }

    /// Number of events.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Whether the trace has no events.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// Recorded time of the current position, ms.
    pub fn now_ms(&self) -> u64 {
        self.position.checked_sub(1).map_or(0, |i| self.times[i])
    }

    fn apply(&self, state: &mut RunState, index: usize) {
        let record = self.trace.record(index).expect("every line parsed when the trace was opened");
        state.apply_owned(record.t_ms, record.event);
    }

    /// Move to `target` events applied and return the state there.
    pub fn seek(&mut self, target: usize) -> RunState {
        let target = target.min(self.len());
        let (start, base) = self.snapshots.iter().rev().find(|(at, _)| *at <= target).expect("a snapshot at 0");
        let mut state = base.clone();
        for index in *start..target {
            self.apply(&mut state, index);
        }
        self.position = target;
        state
    }

    /// Apply the next event to `state`; false at the end.
    pub fn forward(&mut self, state: &mut RunState) -> bool {
        if self.position >= self.len() {
            self.playing = false;
            return false;
        }
        self.apply(state, self.position);
        self.position += 1;
        true
    }

    /// How long to wait before the next event when playing.
    pub fn next_delay(&self) -> Option<Duration> {
        let next = *self.times.get(self.position)?;
        let gap_ms = next.saturating_sub(self.now_ms());
        Some(Duration::from_secs_f64(gap_ms as f64 / 1000.0 / self.speed.max(0.01)).min(MAX_GAP))
    }

    /// Change the speed by `factor` (kept within 1/16×…64×).
    pub fn scale_speed(&mut self, factor: f64) {
        self.speed = (self.speed * factor).clamp(1.0 / 16.0, 64.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{ControlAction, EngineEvent, RunSettings};
    use crate::trace::{TRACE_FORMAT, TRACE_VERSION, Trace, TraceHeader, TraceWriter};

    /// What a state shows, compared across ways of reaching it.
    fn fingerprint(state: &RunState) -> (usize, u64, u64, bool, Option<String>) {
        let last = state.feed.back().map(|e| e.text.clone());
        (state.events_applied, state.now_ms, state.feed_total, state.paused, last)
    }

    #[test]
    fn seeking_anywhere_matches_folding_from_the_start() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let header = TraceHeader {
            format: TRACE_FORMAT.into(),
            version: TRACE_VERSION,
            created_at: "now".into(),
            settings: RunSettings::default(),
        };
        let mut writer = TraceWriter::create(&path, &header).unwrap();
        let count = MIN_SNAPSHOT_GAP * 5 + 3;
        for t in 0..count as u64 {
            let event = match t % 3 {
                0 => EngineEvent::Control(ControlAction::Paused),
                1 => EngineEvent::Control(ControlAction::Resumed),
                _ => EngineEvent::RunFailed { error: format!("error {t}") },
            };
            writer.record(t * 10, &event).unwrap();
        }
        let records = Trace::read(&path).unwrap().records;
        let (mut replay, last) = Replay::open(&path, false).unwrap();
        assert_eq!((replay.len(), replay.position, last.events_applied), (count, count, count));
        assert!(replay.snapshots.len() > 4, "long traces keep snapshots");
        for target in [0, 1, MIN_SNAPSHOT_GAP - 1, MIN_SNAPSHOT_GAP, count / 2, count - 1, count, count + 9] {
            let mut folded = RunState::default();
            for record in records.iter().take(target) {
                folded.apply(record.t_ms, &record.event);
            }
            let sought = replay.seek(target);
            assert_eq!(fingerprint(&sought), fingerprint(&folded), "seek to {target}");
            assert_eq!(replay.position, target.min(count));
        }
        let mut state = replay.seek(count - 2);
        assert!(replay.forward(&mut state) && replay.forward(&mut state) && !replay.forward(&mut state));
        assert_eq!(fingerprint(&state), fingerprint(&last));
        assert_eq!(replay.now_ms(), (count as u64 - 1) * 10);
    }
}
