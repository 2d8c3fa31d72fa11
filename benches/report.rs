//! Reports at scale: a generated trace of 1,000 questions × 3 iterations, and
//! the time to write `eval_report.html` and `eval_results.json` from it (what
//! `eval-dag report` does), against the baseline of reading and folding the
//! trace alone — the part every consumer of a trace pays. Medians of 5 runs.
//! Run: `cargo bench --profile dev --bench report` (`REPORT_BENCH_KEEP=DIR` also
//! leaves the trace and its report in DIR, to open in a browser).

#[path = "support/synthetic_trace.rs"]
mod synthetic_trace;

use std::time::Instant;

use eval_dag::report::{eval_results, fold_trace, report_html};
use eval_dag::trace::Trace;

const QUESTIONS: usize = 1000;
const ITERATIONS: u32 = 3;
const RUNS: usize = 5;

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn timed<T>(work: impl FnOnce() -> T) -> (T, f64) {
    let started = Instant::now();
    let value = work();
    (value, started.elapsed().as_secs_f64() * 1e3)
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.trace.jsonl");
    synthetic_trace::write_trace(&path, QUESTIONS, ITERATIONS);
    let trace_size = std::fs::metadata(&path).unwrap().len();
    let (mut fold, mut html, mut results) = (Vec::new(), Vec::new(), Vec::new());
    let (mut html_size, mut results_size) = (0, 0);
    for _ in 0..RUNS {
        let (state, ms) = timed(|| fold_trace(&Trace::read(&path).unwrap()));
        fold.push(ms);
        let (page, ms) = timed(|| report_html(&state, "2026-11-22T00:00:00Z"));
        html.push(ms);
        html_size = page.len();
        let (document, ms) =
            timed(|| serde_json::to_string_pretty(&eval_results(&state, "2026-11-22T00:00:00Z")).unwrap());
        results.push(ms);
        results_size = document.len();
    }
    if let Some(keep) = std::env::var_os("REPORT_BENCH_KEEP") {
        let state = fold_trace(&Trace::read(&path).unwrap());
        std::fs::write(std::path::Path::new(&keep).join("big_report.html"), report_html(&state, "now")).unwrap();
        std::fs::copy(&path, std::path::Path::new(&keep).join("big.trace.jsonl")).unwrap();
    }
    let (fold, html, results) = (median(fold), median(html), median(results));
    println!("trace: {QUESTIONS} questions × {ITERATIONS} iterations, {:.1} MB", trace_size as f64 / 1e6);
    println!("read + fold the trace (baseline): {fold:.1} ms");
    println!("eval_report.html: {html:.1} ms ({:.2}× the baseline), {:.1} MB", html / fold, html_size as f64 / 1e6);
    println!(
        "eval_results.json: {results:.1} ms ({:.2}× the baseline), {:.1} MB",
        results / fold,
        results_size as f64 / 1e6
    );
    println!("whole `eval-dag report` (read, fold, HTML): {:.1} ms", fold + html);
}
