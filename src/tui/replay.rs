//! Replay of a saved trace: play/pause, step, seek and speed. The trace stays
//! on disk, indexed by byte offset, and events are parsed when needed; state
//! snapshots taken while the trace is first folded (see [`super::loading`])
//! make scrubbing back and forth cheap. A replay opened with [`Replay::begin`]
//! shows the run as soon as its question list is read and takes the rest
//! in while the UI runs: scrubbing reaches what is loaded, and a replay at
//! the loaded end (where it opens, or where "end" takes it) follows the
//! loading to the last event.
//!
//! Playback keeps a schedule, not a timer: each event is due its recorded gap
//! (divided by the speed, and shortened to the gap cap) after the previous
//! event was due. Waking up late — a redraw, a key, a busy machine — never
//! moves an event later; the events that fell due meanwhile are applied at once.

use std::path::Path;
use std::time::{Duration, Instant};

use tokio::sync::mpsc::UnboundedReceiver;

use super::loading::{Chunk, Loaded, Loader};
use crate::run::RunState;
use crate::trace::{TraceError, TraceLines};
/// Default longest real wait between two played events.
pub const DEFAULT_MAX_GAP: Duration = Duration::from_secs(10);
/// Most events applied in one call of [`Replay::advance`], so a far-behind
/// schedule still lets the screen redraw in between.
const CATCH_UP_BATCH: usize = 5000;

/// Where a replay stands.
pub struct Replay {
    trace: TraceLines,
    /// Recorded time of every event, ms.
    times: Vec<u64>,
    /// `(events applied, state)`; snapshots share unchanged questions and calls.
    snapshots: Vec<(usize, RunState)>,
    /// Events applied so far.
    pub position: usize,
    /// While playing: when the event at `position` is due.
    due: Option<Instant>,
    /// Playback speed factor.
    pub speed: f64,
    /// Longest real wait between two events (`None`: recorded gaps in full).
    pub max_gap: Option<Duration>,
    /// While the trace is still being read: the chunks to come.
    loading: Option<Loading>,
    /// Whether the shown state follows the loading (the replay is at the loaded end).
    follow: bool,
}

/// The part of a trace still being read in the background.
pub struct Loading {
    /// Chunks as they are folded.
    pub chunks: UnboundedReceiver<Loaded>,
    /// Share of the file read, 0 to 1.
    progress: f64,
}

impl Replay {
    /// A replay of the trace at `path`, read whole, and the state to show
    /// first: the final state, or the empty start when `from_start`.
    pub fn open(path: &Path, from_start: bool) -> Result<(Self, RunState), TraceError> {
        let (mut loader, trace) = Loader::open(path)?;
        let (mut replay, mut state) = Self::new(trace, from_start);
        while let Some(loaded) = loader.next_chunk() {
            if let Loaded::Failed(err) = loaded {
                return Err(err);
            }
            replay.receive(loaded, &mut state);
        }
        Ok((replay, state))
    }

    /// A replay of the trace at `path` read up to its question list, the
    /// rest read on a thread of its own ([`Self::take_loading`] hands over
    /// its chunks, [`Self::receive`] takes each in), and the state to show
    /// first: as far as read, or the empty start when `from_start`.
    pub fn begin(path: &Path, from_start: bool) -> Result<(Self, RunState), TraceError> {
        let (mut loader, trace) = Loader::open(path)?;
        let (mut replay, mut state) = Self::new(trace, from_start);
        match loader.next_chunk() {
            Some(Loaded::Failed(err)) => return Err(err),
            Some(Loaded::Done(ending)) => replay.trace.finish(ending),
            Some(loaded) => {
                replay.loading = Some(Loading { chunks: loader.spawn(), progress: 0.0 });
                replay.receive(loaded, &mut state);
            }
            None => {}
        }
        Ok((replay, state))
    }

    fn new(trace: TraceLines, from_start: bool) -> (Self, RunState) {
        let replay = Self {
            trace,
            times: Vec::new(),
            snapshots: vec![(0, RunState::default())],
            position: 0,
            due: None,
            speed: 1.0,
            max_gap: Some(DEFAULT_MAX_GAP),
            loading: None,
            follow: !from_start,
        };
        (replay, RunState::default())
    }

    /// Take in what the loader handed over; `state` (the one shown) moves
    /// with the chunks while the replay follows the loading. What to say
    /// about it, if anything.
    pub fn receive(&mut self, loaded: Loaded, state: &mut RunState) -> Option<String> {
        match loaded {
            Loaded::Chunk(chunk) => {
                let Chunk { block, times, state: after, progress } = *chunk;
                self.trace.extend(&block);
                self.times.extend(times);
                if let Some(loading) = &mut self.loading {
                    loading.progress = progress;
                }
                if self.follow && !self.playing() {
                    self.position = self.len();
                    *state = after.clone();
                }
                self.snapshots.push((self.len(), after));
                None
            }
            Loaded::Done(ending) => {
                self.trace.finish(ending);
                self.loading = None;
                self.note()
            }
            Loaded::Failed(err) => {
                self.loading = None;
                Some(format!("{err}: the replay ends before it"))
            }
        }
    }

    /// The chunks still to come while the trace is being read (the UI's loop
    /// waits on them, then hands them back with [`Self::keep_loading`]).
    pub fn take_loading(&mut self) -> Option<Loading> {
        self.loading.take()
    }

    /// Put back what [`Self::take_loading`] took.
    pub fn keep_loading(&mut self, loading: Loading) {
        self.loading = Some(loading);
    }

    /// While the trace is being read: the share read, 0 to 1.
    pub fn loading_progress(&self) -> Option<f64> {
        self.loading.as_ref().map(|l| l.progress)
    }

    /// What to say once about the trace (one of a newer version), if
    /// anything, once it is read.
    pub fn note(&self) -> Option<String> {
        self.loading.is_none().then(|| self.trace.newer_version_note()).flatten()
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
        // Every line was parsed when it was loaded; reading it again can still fail (the file changed).
        match self.trace.record(index) {
            Ok(record) => state.apply_owned(record.t_ms, record.event),
            Err(err) => tracing::warn!("replay skips event {index}: {err}"),
        }
    }

    /// Move to `target` events applied and return the state there (playing
    /// goes on from there, with the next event due its gap from `now`).
    pub fn seek(&mut self, target: usize, now: Instant) -> RunState {
        self.follow = target >= self.len();
        let target = target.min(self.len());
        let (start, mut state) = self.snapshots.iter().rev().find(|(at, _)| *at <= target).cloned().unwrap_or_default();
        for index in start..target {
            self.apply(&mut state, index);
        }
        self.position = target;
        if self.playing() {
            self.schedule(now);
        }
        state
    }

    /// Apply the next event to `state`; false at the end (playing stops there).
    pub fn forward(&mut self, state: &mut RunState) -> bool {
        if self.position >= self.len() {
            self.due = None;
            return false;
        }
        self.apply(state, self.position);
        self.position += 1;
        true
    }

    /// Whether events play on their own.
    pub fn playing(&self) -> bool {
        self.due.is_some()
    }

    /// Start playing at `now` (from the first event when at the end), or pause.
    pub fn toggle(&mut self, state: &mut RunState, now: Instant) {
        if self.playing() {
            self.due = None;
            return;
        }
        if self.position >= self.len() {
            *state = self.seek(0, now);
        }
        self.schedule(now);
    }

    /// Stop playing.
    pub fn pause(&mut self) {
        self.due = None;
    }

    /// The next event is due its wait from `now`.
    fn schedule(&mut self, now: Instant) {
        self.due = (self.position < self.len()).then(|| now + self.wait());
    }

    /// The recorded gap before the next event.
    pub fn recorded_gap(&self) -> Option<Duration> {
        let next = *self.times.get(self.position)?;
        Some(Duration::from_millis(next.saturating_sub(self.now_ms())))
    }

    /// Real time between the previous event and the next: the recorded gap
    /// over the speed, at most the gap cap.
    fn wait(&self) -> Duration {
        let gap = self.recorded_gap().unwrap_or_default().div_f64(self.speed.max(1.0 / 64.0));
        self.max_gap.map_or(gap, |cap| gap.min(cap))
    }

    /// While playing, the recorded time the cursor has reached at `now`: the
    /// last event's time plus the real time since it played, at the speed,
    /// short of the next event's time (that event moves it on).
    pub fn cursor_ms(&self, now: Instant) -> Option<u64> {
        let (due, next) = (self.due?, *self.times.get(self.position)?);
        let played = due.checked_sub(self.wait()).unwrap_or(due);
        let real = now.saturating_duration_since(played).mul_f64(self.speed.max(1.0 / 64.0));
        let reached = self.now_ms().saturating_add(u64::try_from(real.as_millis()).unwrap_or(u64::MAX));
        Some(reached.min(next.saturating_sub(1)))
    }

    /// When the next event is due, while playing.
    pub fn deadline(&self) -> Option<Instant> {
        self.due
    }

    /// Apply every event due by `now`; how many were applied.
    pub fn advance(&mut self, state: &mut RunState, now: Instant) -> usize {
        let mut applied = 0;
        while let Some(due) = self.due.filter(|due| *due <= now) {
            if applied == CATCH_UP_BATCH || !self.forward(state) {
                break;
            }
            applied += 1;
            self.due = (self.position < self.len()).then(|| due + self.wait());
        }
        applied
    }

    /// While playing, apply the next event at once and go on from `now`;
    /// while paused, one step.
    pub fn jump(&mut self, state: &mut RunState, now: Instant) {
        let playing = self.playing();
        if self.forward(state) && playing {
            self.schedule(now);
        }
    }

    /// Change the speed by `factor` (kept within 1/16×…64×); a wait under way
    /// is rescaled from `now`.
    pub fn scale_speed(&mut self, factor: f64, now: Instant) {
        let old = self.speed;
        self.speed = (self.speed * factor).clamp(1.0 / 16.0, 64.0);
        if let Some(due) = self.due {
            let left = due.saturating_duration_since(now).mul_f64(old / self.speed);
            self.due = Some(now + self.max_gap.map_or(left, |cap| left.min(cap)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{Command, EngineEvent, RunSettings};
    use crate::trace::{Trace, TraceHeader, TraceWriter};
    use crate::tui::loading::MIN_SNAPSHOT_GAP;

    /// What a state shows, compared across ways of reaching it.
    fn fingerprint(state: &RunState) -> (usize, u64, u64, bool, Option<String>) {
        let last = state.feed.back().map(|e| e.text.clone());
        (state.events_applied, state.now_ms, state.feed_total, state.paused, last)
    }

    #[test]
    fn seeking_anywhere_matches_folding_from_the_start() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut writer = TraceWriter::create(&path, &TraceHeader::new(RunSettings::default())).unwrap();
        let count = MIN_SNAPSHOT_GAP * 5 + 3;
        for t in 0..count as u64 {
            let event = match t % 3 {
                0 => EngineEvent::Control(Command::Pause),
                1 => EngineEvent::Control(Command::Resume),
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
            let sought = replay.seek(target, Instant::now());
            assert_eq!(fingerprint(&sought), fingerprint(&folded), "seek to {target}");
            assert_eq!(replay.position, target.min(count));
        }
        let mut state = replay.seek(count - 2, Instant::now());
        assert!(replay.forward(&mut state) && replay.forward(&mut state) && !replay.forward(&mut state));
        assert_eq!(fingerprint(&state), fingerprint(&last));
        assert_eq!(replay.now_ms(), (count as u64 - 1) * 10);
    }

    /// A trace of events at these recorded times (ms).
    fn trace_at(times: &[u64]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut writer = TraceWriter::create(&path, &TraceHeader::new(RunSettings::default())).unwrap();
        for &t in times {
            writer.record(t, &EngineEvent::Control(Command::Pause)).unwrap();
        }
        (dir, path)
    }

    /// Play the trace of `times` at `speed` with a controlled clock that ticks
    /// every `tick` (as redraws and keys would wake the loop) and return the
    /// position at each of `checks` (ms after play was pressed).
    fn positions(times: &[u64], speed: f64, max_gap: Option<Duration>, tick: u64, checks: &[u64]) -> Vec<usize> {
        let (_dir, path) = trace_at(times);
        let (mut replay, mut state) = Replay::open(&path, true).unwrap();
        replay.max_gap = max_gap;
        replay.scale_speed(speed, Instant::now());
        let start = Instant::now();
        replay.toggle(&mut state, start);
        let mut seen = Vec::new();
        let mut clock = 0;
        for &check in checks {
            loop {
                replay.advance(&mut state, start + Duration::from_millis(clock));
                if clock == check {
                    break;
                }
                clock = (clock + tick).min(check);
            }
            seen.push(replay.position);
        }
        assert_eq!(state.events_applied, replay.position, "every applied event reached the state");
        seen
    }

    #[test]
    fn playback_follows_the_recorded_times_whatever_wakes_it() {
        // Gaps of 1 ms, 61 ms, 145 ms (where playback used to stop), 3 s and 40 s.
        let times = [0, 1, 62, 207, 3_207, 43_207, 43_208];
        let checks = [0, 61, 62, 206, 207, 3_206, 3_207, 43_206, 43_207, 43_208];
        for tick in [1, 7, 16, 120, 1000] {
            assert_eq!(
                positions(&times, 1.0, None, tick, &checks),
                [1, 2, 3, 3, 4, 4, 5, 5, 6, 7],
                "×1, woken every {tick} ms"
            );
        }
        // Woken rarely, playback catches up at once and never drifts.
        assert_eq!(positions(&times, 1.0, None, 120, &[100, 250, 3_300, 43_300]), [3, 4, 5, 7]);
        // ×0.5: every gap takes twice as long.
        let half = [0, 123, 124, 413, 414, 6_413, 6_414, 86_413, 86_414, 86_416];
        assert_eq!(positions(&times, 0.5, None, 16, &half), [1, 2, 3, 3, 4, 4, 5, 5, 6, 7]);
        // The cap shortens the 40 s gap to 10 s and leaves the others alone.
        let capped = [3_206, 3_207, 13_206, 13_207, 13_208];
        assert_eq!(positions(&times, 1.0, Some(DEFAULT_MAX_GAP), 16, &capped), [4, 5, 5, 6, 7]);
    }

    #[test]
    fn the_cursors_clock_moves_between_events_at_the_speed_and_stops_short_of_the_next() {
        let (_dir, path) = trace_at(&[0, 10_000, 10_001]);
        for (speed, after_3s) in [(1.0, 3_000), (2.0, 6_000), (0.5, 1_500)] {
            let (mut replay, mut state) = Replay::open(&path, true).unwrap();
            replay.max_gap = None;
            let start = Instant::now();
            replay.scale_speed(speed, start);
            assert_eq!(replay.cursor_ms(start), None, "paused: the clock is the last event's");
            replay.toggle(&mut state, start);
            replay.advance(&mut state, start);
            assert_eq!(replay.position, 1);
            let at = |ms: u64| replay.cursor_ms(start + Duration::from_millis(ms));
            assert_eq!((at(0), at(3_000)), (Some(0), Some(after_3s)), "×{speed}");
            assert_eq!(at(100_000), Some(9_999), "×{speed}: short of the next event");
            replay.pause();
            assert_eq!(replay.cursor_ms(start + Duration::from_secs(1)), None);
        }
    }

    #[test]
    fn jumping_pausing_and_rescaling_keep_the_schedule_honest() {
        let (_dir, path) = trace_at(&[0, 40_000, 40_100]);
        let (mut replay, mut state) = Replay::open(&path, true).unwrap();
        replay.max_gap = None;
        let start = Instant::now();
        replay.toggle(&mut state, start);
        replay.advance(&mut state, start);
        assert_eq!((replay.position, replay.recorded_gap()), (1, Some(Duration::from_secs(40))));
        // `.` while waiting: the next event now, then its follower 100 ms later.
        let later = start + Duration::from_secs(5);
        replay.jump(&mut state, later);
        assert_eq!((replay.position, replay.playing()), (2, true));
        assert_eq!(replay.deadline(), Some(later + Duration::from_millis(100)));
        // Doubling the speed halves what is left of the wait.
        replay.scale_speed(2.0, later);
        assert_eq!(replay.deadline(), Some(later + Duration::from_millis(50)));
        replay.pause();
        assert_eq!(replay.advance(&mut state, later + Duration::from_secs(60)), 0, "paused: nothing plays");
        replay.toggle(&mut state, later);
        assert_eq!(replay.advance(&mut state, later + Duration::from_millis(50)), 1);
        assert!(!replay.playing(), "the end stops playback");
        replay.toggle(&mut state, later);
        assert_eq!((replay.position, state.events_applied, replay.playing()), (0, 0, true), "play at the end restarts");
    }
}
