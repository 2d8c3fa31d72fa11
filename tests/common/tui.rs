//! The TUI without a terminal: apps over a recorded trace — replaying it, or
//! live with a channel standing for the engine — and what a frame shows.

use eval_dag::run::{Command, RunState};
use eval_dag::trace::Trace;
use eval_dag::tui::{App, Replay, Theme};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

/// The scripted sample trace.
pub const SAMPLE: &str = "sample-data/traces/fraud-scripted.trace.jsonl";

/// A replay of the trace at `path` (from the repository root), at its end.
pub fn replay_app(path: &str) -> App {
    let (replay, state) = Replay::open(&super::root().join(path), false).unwrap();
    App::new(state, Theme::dark(), Some(replay), None)
}

/// The trace at `path` folded as if live: commands arrive on the receiver.
pub fn live_app(path: &str) -> (App, UnboundedReceiver<Command>) {
    let mut state = RunState::default();
    for record in Trace::read(&super::root().join(path)).unwrap().records {
        state.apply(record.t_ms, &record.event);
    }
    let (tx, rx) = unbounded_channel();
    (App::new(state, Theme::dark(), None, Some(tx)), rx)
}

/// The text of one frame of an app at a size, trailing spaces cut.
#[allow(unused_imports, reason = "the benches share this module and use only part of it")]
pub use eval_dag::tui::frame_text as screen;
