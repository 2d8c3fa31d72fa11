//! The offline planner on wide and long tables: 3 questions planned over
//! 100 rows of 100, 1,000, 10,000 and 50,000 float columns, and over
//! 1,000,000 rows of 20 columns (4 categorical, 16 float; prepared into the
//! default 5,000-row sample). Each case is prepared once, then loaded and
//! planned in a fresh process per run, so each run's peak memory is its own:
//! the time to load the dataset, the time to plan, the peak resident set after
//! loading and after planning. Medians of 3 runs.
//! Run: `cargo bench --bench wide`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark stops at its first failure")]

#[path = "support/measure.rs"]
mod measure;

use measure::{median, peak_rss_mb};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use eval_dag::dataset::Dataset;
use eval_dag::dataset::prepare::{PrepareOptions, prepare, write};
use eval_dag::llm::{OfflineOptions, OfflinePlanner};

const RUNS: usize = 3;
/// Rows and columns of each case.
const CASES: &[(usize, usize)] = &[(100, 100), (100, 1_000), (100, 10_000), (100, 50_000), (1_000_000, 20)];
/// Set in a child process: the prepared dataset to load and plan over.
const CHILD: &str = "EVAL_DAG_BENCH_WIDE_DATASET";

/// A CSV of `rows` × `columns`: on a long table the first 4 columns are
/// categorical, every other column a float in 0-100 (a seeded stream).
fn csv(path: &Path, rows: usize, columns: usize) {
    let categorical = if columns <= 20 { 4 } else { 0 };
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let names: Vec<String> =
        (0..columns).map(|c| if c < categorical { format!("group_{c}") } else { format!("sensor_{c:05}") }).collect();
    writeln!(out, "{}", names.join(",")).unwrap();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut line = String::new();
    for _ in 0..rows {
        line.clear();
        for c in 0..columns {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let draw = (state >> 33) % 10_000;
            if c > 0 {
                line.push(',');
            }
            if c < categorical {
                line.push_str(&format!("g{}", draw % (3 + c as u64 * 2)));
            } else {
                line.push_str(&format!("{:.2}", draw as f64 / 100.0));
            }
        }
        writeln!(out, "{line}").unwrap();
    }
}

/// In a child: load `dir`, plan 3 questions, print the four figures.
fn child(dir: &Path) {
    let started = Instant::now();
    let dataset = Arc::new(Dataset::load(dir).unwrap());
    let load_ms = started.elapsed().as_secs_f64() * 1000.0;
    let loaded_mb = peak_rss_mb();
    let started = Instant::now();
    let planner = OfflinePlanner::new(dataset, 3, 0, OfflineOptions::default());
    let plan_ms = started.elapsed().as_secs_f64() * 1000.0;
    assert_eq!(planner.questions().len(), 3);
    println!("{load_ms} {plan_ms} {loaded_mb} {}", peak_rss_mb());
}

fn main() {
    if let Ok(dir) = std::env::var(CHILD) {
        return child(Path::new(&dir));
    }
    let root = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    println!(
        "rows × columns: prepare once; then medians of {RUNS} runs: load, plan 3 questions, peak RSS loaded → planned"
    );
    let mut plans = Vec::new();
    for &(rows, columns) in CASES {
        let path = root.path().join(format!("t{rows}x{columns}.csv"));
        csv(&path, rows, columns);
        let started = Instant::now();
        let options = PrepareOptions {
            sample_size: Some(5_000),
            label: None,
            seed: 0,
            rows_key: "rows".into(),
            encoding: None,
            header_row: None,
            table: None,
        };
        let dir = root.path().join(format!("t{rows}x{columns}"));
        write(&prepare(&path, &options).unwrap(), &dir).unwrap();
        let prepare_s = started.elapsed().as_secs_f64();
        std::fs::remove_file(&path).unwrap();
        let mut figures: [Vec<f64>; 4] = Default::default();
        for _ in 0..RUNS {
            let output = std::process::Command::new(&exe).env(CHILD, &dir).output().unwrap();
            assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
            let text = String::from_utf8(output.stdout).unwrap();
            for (figure, value) in figures.iter_mut().zip(text.split_whitespace()) {
                figure.push(value.parse().unwrap());
            }
        }
        let [load, plan, loaded, planned] = figures.map(median);
        plans.push(plan);
        println!(
            "{rows:>9} × {columns:>6}: prepare {prepare_s:>6.1} s · load {load:>8.1} ms · plan {plan:>8.1} ms · \
             peak {loaded:>7.1} → {planned:>7.1} MB"
        );
    }
    println!("plan time 1,000 → 10,000 columns: {:.1}×", plans[2] / plans[1]);
}
