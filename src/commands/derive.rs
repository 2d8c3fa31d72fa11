//! `eval-dag replay` in the terminal UI, and the derived run that
//! work started in it goes into: editing or accepting by hand, reruns and
//! forks. The derived run's trace names its source (path, SHA-256, how many
//! of its events) and begins with those events; the source is never written
//! to. When the UI ends, the derived run's results and report are written.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};

use crate::domain::sha256_hex;
use anyhow::Context;
use tokio::sync::mpsc::UnboundedSender;

use super::datasets::EngineData;
use crate::cli::ReplayArgs;
use crate::config::{Config, RunConfig};
use crate::dataset::Dataset;
use crate::engine::{self, EngineParts, RunOptions};
use crate::grade::Grader;
use crate::llm::{DEFAULT_REPAIRS, LlmClient, ReplayClient};
use crate::prompts::{Prompts, override_dir};
use crate::run::{Command, RunState};
use crate::trace::{DerivedFrom, Trace, TraceHeader, TraceWriter};
use crate::tui::{Derived, Deriver, Theme};

/// A derived run under way, for the command to finish once the UI ends.
struct Started {
    commands: UnboundedSender<Command>,
    task: tokio::task::JoinHandle<RunState>,
    dir: PathBuf,
}

/// What a derived run is started from and with.
struct Source {
    trace_path: PathBuf,
    dataset: Option<PathBuf>,
    /// Where a run over several datasets finds them now (`--dataset-root`).
    dataset_root: Option<PathBuf>,
    /// Whether its datasets may be outside the benchmark's folder (`--allow-outside-datasets`).
    allow_outside_datasets: bool,
    out: Option<PathBuf>,
    /// The LLM config, when one was asked for.
    llm: Option<RunConfig>,
    /// The sandbox's node limit, when one was asked for.
    node_timeout: Option<std::time::Duration>,
}

/// The LLM a replay's derived run may call: only one asked for explicitly
/// (flag, `EVAL_DAG_LLM` or the config file) — a key in the environment
/// alone never makes a replay spend tokens.
fn llm_config(args: &ReplayArgs, file: &Config) -> anyhow::Result<Option<RunConfig>> {
    let Some(kind) = args.llm.or(file.llm.provider) else { return Ok(None) };
    let env = |name: &str| std::env::var(name).ok();
    // New calls are played as the replayed run played them, unless the flags say otherwise.
    let played = Trace::read(&args.trace)?.header.settings.roles;
    let mut roles = file.recorded_role_configs(&played, &args.roles, Some(kind), env)?;
    if let Some(level) = args.structured {
        roles.values_mut().for_each(|role| role.ask_structured(level));
    }
    let config = RunConfig {
        roles,
        questions: 1,
        max_iterations: 1,
        concurrency: 1,
        review_concurrency: 0,
        metamorphic: false,
        repair: file.llm.repair.unwrap_or(DEFAULT_REPAIRS),
        batch_window: crate::llm::DEFAULT_BATCH_WINDOW,
        batch_cancel_wait: crate::llm::DEFAULT_BATCH_CANCEL_WAIT,
    };
    Ok(Some(config))
}

/// The saved run a derived run starts from.
pub(super) struct Origin<'a> {
    /// Its trace file, as given.
    pub path: &'a std::path::Path,
    /// The file's bytes when the derived run began.
    pub bytes: &'a [u8],
    /// The same, read.
    pub trace: &'a Trace,
}

/// Create the derived run's trace at `trace_path`: a header
/// naming `origin` and the events copied, then `origin`'s first `position`
/// events. Returns its writer and the state those events fold into.
pub(super) fn begin_derived(
    trace_path: &std::path::Path,
    origin: &Origin,
    position: usize,
    settings: crate::run::RunSettings,
) -> anyhow::Result<(TraceWriter, RunState)> {
    let derived_from = DerivedFrom {
        path: origin.path.display().to_string(),
        sha256: sha256_hex(origin.bytes),
        up_to_seq: position as u64,
    };
    let header = TraceHeader { derived_from: Some(derived_from), ..TraceHeader::new(settings) };
    let mut writer = TraceWriter::create(trace_path, &header)?;
    let mut prior = RunState::default();
    for record in origin.trace.records.iter().take(position) {
        writer.record(record.t_ms, &record.event)?;
        prior.apply(record.t_ms, &record.event);
    }
    Ok((writer, prior))
}

impl Source {
    /// The replayed run's data, where it is now (its directories recorded
    /// in `settings`), refused when it changed; a pool over each dataset.
    fn data(&self, settings: &mut crate::run::RunSettings) -> anyhow::Result<EngineData> {
        if !settings.datasets.is_empty() {
            let at = super::datasets::DatasetsAt {
                root: self.dataset_root.as_deref(),
                allow_outside: self.allow_outside_datasets,
            };
            let several = super::datasets::same_datasets(settings, at)?;
            at.record(settings, &several);
            return several.engine_data(self.node_timeout, 2, settings);
        }
        let dataset_dir = self.dataset.clone().unwrap_or_else(|| settings.dataset_dir.clone());
        let dataset = Arc::new(Dataset::load(&dataset_dir).with_context(|| {
            format!("re-running DAGs needs the run's dataset ({}); pass --dataset DIR", dataset_dir.display())
        })?);
        if dataset.content_hash != settings.dataset_hash {
            anyhow::bail!(
                "the dataset in {} is not the data of the replayed run; pass --dataset DIR with the same data",
                dataset_dir.display()
            );
        }
        settings.dataset_dir = dataset_dir;
        let config = super::providers::sandbox_config(&dataset, self.node_timeout, settings)?;
        let executor = super::providers::build_executor(&dataset, config)?;
        Ok(EngineData { dataset, executor, named: Default::default() })
    }

    /// Start the derived run from the source's first `position` events.
    fn start(&self, position: usize) -> anyhow::Result<(Started, Derived)> {
        let bytes =
            std::fs::read(&self.trace_path).with_context(|| format!("cannot read {}", self.trace_path.display()))?;
        let source = Trace::read(&self.trace_path)?;
        let mut settings = source.header.settings.clone();
        // Work by hand must never wait at a step gate the original run was started with.
        settings.step = false;
        let data = self.data(&mut settings)?;
        let recorded = ReplayClient::from_trace(&source);
        let (llm, roles): (Arc<dyn LlmClient>, _) = match &self.llm {
            Some(config) => {
                let (live, roles) =
                    super::providers::build_llm(config, settings.seed, &data.dataset, None, Default::default())?;
                (Arc::new(recorded.with_fallback(live)), roles)
            }
            None => (Arc::new(recorded), Default::default()),
        };
        // Who answers new calls: the connected providers, or only the recordings ("replay").
        settings.provider = llm.provider();
        settings.model = llm.model().to_string();
        settings.roles = roles;
        let dir = self.out.clone().unwrap_or_else(super::run::default_out_dir);
        let trace_path = dir.join("trace.jsonl");
        if trace_path.exists() {
            anyhow::bail!("{} already holds a run; choose another --out", dir.display());
        }
        std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let origin = Origin { path: &self.trace_path, bytes: &bytes, trace: &source };
        let (writer, prior) = begin_derived(&trace_path, &origin, position, settings.clone())?;
        let parts = EngineParts {
            executor: data.executor,
            dataset: data.dataset,
            named: data.named,
            llm,
            prompts: Arc::new(Prompts::load(override_dir().as_deref())?),
            grader: Arc::new(Grader::from_settings(&settings.grading)?),
            // Work by hand never asks for the checks: what it accepts was not approved by the critic.
            metamorphic: None,
            differential: None,
        };
        let options = RunOptions { keep_alive: true, prior: Some(prior), idle: true, ..RunOptions::default() };
        let handle = engine::start(parts, Some(writer), settings, options);
        let started = Started { commands: handle.commands.clone(), task: handle.task, dir: dir.clone() };
        Ok((started, Derived { events: handle.events, commands: handle.commands, dir }))
    }
}

/// The deriver the UI calls at the first action that needs an engine; the
/// run it starts is left in `slot` for [`finish`].
fn deriver(source: Source, slot: Arc<Mutex<Option<Started>>>) -> Deriver {
    let llm = source.llm.is_some();
    let start = move |position: usize| {
        let (started, derived) = source.start(position)?;
        *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(started);
        Ok(derived)
    };
    Deriver { llm, start: Box::new(start) }
}

/// End the derived run (what is still working is cancelled), then write its
/// results and report; say where they are.
fn finish(runtime: &tokio::runtime::Runtime, started: Started) -> anyhow::Result<()> {
    let _ = started.commands.send(Command::CancelRun);
    let state = runtime.block_on(started.task).context("the derived run's engine failed")?;
    let results = super::results_file::write_results(&started.dir, &state)?;
    let report = started.dir.join("eval_report.html");
    super::report::write_report(
        &report,
        &super::report::templates()?,
        &state,
        &started.dir,
        &chrono::Local::now().fixed_offset(),
    )?;
    let mut stderr = std::io::stderr();
    let _ = writeln!(stderr, "derived run: {}", super::run::summary_line(&state));
    let _ = writeln!(stderr, "results: {}", results.display());
    let _ = writeln!(stderr, "report:  {}", report.display());
    let _ = writeln!(stderr, "trace:   {}", started.dir.join("trace.jsonl").display());
    Ok(())
}

/// `eval-dag replay TRACE` in the terminal UI.
pub fn replay(args: &ReplayArgs) -> anyhow::Result<ExitCode> {
    replay_shown(args, false)?;
    Ok(ExitCode::SUCCESS)
}

/// The replay of `args` in the terminal UI (opened from the run browser when
/// `from_browser`); how its UI ended besides quitting.
pub(super) fn replay_shown(args: &ReplayArgs, from_browser: bool) -> anyhow::Result<Option<crate::tui::Ended>> {
    let max_gap = (args.max_gap > 0.0).then(|| std::time::Duration::from_secs_f64(args.max_gap));
    let theme = Theme::load(&crate::config::theme_name())?;
    let file = Config::load(args.config.as_deref())?;
    let source = Source {
        trace_path: args.trace.clone(),
        dataset: args.dataset.clone(),
        dataset_root: args.dataset_root.clone(),
        allow_outside_datasets: args.allow_outside_datasets,
        out: args.out.clone(),
        llm: llm_config(args, &file)?,
        node_timeout: file.node_timeout(args.node_timeout),
    };
    let slot = Arc::new(Mutex::new(None));
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let stop = Box::pin(super::signals::interrupted());
    // Reviews are kept beside the trace.
    let people = super::review::people(args.trace.parent().unwrap_or(std::path::Path::new("")), &file);
    let shown = crate::tui::replay_trace(
        &runtime,
        crate::tui::ReplayOptions {
            path: &args.trace,
            from_start: args.from_start,
            max_gap,
            theme,
            keys: file.keys,
            allow_outside_datasets: args.allow_outside_datasets,
            from_browser,
            people,
        },
        deriver(source, slot.clone()),
        stop,
    );
    let started = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
    if let Some(started) = started {
        finish(&runtime, started)?;
    }
    shown
}
