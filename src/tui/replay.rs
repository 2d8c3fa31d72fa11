//! Replay of a saved trace: play/pause, step, seek and speed, with state
//! snapshots so scrubbing back and forth never re-reads the file.

use std::time::Duration;

use crate::engine::RunState;
use crate::trace::TraceRecord;

/// At most this many snapshots are kept (memory stays bounded on big traces).
const MAX_SNAPSHOTS: usize = 16;
/// Longest pause between two replayed events, whatever the recorded gap.
const MAX_GAP: Duration = Duration::from_secs(2);

/// Where a replay stands.
pub struct Replay {
    records: Vec<TraceRecord>,
    snapshots: Vec<(usize, RunState)>,
    /// Events applied so far.
    pub position: usize,
    /// Whether events play on their own.
    pub playing: bool,
    /// Playback speed factor.
    pub speed: f64,
}

impl Replay {
    /// A replay of `records` and the state to show first: the final state, or
    /// the empty start when `from_start`.
    pub fn new(records: Vec<TraceRecord>, from_start: bool) -> (Self, RunState) {
        let every = (records.len() / MAX_SNAPSHOTS).max(256);
        let mut state = RunState::default();
        let mut snapshots = vec![(0, state.clone())];
        for (index, record) in records.iter().enumerate() {
            state.apply(record.t_ms, &record.event);
            if (index + 1) % every == 0 {
                snapshots.push((index + 1, state.clone()));
            }
        }
        let total = records.len();
        let mut replay = Self { records, snapshots, position: total, playing: false, speed: 1.0 };
        if from_start {
            replay.position = 0;
            return (replay, RunState::default());
        }
        (replay, state)
    }

    /// Number of events.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether the trace has no events.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Recorded time of the current position, ms.
    pub fn now_ms(&self) -> u64 {
        self.position.checked_sub(1).and_then(|i| self.records.get(i)).map_or(0, |r| r.t_ms)
    }

    /// Move to `target` events applied and return the state there.
    pub fn seek(&mut self, target: usize) -> RunState {
        let target = target.min(self.records.len());
        let (start, base) = self.snapshots.iter().rev().find(|(at, _)| *at <= target).expect("a snapshot at 0");
        let mut state = base.clone();
        for record in &self.records[*start..target] {
            state.apply(record.t_ms, &record.event);
        }
        self.position = target;
        state
    }

    /// Apply the next event to `state`; false at the end.
    pub fn forward(&mut self, state: &mut RunState) -> bool {
        let Some(record) = self.records.get(self.position) else {
            self.playing = false;
            return false;
        };
        state.apply(record.t_ms, &record.event);
        self.position += 1;
        true
    }

    /// How long to wait before the next event when playing.
    pub fn next_delay(&self) -> Option<Duration> {
        let next = self.records.get(self.position)?;
        let gap_ms = next.t_ms.saturating_sub(self.now_ms());
        Some(Duration::from_secs_f64(gap_ms as f64 / 1000.0 / self.speed.max(0.01)).min(MAX_GAP))
    }

    /// Change the speed by `factor` (kept within 1/16×…64×).
    pub fn scale_speed(&mut self, factor: f64) {
        self.speed = (self.speed * factor).clamp(1.0 / 16.0, 64.0);
    }
}
