//! Analysis code at full size, the sandbox against CPython in one run:
//! generated transactions (`support/analysis.rs`) at 10,000 / 200,000 /
//! 1,000,000 rows, 16 DAGs typical of analysis code, each run in a warm
//! one-worker pool and in `python3` on the same data (answers must agree);
//! medians of several runs, reported as ratios. Beside them: a worker's start
//! against CPython's `json.load` of the same file, and each worker's memory
//! (USS, PSS, peak RSS) with 1, 2 and 4 workers started at once. Then four
//! reference DAGs that measure what the sandbox adds (`REFERENCE_DAGS`).
//!
//! Run: `cargo bench --bench full_size [-- 10000 200000]` (sizes to run;
//! all three when none). `FULL_SIZE_RUNS` sets the timed runs per DAG
//! (default 5); `FULL_SIZE_SKIP` = `dags`, `start` or `memory` leaves that part out;
//! `FULL_SIZE_ONLY` = a comma-separated list of DAG names runs only those;
//! `FULL_SIZE_WORKER` = the path of another build's `eval-dag` runs its
//! workers instead (to measure a change against the build before it);
//! `FULL_SIZE_KEEP` = a directory keeps each size's `data.json` (in `SIZE/`)
//! and the DAGs (`dags.json`) there, to profile a worker on them by hand.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark stops at its first failure")]

#[path = "support/analysis.rs"]
mod analysis;
#[path = "support/cpython.rs"]
mod cpython;
#[path = "support/measure.rs"]
mod measure;
#[path = "support/workers.rs"]
mod workers;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use eval_dag::domain::GeneratedDag;
use eval_dag::sandbox::{DataLimits, SandboxConfig, SandboxPool};
use measure::median;

const SIZES: [usize; 3] = [10_000, 200_000, 1_000_000];
/// Worker starts timed (one at a time) per size.
const STARTS: usize = 3;

/// A one-worker pool over `dir`, under the limits its data's size gives but
/// with room for the slowest DAG.
fn pool(dir: &Path, executable: &Path) -> anyhow::Result<SandboxPool> {
    let data_bytes = std::fs::metadata(dir.join("data.json"))?.len();
    let config = SandboxConfig {
        workers: 1,
        node_timeout: Duration::from_secs(300),
        dag_timeout: Duration::from_secs(600),
        executable: Some(executable.to_path_buf()),
        ..SandboxConfig::for_data(DataLimits { data_bytes }, None, None)?
    };
    Ok(SandboxPool::new(dir, config)?)
}

/// How long the benchmark leaves the worker idle before each timed run:
/// 1 ms per 200 kB of `data.json`, at least 20 ms (enough for the dataset's
/// check after the previous DAG; see "guard checked on the way" for its cost).
fn idle(dir: &Path) -> anyhow::Result<Duration> {
    let bytes = std::fs::metadata(dir.join("data.json"))?.len();
    Ok(Duration::from_millis((bytes / 200_000).max(20)))
}

/// Each DAG in the sandbox and in CPython: a table row per DAG and the
/// ratios' maximum and median.
fn compare_dags(
    root: &Path,
    dir: &Path,
    executable: &Path,
    dags: &[GeneratedDag],
    runs: usize,
    summary: bool,
) -> anyhow::Result<()> {
    let idle = idle(dir)?;
    let runtime = tokio::runtime::Runtime::new()?;
    let (answers, theirs) = cpython::cpython(root, &dir.join("data.json"), dags, runs);
    let pool = pool(dir, executable)?;
    runtime.block_on(pool.warm());
    println!("| DAG | eval-dag ms | CPython ms | ratio |\n| --- | ---: | ---: | ---: |");
    let mut ratios = Vec::new();
    for ((dag, answer), theirs) in dags.iter().zip(&answers).zip(theirs) {
        // The first run also checks the dataset's keys; it is not timed.
        let first = runtime.block_on(pool.run(dag, 0));
        if !first.success || !first.final_answer.as_ref().is_some_and(|ours| analysis::agree(ours, answer)) {
            let ours = first.error.or(first.final_answer.map(|a| a.to_string())).unwrap_or_default();
            println!("| {} | FAILED: {ours} | CPython: {answer} | |", dag.question_id);
            continue;
        }
        let mut ours = Vec::new();
        for _ in 0..runs {
            // Idle between DAGs, as in a run (LLM calls come between a
            // worker's executions): the worker checks the dataset then.
            std::thread::sleep(idle);
            let t = Instant::now();
            let result = runtime.block_on(pool.run(dag, 0));
            ours.push(t.elapsed().as_secs_f64());
            anyhow::ensure!(result.success, "{} failed on a later run: {:?}", dag.question_id, result.error);
        }
        let (ours, theirs) = (median(ours), median(theirs));
        ratios.push(ours / theirs);
        println!("| `{}` | {:.1} | {:.1} | {:.2}× |", dag.question_id, ours * 1e3, theirs * 1e3, ours / theirs);
    }
    if summary && !ratios.is_empty() {
        let max = ratios.iter().copied().fold(0.0, f64::max);
        println!("\nratios: median {:.2}×, max {max:.2}× over {} DAGs", median(ratios.clone()), ratios.len());
    }
    Ok(())
}

/// A worker's start (median of `STARTS`, one at a time) against CPython's `json.load`.
fn compare_start(dir: &Path, executable: &Path) -> anyhow::Result<()> {
    let mut starts = Vec::new();
    for _ in 0..STARTS {
        let ready = workers::start(executable, dir, 1)?;
        starts.extend(ready.iter().map(|r| r.start.as_secs_f64()));
    }
    let ours = median(starts);
    let theirs = median(workers::cpython_json_load(&dir.join("data.json"), STARTS)?);
    println!(
        "\nworker start (median of {STARTS}): {:.0} ms; CPython json.load: {:.0} ms; ratio {:.2}×",
        ours * 1e3,
        theirs * 1e3,
        ours / theirs
    );
    Ok(())
}

/// Memory per worker with 1, 2 and 4 workers started at once.
fn memory(dir: &Path, executable: &Path) -> anyhow::Result<()> {
    println!(
        "\n| workers | ready after (slowest) | USS per worker | PSS per worker | peak RSS per worker | PSS of all |"
    );
    println!("| ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut one = None;
    for count in [1, 2, 4] {
        let ready = workers::start(executable, dir, count)?;
        let n = ready.len() as f64;
        let slowest = ready.iter().map(|r| r.start).max().unwrap_or_default();
        let uss = ready.iter().map(|r| r.uss_mb).sum::<f64>() / n;
        let pss = ready.iter().map(|r| r.pss_mb).sum::<f64>() / n;
        let peak = ready.iter().map(|r| r.peak_rss_mb).sum::<f64>() / n;
        let all = pss * n;
        let times_one = one.map(|one: f64| format!(" ({:.2}× one)", all / one)).unwrap_or_default();
        one.get_or_insert(all);
        println!(
            "| {count} | {:.2} s | {uss:.0} MB | {pss:.0} MB | {peak:.0} MB | {all:.0} MB{times_one} |",
            slowest.as_secs_f64()
        );
    }
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let executable = std::env::var_os("FULL_SIZE_WORKER")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_eval-dag")), PathBuf::from);
    let sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { SIZES.to_vec() } else { sizes };
    let runs: usize = std::env::var("FULL_SIZE_RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(5).max(1);
    let skip = std::env::var("FULL_SIZE_SKIP").unwrap_or_default();
    let only = std::env::var("FULL_SIZE_ONLY").ok();
    let chosen = |dags: Vec<GeneratedDag>| -> Vec<GeneratedDag> {
        let Some(only) = &only else { return dags };
        dags.into_iter().filter(|dag| only.split(',').any(|name| dag.question_id.as_str() == name)).collect()
    };
    let (dags, references) = (chosen(analysis::dags()?), chosen(analysis::reference_dags()?));
    let keep = std::env::var_os("FULL_SIZE_KEEP").map(PathBuf::from);
    if let Some(keep) = &keep {
        std::fs::create_dir_all(keep)?;
        std::fs::write(keep.join("dags.json"), serde_json::to_string(&[&dags, &references])?)?;
    }
    for size in sizes {
        let temporary = tempfile::tempdir()?;
        let dir = match &keep {
            Some(keep) => keep.join(size.to_string()),
            None => temporary.path().to_path_buf(),
        };
        std::fs::create_dir_all(&dir)?;
        let data = analysis::dataset(size).to_string();
        std::fs::write(dir.join("data.json"), &data).context("cannot write the data")?;
        println!("\n## {size} rows ({:.1} MB of data.json), medians of {runs} runs\n", data.len() as f64 / 1e6);
        drop(data);
        if !skip.contains("dags") {
            compare_dags(&root, &dir, &executable, &dags, runs, true)?;
            println!("\nWhat the sandbox adds (not in the ratios above):\n");
            compare_dags(&root, &dir, &executable, &references, runs, false)?;
        }
        if !skip.contains("start") {
            compare_start(&dir, &executable)?;
        }
        if !skip.contains("memory") {
            memory(&dir, &executable)?;
        }
    }
    Ok(())
}
