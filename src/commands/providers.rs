//! Building the LLM provider and the sandbox a run uses.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;

use crate::cli::{EngineFlags, RoleFlags};
use crate::config::{Config, RoleConfig, RoleConfigs, RunConfig, SandboxSection};
use crate::dag::DagExecutor;
use crate::dataset::Dataset;
use crate::domain::{Engine, PythonRecord, Question};
use crate::domain::{ProviderKind, RoleModel, RoleModels, StructuredOutput};
use crate::llm::{
    AnthropicClient, BatchClient, BatchHub, LlmClient, OfflineOptions, OfflinePlanner, OpenAiClient, RoleRouter,
};
use crate::run::RunSettings;
use crate::sandbox::{CPython, DataLimits, Interpreter, SandboxConfig, SandboxPool, available_memory};

/// The run's LLM clients, one per role behind a [`RoleRouter`], and who
/// plays each role (for the trace header). Roles with the same settings share
/// one client (what a server refused is remembered once). `questions` are
/// the run's given questions, if any (the offline planner must be able to
/// plan them); `offline` how the offline planner behaves.
pub fn build_llm(
    config: &RunConfig,
    seed: u64,
    dataset: &Arc<Dataset>,
    questions: Option<&[Question]>,
    offline: OfflineOptions,
) -> anyhow::Result<(Arc<dyn LlmClient>, RoleModels)> {
    let mut built: Vec<(&RoleConfig, Built)> = Vec::new();
    let mut roles = RoleModels::new();
    let hub = config
        .roles
        .values()
        .any(|role| role.batch)
        .then(|| BatchHub::new(config.batch_window, config.batch_cancel_wait));
    let router = RoleRouter::new(|role| {
        let settings = config.role(role);
        let (client, batched) = match built.iter().find(|(other, _)| *other == settings) {
            Some((_, client)) => client.clone(),
            None => {
                let hub = hub.as_ref().filter(|_| settings.batch);
                let client = build_role_client(settings, config, seed, dataset, questions, (offline, hub))?;
                built.push((settings, client.clone()));
                client
            }
        };
        if let Some(batched) = batched {
            batched.serve(role);
        }
        let base_url = settings.base_url();
        roles.insert(role, RoleModel { provider: client.provider(), model: client.model().into(), base_url });
        anyhow::Ok(client)
    })?;
    Ok((Arc::new(router), roles))
}

/// A role's client, and the same client as a batch client when its calls are batched.
type Built = (Arc<dyn LlmClient>, Option<Arc<BatchClient>>);

/// The client of one role's `settings`; the offline planner plans the run's
/// `config.questions` (or the given `questions`); with a `hub`, the calls
/// of an HTTP provider go through its batch API.
fn build_role_client(
    settings: &RoleConfig,
    config: &RunConfig,
    seed: u64,
    dataset: &Arc<Dataset>,
    questions: Option<&[Question]>,
    (offline, hub): (OfflineOptions, Option<&BatchHub>),
) -> anyhow::Result<Built> {
    let batched = |client: BatchClient| -> Built {
        let client = Arc::new(client);
        (client.clone(), Some(client))
    };
    let live = |client: Arc<dyn LlmClient>| -> anyhow::Result<Built> { Ok((client, None)) };
    match (settings.provider, &settings.openai, &settings.anthropic, questions) {
        (ProviderKind::Anthropic, _, Some(anthropic), _) => {
            let client = AnthropicClient::new(anthropic.clone())?;
            match hub {
                Some(hub) => Ok(batched(BatchClient::anthropic(client, hub))),
                None => live(Arc::new(client)),
            }
        }
        (ProviderKind::Openai, Some(openai), _, _) => {
            let client = OpenAiClient::new(openai.clone())?;
            match hub {
                Some(hub) => Ok(batched(BatchClient::openai(client, hub))),
                None => live(Arc::new(client)),
            }
        }
        _ if hub.is_some() => {
            anyhow::bail!(
                "--batch needs a provider with a batch API (openai or anthropic): the offline planner has none"
            )
        }
        (_, _, _, Some(questions)) => {
            live(Arc::new(OfflinePlanner::for_questions(dataset.clone(), questions, seed, offline)?))
        }
        _ => {
            let count = config.questions as usize;
            if let Some(note) = OfflinePlanner::progress_note(dataset, count) {
                eprintln!("{note}");
            }
            live(Arc::new(OfflinePlanner::new(dataset.clone(), count, seed, offline)))
        }
    }
}

/// The sandbox's limits over `dataset` (see `DataLimits`) for the run of
/// `settings` (its seed keys `hash()`, its clock is node code's), with the
/// node limit `node_timeout` when given; one line naming the data's size and
/// the memory when the machine cannot hold even one worker over it.
pub fn sandbox_config(
    dataset: &Dataset,
    node_timeout: Option<Duration>,
    settings: &RunSettings,
) -> anyhow::Result<SandboxConfig> {
    let path = dataset.dir.join("data.json");
    let data_bytes = std::fs::metadata(&path).with_context(|| format!("cannot read {}", path.display()))?.len();
    let interpreter = interpreter(settings)?;
    Ok(SandboxConfig::for_data(DataLimits { data_bytes }, node_timeout, available_memory(), interpreter.engine())?
        .for_run(settings.seed, settings.now)
        .with_interpreter(interpreter))
}

/// A command's engine settings: its flags over the config's `[sandbox]`,
/// with the CPython found and checked when either engine choice needs one.
pub struct EngineChoice {
    /// The Python that runs DAGs.
    pub engine: Engine,
    /// Whether approved DAGs run on both engines.
    pub differential: bool,
    /// The CPython, when the engine or the check needs one.
    pub python: Option<PythonRecord>,
}

impl EngineChoice {
    /// `flags` over `file`'s `[sandbox]`; one line naming what is wrong when
    /// a CPython is needed and none fit.
    pub fn of(flags: &EngineFlags, file: &SandboxSection) -> anyhow::Result<Self> {
        let engine = flags.engine.or(file.engine).unwrap_or_default();
        let differential = flags.differential || file.differential.unwrap_or(false);
        let python = if engine == Engine::CPython || differential {
            Some(CPython::find(flags.python.as_deref().or(file.python.as_deref()))?.record())
        } else {
            None
        };
        Ok(Self { engine, differential, python })
    }

    /// `settings` with this choice.
    #[must_use]
    pub fn settle(self, settings: RunSettings) -> RunSettings {
        RunSettings { engine: self.engine, differential: self.differential, python: self.python, ..settings }
    }
}

/// The Python of `settings`' engine: RustPython, or the CPython the run
/// recorded — found again by its path, else `EVAL_DAG_PYTHON` or the first
/// `python3` on `PATH` (a replay on another machine).
pub fn interpreter(settings: &RunSettings) -> anyhow::Result<Interpreter> {
    Ok(match settings.engine {
        Engine::RustPython => Interpreter::RustPython,
        Engine::CPython => Interpreter::CPython(cpython_of(settings)?),
    })
}

/// The CPython `settings` recorded where it still is, else this machine's.
pub fn cpython_of(settings: &RunSettings) -> anyhow::Result<CPython> {
    let recorded = settings.python.as_ref().map(|python| PathBuf::from(&python.path)).filter(|path| path.is_file());
    let explicit = recorded.or_else(|| std::env::var_os("EVAL_DAG_PYTHON").map(PathBuf::from));
    Ok(CPython::find(explicit.as_deref())?)
}

/// The sandbox pool over `dataset` under `config`. Its workers start at
/// once in the background (call from within a tokio runtime): a run's first
/// trial comes after two LLM calls at least, by when they are ready.
pub fn build_executor(dataset: &Arc<Dataset>, config: SandboxConfig) -> anyhow::Result<Arc<dyn DagExecutor>> {
    let pool = SandboxPool::new(&dataset.dir, config)?;
    tokio::spawn({
        let pool = pool.clone();
        async move { pool.warm().await }
    });
    Ok(Arc::new(pool))
}

/// Every role's settings for a command's new calls: the config `file` under
/// the command's role `flags`, `--llm` (`provider`) and `--structured`.
pub fn flagged_roles(
    file: &Config,
    flags: &RoleFlags,
    provider: Option<ProviderKind>,
    structured: Option<StructuredOutput>,
) -> anyhow::Result<RoleConfigs> {
    let mut roles = file.role_configs(flags, provider, |name| std::env::var(name).ok())?;
    if let Some(level) = structured {
        roles.values_mut().for_each(|role| role.ask_structured(level));
    }
    Ok(roles)
}

/// The clients of new calls made on a recorded run (`settings`): `roles`,
/// under the run's own limits, and who plays each role.
pub fn recorded_run_llm(
    roles: RoleConfigs,
    settings: &RunSettings,
    dataset: &Arc<Dataset>,
) -> anyhow::Result<(Arc<dyn LlmClient>, RoleModels)> {
    let config = RunConfig {
        roles,
        questions: settings.questions,
        max_iterations: settings.max_iterations,
        concurrency: settings.concurrency,
        review_concurrency: settings.review_concurrency,
        metamorphic: false,
        repair: settings.repair.unwrap_or(crate::llm::DEFAULT_REPAIRS),
        batch_window: crate::llm::DEFAULT_BATCH_WINDOW,
        batch_cancel_wait: crate::llm::DEFAULT_BATCH_CANCEL_WAIT,
    };
    build_llm(&config, settings.seed, dataset, None, Default::default())
}
