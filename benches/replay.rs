//! Replay at scale: the time from opening a trace to the first frame drawn
//! (160×48, `TestBackend`), the peak RSS then and once the whole trace is
//! folded, on generated traces whose LLM calls carry prompts and replies of
//! the sizes an offline run on the sample data records (see
//! `support/synthetic_trace.rs`). Each load runs in a process of its own (this
//! benchmark started again with `REPLAY_BENCH_CHILD`), so each peak RSS is
//! that load's. Two ways of opening are measured in the same run: `begin`
//! (what `eval-dag replay` does: draw once the question list is read, fold
//! the rest in the background) and `open` (read and fold everything first,
//! as `replay` did before). With `REPLAY_BENCH_BEFORE=<binary>` — this
//! benchmark built from an earlier commit — its `open` is measured too.
//! Run: `cargo bench --profile dev --bench replay`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark stops at its first failure")]

#[path = "support/synthetic_trace.rs"]
mod synthetic_trace;

#[path = "support/measure.rs"]
mod measure;

use measure::peak_rss_mb;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use eval_dag::tui::{App, Replay, Theme, draw};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// Loads measured per trace and way of opening.
const RUNS: usize = 3;

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

/// One load, in the child: `first_ms first_rss_mb loaded_ms loaded_rss_mb events`.
fn child(spec: &str) {
    let (how, path) = spec.split_once(':').expect("REPLAY_BENCH_CHILD=<how>:<trace>");
    let started = Instant::now();
    let (replay, state) = match how {
        "open" => Replay::open(Path::new(path), false).unwrap(),
        "begin" => Replay::begin(Path::new(path), false).unwrap(),
        other => panic!("unknown way of opening {other}"),
    };
    let mut app = App::new(state, Theme::dark(), Some(replay), None);
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
    terminal.draw(|f| draw(f, &app)).unwrap();
    let (first_ms, first_rss) = (ms(started), peak_rss_mb());
    while let Some(mut loading) = app.take_loading() {
        let Some(loaded) = loading.chunks.blocking_recv() else { break };
        app.receive(loaded, loading);
    }
    let events = app.replay().unwrap().len();
    println!("{first_ms:.1} {first_rss:.1} {:.1} {:.1} {events}", ms(started), peak_rss_mb());
}

/// Medians of the children's figures.
fn measure(exe: &Path, how: &str, trace: &Path) -> Vec<f64> {
    let mut runs: Vec<Vec<f64>> = (0..RUNS)
        .map(|_| {
            let out =
                Command::new(exe).env("REPLAY_BENCH_CHILD", format!("{how}:{}", trace.display())).output().unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            let text = String::from_utf8(out.stdout).unwrap();
            let line = text.lines().last().unwrap_or_default();
            line.split_whitespace().map(|f| f.parse().unwrap()).collect()
        })
        .collect();
    (0..runs[0].len())
        .map(|i| {
            runs.sort_by(|a, b| a[i].total_cmp(&b[i]));
            runs[RUNS / 2][i]
        })
        .collect()
}

fn main() {
    if let Ok(spec) = std::env::var("REPLAY_BENCH_CHILD") {
        child(&spec);
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let before = std::env::var_os("REPLAY_BENCH_BEFORE").map(std::path::PathBuf::from);
    let dir = tempfile::tempdir().unwrap();
    let traces =
        [("1,000 questions × 3 iterations", 1000, 3..=3), ("10,000 questions × 1–2 iterations", 10_000, 1..=2)];
    for (name, count, iterations) in traces {
        let path = dir.path().join(format!("{count}.trace.jsonl"));
        let started = Instant::now();
        synthetic_trace::write_trace_with(&path, count, iterations, &synthetic_trace::SAMPLE_RUN);
        let size = std::fs::metadata(&path).unwrap().len() as f64 / 1e6;
        println!("{name}: {size:.1} MB, written in {:.1} s", started.elapsed().as_secs_f64());
        let mut ways = vec![("begin (this version's replay)", exe.as_path(), "begin")];
        ways.push(("open (fold everything, then draw)", exe.as_path(), "open"));
        if let Some(before) = &before {
            ways.push(("open of the earlier build", before.as_path(), "open"));
        }
        for (label, exe, how) in ways {
            let m = measure(exe, how, &path);
            println!(
                "  {label}: first frame {:.0} ms (peak RSS {:.0} MB); all {} events folded {:.0} ms (peak RSS {:.0} MB); medians of {RUNS}",
                m[0], m[1], m[4], m[2], m[3]
            );
        }
        std::fs::remove_file(&path).unwrap();
    }
}
