//! What the metamorphic checks cost: `eval-dag exec DAG --dataset DIR
//! --metamorphic` (the DAG, then its four transformed copies, each in a worker
//! of its own) against a plain `exec` of the same DAG, alternately in one run,
//! wall time of the whole command, medians of several runs. On the fraud
//! sample and on 200,000 generated rows (`support/analysis.rs`) prepared with
//! `eval-dag prepare --sample-size all`.
//!
//! Run: `cargo bench --bench metamorphic_cost [-- 200000]` (generated sizes;
//! 200,000 when none; `0` for the sample only). `METAMORPHIC_RUNS` sets the
//! runs per side (default 3).

#[path = "support/analysis.rs"]
mod analysis;
#[path = "support/measure.rs"]
mod measure;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, ensure};
use measure::median;
use serde_json::{Value, json};

/// The DAGs timed: a group-by mean and a `Counter` of fraud per category.
const DAGS: [(&str, &str); 2] = [
    (
        "mean amount by category",
        "def f(rows):\n    g = collections.defaultdict(list)\n    for r in rows:\n        g[r['category']].append(r['amt'])\n    return {c: round(statistics.fmean(v), 2) for c, v in sorted(g.items())}\n",
    ),
    (
        "frauds per category",
        "def f(rows):\n    c = collections.Counter(r['category'] for r in rows if r['is_fraud'])\n    return dict(sorted(c.items()))\n",
    ),
];

/// Write `rows` generated transactions as a CSV and prepare them into `out`.
fn prepare(executable: &Path, rows: usize, work: &Path, out: &Path) -> anyhow::Result<()> {
    let data = analysis::dataset(rows);
    let transactions = data["transactions"].as_array().context("no transactions")?;
    let mut csv = csv::Writer::from_path(work.join("transactions.csv"))?;
    let header: Vec<String> =
        transactions.first().and_then(Value::as_object).map(|row| row.keys().cloned().collect()).unwrap_or_default();
    csv.write_record(&header)?;
    for row in transactions {
        csv.write_record(header.iter().map(|name| match &row[name] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        }))?;
    }
    csv.flush()?;
    let status = Command::new(executable)
        .args(["prepare", "--sample-size", "all", "--label", "is_fraud", "--rows-key", "transactions", "--out"])
        .arg(out)
        .arg(work.join("transactions.csv"))
        .status()?;
    ensure!(status.success(), "prepare failed: {status}");
    Ok(())
}

/// Seconds `eval-dag exec` of `dag` takes (with `--metamorphic` when asked);
/// the DAG must succeed.
fn exec(executable: &Path, dag: &Path, dataset: &Path, metamorphic: bool) -> anyhow::Result<f64> {
    let mut command = Command::new(executable);
    command.arg("exec").arg(dag).arg("--dataset").arg(dataset).args(["--node-timeout", "120", "--dag-timeout", "300"]);
    if metamorphic {
        command.arg("--metamorphic");
    }
    let t = Instant::now();
    let out = command.output()?;
    let seconds = t.elapsed().as_secs_f64();
    // With `--metamorphic`, exit 1 may also mean a broken check: the DAG itself must have run.
    let printed: Value = serde_json::from_slice(&out.stdout).context("exec printed no JSON")?;
    let execution = if metamorphic { &printed["execution"] } else { &printed };
    ensure!(execution["success"] == json!(true), "exec failed: {printed}");
    Ok(seconds)
}

/// Both sides alternately on `dataset`, a table row per DAG.
fn compare(executable: &Path, work: &Path, dataset: &Path, runs: usize) -> anyhow::Result<()> {
    println!("| DAG | `exec` s | `exec --metamorphic` s | ratio |\n| --- | ---: | ---: | ---: |");
    for (name, code) in DAGS {
        let dag = work.join("dag.json");
        let spec = json!({"question_id": name, "final_answer_node": "a", "nodes": [{"node_id": "a",
            "function_name": "f", "layer": 0, "inputs": {"rows": "dataset.transactions"}, "code": code}]});
        std::fs::write(&dag, spec.to_string())?;
        let (mut plain, mut checked) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            plain.push(exec(executable, &dag, dataset, false)?);
            checked.push(exec(executable, &dag, dataset, true)?);
        }
        let (plain, checked) = (median(plain), median(checked));
        println!("| {name} | {plain:.2} | {checked:.2} | {:.2}× |", checked / plain);
    }
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let executable = PathBuf::from(env!("CARGO_BIN_EXE_eval-dag"));
    let sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { vec![200_000] } else { sizes };
    let runs: usize = std::env::var("METAMORPHIC_RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(3).max(1);
    let work = tempfile::tempdir()?;
    println!("\n## the fraud sample (2,000 rows), medians of {runs} runs\n");
    compare(&executable, work.path(), &root.join("sample-data/fraud"), runs)?;
    for rows in sizes.into_iter().filter(|&rows| rows > 0) {
        let dataset = work.path().join(format!("prepared-{rows}"));
        prepare(&executable, rows, work.path(), &dataset)?;
        let bytes = std::fs::metadata(dataset.join("data.json"))?.len();
        println!("\n## {rows} generated rows ({:.1} MB of data.json), medians of {runs} runs\n", bytes as f64 / 1e6);
        compare(&executable, work.path(), &dataset, runs)?;
    }
    Ok(())
}
