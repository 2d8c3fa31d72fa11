//! A replay of a large trace draws as soon as its question list is read and
//! folds the rest in the background: the first frame says how far loading
//! got, keys work meanwhile, and once loaded the state is the one folding the
//! whole trace at once gives. A run killed mid-write still loads every
//! finished event.

#[path = "../../benches/support/synthetic_trace.rs"]
mod synthetic_trace;

use std::cell::RefCell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crossterm::event::{Event, KeyCode, KeyEvent};
use eval_dag::report::{eval_results, fold_trace};
use eval_dag::run::RunState;
use eval_dag::trace::Trace;
use eval_dag::tui::{App, Feeds, Replay, Theme, draw, event_loop};
use futures::channel::mpsc::unbounded;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use synthetic_trace::CallSizes;

use crate::common::tui::screen;

/// Questions in the large trace: enough that loading takes a while in a test build.
const QUESTIONS: usize = 2000;
/// Small calls: the test is about the number of events, not their size.
const SMALL: CallSizes = CallSizes { build: (100, 400, 200), review: Some((50, 300, 40)) };

fn large_trace(dir: &Path, questions: usize) -> PathBuf {
    let path = dir.join("large.trace.jsonl");
    synthetic_trace::write_trace_with(&path, questions, 1..=2, &SMALL);
    path
}

/// Everything a state shows, to compare states reached in different ways.
fn shown(state: &RunState) -> String {
    let results = serde_json::to_string(&eval_results(state, "t")).unwrap();
    let rest = (&state.feed, state.feed_total, state.events_applied, state.now_ms, state.usage, state.paused);
    format!("{results}\n{rest:?}\n{:?}\n{:?}", state.calls, state.summary)
}

/// The share loaded the header shows, if it shows one.
fn loading_percent(screen: &str) -> Option<u32> {
    let (_, after) = screen.split_once(" loading ")?;
    after.split_once(" %")?.0.parse().ok()
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::from(code)
}

/// Take in one chunk the loader handed over; false once loading is over.
fn receive_one(app: &mut App) -> bool {
    let Some(mut loading) = app.take_loading() else { return false };
    let Some(loaded) = loading.chunks.blocking_recv() else { return false };
    app.receive(loaded, loading);
    app.replay().unwrap().loading_progress().is_some()
}

#[test]
fn the_first_frame_comes_before_loading_ends_keys_work_meanwhile_and_the_end_is_the_whole_fold() {
    let dir = tempfile::tempdir().unwrap();
    let path = large_trace(dir.path(), QUESTIONS);
    let whole = Trace::read(&path).unwrap();
    let (replay, state) = Replay::begin(&path, false).unwrap();
    assert_eq!(state.questions.len(), QUESTIONS, "the question list is in the first frame");
    assert!(replay.len() < 10, "only the run's start was read: {} events", replay.len());
    let mut app = App::new(state, Theme::dark(), Some(replay), None);
    let first = screen(&app, 160, 48);
    assert!(loading_percent(&first).is_some_and(|p| p < 10), "{first}");
    assert!(first.contains(&format!("{QUESTIONS} questions")), "{first}");

    // While loading: the view follows the loaded end; the first event and
    // one step on are reached; "end" follows the loading to the last event.
    assert!(receive_one(&mut app));
    let replay = app.replay().unwrap();
    assert_eq!((replay.position, app.state().events_applied), (replay.len(), replay.len()), "following the loading");
    app.handle_key(key(KeyCode::Home));
    assert_eq!((app.replay().unwrap().position, app.state().events_applied), (0, 0));
    assert!(receive_one(&mut app));
    app.handle_key(key(KeyCode::Char('.')));
    assert_eq!((app.replay().unwrap().position, app.state().events_applied), (1, 1), "scrubbing stays put");
    let during = screen(&app, 160, 48);
    assert!(loading_percent(&during).is_some() && during.contains("REPLAY ⏸ 1/"), "{during}");
    app.handle_key(key(KeyCode::End));
    while receive_one(&mut app) {}

    let replay = app.replay().unwrap();
    assert_eq!((replay.len(), replay.position), (whole.records.len(), whole.records.len()));
    assert_eq!(shown(app.state()), shown(&fold_trace(&whole)), "the end of the loading is the whole fold");
    assert_eq!(loading_percent(&screen(&app, 160, 48)), None);
    // Scrubbing back into what was loaded in the background.
    let middle = whole.records.len() / 2;
    let sought = app.into_replay().unwrap().seek(middle, std::time::Instant::now());
    let mut folded = RunState::default();
    whole.records.iter().take(middle).for_each(|r| folded.apply(r.t_ms, &r.event));
    assert_eq!(shown(&sought), shown(&folded));
}

#[tokio::test]
async fn the_ui_loop_draws_while_it_loads_takes_keys_and_ends_on_the_whole_fold() {
    let dir = tempfile::tempdir().unwrap();
    let path = large_trace(dir.path(), QUESTIONS);
    let expected = shown(&fold_trace(&Trace::read(&path).unwrap()));
    let (replay, state) = Replay::begin(&path, false).unwrap();
    let mut app = App::new(state, Theme::dark(), Some(replay), None);
    let (keys, input) = unbounded();
    // Help on and off and to the first event, then (once that is drawn) to the end: all while loading.
    for code in [KeyCode::Char('?'), KeyCode::Esc, KeyCode::Home] {
        keys.unbounded_send(Ok(Event::Key(key(code)))).unwrap();
    }
    let seen = RefCell::new((0usize, 0usize, false));
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
    let mut feeds = Feeds { input, events: None, stop: None };
    let looped = event_loop(&mut terminal, &mut app, &mut feeds, |frame, app| {
        draw(frame, app);
        let replay = app.replay().unwrap();
        let header: String =
            (0..3 * 160).map(|i| frame.buffer_mut()[(i % 160, i / 160)].symbol().to_string()).collect();
        let press = |code| keys.unbounded_send(Ok(Event::Key(key(code)))).unwrap();
        let mut seen = seen.borrow_mut();
        seen.1 += 1;
        if header.contains("loading") {
            seen.0 += 1;
            if replay.position == 0 && !seen.2 {
                // The Home key was taken while loading.
                seen.2 = true;
                press(KeyCode::End);
            }
        } else if seen.2 && replay.position == replay.len() {
            press(KeyCode::Char('q'));
        }
    });
    tokio::time::timeout(Duration::from_secs(120), looped).await.expect("loading ends").unwrap();
    let (loading_frames, frames, at_start_while_loading) = seen.into_inner();
    assert!(loading_frames >= 1 && frames > loading_frames, "{loading_frames} of {frames} frames said loading");
    assert!(at_start_while_loading, "the Home key was taken while loading");
    assert_eq!(shown(app.state()), expected);
}

#[test]
fn a_trace_cut_off_mid_line_loads_every_finished_event_and_a_bad_line_stops_the_loading_there() {
    let dir = tempfile::tempdir().unwrap();
    let path = large_trace(dir.path(), 200);
    let whole = Trace::read(&path).unwrap();
    std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"{\"seq\":99999,\"t_ms\":1,\"ev").unwrap();
    for from_start in [false, true] {
        let (replay, state) = Replay::open(&path, from_start).unwrap();
        assert_eq!(replay.len(), whole.records.len());
        assert_eq!(state.events_applied, if from_start { 0 } else { whole.records.len() });
    }
    let (replay, state) = Replay::begin(&path, false).unwrap();
    let mut app = App::new(state, Theme::dark(), Some(replay), None);
    while receive_one(&mut app) {}
    assert_eq!(app.replay().unwrap().len(), whole.records.len());
    assert_eq!(shown(app.state()), shown(&fold_trace(&whole)));
    assert!(app.message().is_none(), "{:?}", app.message());

    // A bad line in the middle: the replay holds the events before it and says where.
    let text = std::fs::read_to_string(&path).unwrap();
    let bad_line = 1500;
    let lines: Vec<&str> = text.lines().collect();
    let broken = [&lines[..bad_line - 1], &["not json"], &lines[bad_line..]].concat().join("\n");
    std::fs::write(&path, broken).unwrap();
    assert!(Replay::open(&path, false).is_err_and(|e| e.to_string().contains(&format!("line {bad_line}"))));
    let (replay, state) = Replay::begin(&path, false).unwrap();
    let mut app = App::new(state, Theme::dark(), Some(replay), None);
    while receive_one(&mut app) {}
    let message = app.message().unwrap_or_default().to_string();
    assert!(message.contains(&format!("line {bad_line}")), "{message}");
    assert!(app.replay().unwrap().len() < bad_line - 1);
}
