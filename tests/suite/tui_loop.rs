//! The UI's event loop itself, under tokio's paused clock (virtual time that
//! jumps ahead whenever every task waits): replay playback keeps the recorded
//! pace while spinners, keys and resizes wake the loop, and a fault while
//! drawing shows the fault screen while events keep being folded.

use std::cell::RefCell;
use std::io;
use std::time::Duration;

use crossterm::event::{Event, KeyCode, KeyEvent};
use eval_dag::run::{Command, EngineEvent, RunSettings, RunState};
use eval_dag::trace::{TraceHeader, TraceWriter};
use eval_dag::tui::{App, Feeds, Replay, Theme, draw, event_loop};
use futures::channel::mpsc::{UnboundedSender, unbounded};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// Longest a frame may trail the event it shows: one frame interval, plus a
/// millisecond of rounding.
const FRAME_SLACK: Duration = Duration::from_millis(17);

fn key(c: char) -> io::Result<Event> {
    Ok(Event::Key(KeyEvent::from(KeyCode::Char(c))))
}

/// A trace of events at `times` (ms after the run started).
fn trace_at(dir: &std::path::Path, times: &[u64]) -> std::path::PathBuf {
    let path = dir.join("t.jsonl");
    let mut writer = TraceWriter::create(&path, &TraceHeader::new(RunSettings::default())).unwrap();
    for (i, &t) in times.iter().enumerate() {
        let action = if i % 2 == 0 { Command::Pause } else { Command::Resume };
        writer.record(t, &EngineEvent::Control(action)).unwrap();
    }
    path
}

/// Presses a harmless key every 50 ms and sends a resize every 333 ms, until
/// `until`; then quits.
async fn busy_user(keys: UnboundedSender<io::Result<Event>>, until: Duration) {
    let start = tokio::time::Instant::now();
    let mut n = 0u32;
    while start.elapsed() < until {
        tokio::time::sleep(Duration::from_millis(50)).await;
        n += 1;
        let _ = keys.unbounded_send(if n.is_multiple_of(7) { Ok(Event::Resize(80, 24)) } else { key('x') });
    }
    let _ = keys.unbounded_send(key('Q'));
}

/// Play `times` at `speed` through the real loop; per event, when the first
/// frame showing it was drawn (virtual time after play was pressed), and
/// whether the header ever counted down a long wait.
async fn play(times: &[u64], slower: usize) -> (Vec<Duration>, bool) {
    let dir = tempfile::tempdir().unwrap();
    let (mut replay, state) = Replay::open(&trace_at(dir.path(), times), true).unwrap();
    replay.max_gap = None;
    let mut app = App::new(state, Theme::dark(), Some(replay), None);
    let (keys, input) = unbounded();
    for _ in 0..slower {
        keys.unbounded_send(key('-')).unwrap();
    }
    keys.unbounded_send(key(' ')).unwrap();
    let speed = 0.5f64.powi(slower as i32);
    let total = Duration::from_millis(*times.last().unwrap()).div_f64(speed) + Duration::from_secs(1);
    tokio::spawn(busy_user(keys, total));
    let start = tokio::time::Instant::now();
    let shown: RefCell<Vec<Option<Duration>>> = RefCell::new(vec![None; times.len()]);
    let countdown = RefCell::new(false);
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    let mut feeds = Feeds { input, events: None, stop: None };
    event_loop(&mut terminal, &mut app, &mut feeds, |frame, app| {
        draw(frame, app);
        let position = app.replay().unwrap().position;
        for seen in shown.borrow_mut().iter_mut().take(position) {
            seen.get_or_insert(start.elapsed());
        }
        let header: String = (0..100).map(|x| frame.buffer_mut()[(x, 2)].symbol().to_string()).collect();
        *countdown.borrow_mut() |= header.contains("waiting for the next event");
    })
    .await
    .unwrap();
    let shown = shown.into_inner().into_iter().map(|s| s.expect("every event was shown")).collect();
    (shown, countdown.into_inner())
}

#[tokio::test(start_paused = true)]
async fn playback_keeps_the_recorded_pace_while_keys_resizes_and_spinners_wake_the_loop() {
    // Gaps of 1 ms, 61 ms, 145 ms (where playback used to stop for good), 3 s, 40 s.
    let times = [0, 1, 62, 207, 3_207, 43_207, 43_208];
    for slower in [0, 1] {
        let (shown, countdown) = play(&times, slower).await;
        let speed = 0.5f64.powi(slower as i32);
        for (i, (&t, at)) in times.iter().zip(&shown).enumerate() {
            let due = Duration::from_millis(t).div_f64(speed);
            assert!(*at >= due, "×{speed}: event {i} (due at {due:?}) shown early, at {at:?}");
            assert!(*at <= due + FRAME_SLACK, "×{speed}: event {i} (due at {due:?}) shown late, at {at:?}");
        }
        assert!(countdown, "×{speed}: the 40 s wait was counted down in the header");
    }
}

#[tokio::test(start_paused = true)]
async fn a_fault_while_drawing_shows_the_fault_screen_and_events_keep_coming() {
    let records = eval_dag::trace::Trace::read(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data/traces/fraud-scripted.trace.jsonl"),
    )
    .unwrap()
    .records;
    let (commands, _commands_rx) = tokio::sync::mpsc::unbounded_channel();
    let mut app = App::new(RunState::default(), Theme::dark(), None, Some(commands));
    let (events_tx, events) = tokio::sync::mpsc::unbounded_channel();
    let count = records.len();
    tokio::spawn(async move {
        for record in records {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let _ = events_tx.send((record.t_ms, record.event));
        }
    });
    let (keys, input) = unbounded();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(5)).await;
        let _ = keys.unbounded_send(key('q'));
    });
    let frames = RefCell::new(0);
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    let mut feeds = Feeds { input, events: Some(events), stop: None };
    event_loop(&mut terminal, &mut app, &mut feeds, |frame, app| {
        *frames.borrow_mut() += 1;
        if *frames.borrow() >= 3 {
            panic!("a drawing fault planted by the test");
        }
        draw(frame, app);
    })
    .await
    .unwrap();
    assert_eq!(app.state().events_applied, count, "every event was folded while every frame failed");
    assert!(app.quitting() && app.state().summary.is_some());
    let screen: String = terminal.backend().buffer().content.iter().map(|c| c.symbol()).collect();
    assert!(
        screen.contains("the screen could not be drawn: a drawing fault planted by the test"),
        "the fault screen is up: {screen}"
    );
    assert!(screen.contains("Run finished: "), "the fault screen says where the run stands: {screen}");
}
