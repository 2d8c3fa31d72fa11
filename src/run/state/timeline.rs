//! The run over time, for the charts of a live run or a replay: per time
//! bucket, the questions that finished (passed, or not), the tokens and cost
//! the calls that finished spent, and the most calls in flight. Kept by the
//! reducer as events arrive — a replay's state at its cursor has the series
//! up to the cursor — so a chart never walks the events. Buckets start a
//! tenth of a second wide; when there would be more than [`MAX_BUCKETS`], neighbours
//! merge and the width doubles, so a run of any length keeps a short series.

use super::RunState;
use crate::run::events::{EngineEvent, Outcome};
use crate::run::question_state::QuestionStatus;

/// Most buckets kept.
pub const MAX_BUCKETS: usize = 120;
/// The first buckets' width, ms.
const FIRST_WIDTH_MS: u64 = 100;

/// What happened in one stretch of the run.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TimeBucket {
    /// Questions that finished passed.
    pub passed: u32,
    /// Questions that finished otherwise (failed, exhausted, cancelled, by budget).
    pub failed: u32,
    /// Tokens of the calls that finished.
    pub tokens: u64,
    /// Cost of the calls that finished, USD.
    pub cost_usd: f64,
    /// The most calls in flight at once.
    pub most_in_flight: u32,
}

impl TimeBucket {
    /// This bucket and the one after it as one.
    pub fn merged(self, next: Self) -> Self {
        Self {
            passed: self.passed + next.passed,
            failed: self.failed + next.failed,
            tokens: self.tokens + next.tokens,
            cost_usd: self.cost_usd + next.cost_usd,
            most_in_flight: self.most_in_flight.max(next.most_in_flight),
        }
    }
}

/// The run's series over time.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timeline {
    /// Width of each bucket, ms (0 before the first event counted).
    width_ms: u64,
    /// The buckets from the run's start, the last one holding the latest event counted.
    buckets: Vec<TimeBucket>,
    /// Calls in flight now.
    in_flight: u32,
}

impl Timeline {
    /// The buckets from the run's start.
    pub fn buckets(&self) -> &[TimeBucket] {
        &self.buckets
    }

    /// Width of each bucket, ms.
    pub fn width_ms(&self) -> u64 {
        self.width_ms.max(FIRST_WIDTH_MS)
    }

    /// Calls in flight now.
    pub fn in_flight(&self) -> u32 {
        self.in_flight
    }

    /// The bucket of `t_ms`, made (and the ones before it, carrying the calls in flight) if need be.
    fn at(&mut self, t_ms: u64) -> &mut TimeBucket {
        self.width_ms = self.width_ms();
        while t_ms / self.width_ms >= MAX_BUCKETS as u64 {
            self.buckets =
                self.buckets.chunks(2).filter_map(|pair| pair.iter().copied().reduce(TimeBucket::merged)).collect();
            self.width_ms *= 2;
        }
        let index = (t_ms / self.width_ms) as usize;
        let carried = TimeBucket { most_in_flight: self.in_flight, ..TimeBucket::default() };
        if self.buckets.len() <= index {
            self.buckets.resize(index + 1, carried);
        }
        &mut self.buckets[index]
    }

    /// The calls in flight changed by `delta` at `t_ms`.
    fn calls(&mut self, t_ms: u64, delta: i32) {
        self.in_flight = self.in_flight.saturating_add_signed(delta);
        let now = self.in_flight;
        let bucket = self.at(t_ms);
        bucket.most_in_flight = bucket.most_in_flight.max(now);
    }
}

impl RunState {
    /// Count `event` (at the state's time) in the timeline, before it is folded: calls sent and finished.
    pub(super) fn time_call(&mut self, event: &EngineEvent) {
        let t_ms = self.now_ms;
        match event {
            EngineEvent::LlmCallStarted { call_id, .. } if !self.calls.contains_key(call_id) => {
                self.timeline.calls(t_ms, 1);
            }
            EngineEvent::LlmCallFinished { call_id, usage, cost_usd, .. } => {
                if self.calls.get(call_id).is_some_and(|call| !call.finished) {
                    self.timeline.calls(t_ms, -1);
                }
                let bucket = self.timeline.at(t_ms);
                bucket.tokens += usage.total();
                bucket.cost_usd += cost_usd;
            }
            _ => {}
        }
    }

    /// Count a question that moved from `before` to `after` (at the state's time): one finished.
    pub(super) fn time_question(&mut self, before: QuestionStatus, after: QuestionStatus) {
        let (false, QuestionStatus::Done(outcome)) = (matches!(before, QuestionStatus::Done(_)), after) else {
            return;
        };
        let bucket = self.timeline.at(self.now_ms);
        match outcome {
            Outcome::Passed | Outcome::FixedByHand => bucket.passed += 1,
            Outcome::Drafted => {}
            _ => bucket.failed += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_merge_in_pairs_when_the_run_outgrows_them() {
        let mut timeline = Timeline::default();
        let width = FIRST_WIDTH_MS;
        timeline.calls(0, 1);
        timeline.at(width / 2).passed += 1;
        timeline.at(width * 3 / 2).failed += 1;
        timeline.calls(width * 5 / 2, -1);
        assert_eq!(timeline.buckets().len(), 3);
        assert_eq!(timeline.buckets()[1].most_in_flight, 1, "a bucket with no change carries the calls in flight");
        timeline.at(MAX_BUCKETS as u64 * width).tokens += 7;
        assert_eq!(timeline.width_ms(), 2 * width);
        assert_eq!(timeline.buckets().len(), MAX_BUCKETS / 2 + 1);
        let first = timeline.buckets()[0];
        assert_eq!((first.passed, first.failed, first.most_in_flight), (1, 1, 1));
        assert_eq!(timeline.buckets()[MAX_BUCKETS / 2].tokens, 7);
    }
}
