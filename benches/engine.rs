//! Engine latency: `eval-dag run --headless` on sample-data/fraud against a
//! mock OpenAI-compatible server on 127.0.0.1 that answers every call after a
//! fixed delay. Ten questions, each a three-layer DAG; the odd ones are
//! rejected once by the reviewer, so they take two iterations.
//!
//! Reports, medians of 5 runs: the run's wall time (engine clock, from the
//! trace) ÷ the critical path of LLM latency (question generation + the
//! slowest question's sum over its stages of the stage's longest call), and
//! the wall-time speed-up of reviewing layers concurrently over one at a time.
//! Run: `cargo bench --profile dev --bench engine`; the last trace of each
//! mode is kept in `target/engine-bench/` for a closer look.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark stops at its first failure")]

#[path = "../tests/common/mod.rs"]
mod common;

#[path = "support/measure.rs"]
mod measure;

use measure::median;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::{Duration, Instant};

use common::mock_llm::{MockLlm, Reply, layered_reply};
use eval_dag::domain::LlmRole;
use eval_dag::run::{EngineEvent, Stage};
use eval_dag::trace::Trace;

const DELAY: Duration = Duration::from_millis(200);
const QUESTIONS: usize = 10;
const CONCURRENCY: usize = 10;
const RUNS: usize = 5;

/// A question's stages, `(attempt, iteration, role)`, with the stage's LLM
/// time and its nominal time (ms).
type Stages = BTreeMap<(u32, u32, LlmRole), (u64, u64)>;

/// What one run's trace says.
struct Measured {
    /// Engine wall time, run started → run finished (ms).
    wall: f64,
    /// Process wall time, spawn → exit (ms).
    process: f64,
    /// Critical path of LLM latency (ms): question generation + the slowest
    /// question's sum over its stages of the stage's LLM time.
    critical: f64,
    /// The same path with every call taking exactly the server's delay (ms).
    nominal: f64,
    /// Time outside LLM calls on the slowest question's path: its wall time minus its LLM stages (ms).
    off_llm: f64,
    /// Longest trial run of the run (ms).
    slowest_trial: f64,
}

/// Measure a run's trace. With `review_concurrency` 1 a review stage lasts the
/// sum of its calls, otherwise the longest one.
fn measure(trace: &Trace, process: f64, review_concurrency: usize) -> Measured {
    let (mut run_start, mut run_end) = (0u64, 0u64);
    let mut generation = 0u64;
    let mut stages: HashMap<String, Stages> = HashMap::new();
    let delay = DELAY.as_millis() as u64;
    let mut spans: HashMap<String, (u64, u64)> = HashMap::new();
    let mut slowest_trial = 0u64;
    for record in &trace.records {
        match &record.event {
            EngineEvent::RunStarted { .. } => run_start = record.t_ms,
            EngineEvent::RunFinished { .. } => run_end = record.t_ms,
            EngineEvent::LlmCallFinished { key, latency_ms, .. } => match &key.question_id {
                None => generation = generation.max(*latency_ms),
                Some(id) => {
                    let stage = stages.entry(id.to_string()).or_default().entry((key.attempt, key.iteration, key.role));
                    let stage = stage.or_default();
                    let one_at_a_time = key.role == LlmRole::LayerReview && review_concurrency == 1;
                    *stage = if one_at_a_time {
                        (stage.0 + latency_ms, stage.1 + delay)
                    } else {
                        (stage.0.max(*latency_ms), delay)
                    };
                }
            },
            EngineEvent::QuestionStarted { at, .. } => {
                spans.entry(at.question_id.to_string()).or_default().0 = record.t_ms;
            }
            EngineEvent::QuestionFinished { at, .. } => {
                spans.entry(at.question_id.to_string()).or_default().1 = record.t_ms;
            }
            EngineEvent::StageFinished { stage: Stage::TrialRun, duration_ms, .. } => {
                slowest_trial = slowest_trial.max(*duration_ms);
            }
            _ => {}
        }
    }
    // The questions' part of a path, bounded by the concurrency limit.
    let bound = |paths: &[u64]| {
        let longest = paths.iter().copied().max().unwrap_or(0) as f64;
        longest.max(paths.iter().sum::<u64>() as f64 / CONCURRENCY as f64)
    };
    let measured: Vec<(&String, u64)> = stages.iter().map(|(id, s)| (id, s.values().map(|v| v.0).sum())).collect();
    let nominal: Vec<u64> = stages.values().map(|s| s.values().map(|v| v.1).sum()).collect();
    let (slowest, path) = measured.iter().max_by_key(|(_, p)| *p).copied().expect("questions ran");
    let (start, end) = spans[slowest];
    Measured {
        wall: run_end.saturating_sub(run_start) as f64,
        process,
        critical: generation as f64 + bound(&measured.iter().map(|m| m.1).collect::<Vec<_>>()),
        nominal: delay as f64 + bound(&nominal),
        off_llm: end.saturating_sub(start) as f64 - path as f64,
        slowest_trial: slowest_trial as f64,
    }
}

async fn run_once(mock: &MockLlm, home: &Path, review_concurrency: usize) -> Measured {
    let out = home.join("run");
    let _ = std::fs::remove_dir_all(&out);
    let mut command = common::eval_dag(home);
    command
        .arg("run")
        .arg(common::root().join("sample-data/fraud"))
        .args(["--headless", "--llm", "openai", "--model", "bench-model"])
        .args(["--questions", &QUESTIONS.to_string(), "--concurrency", &CONCURRENCY.to_string()])
        .args(["--review-concurrency", &review_concurrency.to_string(), "--base-url", &mock.base_url(), "--out"])
        .arg(&out)
        .env("OPENAI_API_KEY", "bench-key");
    let started = Instant::now();
    let output = tokio::process::Command::from(command).output().await.expect("eval-dag runs");
    let process = started.elapsed().as_secs_f64() * 1000.0;
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let kept = common::root().join("target/engine-bench");
    std::fs::create_dir_all(&kept).expect("target/engine-bench");
    std::fs::copy(out.join("trace.jsonl"), kept.join(format!("review-concurrency-{review_concurrency}.trace.jsonl")))
        .expect("trace kept");
    measure(&Trace::read(&out.join("trace.jsonl")).expect("trace"), process, review_concurrency)
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let home = tempfile::tempdir().unwrap();
    let mock = runtime.block_on(MockLlm::start(|request, _| {
        Reply::Delayed(DELAY, Box::new(Reply::Text(layered_reply(request, QUESTIONS, true))))
    }));
    // One unmeasured run warms the file cache and the binary.
    runtime.block_on(run_once(&mock, home.path(), 0));
    println!(
        "{QUESTIONS} questions, {} ms per LLM call, concurrency {CONCURRENCY}, medians of {RUNS} runs",
        DELAY.as_millis()
    );
    println!(
        "| review | engine wall | process wall | critical path | wall ÷ critical | nominal path | wall ÷ nominal \
         | off-LLM on the slowest path | slowest trial run |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut walls = Vec::new();
    let mut per_run = Vec::new();
    for (name, review_concurrency) in [("concurrent", 0), ("sequential", 1)] {
        let runs: Vec<Measured> =
            (0..RUNS).map(|_| runtime.block_on(run_once(&mock, home.path(), review_concurrency))).collect();
        let pick = |f: &dyn Fn(&Measured) -> f64| median(runs.iter().map(f).collect());
        let wall = pick(&|m| m.wall);
        walls.push(wall);
        println!(
            "| {name} | {wall:.0} ms | {:.0} ms | {:.0} ms | {:.3} | {:.0} ms | {:.3} | {:.0} ms | {:.0} ms |",
            pick(&|m| m.process),
            pick(&|m| m.critical),
            pick(&|m| m.wall / m.critical),
            pick(&|m| m.nominal),
            pick(&|m| m.wall / m.nominal),
            pick(&|m| m.off_llm),
            pick(&|m| m.slowest_trial),
        );
        let ratios: Vec<String> = runs.iter().map(|m| format!("{:.3}", m.wall / m.critical)).collect();
        per_run.push(format!("{name}: wall ÷ critical path per run: {}", ratios.join(", ")));
    }
    println!("\n{}", per_run.join("\n"));
    println!("speed-up of concurrent over sequential review (engine wall): {:.2}×", walls[1] / walls[0]);
    println!("load average at the end: {}", std::fs::read_to_string("/proc/loadavg").unwrap_or_default().trim());
}
