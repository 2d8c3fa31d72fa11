//! Headless progress: the activity feed as plain lines on stderr, under a
//! progress bar when stderr is a terminal.

use std::io::{IsTerminal, Write};

use indicatif::{ProgressBar, ProgressStyle};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use crate::run::{Command, EngineEvent, FeedEntry, QuestionStatus, RunState};

fn line(entry: &FeedEntry) -> String {
    let question = entry.question_id.as_deref().map(|q| format!("{q} ")).unwrap_or_default();
    format!("[{:>7.1}s] {question}{}", entry.t_ms as f64 / 1000.0, entry.text)
}

/// Apply one event and return the feed lines it produced.
pub fn apply_and_describe(state: &mut RunState, t_ms: u64, event: &EngineEvent) -> Vec<String> {
    let seen = state.feed_total;
    state.apply(t_ms, event);
    let fresh = (state.feed_total - seen) as usize;
    state.feed.iter().skip(state.feed.len().saturating_sub(fresh)).map(line).collect()
}

/// Fold `events` into `state` (empty, or an earlier run being continued) until
/// the engine closes the channel, printing progress as it goes. A closed
/// stderr never stops the run. When `stop` resolves (the first SIGINT,
/// SIGTERM or SIGHUP) the run is cancelled through `commands` and finishes
/// its records; a second signal ends the process at once (every event written
/// so far is kept).
pub async fn follow(
    mut events: UnboundedReceiver<(u64, EngineEvent)>,
    mut state: RunState,
    commands: UnboundedSender<Command>,
    stop: crate::tui::Stop,
) -> RunState {
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = ProgressBar::new(0);
        let style = ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}");
        bar.set_style(style.unwrap_or_else(|_| ProgressStyle::default_bar()).progress_chars("=> "));
        bar
    });
    let mut interrupted = stop;
    let mut cancelling = false;
    loop {
        let (t_ms, event) = tokio::select! {
            received = events.recv() => match received {
                Some(received) => received,
                None => break,
            },
            signal = &mut interrupted => {
                if cancelling {
                    let _ = writeln!(std::io::stderr(), "{signal} again: stopping now");
                    std::process::exit(130);
                }
                cancelling = true;
                let _ = writeln!(std::io::stderr(), "{signal}: cancelling the run (again to stop at once)");
                let _ = commands.send(Command::CancelRun);
                interrupted = Box::pin(super::signals::interrupted());
                continue;
            }
        };
        for text in apply_and_describe(&mut state, t_ms, &event) {
            match &bar {
                Some(bar) => bar.println(text),
                None => {
                    let _ = writeln!(std::io::stderr(), "{text}");
                }
            }
        }
        if let Some(bar) = &bar {
            let done = state.count(|s| matches!(s, QuestionStatus::Done(_)));
            bar.set_length(state.questions.len() as u64);
            bar.set_position(done as u64);
            bar.set_message(format!("{} tokens", state.usage.total()));
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    state
}
