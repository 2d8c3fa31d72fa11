//! Sandbox workers started by hand (`eval-dag sandbox-worker --dataset DIR`,
//! as the pool starts them, without its resource limits) to time their start
//! and read their memory from `/proc/<pid>/smaps_rollup` once they are ready;
//! and CPython's `json.load` of the same file, for the start's baseline.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// One ready worker: how long it took and its memory then, in MB.
#[derive(Debug, Clone, Copy)]
pub struct Ready {
    /// From spawn to its `ready` line.
    pub start: Duration,
    /// Unique set: pages no other process maps (`Private_Clean` + `Private_Dirty`).
    pub uss_mb: f64,
    /// Proportional set: its own pages plus its share of shared ones.
    pub pss_mb: f64,
    /// Peak resident set (`VmHWM`).
    pub peak_rss_mb: f64,
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

fn spawn(executable: &Path, dataset: &Path) -> anyhow::Result<Child> {
    Command::new(executable)
        .arg("sandbox-worker")
        .arg("--dataset")
        .arg(dataset)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .env_clear()
        .env("EVAL_DAG_LOG", "")
        .current_dir("/")
        .spawn()
        .context("cannot start a sandbox worker")
}

/// Start `count` workers over `dataset` at once and measure each once all are
/// ready (they are ended then).
pub fn start(executable: &Path, dataset: &Path, count: usize) -> anyhow::Result<Vec<Ready>> {
    let began = Instant::now();
    let mut children = (0..count).map(|_| spawn(executable, dataset)).collect::<anyhow::Result<Vec<_>>>()?;
    let starts: Vec<anyhow::Result<Duration>> = std::thread::scope(|scope| {
        let waits: Vec<_> = children
            .iter_mut()
            .map(|child| {
                let stdout = child.stdout.take();
                scope.spawn(move || {
                    let mut line = String::new();
                    BufReader::new(stdout.context("no stdout")?).read_line(&mut line)?;
                    if !line.contains("\"ready\"") {
                        bail!("the worker did not start: {line:?}");
                    }
                    Ok(began.elapsed())
                })
            })
            .collect();
        waits.into_iter().map(|wait| wait.join().unwrap_or_else(|_| Err(anyhow::anyhow!("waiter panicked")))).collect()
    });
    let mut ready = Vec::new();
    for (child, start) in children.iter().zip(starts) {
        let proc = format!("/proc/{}", child.id());
        let rollup = std::fs::read_to_string(format!("{proc}/smaps_rollup"))?;
        let status = std::fs::read_to_string(format!("{proc}/status"))?;
        ready.push(Ready {
            start: start?,
            uss_mb: field_mb(&rollup, "Private_Clean") + field_mb(&rollup, "Private_Dirty"),
            pss_mb: field_mb(&rollup, "Pss"),
            peak_rss_mb: field_mb(&status, "VmHWM"),
        });
    }
    for mut child in children {
        drop(child.stdin.take());
        let _ = child.kill();
        let _ = child.wait();
    }
    Ok(ready)
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
