//! The cluster examples (`examples/kubernetes/`, `examples/slurm/`,
//! `examples/ray/`): every eval-dag command line they hold parses, a shard's
//! `run` goes as far as a dry run on a benchmark directory (the index read
//! from each engine's variable), and the Kubernetes manifests validate against
//! the Kubernetes schema (the pinned `kubernetes-validate`), which refuses a
//! manifest with a misspelt field.

use crate::common;

use std::path::Path;

use clap::Parser;
use common::tools::{Tool, python3_with_packages, require};
use eval_dag::cli::Cli;

use super::benchmark_run::write_benchmark;

/// The eval-dag command lines of `text`: from `eval-dag ` to the end of the
/// line or a `;`, its shell variables replaced with `vars`, quotes dropped.
fn command_lines(text: &str, vars: &[(&str, &str)]) -> Vec<Vec<String>> {
    text.lines()
        .filter_map(|line| line.find("eval-dag run ").or_else(|| line.find("eval-dag merge ")).map(|at| &line[at..]))
        .map(|command| {
            let mut command = command.split(';').next().unwrap_or_default().replace('"', "");
            for (name, value) in vars {
                command = command.replace(name, value);
            }
            command.split_whitespace().map(String::from).collect()
        })
        .collect()
}

/// Each line parses as eval-dag's command line; each new shard's `run` goes
/// through a dry run over the benchmark in `bench` with `index` in `variable`.
fn check(example: &str, vars: &[(&str, &str)], bench: &Path, variable: &str) -> usize {
    let text = std::fs::read_to_string(common::root().join(example)).unwrap();
    let lines = command_lines(&text, vars);
    let mut shards = 0;
    for line in &lines {
        if let Err(err) = Cli::try_parse_from(line) {
            panic!("{example}: {line:?} does not parse: {err}");
        }
        if line[1] != "run" || line.iter().any(|arg| arg == "--resume") {
            continue;
        }
        assert!(line.contains(&"auto/4".to_string()), "{example}: {line:?} reads its shard from the engine");
        let output = common::eval_dag(bench)
            .args(&line[1..])
            .arg("--dry-run")
            .env("OPENAI_API_KEY", "not-used-by-a-dry-run")
            .env(variable, "3")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{example}: {stdout}{}", String::from_utf8_lossy(&output.stderr));
        shards += 1;
    }
    shards
}

#[test]
fn the_cluster_examples_command_lines_parse_and_dry_run() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    let bench = work.join("bench");
    write_benchmark(&bench);
    let (work_text, bench_text) = (work.to_str().unwrap(), bench.to_str().unwrap());
    let out = format!("{work_text}/shards/0");
    let kubernetes = [("/work/bench", bench_text), ("/work", work_text), ("$SHARD", "0")];
    assert_eq!(check("examples/kubernetes/shards.yaml", &kubernetes, &bench, "JOB_COMPLETION_INDEX"), 1);
    let merge = [("/work", work_text)];
    let text = std::fs::read_to_string(common::root().join("examples/kubernetes/merge.yaml")).unwrap();
    let merges = command_lines(&text, &merge);
    assert!(!merges.is_empty() && merges.iter().all(|line| line[1] == "merge" && Cli::try_parse_from(line).is_ok()));
    let slurm = [("$out", out.as_str()), ("$WORK", work_text), ("$SLURM_ARRAY_TASK_ID", "0")];
    let shards = check("examples/slurm/shards.sbatch", &slurm, &bench, "SLURM_ARRAY_TASK_ID");
    assert_eq!(shards, 1);
    let merged =
        command_lines(&std::fs::read_to_string(common::root().join("examples/slurm/merge.sbatch")).unwrap(), &slurm);
    assert!(!merged.is_empty() && merged.iter().all(|line| Cli::try_parse_from(line).is_ok()), "{merged:?}");

    // The Ray driver's shard command: the documented arguments, then what it adds.
    let driver = std::fs::read_to_string(common::root().join("examples/ray/driver.py")).unwrap();
    let documented = driver.lines().skip_while(|l| !l.contains("python driver.py")).nth(1).unwrap();
    assert!(driver.contains(r#""--shard", f"auto/{count}", "--headless", "--out", out"#), "the driver's own flags");
    let mut line: Vec<String> = ["eval-dag", "run"].iter().map(|s| s.to_string()).collect();
    line.extend(documented.split_whitespace().map(|arg| arg.replace("/shared/bench", bench_text)));
    line.extend(["--shard", "auto/4", "--headless", "--out", &out].iter().map(|s| s.to_string()));
    let output = common::eval_dag(&bench)
        .args(&line[1..])
        .arg("--dry-run")
        .env("OPENAI_API_KEY", "not-used-by-a-dry-run")
        .env("RAY_SHARD_INDEX", "1")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{line:?}: {}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn the_kubernetes_manifests_validate_against_the_kubernetes_schema() {
    if !require(Tool::PythonPackages) {
        return;
    }
    let validate = |files: &[&Path]| {
        python3_with_packages().args(["-m", "kubernetes_validate", "--strict", "--quiet"]).args(files).output().unwrap()
    };
    let examples = common::root().join("examples/kubernetes");
    let (shards, merge) = (examples.join("shards.yaml"), examples.join("merge.yaml"));
    let output = validate(&[&shards, &merge]);
    let said = String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{said}");
    let dir = tempfile::tempdir().unwrap();
    let misspelt = dir.path().join("misspelt.yaml");
    let text = std::fs::read_to_string(&shards).unwrap().replace("completionMode:", "completionMod:");
    std::fs::write(&misspelt, text).unwrap();
    assert_ne!(validate(&[&misspelt]).status.code(), Some(0), "a misspelt field is refused");
}
