//! `eval-dag exec DAG.json --dataset DIR`: run a DAG in the sandbox and print
//! the execution result as JSON (exit 0 on success, 1 on a failed execution).
//! With `--metamorphic`, `{execution, metamorphic}`: the DAG run again on
//! transformed copies of the dataset (exit 1 also when an invariant breaks).

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;

use crate::cli::ExecArgs;
use crate::dataset::Dataset;
use crate::domain::GeneratedDag;
use crate::sandbox::{SandboxConfig, SandboxPool};

/// Read and parse a DAG file.
pub fn read_dag(path: &Path) -> anyhow::Result<GeneratedDag> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not a DAG in the expected JSON shape", path.display()))
}

fn duration(seconds: f64, flag: &str) -> anyhow::Result<Duration> {
    Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|d| !d.is_zero())
        .with_context(|| format!("{flag} must be a positive number of seconds"))
}

/// Run the `exec` subcommand.
pub fn run(args: ExecArgs) -> anyhow::Result<ExitCode> {
    let dag = read_dag(&args.dag)?;
    let dataset = Dataset::load(&args.dataset)?;
    let file = crate::config::Config::load(None)?;
    let choice = super::providers::EngineChoice::of(&args.engine, &file.sandbox)?;
    // One instant for the DAG and its transformed copies, as a run records one.
    let now = crate::run::RunSettings { now: Some(crate::domain::RunClock::now()), ..Default::default() };
    let settings = choice.settle(now);
    let sized = super::providers::sandbox_config(&dataset, None, &settings)?;
    // One DAG on one worker: a template beside it would not pay (its clone
    // copies every page the DAG's first reads touch).
    let config = SandboxConfig {
        workers: 1,
        clone_workers: false,
        node_timeout: duration(args.node_timeout, "--node-timeout")?,
        dag_timeout: duration(args.dag_timeout, "--dag-timeout")?,
        ..sized
    };
    let pool = SandboxPool::new(&dataset.dir, config.clone())?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let result = runtime.block_on(pool.run(&dag, 0));
    if settings.differential {
        return differential(&runtime, &dataset, &config, &settings, &dag, result);
    }
    if !args.metamorphic {
        say!("{}", serde_json::to_string_pretty(&result)?);
        return Ok(if result.success { ExitCode::SUCCESS } else { ExitCode::from(1) });
    }
    let copies = tempfile::tempdir().context("cannot create a directory for the transformed copies")?;
    let checks = super::metamorphic::prepare_checks(&dataset, Some(config.node_timeout), copies.path(), &settings)?;
    let metamorphic = match &result.final_answer {
        Some(answer) if result.success => {
            Some(runtime.block_on(checks.check(args.question.as_deref().unwrap_or_default(), &dag, answer, 0)))
        }
        _ => None,
    };
    let broken = metamorphic.as_ref().is_some_and(|m| m.checks.iter().any(|c| c.broken));
    let printed = serde_json::json!({"execution": result, "metamorphic": metamorphic});
    say!("{}", serde_json::to_string_pretty(&printed)?);
    Ok(if result.success && !broken { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// `exec --differential`: the DAG on the other engine too; both results and
/// where they differ, exit 1 on a difference (or a failed execution).
fn differential(
    runtime: &tokio::runtime::Runtime,
    dataset: &Dataset,
    config: &SandboxConfig,
    settings: &crate::run::RunSettings,
    dag: &GeneratedDag,
    primary: crate::domain::ExecutionResult,
) -> anyhow::Result<ExitCode> {
    let other = crate::run::RunSettings { engine: settings.engine.other(), ..settings.clone() };
    let config = config.clone().with_interpreter(super::providers::interpreter(&other)?);
    let other = runtime.block_on(SandboxPool::new(&dataset.dir, config)?.run(dag, 0));
    let divergence = crate::engine::differential::compare(&primary, &other, &crate::grade::MatchOptions::default());
    let same = divergence.is_none();
    let printed = serde_json::json!({"execution": primary, "other": other, "divergence": divergence});
    say!("{}", serde_json::to_string_pretty(&printed)?);
    Ok(if same && primary.success { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
