//! TUI at scale: a generated trace of 1,000 questions × 3 iterations — time to
//! the first frame after `replay` (read, fold, snapshot, draw), peak RSS, and
//! render time per frame (p50/p99) at 160×48, and the time of a replay seek to
//! the middle and one event back from the end. Run:
//! `cargo bench --profile dev --bench tui`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark stops at its first failure")]

#[path = "support/synthetic_trace.rs"]
mod synthetic_trace;

#[path = "support/measure.rs"]
mod measure;

use measure::peak_rss_mb;
use std::time::Instant;

use eval_dag::tui::{App, Replay, Theme, draw};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const QUESTIONS: usize = 1000;
const ITERATIONS: u32 = 3;

/// CPU time of the process so far (all threads, user + system), ms.
fn cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name; utime and stime are the 12th and 13th, in clock ticks (100 Hz).
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or_default().split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) * 10.0
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.trace.jsonl");
    synthetic_trace::write_trace(&path, QUESTIONS, ITERATIONS);
    let size = std::fs::metadata(&path).unwrap().len();
    let mut firsts = Vec::new();
    let mut app = None;
    let cpu_before = cpu_ms();
    for _ in 0..5 {
        let started = Instant::now();
        let (replay, state) = Replay::open(&path, false).unwrap();
        let built = App::new(state, Theme::dark(), Some(replay), None);
        let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
        terminal.draw(|f| draw(f, &built)).unwrap();
        firsts.push(started.elapsed().as_secs_f64() * 1e3);
        app = Some(built);
    }
    firsts.sort_by(f64::total_cmp);
    let cpu_per_load = (cpu_ms() - cpu_before) / 5.0;
    let app = app.unwrap();
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
    let mut frames: Vec<f64> = (0..300)
        .map(|_| {
            let t = Instant::now();
            terminal.draw(|f| draw(f, &app)).unwrap();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    frames.sort_by(f64::total_cmp);
    let mut app = app;
    let replay = app.replay.as_mut().unwrap();
    let len = replay.len();
    let timed = |replay: &mut Replay, target: usize| {
        let t = Instant::now();
        let state = replay.seek(target, t);
        (t.elapsed().as_secs_f64() * 1e3, state)
    };
    let (middle_ms, middle) = timed(replay, len / 2);
    assert!(middle.questions.iter().any(|q| q.status.is_active()), "the middle of the run has work under way");
    let (back_ms, _) = timed(replay, len - 1);
    let mut jumps: Vec<f64> = (0..100).map(|i| timed(replay, len * i / 100 + 37).0).collect();
    jumps.sort_by(f64::total_cmp);
    println!("trace: {QUESTIONS} questions × {ITERATIONS} iterations, {} events, {:.1} MB", len, size as f64 / 1e6);
    println!("time to first frame (read + fold + snapshots + draw), median of 5: {:.0} ms", firsts[2]);
    println!("CPU time per load (all threads; mean of the 5): {cpu_per_load:.0} ms");
    println!("dashboard render per frame at 160x48: p50 {:.2} ms, p99 {:.2} ms", frames[150], frames[296]);
    println!(
        "scrubbing: jump to the middle {middle_ms:.1} ms, one event back from the end {back_ms:.1} ms, \
         100 jumps across the trace p50 {:.1} ms, p95 {:.1} ms",
        jumps[50], jumps[95]
    );
    println!("peak RSS: {:.0} MB", peak_rss_mb());
}
