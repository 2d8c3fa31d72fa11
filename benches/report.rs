//! Reports at scale: a generated trace of 1,000 questions × 3 iterations (by default), and
//! the time to write `eval_report.html` and `eval_results.json` from it (what
//! `eval-dag report` does), against the baseline of reading and folding the
//! trace alone — the part every consumer of a trace pays; and what the
//! critic's scorecard, the findings taxonomy and convergence — computed for
//! both files — add to `eval-dag report`. Medians of 5 runs.
//! Run: `cargo bench --profile dev --bench report` (`REPORT_BENCH_KEEP=DIR` also
//! leaves the trace and its report in DIR, to open in a browser;
//! `REPORT_BENCH_QUESTIONS=N` and `REPORT_BENCH_RUNS=N` change the size and
//! the number of runs).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark stops at its first failure")]

#[path = "support/synthetic_trace.rs"]
mod synthetic_trace;

#[path = "support/measure.rs"]
mod measure;

use measure::median;
use std::time::Instant;

use eval_dag::report::{convergence, critic_scorecard, findings_taxonomy, fold_trace, report_html, write_eval_results};
use eval_dag::trace::Trace;

const ITERATIONS: u32 = 3;

/// `name` from the environment as a number, or `default`.
fn setting(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn timed<T>(work: impl FnOnce() -> T) -> (T, f64) {
    let started = Instant::now();
    let value = work();
    (value, started.elapsed().as_secs_f64() * 1e3)
}

fn main() {
    let (questions, runs) = (setting("REPORT_BENCH_QUESTIONS", 1000), setting("REPORT_BENCH_RUNS", 5));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.trace.jsonl");
    synthetic_trace::write_trace(&path, questions, ITERATIONS);
    let trace_size = std::fs::metadata(&path).unwrap().len();
    let (mut fold, mut html, mut results) = (Vec::new(), Vec::new(), Vec::new());
    let (mut scorecard, mut taxonomy) = (Vec::new(), Vec::new());
    let (mut html_size, mut results_size) = (0, 0);
    let stamp = chrono::DateTime::parse_from_rfc3339("2026-11-22T00:00:00Z").unwrap();
    for _ in 0..runs {
        let (state, ms) = timed(|| fold_trace(&Trace::read(&path).unwrap()));
        fold.push(ms);
        let (page, ms) = timed(|| report_html(&state, &stamp));
        html.push(ms);
        html_size = page.len();
        let (document, ms) = timed(|| {
            let mut document = Vec::new();
            write_eval_results(&mut document, &state, "2026-11-22T00:00:00Z").unwrap();
            document
        });
        results.push(ms);
        results_size = document.len();
        scorecard.push(timed(|| critic_scorecard(&state)).1);
        taxonomy.push(timed(|| (findings_taxonomy(&state), convergence(&state))).1);
    }
    if let Some(keep) = std::env::var_os("REPORT_BENCH_KEEP") {
        let state = fold_trace(&Trace::read(&path).unwrap());
        std::fs::write(std::path::Path::new(&keep).join("big_report.html"), report_html(&state, &stamp)).unwrap();
        std::fs::copy(&path, std::path::Path::new(&keep).join("big.trace.jsonl")).unwrap();
    }
    let (fold, html, results) = (median(fold), median(html), median(results));
    let (scorecard, taxonomy) = (median(scorecard), median(taxonomy));
    println!("trace: {questions} questions × {ITERATIONS} iterations, {:.1} MB", trace_size as f64 / 1e6);
    println!("read + fold the trace (baseline): {fold:.1} ms");
    println!("eval_report.html: {html:.1} ms ({:.2}× the baseline), {:.1} MB", html / fold, html_size as f64 / 1e6);
    println!(
        "eval_results.json: {results:.1} ms ({:.2}× the baseline), {:.1} MB",
        results / fold,
        results_size as f64 / 1e6
    );
    let report = fold + html;
    println!("whole `eval-dag report` (read, fold, HTML): {report:.1} ms");
    let without = report - scorecard - taxonomy;
    println!(
        "of which the critic scorecard {scorecard:.1} ms, findings taxonomy + convergence {taxonomy:.1} ms: \
         {:.1} % on top of the report without them ({without:.1} ms); the taxonomy alone {:.1} %",
        100.0 * (scorecard + taxonomy) / without,
        100.0 * taxonomy / (report - taxonomy)
    );
}
