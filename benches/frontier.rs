//! Several runs compared at scale: `compare`'s matrix and frontier of 5 and
//! 50 runs of 1,000 and 10,000 questions (each run's questions graded, its
//! cost and wall time made up, seeded) — the time to build them, whose growth
//! from 1,000 to 10,000 questions should be about 10× (1 when nothing grows
//! faster than the questions) — then the matrix screen's frame at 160×48 over
//! 50 runs of 10,000 questions, with the questions and with the frontier.
//! Run: `cargo bench --bench frontier` (medians of 5 builds and of 200 frames).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark stops at its first failure")]

#[path = "support/measure.rs"]
mod measure;

#[path = "support/graded_run.rs"]
mod graded_run;

#[path = "support/frames.rs"]
mod frames;

use std::time::Instant;

use eval_dag::report::{EvalResults, compare_runs};
use eval_dag::tui::{App, RunsMatrix, Theme, press_keys};
use frames::frames_at;
use graded_run::base_run;
use measure::{median, peak_rss_mb};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// `runs` runs of `base`'s questions, each right on a share of them and at its own cost.
fn runs(base: &EvalResults, runs: usize) -> Vec<EvalResults> {
    let mut rng = ChaCha8Rng::seed_from_u64(66);
    (0..runs)
        .map(|run| {
            let mut doc = base.clone();
            let skill: f64 = rng.random_range(0.3..0.95);
            for result in &mut doc.detailed_results {
                result.correct = Some(rng.random_range(0.0..1.0) < skill);
            }
            doc.summary.cost_usd = 10f64.powf(rng.random_range(-2.0..2.0));
            doc.summary.elapsed_ms = Some(rng.random_range(10_000..3_600_000));
            doc.summary.settings.as_mut().unwrap().model = format!("model-{run}");
            doc
        })
        .collect()
}

/// Median ms of 5 builds of the matrix and frontier of `docs`.
fn build_ms(docs: &[EvalResults]) -> f64 {
    let names: Vec<String> = (0..docs.len()).map(|i| format!("runs/{i}")).collect();
    let times = (0..5)
        .map(|_| {
            let t = Instant::now();
            let matrix = compare_runs(&names, docs, 0.05);
            assert!(matrix.frontier.is_some());
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    median(times)
}

fn main() {
    let (small, large) = (base_run(1_000), base_run(10_000));
    for count in [5, 50] {
        let (few, many) = (runs(&small, count), runs(&large, count));
        let (few_ms, many_ms) = (build_ms(&few), build_ms(&many));
        println!(
            "{count} runs: matrix and frontier of 1,000 questions {few_ms:.1} ms, of 10,000 {many_ms:.1} ms \
             (growth {:.1}× for 10× the questions)",
            many_ms / few_ms
        );
    }
    let docs = runs(&large, 50);
    let names: Vec<String> = (0..docs.len()).map(|i| format!("runs/{i}")).collect();
    let mut app = App::comparing_runs(RunsMatrix::new(compare_runs(&names, &docs, 0.05), docs), Theme::dark());
    let questions = frames_at(&app, 160, 48, 200);
    press_keys(&mut app, "p");
    let chart = frames_at(&app, 160, 48, 200);
    println!("matrix screen, 50 runs × 10,000 questions, 160x48: questions {questions:.3} ms, frontier {chart:.3} ms");
    println!("peak RSS: {:.0} MB", peak_rss_mb());
}
