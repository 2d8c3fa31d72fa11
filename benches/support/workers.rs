//! Workers as a pool starts them — cloned from a template that loaded the
//! dataset once, or each spawned from the program — timed from the pool's
//! side and weighed through `/proc/<pid>/smaps_rollup`; and CPython's
//! `json.load` of the same file for the baseline.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::Context;
use eval_dag::domain::GeneratedDag;
use eval_dag::sandbox::{CPython, Interpreter, SandboxConfig, SandboxPool};

/// How a pool starts its workers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mode {
    /// Cloned from a template.
    Cloned,
    /// Each spawned from the program.
    Spawned,
}

impl Mode {
    /// Both, cloned first.
    pub const BOTH: [Mode; 2] = [Mode::Cloned, Mode::Spawned];

    /// Its name in a table.
    pub fn label(self) -> &'static str {
        match self {
            Mode::Cloned => "cloned from a template",
            Mode::Spawned => "spawned",
        }
    }
}

/// The engine the pools run (`FULL_SIZE_ENGINE=cpython`: the machine's python3).
pub fn engine() -> anyhow::Result<Interpreter> {
    Ok(match std::env::var("FULL_SIZE_ENGINE").as_deref() {
        Ok("cpython") => Interpreter::CPython(CPython::find(None)?),
        _ => Interpreter::RustPython,
    })
}

/// A pool of `workers` over `dir` in `mode` on [`engine`], nodes limited to `node_timeout`.
pub fn pool(dir: &Path, executable: &Path, workers: usize, mode: Mode, node_timeout: Duration) -> SandboxPool {
    let config = SandboxConfig {
        workers,
        node_timeout,
        dag_timeout: node_timeout * 2,
        startup_timeout: Duration::from_secs(600),
        memory_limit_bytes: 64 << 30,
        executable: Some(executable.to_path_buf()),
        clone_workers: mode == Mode::Cloned,
        ..SandboxConfig::default()
    };
    SandboxPool::new(dir, config.with_interpreter(engine().expect("the engine"))).expect("a pool")
}

fn one_node(id: &str, code: &str) -> GeneratedDag {
    serde_json::from_value(serde_json::json!({
        "question_id": id, "final_answer_node": "a",
        "nodes": [{"node_id": "a", "function_name": "f", "inputs": {"rows": "dataset.transactions"},
                   "layer": 0, "code": code}]
    }))
    .expect("a DAG")
}

/// Reads every field of every row (each row's and each value's reference
/// count is written, as any scan does).
pub fn scan() -> GeneratedDag {
    one_node(
        "scan",
        "def f(rows):\n    n = 0\n    for r in rows:\n        for v in r.values():\n            n += 1\n    return n\n",
    )
}

/// Runs until the node's limit kills its worker.
fn hang() -> GeneratedDag {
    one_node("hang", "def f(rows):\n    while True:\n        pass\n")
}

/// Seconds from a new pool to its first worker ready.
pub async fn first_start(dir: &Path, executable: &Path, mode: Mode) -> f64 {
    let started = Instant::now();
    let pool = pool(dir, executable, 1, mode, Duration::from_secs(600));
    pool.warm().await;
    let elapsed = started.elapsed().as_secs_f64();
    let result = pool.run(&scan(), 0).await;
    assert!(result.success, "the first worker did not run a DAG: {:?}", result.error);
    elapsed
}

/// Seconds to replace a worker that a DAG's time-out killed, on a warm pool
/// of one whose node limit is short (the template, in `Cloned`, is running).
pub async fn replacement_start(pool: &SandboxPool) -> f64 {
    let result = pool.run(&hang(), 0).await;
    assert!(!result.success, "the hanging DAG should time out");
    let started = Instant::now();
    pool.warm().await;
    started.elapsed().as_secs_f64()
}

/// Seconds from a new pool to the answer of a DAG that reads every row.
pub async fn whole_dataset(dir: &Path, executable: &Path, mode: Mode) -> f64 {
    let started = Instant::now();
    let pool = pool(dir, executable, 1, mode, Duration::from_secs(600));
    let result = pool.run(&scan(), 0).await;
    let elapsed = started.elapsed().as_secs_f64();
    assert!(result.success, "{:?}", result.error);
    elapsed
}

/// A DAG that reads every field of every row twice, in two nodes one after
/// the other: the first read in a worker, then the same read warm.
fn scan_twice() -> GeneratedDag {
    let code =
        "def f(rows):\n    n = 0\n    for r in rows:\n        for v in r.values():\n            n += 1\n    return n\n";
    let again = code.replace("def f(rows)", "def g(rows, before)");
    serde_json::from_value(serde_json::json!({
        "question_id": "scan twice", "final_answer_node": "b",
        "nodes": [
            {"node_id": "a", "function_name": "f", "inputs": {"rows": "dataset.transactions"}, "layer": 0, "code": code},
            {"node_id": "b", "function_name": "g",
             "inputs": {"rows": "dataset.transactions", "before": "prev_node.a.output"}, "layer": 1, "code": again}
        ]
    }))
    .expect("a DAG")
}

/// Seconds of a worker's first scan of every row and of its second, on a
/// new one-worker pool that was ready before the DAG was sent.
pub async fn first_and_second_scan(dir: &Path, executable: &Path, mode: Mode) -> (f64, f64) {
    let pool = pool(dir, executable, 1, mode, Duration::from_secs(600));
    pool.warm().await;
    let result = pool.run(&scan_twice(), 0).await;
    assert!(result.success, "{:?}", result.error);
    let node =
        |id: &str| result.node_timings_ms.iter().find(|(node, _)| node.as_str() == id).map_or(0.0, |(_, ms)| *ms);
    (node("a") / 1e3, node("b") / 1e3)
}

/// Proportional and unique set sizes of a process, in MB.
#[derive(Debug, Clone, Copy, Default)]
pub struct Weight {
    /// Proportional set: its own pages plus its share of shared ones.
    pub pss_mb: f64,
    /// Unique set: pages no other process maps.
    pub uss_mb: f64,
    /// CPU time it has used, in seconds.
    pub cpu_s: f64,
}

/// CPU seconds (user and system) of the process whose `/proc` entry is `proc`.
fn cpu_seconds(proc: &Path) -> f64 {
    let Ok(stat) = std::fs::read_to_string(proc.join("stat")) else { return 0.0 };
    let Some((_, rest)) = stat.rsplit_once(')') else { return 0.0 };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
    // SAFETY: a plain libc query.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    (ticks(11) + ticks(12)) / per_second.max(1.0)
}

/// A `kB` field of a `/proc` file, in MB.
fn field_mb(text: &str, name: &str) -> f64 {
    text.lines()
        .find(|line| line.starts_with(name) && line[name.len()..].starts_with(':'))
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .unwrap_or(0.0)
        / 1024.0
}

/// The processes serving `dir` that are this process's children: each
/// process's weight, the template's apart.
pub fn weigh(dir: &Path) -> (Option<Weight>, Vec<Weight>) {
    let needle = dir.to_string_lossy().into_owned();
    let me = std::process::id().to_string();
    let (mut template, mut workers) = (None, Vec::new());
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let proc = entry.path();
        let (Ok(command), Ok(status)) =
            (std::fs::read(proc.join("cmdline")), std::fs::read_to_string(proc.join("status")))
        else {
            continue;
        };
        let command = String::from_utf8_lossy(&command).replace('\0', " ");
        let parent = status.lines().find_map(|l| l.strip_prefix("PPid:")).map(str::trim);
        if !command.contains(&needle) || parent != Some(me.as_str()) {
            continue;
        }
        let Ok(rollup) = std::fs::read_to_string(proc.join("smaps_rollup")) else { continue };
        let weight = Weight {
            pss_mb: field_mb(&rollup, "Pss"),
            uss_mb: field_mb(&rollup, "Private_Clean") + field_mb(&rollup, "Private_Dirty"),
            cpu_s: cpu_seconds(&proc),
        };
        // The template's stdin is the pool's socket (a clone's command line is its template's).
        let is_template =
            std::fs::read_link(proc.join("fd/0")).is_ok_and(|t| t.to_string_lossy().starts_with("socket:"));
        if is_template {
            template = Some(weight);
        } else {
            workers.push(weight);
        }
    }
    (template, workers)
}

/// Memory of a pool of `count` workers: when ready, and after each has
/// scanned the rows (PSS of every process, template included, in MB).
pub struct PoolMemory {
    /// Seconds until all were ready.
    pub ready_after: f64,
    /// Sum of PSS once ready.
    pub ready_pss_mb: f64,
    /// Sum of PSS once each worker has scanned every row.
    pub scanned_pss_mb: f64,
    /// Of which the template's, once scanned.
    pub template_pss_mb: f64,
    /// Mean USS of a worker once scanned.
    pub worker_uss_mb: f64,
}

/// Start `count` workers at once in `mode`, weigh them, have each scan the
/// rows (the scans run at once, one per worker) and then spin, and weigh
/// them again while they spin: a worker ends with its DAG, so the scanned
/// workers are weighed before their DAGs end (told from the spares the pool
/// starts meanwhile by the CPU time they have used: `settle` seconds, more
/// than a scan takes).
pub async fn pool_memory(dir: &Path, executable: &Path, count: usize, mode: Mode, settle: f64) -> PoolMemory {
    let pool = pool(dir, executable, count, mode, Duration::from_secs(600));
    let started = Instant::now();
    pool.warm().await;
    let ready_after = started.elapsed().as_secs_f64();
    let total = |template: Option<Weight>, workers: &[Weight]| {
        assert_eq!(workers.len(), count, "every worker found");
        template.map_or(0.0, |t| t.pss_mb) + workers.iter().map(|w| w.pss_mb).sum::<f64>()
    };
    let (template, workers) = weigh(dir);
    let ready_pss_mb = total(template, &workers);
    let dag = one_node(
        "scan, then spin",
        "def f(rows):\n    n = 0\n    for r in rows:\n        for v in r.values():\n            n += 1\n    while n:\n        pass\n",
    );
    let scans: Vec<_> = (0..count)
        .map(|_| {
            let (pool, dag) = (pool.clone(), dag.clone());
            tokio::spawn(async move { pool.run(&dag, 0).await })
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(600);
    let (template, scanned) = loop {
        let (template, workers) = weigh(dir);
        let busy: Vec<Weight> = workers.into_iter().filter(|w| w.cpu_s > settle).collect();
        if busy.len() == count || Instant::now() > deadline {
            break (template, busy);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    for scan in scans {
        scan.abort();
    }
    let worker_uss_mb = scanned.iter().map(|w| w.uss_mb).sum::<f64>() / scanned.len().max(1) as f64;
    let template_pss_mb = template.map_or(0.0, |t| t.pss_mb);
    let scanned_pss_mb = total(template, &scanned);
    PoolMemory { ready_after, ready_pss_mb, scanned_pss_mb, template_pss_mb, worker_uss_mb }
}

/// Seconds of each of `runs` `json.load`s of `data` in one `python3` (the
/// interpreter's own start not counted).
pub fn cpython_json_load(data: &Path, runs: usize) -> anyhow::Result<Vec<f64>> {
    let script = format!(
        "import json, time\nts = []\nfor _ in range({runs}):\n    t = time.perf_counter()\n    with open({path:?}) as f:\n        json.load(f)\n    ts.append(time.perf_counter() - t)\nprint(json.dumps(ts))\n",
        path = data.display().to_string()
    );
    let out = Command::new("python3").arg("-c").arg(script).output().context("cannot run python3")?;
    serde_json::from_slice(&out.stdout).context("python3 printed no timings")
}

/// Seconds of a whole `python3` process that loads `data` and reads every
/// field of every row, as [`scan`] does (its start included).
pub fn cpython_whole_dataset(data: &Path) -> anyhow::Result<f64> {
    let script = format!(
        "import json\nwith open({path:?}) as f:\n    rows = json.load(f)['transactions']\nn = 0\nfor r in rows:\n    for v in r.values():\n        n += 1\nprint(n)\n",
        path = data.display().to_string()
    );
    let started = Instant::now();
    let out = Command::new("python3").arg("-c").arg(script).output().context("cannot run python3")?;
    anyhow::ensure!(out.status.success(), "python3 failed: {}", String::from_utf8_lossy(&out.stderr));
    Ok(started.elapsed().as_secs_f64())
}
