//! `eval-dag baseline RUN`: a finished run's baselines (as `run --baselines`)
//! in a derived run — its trace begins with every event of the source, then
//! the baseline calls the source has no reply for — with results and a
//! report written as for any run. The source is never written to.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;

use super::datasets::{DatasetsAt, recorded_data};
use super::derive::{Origin, begin_derived};
use crate::cli::BaselineArgs;
use crate::config::Config;
use crate::dag::DagExecutor;
use crate::domain::{LlmRole, ProviderKind};
use crate::engine::{self, EngineParts, RunOptions};
use crate::grade::Grader;
use crate::prompts::{Prompts, override_dir};
use crate::report::baselines_line;
use crate::sandbox::SandboxPool;
use crate::trace::Trace;

/// Run the `baseline` subcommand.
pub fn run(args: BaselineArgs) -> anyhow::Result<ExitCode> {
    let source_path = super::report::trace_path(&args.run)?;
    let bytes = std::fs::read(&source_path).with_context(|| format!("cannot read {}", source_path.display()))?;
    let source = Trace::from_lines(super::recorded::read_trace(&source_path)?)?;
    let origin = Origin { path: &source_path, bytes: &bytes, trace: &source };
    let file = Config::load(args.config.as_deref())?;
    let mut settings = source.header.settings.clone();
    settings.step = false;
    let at = DatasetsAt { root: args.dataset_root.as_deref(), allow_outside: args.allow_outside_datasets };
    let (dataset, several) = recorded_data(&mut settings, at, "asking the baselines")?;
    let roles = super::providers::flagged_roles(&file, &args.roles, args.llm, args.structured)?;
    if roles.get(&LlmRole::Baseline).is_none_or(|role| role.provider == ProviderKind::Offline) {
        anyhow::bail!(
            "baselines need an LLM: the offline planner does not answer them (use --llm openai or --llm anthropic, or --baseline-model with [roles.baseline])"
        );
    }
    let (llm, played) = super::providers::recorded_run_llm(roles, &settings, &dataset)?;
    settings.baselines = true;
    if let Some(baseline) = played.get(&LlmRole::Baseline) {
        settings.roles.insert(LlmRole::Baseline, baseline.clone());
    }
    let out = args.out.clone().unwrap_or_else(super::run::default_out_dir);
    let trace_path = out.join("trace.jsonl");
    if trace_path.exists() {
        anyhow::bail!("{} already holds a run; choose another --out", out.display());
    }
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let (writer, prior) = begin_derived(&trace_path, &origin, source.records.len(), settings.clone())?;
    let prompts = Arc::new(Prompts::load(override_dir().as_deref())?);
    let grader = Arc::new(Grader::ground_truth_with(&settings.grading));
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let state = runtime.block_on(async {
        // No DAG runs here: the pools are made, and never start a worker.
        let (executor, named): (Arc<dyn DagExecutor>, _) = match &several {
            Some(several) => several.engine_data(None, 1, &settings).map(|data| (data.executor, data.named))?,
            None => (
                Arc::new(SandboxPool::new(&dataset.dir, super::providers::sandbox_config(&dataset, None, &settings)?)?),
                Default::default(),
            ),
        };
        let parts = EngineParts { named, ..EngineParts::new(dataset.clone(), llm, executor, prompts, grader) };
        let options =
            RunOptions { prior: Some(prior.clone()), idle: true, ask_baselines: true, ..RunOptions::default() };
        let handle = engine::start(parts, Some(writer), settings, options);
        let stop = Box::pin(super::signals::interrupted());
        let shown = super::headless::follow(handle.events, prior, handle.commands, stop).await;
        anyhow::Ok(handle.task.await.unwrap_or(shown))
    })?;
    let results = super::results_file::write_results(&out, &state)?;
    let report_path = out.join("eval_report.html");
    let templates = super::report::templates()?;
    super::report::write_report(&report_path, &templates, &state, &out, &chrono::Local::now().fixed_offset())?;
    if let Some(line) = baselines_line(&state) {
        say!("{line}");
    }
    let mut stderr = std::io::stderr();
    let _ = writeln!(stderr, "results: {}", results.display());
    let _ = writeln!(stderr, "report:  {}", report_path.display());
    let _ = writeln!(stderr, "trace:   {}", trace_path.display());
    Ok(ExitCode::SUCCESS)
}
