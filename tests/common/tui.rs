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

/// The run browser over the sample traces as run directories `runs/<name>`
/// (read by the listing): one cut short (interrupted), one with a results
/// file from another tool, and — when `hostile` — one whose name is hostile text.
#[allow(dead_code, reason = "the benches share this module and use only part of it")]
pub fn browser_app(hostile: bool) -> App {
    let root = tempfile::tempdir().unwrap();
    let traces = super::root().join("sample-data/traces");
    let names = [
        ("fraud-offline", "fraud-offline"),
        ("fraud-scripted", "fraud-scripted"),
        ("benchmark-scripted", "benchmark-scripted"),
        (
            "baselines-scripted",
            if hostile {
                "baselines\u{202e}-\t漢字-👍-with-a-name-longer-than-its-column"
            } else {
                "baselines-scripted"
            },
        ),
    ];
    for (trace, dir) in names {
        std::fs::create_dir(root.path().join(dir)).unwrap();
        std::fs::copy(traces.join(format!("{trace}.trace.jsonl")), root.path().join(dir).join("trace.jsonl")).unwrap();
    }
    let cut = root.path().join("fraud-offline/trace.jsonl");
    let text = std::fs::read_to_string(&cut).unwrap();
    std::fs::write(&cut, &text[..text.len() * 2 / 3]).unwrap();
    std::fs::write(root.path().join("fraud-scripted/eval_results.json"), "{\"rows\": []}").unwrap();
    let mut rows = eval_dag::report::list_runs(&[root.path().to_path_buf()]);
    for row in &mut rows {
        row.path = std::path::Path::new("runs").join(row.path.file_name().unwrap());
    }
    App::browsing_rows(vec!["runs".into()], rows, Theme::dark())
}
