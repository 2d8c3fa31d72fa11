//! TUI at scale: a generated trace of 1,000 questions × 3 iterations — time to
//! the first frame after `replay` (read, fold, snapshot, draw), peak RSS, and
//! render time per frame (p50/p99) at 160×48, and the time of a replay seek to
//! the middle and one event back from the end; then the dashboard's frame in
//! a consensus run (`run --consensus 3`, built in memory) of 10,000 questions
//! against one of 100 in the same run: the ratio shows what a frame costs per
//! question of the run (1 when nothing grows with it); and a frame of the
//! scorecard and of the findings taxonomy in that run of 10,000; the
//! dashboard's frame with its charts (160×30) and without (160×29, too small
//! for them); the command palette over the run of 10,000: opening it, a
//! keystroke narrowing the query, a backspace widening it; and the run
//! browser's first frame over 1,000 run directories (hard links of one
//! 10,000-question run's trace and results) against an empty directory,
//! alternately in the same process, with the time its scan takes. Run:
//! `cargo bench --profile dev --bench tui` (`TUI_BENCH_ONLY=browser`: only the browser).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark stops at its first failure")]

#[path = "support/synthetic_trace.rs"]
mod synthetic_trace;

#[path = "support/measure.rs"]
mod measure;

#[path = "support/frames.rs"]
mod frames;

use frames::frames_at;
use measure::{median, peak_rss_mb};
use std::time::Instant;

use crossterm::event::KeyCode;
use eval_dag::domain::{AttemptAt, Consensus, CriticFeedback, DifficultyLevel, DraftAnswer, Question};
use eval_dag::run::{EngineEvent, Outcome, RunSettings, RunState};
use eval_dag::tui::{App, Browser, Keymap, Replay, Theme, draw, press_keys};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const QUESTIONS: usize = 1000;
const ITERATIONS: u32 = 3;
/// Drafts per question of the consensus run.
const DRAFTS: u32 = 3;

/// CPU time of the process so far (all threads, user + system), ms.
fn cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name; utime and stime are the 12th and 13th, in clock ticks (100 Hz).
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or_default().split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) * 10.0
}

fn main() {
    browser_first_frame();
    if std::env::var("TUI_BENCH_ONLY").is_ok_and(|only| only == "browser") {
        return;
    }
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
    chart_frames(&app);
    let mut replay = app.into_replay().unwrap();
    let replay = &mut replay;
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
    consensus_frames();
    report_screen_frames();
    palette_keystrokes();
}

/// The replayed run's dashboard with its charts (160×30) and without them
/// (160×29: one row short of room for them), the same rows of the table otherwise.
fn chart_frames(app: &App) {
    let (without, with) = (frames_at(app, 160, 29, 300), frames_at(app, 160, 30, 300));
    println!("dashboard frame, median of 300: 160x29 (no charts) {without:.3} ms, 160x30 (charts) {with:.3} ms");
}

/// The palette over the consensus run of 10,000 questions: the time to open
/// it, of each keystroke of `task_9999` (median and slowest), of a backspace
/// (the shorter query searches every entry again), and of a frame with it open.
fn palette_keystrokes() {
    let mut app = App::new(consensus_run(10_000), Theme::dark(), None, None);
    let timed = |app: &mut App, code: KeyCode| {
        let t = Instant::now();
        app.handle_key(code.into());
        t.elapsed().as_secs_f64() * 1e3
    };
    let open = timed(&mut app, KeyCode::Char(':'));
    let mut keys: Vec<f64> = "task_9999".chars().map(|c| timed(&mut app, KeyCode::Char(c))).collect();
    let backspaces: Vec<f64> = (0..4).map(|_| timed(&mut app, KeyCode::Backspace)).collect();
    let frame = frames_at(&app, 160, 48, 30);
    keys.sort_by(f64::total_cmp);
    println!(
        "palette over 10,000 questions: open {open:.1} ms; a keystroke median {:.2} ms, slowest {:.2} ms; \
         a backspace median {:.2} ms; a frame at 160x48 {frame:.3} ms",
        keys[keys.len() / 2],
        keys[keys.len() - 1],
        median(backspaces)
    );
}

/// A finished consensus run of `count` questions (ids `task_<i>`): every
/// draft approved at its first iteration, the third draft of every third
/// question giving another answer.
fn consensus_run(count: usize) -> RunState {
    let mut state = RunState::default();
    let settings = RunSettings { max_iterations: 3, consensus: DRAFTS, ..RunSettings::default() };
    state.apply(0, &EngineEvent::RunStarted { settings });
    let questions: Vec<Question> = (0..count)
        .map(|i| {
            let level = DifficultyLevel::from_rank(i + 1, count);
            Question::new(
                format!("task_{i}"),
                format!("Which category has the highest mean, variant {i}?"),
                i + 1,
                level,
            )
        })
        .collect();
    state.apply(0, &EngineEvent::QuestionsGenerated { questions });
    for i in 0..count {
        let id = format!("task_{i}");
        let answer = |draft: u32| serde_json::json!(if i % 3 == 0 && draft == DRAFTS { "home" } else { "grocery_pos" });
        for draft in 1..=DRAFTS {
            let at = AttemptAt::new(id.clone(), 1).in_epoch(1, draft);
            state.apply(1, &EngineEvent::QuestionStarted { at: at.clone(), forked_from: None, by_hand: false });
            let feedback = CriticFeedback { is_approved: true, ..CriticFeedback::default() };
            state.apply(2, &EngineEvent::CriticVerdict { at: at.iteration(1), feedback });
            let (outcome, final_answer) = (Outcome::Passed, Some(answer(draft)));
            state.apply(3, &EngineEvent::QuestionFinished { at, outcome, iterations: 1, final_answer, reason: None });
        }
        let answers: Vec<DraftAnswer> = (1..=DRAFTS)
            .map(|draft| DraftAnswer { draft, answer: Some(answer(draft)), in_majority: answer(draft) == answer(1) })
            .collect();
        let agreement = answers.iter().filter(|a| a.in_majority).count() as f64 / answers.len() as f64;
        let consensus = Consensus { answers, agreement };
        state.apply(4, &EngineEvent::ConsensusReached { question_id: id.into(), epoch: 1, consensus });
    }
    state
}

/// Median time (ms) of a frame at 160×48 over `frames` frames of `state`,
/// on the screen the keys `keys` open from the dashboard.
fn frame_median(state: RunState, keys: &str, frames: usize) -> f64 {
    let mut app = App::new(state, Theme::dark(), None, None);
    press_keys(&mut app, keys);
    frames_at(&app, 160, 48, frames)
}

/// The dashboard's frame in a consensus run of 10,000 questions and of 100.
fn consensus_frames() {
    let (small, large) = (frame_median(consensus_run(100), "", 300), frame_median(consensus_run(10_000), "", 300));
    println!(
        "consensus run ({DRAFTS} drafts) dashboard frame at 160x48, median of 300: 100 questions {small:.3} ms, \
         10,000 questions {large:.3} ms; ratio {:.2}",
        large / small
    );
}

/// A frame of the scorecard and of the findings taxonomy in the consensus run of
/// 10,000 questions: what drawing either screen costs once the run stands still.
fn report_screen_frames() {
    let run = consensus_run(10_000);
    for (name, keys) in [("scorecard", "c"), ("findings taxonomy", "T")] {
        let ms = frame_median(run.clone(), keys, 30);
        println!("{name} frame at 160x48, 10,000 questions, median of 30: {ms:.3} ms");
    }
}

/// Runs listed by the browser benchmark, and questions in the one run they all link to.
const BROWSED_RUNS: usize = 1000;
const BROWSED_QUESTIONS: usize = 10_000;

/// `root/runs` holding [`BROWSED_RUNS`] run directories, each a hard link of
/// one [`BROWSED_QUESTIONS`]-question run's trace and results.
fn browsed_runs(root: &std::path::Path) -> std::path::PathBuf {
    let run = root.join("run");
    std::fs::create_dir(&run).unwrap();
    let trace = run.join("trace.jsonl");
    synthetic_trace::write_trace(&trace, BROWSED_QUESTIONS, 1);
    let lines = eval_dag::trace::TraceLines::read(&trace).unwrap();
    let state = eval_dag::report::fold_indexed(&lines, |_| {}).unwrap();
    let results = std::fs::File::create(run.join("eval_results.json")).unwrap();
    eval_dag::report::write_eval_results(std::io::BufWriter::new(results), &state, "2026-11-28T00:00:00Z").unwrap();
    let runs = root.join("runs");
    for i in 0..BROWSED_RUNS {
        let dir = runs.join(format!("run-{i:04}"));
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["trace.jsonl", "eval_results.json"] {
            std::fs::hard_link(run.join(name), dir.join(name)).unwrap();
        }
    }
    runs
}

/// Time to the browser's first frame over `dir` at 160×48, and to the end of its scan (ms).
fn browse_once(dir: &std::path::Path) -> (f64, f64) {
    let started = Instant::now();
    let mut browser = Browser::new(vec![dir.to_path_buf()], Theme::dark(), Keymap::default());
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
    terminal.draw(|f| draw(f, browser.app())).unwrap();
    let first = started.elapsed().as_secs_f64() * 1e3;
    while browser.app().browser().is_some_and(|screen| screen.scanning()) {
        browser.app().tick();
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    (first, started.elapsed().as_secs_f64() * 1e3)
}

/// The browser's first frame over 1,000 runs against an empty list, alternately, medians of 9.
fn browser_first_frame() {
    let root = tempfile::tempdir().unwrap();
    let runs = browsed_runs(root.path());
    let empty = root.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let (mut full, mut none, mut scans) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..9 {
        none.push(browse_once(&empty).0);
        let (first, scanned) = browse_once(&runs);
        full.push(first);
        scans.push(scanned);
    }
    let (full, none) = (median(full), median(none));
    println!(
        "run browser first frame at 160x48, median of 9: empty list {none:.2} ms, {BROWSED_RUNS} runs of \
         {BROWSED_QUESTIONS} questions {full:.2} ms; ratio {:.2}; whole scan {:.0} ms",
        full / none,
        median(scans)
    );
}
