//! What the event loop asks of the app: the clock, a replay's playback and
//! loading, a derived run's events, faults met while drawing, the spinner.

use std::time::Instant;

use tokio::sync::mpsc::UnboundedReceiver;

use super::App;
use crate::run::EngineEvent;
use crate::text::duration;
use crate::tui::containment::contained;
use crate::tui::editing::EditRequest;
use crate::tui::keymap::Action;
use crate::tui::loading::Loaded;
use crate::tui::replay::{Loading, Replay};

impl App {
    /// The replay's keys: play, step, seek, speed.
    pub(super) fn replay_action(&mut self, action: Action) {
        let Some(replay) = &mut self.replay else { return };
        let now = self.now;
        self.revision += 1;
        match action {
            Action::Play => replay.toggle(&mut self.state, now),
            Action::Forward => replay.jump(&mut self.state, now),
            Action::Backward => {
                replay.pause();
                let target = replay.position.saturating_sub(1);
                self.state = replay.seek(target, now);
            }
            Action::Start => self.state = replay.seek(0, now),
            Action::End => self.state = replay.seek(usize::MAX, now),
            Action::Faster => replay.scale_speed(2.0, now),
            Action::Slower => replay.scale_speed(0.5, now),
            _ => {}
        }
    }

    /// Whether the loop goes on: the user has not quit and asks for no edit.
    pub fn running(&self) -> bool {
        !self.quit && self.edit.is_none()
    }

    /// Quit (a signal came).
    pub fn stop(&mut self) {
        self.quit = true;
    }

    /// The edit asked for, taken (the loop lets go of the terminal for it).
    pub fn take_edit(&mut self) -> Option<EditRequest> {
        self.edit.take()
    }

    /// A derived run's events, once, for the loop to listen to.
    pub fn take_new_events(&mut self) -> Option<UnboundedReceiver<(u64, EngineEvent)>> {
        self.new_events.take()
    }

    /// The loop woke at `now`.
    pub fn set_now(&mut self, now: Instant) {
        self.now = now;
    }

    /// The fault met drawing the last frame, or none when it drew.
    pub fn set_fault(&mut self, fault: Option<String>) {
        self.fault = fault;
    }

    /// Play the replay's events due at `now`; whether any were.
    pub fn play_due(&mut self, now: Instant) -> bool {
        let Some(replay) = self.replay.as_mut() else { return false };
        if replay.deadline().is_none_or(|due| due > now) {
            return false;
        }
        self.revision += 1;
        match contained(|| replay.advance(&mut self.state, now)) {
            Ok(_) => self.refresh(),
            Err(fault) => self.message = Some(format!("playback failed: {fault} (logged)")),
        }
        true
    }

    /// When the replay plays its next event.
    pub fn playback_deadline(&self) -> Option<Instant> {
        self.replay.as_ref().and_then(Replay::deadline)
    }

    /// The replay's loading still under way, taken while the loop waits on it.
    pub fn take_loading(&mut self) -> Option<Loading> {
        self.replay.as_mut().and_then(Replay::take_loading)
    }

    /// Give the loading back to the replay.
    pub fn keep_loading(&mut self, loading: Loading) {
        if let Some(replay) = self.replay.as_mut() {
            replay.keep_loading(loading);
        }
    }

    /// A chunk `loaded` of the trace the replay reads while `still` loads the rest.
    pub fn receive(&mut self, loaded: Loaded, still: Loading) {
        let Some(replay) = self.replay.as_mut() else { return };
        replay.keep_loading(still);
        self.revision += 1;
        let note = replay.receive(loaded, &mut self.state);
        self.message = note.or(self.message.take());
        self.refresh();
    }

    /// The spinners' next frame and a live run's clock, when something moves.
    pub fn tick(&mut self) -> bool {
        let moving = self.animating();
        if moving {
            self.spinner += 1;
        }
        let clock_moved = self.follow_wall_clock();
        // Every screen polls (no short cut): each drains its own channel.
        let polled = self.stack.iter_mut().map(|screen| screen.poll()).filter(|&took| took).count() > 0;
        if polled {
            self.refresh();
        }
        moving || polled || clock_moved
    }

    /// In a live run not yet finished, move the run's clock on with the wall
    /// clock since the latest event (the header's elapsed time, a batch's age,
    /// the working questions' times); in a replay that plays, with its cursor
    /// between events. At most every [`CLOCK_STEP_MS`] and only when the time
    /// shown changes; whether it moved.
    fn follow_wall_clock(&mut self) -> bool {
        let cursor = self.replay.as_ref().and_then(|replay| replay.cursor_ms(self.now));
        let Some(estimate) = cursor.or_else(|| self.live_clock()) else { return false };
        let shown = self.state.now_ms;
        if estimate < shown.saturating_add(CLOCK_STEP_MS) || duration(estimate) == duration(shown) {
            return false;
        }
        self.state_mut().advance_clock(estimate);
        true
    }

    /// A live run's time now: the latest event's plus the wall clock since it came.
    fn live_clock(&self) -> Option<u64> {
        let (folded, t_ms) = self.clock_anchor?;
        if self.commands.is_none() || self.state.summary.is_some() {
            return None;
        }
        let waited = u64::try_from(self.now.saturating_duration_since(folded).as_millis()).unwrap_or(u64::MAX);
        Some(t_ms.saturating_add(waited))
    }
}

/// The smallest step of a live run's clock between events: redraws for it
/// stay at a few a second.
const CLOCK_STEP_MS: u64 = 200;
