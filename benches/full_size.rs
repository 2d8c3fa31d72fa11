//! Analysis code at full size, the sandbox against CPython in one run:
//! generated transactions (`support/analysis.rs`) at 10,000 / 200,000 /
//! 1,000,000 rows, 16 DAGs typical of analysis code, each run in a warm
//! one-worker pool and in `python3` on the same data (answers must agree);
//! medians of several runs, reported as ratios. Beside them: a worker's start
//! (the first of a pool, a further one, and a DAG reading every row with the
//! start included) against CPython, a worker's first read of every row
//! against its second, what a fresh worker per DAG costs, and the
//! memory of 1, 2 and 4 workers when
//! ready and after a scan, cloned from a template and spawned. Then four
//! reference DAGs that measure what the sandbox adds (`REFERENCE_DAGS`).
//!
//! Run: `cargo bench --bench full_size [-- 10000 200000]` (sizes to run;
//! all three when none). `FULL_SIZE_RUNS` sets the timed runs per DAG
//! (default 5); `FULL_SIZE_SKIP` = `dags`, `clean`, `start` or `memory` leaves that part out;
//! `FULL_SIZE_ONLY` = a comma-separated list of DAG names runs only those;
//! `FULL_SIZE_WORKER` = the path of another build's `eval-dag` runs its
//! workers instead (to measure a change against the build before it);
//! `FULL_SIZE_ENGINE=cpython` runs the pools on the CPython engine (the
//! machine's python3), so the ratios are the walls' and protocol's cost;
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
use eval_dag::domain::{Engine, GeneratedDag};
use eval_dag::sandbox::{DataLimits, Interpreter, SandboxConfig, SandboxPool};
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
        interpreter: workers::engine()?,
        ..SandboxConfig::for_data(DataLimits { data_bytes }, None, None, Engine::RustPython)?
    };
    Ok(SandboxPool::new(dir, config)?)
}

/// How long the benchmark leaves the pool idle before each timed run, as LLM
/// calls do in a run: 1 ms per 200 kB of `data.json`, at least 20 ms (enough
/// for the replacement of the previous DAG's worker to be ready; see
/// [`clean_start`] for DAGs that do not wait).
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
    let cpython_engine = matches!(workers::engine()?, Interpreter::CPython(_));
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
            // pool's executions): the next DAG's worker gets ready then. A
            // CPython worker reads the dataset before it is ready: wait for it.
            std::thread::sleep(idle);
            if cpython_engine {
                runtime.block_on(pool.warm());
            }
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

/// What a fresh worker per DAG costs: the floor DAG (`len(rows)`) timed with
/// the pool idle before each run (its next worker made in advance, as between
/// a run's LLM calls) and back to back (each DAG waits for the worker the one
/// before it started), against CPython running the same DAG in a warm process.
fn clean_start(root: &Path, dir: &Path, executable: &Path, runs: usize) -> anyhow::Result<()> {
    let floor: Vec<GeneratedDag> = analysis::reference_dags()?.into_iter().take(1).collect();
    let runtime = tokio::runtime::Runtime::new()?;
    let (_, theirs) = cpython::cpython(root, &dir.join("data.json"), &floor, runs);
    let theirs = median(theirs.into_iter().flatten().collect());
    let pool = pool(dir, executable)?;
    runtime.block_on(pool.warm());
    let idle = idle(dir)?;
    let time = |pause: Duration| -> anyhow::Result<f64> {
        let mut samples = Vec::new();
        for _ in 0..runs.max(5) {
            std::thread::sleep(pause);
            let started = Instant::now();
            let result = runtime.block_on(pool.run(&floor[0], 0));
            samples.push(started.elapsed().as_secs_f64());
            anyhow::ensure!(result.success, "the floor DAG failed: {:?}", result.error);
        }
        Ok(median(samples))
    };
    let (ready, back_to_back) = (time(idle)?, time(Duration::ZERO)?);
    println!(
        "
A fresh worker per DAG (`{}`):
",
        floor[0].question_id
    );
    println!(
        "| worker | eval-dag ms | CPython ms (warm process) | ratio |
| --- | ---: | ---: | ---: |"
    );
    for (label, ours) in [("made in advance (idle before)", ready), ("waited for (back to back)", back_to_back)] {
        println!("| {label} | {:.1} | {:.3} | {:.0}× |", ours * 1e3, theirs * 1e3, ours / theirs);
    }
    Ok(())
}

/// Worker start against CPython's `json.load`, for each way of starting:
/// the first worker of a new pool, a replacement (a further worker, the
/// template already loaded), and a DAG reading every row on a new pool
/// against a whole `python3` doing the same (medians of `STARTS`).
fn compare_start(dir: &Path, executable: &Path) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Runtime::new()?;
    let data = dir.join("data.json");
    let load = median(workers::cpython_json_load(&data, STARTS)?);
    let whole_cpython =
        median((0..STARTS).map(|_| workers::cpython_whole_dataset(&data)).collect::<anyhow::Result<_>>()?);
    println!(
        "\nCPython: json.load {:.0} ms; a whole python3 loading and reading every row {:.0} ms",
        load * 1e3,
        whole_cpython * 1e3
    );
    println!(
        "\n| workers | first ready | × json.load | further ready | × first | whole-dataset DAG, start included | × json.load | × python3 |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut scan_rows = Vec::new();
    for mode in workers::Mode::BOTH {
        let first =
            median((0..STARTS).map(|_| runtime.block_on(workers::first_start(dir, executable, mode))).collect());
        let pool = workers::pool(dir, executable, 1, mode, Duration::from_secs(1));
        runtime.block_on(pool.warm());
        let further = median((0..STARTS).map(|_| runtime.block_on(workers::replacement_start(&pool))).collect());
        drop(pool);
        let whole =
            median((0..STARTS).map(|_| runtime.block_on(workers::whole_dataset(dir, executable, mode))).collect());
        let scans: Vec<(f64, f64)> =
            (0..STARTS).map(|_| runtime.block_on(workers::first_and_second_scan(dir, executable, mode))).collect();
        scan_rows.push(format!(
            "| {} | {:.0} ms | {:.0} ms | {:.2}× |",
            mode.label(),
            median(scans.iter().map(|s| s.0).collect()) * 1e3,
            median(scans.iter().map(|s| s.1).collect()) * 1e3,
            median(scans.iter().map(|s| s.0 / s.1).collect())
        ));
        println!(
            "| {} | {:.0} ms | {:.2}× | {:.1} ms | {:.3}× | {:.0} ms | {:.2}× | {:.2}× |",
            mode.label(),
            first * 1e3,
            first / load,
            further * 1e3,
            further / first,
            whole * 1e3,
            whole / load,
            whole / whole_cpython
        );
    }
    println!("\nA worker's first read of every row against its second, in one DAG (medians of {STARTS} workers):\n");
    println!("| workers | first scan | second scan | first ÷ second |\n| --- | ---: | ---: | ---: |");
    for row in scan_rows {
        println!("{row}");
    }
    Ok(())
}

/// Memory of 1, 2 and 4 workers started at once, when ready and after each
/// has scanned every row, cloned and spawned.
fn memory(dir: &Path, executable: &Path) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Runtime::new()?;
    println!(
        "\n| workers | started | ready after | PSS of all, ready | PSS of all, after a scan | × one spawned | of which the template | USS per worker |"
    );
    println!("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    // More CPU than a scan takes: a second per 10 MB of data, at least 5.
    let settle = (std::fs::metadata(dir.join("data.json"))?.len() as f64 / 1e7).max(5.0);
    let one = runtime.block_on(workers::pool_memory(dir, executable, 1, workers::Mode::Spawned, settle)).scanned_pss_mb;
    for count in [1, 2, 4] {
        for mode in workers::Mode::BOTH {
            let memory = runtime.block_on(workers::pool_memory(dir, executable, count, mode, settle));
            println!(
                "| {count} | {} | {:.2} s | {:.0} MB | {:.0} MB | {:.2}× | {:.0} MB | {:.0} MB |",
                mode.label(),
                memory.ready_after,
                memory.ready_pss_mb,
                memory.scanned_pss_mb,
                memory.scanned_pss_mb / one,
                memory.template_pss_mb,
                memory.worker_uss_mb
            );
        }
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
        if !skip.contains("clean") {
            clean_start(&root, &dir, &executable, runs)?;
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
