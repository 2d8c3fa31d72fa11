//! A live run of 10,000 questions in the terminal UI: the real engine, the
//! real OpenAI-compatible client and sandbox, against a mock server on
//! 127.0.0.1 that answers every call after a fixed delay, at concurrency 64,
//! with the UI's own event loop drawing into a `TestBackend` while keys
//! (moves, sorts, status filters) arrive every 50 ms.
//!
//! Reports: frame render time (the app's `draw`) p50 / p99, key-to-frame
//! latency (key sent → the end of the first frame drawn after the UI took
//! it) p50 / p99, and the run's wall time against the ideal schedule: every
//! question's calls back to back (a build, then its layers reviewed at once),
//! 64 questions at a time, at the mock's delay, after question generation.
//! Run: `cargo bench --profile dev --bench live` (`LIVE_BENCH_QUESTIONS=N`
//! for another size).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark stops at its first failure")]

#[path = "../tests/common/mod.rs"]
mod common;

#[path = "support/measure.rs"]
mod measure;
#[path = "support/mock_run.rs"]
mod mock_run;

use measure::percentile;
use mock_run::MockRun;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use eval_dag::engine::{self, EngineParts, RunOptions};
use eval_dag::grade::Grader;
use eval_dag::llm::OpenAiClient;
use eval_dag::prompts::Prompts;
use eval_dag::run::RunState;
use eval_dag::tui::{App, Feeds, Theme, event_loop};
use futures::StreamExt;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const DELAY: Duration = Duration::from_millis(100);
const CONCURRENCY: usize = 64;
const KEY_EVERY: Duration = Duration::from_millis(50);
/// Keys sent in turn: down, down, up, next sort order, next status filter.
const KEYS: [char; 5] = ['j', 'j', 'k', 's', 'f'];

/// Keys sent and not yet followed by a frame, and what was measured.
#[derive(Default)]
struct Probe {
    /// Send times of keys the UI took since the last frame.
    taken: VecDeque<Instant>,
    /// Key sent → end of the next frame (ms).
    key_to_frame: Vec<f64>,
    /// Time inside the app's `draw` per frame (ms).
    render: Vec<f64>,
}

fn main() {
    let questions: usize = std::env::var("LIVE_BENCH_QUESTIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(run(questions, &root));
}

async fn run(questions: usize, root: &Path) {
    let setup = MockRun::start(root, questions, DELAY, false).await;
    let settings = setup.settings(questions, CONCURRENCY as u32);
    let grader = Arc::new(Grader::from_settings(&settings.grading).unwrap());
    let llm = Arc::new(OpenAiClient::new(setup.openai()).unwrap());
    let prompts = Arc::new(Prompts::load(None).unwrap());
    let parts = EngineParts::new(setup.dataset.clone(), llm, Arc::new(setup.pool.clone()), prompts, grader);
    let started = Instant::now();
    let handle = engine::start(parts, None, settings, RunOptions::default());
    let (keys, key_feed) = futures::channel::mpsc::unbounded::<(Instant, Event)>();
    let probe = Arc::new(Mutex::new(Probe::default()));
    let input = {
        let probe = probe.clone();
        key_feed.map(move |(sent, event)| {
            probe.lock().unwrap().taken.push_back(sent);
            Ok(event)
        })
    };
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sender = tokio::spawn({
        let done = done.clone();
        async move {
            let mut tick = tokio::time::interval(KEY_EVERY);
            for n in 0.. {
                tick.tick().await;
                let code = if done.load(std::sync::atomic::Ordering::Relaxed) {
                    KeyCode::Char('Q')
                } else {
                    KeyCode::Char(KEYS[n % KEYS.len()])
                };
                let quit = code == KeyCode::Char('Q');
                if keys.unbounded_send((Instant::now(), Event::Key(KeyEvent::new(code, KeyModifiers::NONE)))).is_err()
                    || quit
                {
                    break;
                }
            }
        }
    });
    let task = handle.task;
    let waiter = tokio::spawn({
        let done = done.clone();
        async move {
            let state = task.await.unwrap();
            done.store(true, std::sync::atomic::Ordering::Relaxed);
            (state, started.elapsed())
        }
    });
    let mut app = App::new(RunState::default(), Theme::dark(), None, Some(handle.commands.clone()));
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
    let mut feeds = Feeds { input, events: Some(handle.events), stop: None };
    let draw = {
        let probe = probe.clone();
        move |frame: &mut ratatui::Frame, app: &App| {
            let begun = Instant::now();
            eval_dag::tui::draw(frame, app);
            let end = Instant::now();
            let mut probe = probe.lock().unwrap();
            probe.render.push((end - begun).as_secs_f64() * 1e3);
            while let Some(sent) = probe.taken.pop_front() {
                probe.key_to_frame.push((end - sent).as_secs_f64() * 1e3);
            }
        }
    };
    event_loop(&mut terminal, &mut app, &mut feeds, draw).await.unwrap();
    let (state, process_wall) = waiter.await.unwrap();
    sender.await.unwrap();
    let summary = state.summary(state.now_ms);
    let engine_wall = state.summary.as_ref().map_or(state.now_ms, |s| s.elapsed_ms) as f64;
    let rounds = questions.div_ceil(CONCURRENCY) as f64;
    let ideal = DELAY.as_secs_f64() * 1e3 * (1.0 + 2.0 * rounds);
    let Probe { mut render, key_to_frame: mut key, .. } = std::mem::take(&mut *probe.lock().unwrap());
    let (frames, keys) = (render.len(), key.len());
    let (render, key) = (&mut render, &mut key);
    println!(
        "{questions} questions at concurrency {CONCURRENCY}, mock delay {} ms: {} passed, {} requests",
        DELAY.as_millis(),
        summary.passed,
        setup.mock.requests().len()
    );
    println!(
        "frame render ({frames} frames): p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        percentile(render, 0.5),
        percentile(render, 0.99),
        percentile(render, 1.0)
    );
    println!(
        "key to frame ({keys} keys): p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        percentile(key, 0.5),
        percentile(key, 0.99),
        percentile(key, 1.0)
    );
    println!(
        "wall: engine {:.1} s, process {:.1} s; ideal schedule {:.1} s; engine ÷ ideal {:.3}",
        engine_wall / 1e3,
        process_wall.as_secs_f64(),
        ideal / 1e3,
        engine_wall / ideal
    );
}
