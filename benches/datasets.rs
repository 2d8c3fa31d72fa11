//! A run over many small datasets: a sandbox pool per dataset against one
//! worker holding every dataset, measured in the same run. Forty datasets of
//! 500 rows each: the time to start a worker per dataset (all at once) and
//! their resident memory, against one worker over a data.json holding all
//! forty under their own keys; and one dataset's cold start, the price a
//! question pays when its dataset's pool was let go. Medians of 3 runs.
//! Run: `cargo bench --bench datasets`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark stops at its first failure")]

#[path = "support/measure.rs"]
mod measure;

use measure::median;
use std::path::{Path, PathBuf};
use std::time::Instant;

use eval_dag::sandbox::{SandboxConfig, SandboxPool};
use serde_json::{Value, json};

const DATASETS: usize = 40;
const ROWS: usize = 500;
const RUNS: usize = 3;

/// Dataset `index`'s rows: a category, an amount, a flag.
fn rows(index: usize) -> Vec<Value> {
    (0..ROWS)
        .map(|row| {
            json!({"category": format!("c{}", row % 7), "amount": (row * (index + 3)) as f64 / 10.0,
            "flag": row % 5 == index % 5})
        })
        .collect()
}

fn metadata(keys: &[String]) -> Value {
    let dataset_keys: serde_json::Map<String, Value> = keys.iter().map(|k| (k.clone(), json!("rows"))).collect();
    json!({"description": "a small table", "columns": {"category": {"type": "categorical"}, "amount": {"type": "float"},
        "flag": {"type": "boolean"}}, "dataset_keys": dataset_keys})
}

fn write(dir: &Path, data: &Value, keys: &[String]) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("data.json"), data.to_string()).unwrap();
    std::fs::write(dir.join("metadata.json"), metadata(keys).to_string()).unwrap();
}

/// A one-worker pool over `dir`.
fn pool(dir: &Path) -> SandboxPool {
    let executable = Some(PathBuf::from(env!("CARGO_BIN_EXE_eval-dag")));
    SandboxPool::new(dir, SandboxConfig { workers: 1, executable, ..SandboxConfig::default() }).unwrap()
}

/// Resident memory of this process's children (the workers), bytes.
fn workers_resident() -> u64 {
    let me = std::process::id().to_string();
    let mut total = 0;
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(status) = std::fs::read_to_string(entry.path().join("status")) else { continue };
        let field = |name: &str| status.lines().find_map(|l| l.strip_prefix(name)).map(str::trim).map(str::to_string);
        if field("PPid:").as_deref() != Some(me.as_str()) {
            continue;
        }
        let kib: u64 = field("VmRSS:").and_then(|v| v.split_whitespace().next()?.parse().ok()).unwrap_or(0);
        total += kib * 1024;
    }
    total
}

fn main() {
    let root = tempfile::tempdir().unwrap();
    let mut merged = serde_json::Map::new();
    let mut dirs = Vec::new();
    for index in 0..DATASETS {
        let dir = root.path().join(format!("d{index:02}"));
        write(&dir, &json!({"rows": rows(index)}), &["rows".to_string()]);
        merged.insert(format!("d{index:02}_rows"), Value::Array(rows(index)));
        dirs.push(dir);
    }
    let keys: Vec<String> = merged.keys().cloned().collect();
    let all = root.path().join("all");
    write(&all, &Value::Object(merged), &keys);
    let runtime = tokio::runtime::Runtime::new().unwrap();

    let (mut per_start, mut per_rss, mut one_start, mut one_rss, mut cold) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let pools: Vec<SandboxPool> = dirs.iter().map(|dir| pool(dir)).collect();
        let t = Instant::now();
        runtime.block_on(futures::future::join_all(pools.iter().map(|p| p.warm())));
        per_start.push(t.elapsed().as_secs_f64());
        per_rss.push(workers_resident() as f64);
        drop(pools);
        std::thread::sleep(std::time::Duration::from_millis(300));

        let single = pool(&all);
        let t = Instant::now();
        runtime.block_on(single.warm());
        one_start.push(t.elapsed().as_secs_f64());
        one_rss.push(workers_resident() as f64);
        drop(single);

        let cold_pool = pool(&dirs[0]);
        let t = Instant::now();
        runtime.block_on(cold_pool.warm());
        cold.push(t.elapsed().as_secs_f64());
        drop(cold_pool);
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    let mib = |bytes: f64| bytes / (1024.0 * 1024.0);
    let (per_start, per_rss) = (median(per_start), median(per_rss));
    let (one_start, one_rss) = (median(one_start), median(one_rss));
    println!("{DATASETS} datasets of {ROWS} rows, medians of {RUNS} runs:");
    println!(
        "  a worker per dataset, all started at once: {:>8.0} ms  {:>7.1} MiB resident ({:.1} MiB a worker)",
        per_start * 1e3,
        mib(per_rss),
        mib(per_rss) / DATASETS as f64
    );
    println!(
        "  one worker holding all {DATASETS}:           {:>8.0} ms  {:>7.1} MiB resident",
        one_start * 1e3,
        mib(one_rss)
    );
    println!("  one dataset's worker started cold:         {:>8.0} ms", median(cold) * 1e3);
    println!(
        "  ratios (per dataset / one holding all): start {:.2}x, memory {:.2}x",
        per_start / one_start,
        per_rss / one_rss
    );
}
