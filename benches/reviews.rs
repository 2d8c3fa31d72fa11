//! Reviews at scale: `agreement`'s figures (κ per pair, α, each machine
//! against people, with their bootstrap intervals) for 10 reviewers × 1,000
//! and × 10,000 answers (every reviewer reviews every answer, seeded
//! verdicts), whose growth for 10× the answers should stay near 10×; and the
//! review screen's frame at 160×48 over a run of 1,000 and of 10,000 answers
//! (the ratio: what a frame costs per answer of the run, 1 when nothing grows).
//! Run: `cargo bench --profile dev --bench reviews` (medians of 5 and of 200 frames).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark stops at its first failure")]

#[path = "support/measure.rs"]
mod measure;

#[path = "support/graded_run.rs"]
mod graded_run;

#[path = "support/frames.rs"]
mod frames;

use std::time::Instant;

use eval_dag::domain::{REVIEW_VERSION, Review, ReviewItem, ReviewKind, Verdict};
use eval_dag::report::{EvalResults, RunReviews, agreement_report, shown};
use eval_dag::tui::{App, ReviewQueue, Theme};
use frames::frames_at;
use graded_run::base_run;
use measure::{median, peak_rss_mb};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Every answer of `doc` reviewed by `reviewers` reviewers, each right on a share of them.
fn reviews(doc: &EvalResults, reviewers: usize) -> RunReviews {
    let mut rng = ChaCha8Rng::seed_from_u64(65);
    let mut current = Vec::new();
    for reviewer in 0..reviewers {
        for result in &doc.detailed_results {
            let item = ReviewItem::final_answer(result.question_id.as_str().into());
            let verdict = match rng.random_range(0..10) {
                0 => Verdict::Unsure,
                1..=2 => Verdict::Wrong,
                _ => Verdict::Right,
            };
            current.push(Review {
                version: REVIEW_VERSION,
                reviewer: format!("reviewer-{reviewer}").parse().unwrap(),
                at: "2026-12-05T00:00:00Z".into(),
                shown_sha256: shown(doc, &item).unwrap().sha256(),
                item,
                kind: ReviewKind::Answer,
                verdict,
                reason: None,
                correct_answer: None,
                pair: None,
            });
        }
    }
    RunReviews { current, ..RunReviews::default() }
}

/// Median ms of 5 `agreement` reports of `doc` with `reviews`.
fn agreement_ms(doc: &EvalResults, reviews: &RunReviews) -> f64 {
    let times = (0..5)
        .map(|_| {
            let t = Instant::now();
            let report = agreement_report(doc, reviews, None);
            assert_eq!(report.pairs.len(), 45);
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    median(times)
}

/// Median ms of 200 frames of the review screen over `doc` at 160×48.
fn frame_ms(doc: EvalResults, reviews: &RunReviews) -> f64 {
    let dir = std::env::temp_dir();
    let app =
        App::reviewing(ReviewQueue::new(dir, doc, reviews, "me".parse().unwrap(), &Default::default()), Theme::dark());
    frames_at(&app, 160, 48, 200)
}

fn main() {
    let (small, large) = (base_run(1_000), base_run(10_000));
    let (few, many) = (reviews(&small, 10), reviews(&large, 10));
    let (few_ms, many_ms) = (agreement_ms(&small, &few), agreement_ms(&large, &many));
    println!(
        "agreement, 10 reviewers: 1,000 answers {few_ms:.1} ms, 10,000 answers {many_ms:.1} ms (growth {:.1}× for 10×)",
        many_ms / few_ms
    );
    let (small_frame, large_frame) = (frame_ms(small, &few), frame_ms(large, &many));
    println!(
        "review screen frame, 160x48: 1,000 answers {small_frame:.3} ms, 10,000 answers {large_frame:.3} ms (ratio {:.2})",
        large_frame / small_frame
    );
    println!("peak RSS: {:.0} MB", peak_rss_mb());
}
