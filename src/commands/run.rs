//! `eval-dag run`: generate questions, run every critic loop, write the trace,
//! `eval_results.json` and the report.

use std::io::IsTerminal;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use std::collections::BTreeMap;

use anyhow::Context;

use super::datasets::{DatasetsAt, RunDatasets, Selection};
use super::headless;
use crate::cli::RunArgs;
use crate::config::{Config, RunConfig};
use crate::dag::DagExecutor;
use crate::dataset::Dataset;
use crate::domain::GradingSettings;
use crate::domain::LlmRole;
use crate::domain::Question;
use crate::domain::{Budget, BudgetLimit, Spend};
use crate::engine::metamorphic::RunChecks;
use crate::engine::{self, EngineParts, NamedDataset, RunOptions};
use crate::grade::{Grader, read_questions_file};
use crate::llm::{DEFAULT_REPAIRS, LlmClient, Repairs};
use crate::prompts::{Prompts, override_dir};
use crate::run::{EngineEvent, Outcome, QuestionStatus, RunSettings, RunState};
use crate::trace::{TraceHeader, TraceLines, TraceWriter};
use crate::tui::Theme;

/// `runs/<UTC timestamp>` under the current directory.
pub(super) fn default_out_dir() -> PathBuf {
    PathBuf::from("runs").join(chrono::Utc::now().format("%Y%m%d-%H%M%S").to_string())
}

/// One-line summary of a finished run.
pub fn summary_line(state: &RunState) -> String {
    let summary = state.summary(state.now_ms);
    let (total, passed) = (summary.total, summary.passed);
    let rate = if total == 0 { 0.0 } else { 100.0 * passed as f64 / total as f64 };
    let mut line =
        format!("{total} questions: {passed} passed, {} failed, {} exhausted", summary.failed, summary.exhausted);
    let unfinished = state.count(|s| !matches!(s, QuestionStatus::Done(_)));
    if summary.cancelled > 0 {
        line.push_str(&format!(", {} cancelled", summary.cancelled));
    }
    if summary.fixed_by_hand > 0 {
        line.push_str(&format!(", {} fixed by hand", summary.fixed_by_hand));
    }
    if unfinished > 0 {
        line.push_str(&format!(", {unfinished} unfinished"));
    }
    line.push_str(&format!(" — pass rate {rate:.0}% — {}", tokens_phrase(state)));
    if state.cost_usd > 0.0 {
        line.push_str(&format!(" (${:.4})", state.cost_usd));
    }
    let (graded, right) = crate::report::graded_tally(&state.questions);
    if graded > 0 {
        line.push_str(&format!(" — accuracy {:.0}% ({right}/{graded} graded)", 100.0 * right as f64 / graded as f64));
    }
    if let Some(failure) = &state.failure {
        line.push_str(&format!(" — run failed: {failure}"));
    }
    line
}

/// The limits of a continued run: each given one (flags, config file) over
/// the one the run was started with.
fn continued_budget(earlier: Option<Budget>, given: Option<Budget>) -> Option<Budget> {
    let (earlier, given) = (earlier.unwrap_or_default(), given.unwrap_or_default());
    let budget = Budget {
        max_cost_usd: given.max_cost_usd.or(earlier.max_cost_usd),
        max_tokens: given.max_tokens.or(earlier.max_tokens),
        per_question_usd: given.per_question_usd.or(earlier.per_question_usd),
    };
    (!budget.is_unlimited()).then_some(budget)
}

/// When the budget stopped questions: the limit reached, what was spent and
/// by how much the calls in flight at the limit went over it, in one line.
fn budget_line(state: &RunState) -> Option<String> {
    let stopped = state.count(|s| s == QuestionStatus::Done(Outcome::Budget));
    let budget = state.settings.as_ref()?.budget.filter(|_| stopped > 0)?;
    let spend = Spend { run_usd: state.cost_usd, run_tokens: state.usage.total(), question_usd: 0.0 };
    let spent = format!("spent ${:.4} and {} tokens", state.cost_usd, state.usage.total());
    let stopped = crate::text::plural(stopped, "question");
    Some(match budget.reached(spend) {
        Some(limit) => {
            let over = match limit {
                BudgetLimit::MaxTokens(_) => format!("{} tokens", limit.overshoot(spend)),
                _ => format!("${:.4}", limit.overshoot(spend)),
            };
            format!("budget: {limit} reached, {spent} (calls in flight went {over} over); {stopped} stopped")
        }
        None => {
            let limit = budget.per_question_usd.map_or(String::new(), |usd| format!("per_question_usd ${usd} "));
            format!("budget: {limit}reached by {stopped}; the run {spent}")
        }
    })
}

/// The run's tokens: marked `~… (estimated)` when some were counted locally,
/// and a zero from calls that count none (offline, replayed) says so.
fn tokens_phrase(state: &RunState) -> String {
    match state.usage.total() {
        0 if state.calls_finished > 0 => "0 tokens (offline and replayed calls count none)".to_string(),
        total if state.tokens_estimated => format!("~{total} tokens (estimated)"),
        total => format!("{total} tokens"),
    }
}

/// The command that continues the run in `out`.
fn resume_command(out: &Path) -> String {
    format!("eval-dag run --resume {}", out.display())
}

/// Exit code of a finished run: 0 when every question passed and no graded
/// answer is wrong (a shard may have no question of the list).
pub fn exit_code(state: &RunState) -> ExitCode {
    let shard = state.settings.as_ref().is_some_and(|settings| settings.shard.is_some());
    let all_passed = state.failure.is_none()
        && (shard || !state.questions.is_empty())
        && state.questions.iter().all(|q| q.status == QuestionStatus::Done(Outcome::Passed))
        && state.questions.iter().all(|q| q.correct() != Some(false));
    if all_passed { ExitCode::SUCCESS } else { ExitCode::from(1) }
}

/// Where a run's inputs and outputs come from: a fresh start, or an earlier
/// run's directory being continued.
struct RunPlan {
    dataset_dir: PathBuf,
    out: PathBuf,
    earlier: Option<TraceLines>,
}

/// The questions an earlier run recorded, if it got as far.
fn recorded_questions(trace: &TraceLines) -> anyhow::Result<Option<Vec<crate::domain::Question>>> {
    for index in 0..trace.len() {
        if let EngineEvent::QuestionsGenerated { questions } = trace.record(index)?.event {
            return Ok(Some(questions));
        }
    }
    Ok(None)
}

fn plan(args: &RunArgs) -> anyhow::Result<RunPlan> {
    match args.resume.as_ref().or(args.retry_failed.as_ref()) {
        Some(dir) => {
            let trace = super::recorded::read_trace(&dir.join("trace.jsonl"))?;
            Ok(RunPlan {
                dataset_dir: trace.header.settings.dataset_dir.clone(),
                out: dir.clone(),
                earlier: Some(trace),
            })
        }
        None => Ok(RunPlan {
            dataset_dir: args.dataset.clone().context("a dataset directory is required")?,
            out: args.out.clone().unwrap_or_else(default_out_dir),
            earlier: None,
        }),
    }
}

/// The data a run is over: one dataset, or a benchmark directory's datasets
/// (`several`, whose first is `dataset`) and, for a new run, its questions.
struct RunData {
    dataset: Arc<Dataset>,
    several: Option<RunDatasets>,
    questions: Option<Vec<Question>>,
}

/// Load the run's data: the continued run's datasets (refused when changed),
/// a benchmark directory's selected questions and datasets, or one dataset.
fn load_data(args: &RunArgs, plan: &RunPlan) -> anyhow::Result<RunData> {
    let benchmark = plan.earlier.is_none() && super::datasets::is_benchmark_dir(&plan.dataset_dir);
    if !benchmark && plan.earlier.is_none() && (!args.only.is_empty() || args.only_dataset.is_some()) {
        anyhow::bail!("--only and --dataset select questions of a benchmark directory (questions.jsonl + datasets/)");
    }
    if benchmark && args.questions_file.is_some() {
        anyhow::bail!(
            "a benchmark directory holds its questions (questions.jsonl); --questions-file is for one dataset"
        );
    }
    match &plan.earlier {
        Some(earlier) if !earlier.header.settings.datasets.is_empty() => {
            let at = DatasetsAt { root: args.dataset_root.as_deref(), allow_outside: args.allow_outside_datasets };
            let several = super::datasets::same_datasets(&earlier.header.settings, at)?;
            Ok(RunData { dataset: several.first()?, several: Some(several), questions: None })
        }
        Some(earlier) => {
            let dataset = Arc::new(Dataset::load(&plan.dataset_dir)?);
            if earlier.header.settings.dataset_hash != dataset.content_hash {
                anyhow::bail!(
                    "the dataset in {} changed since the run started; continuing needs the same data",
                    plan.dataset_dir.display()
                );
            }
            Ok(RunData { dataset, several: None, questions: None })
        }
        None if benchmark => {
            let selection =
                Selection { first: args.questions, only: args.only.clone(), dataset: args.only_dataset.clone() };
            let (questions, several) =
                super::datasets::open_benchmark(&plan.dataset_dir, &selection, args.allow_outside_datasets)?;
            Ok(RunData { dataset: several.first()?, several: Some(several), questions: Some(questions) })
        }
        None => Ok(RunData { dataset: Arc::new(Dataset::load(&plan.dataset_dir)?), several: None, questions: None }),
    }
}

/// Everything a run needs before it starts, read from the flags, the config
/// file, the data and (when continued) the earlier run.
struct Prepared {
    file: Config,
    config: RunConfig,
    plan: RunPlan,
    data: RunData,
    headless: bool,
    theme: Option<Theme>,
    node_timeout: Option<std::time::Duration>,
    prompts: Arc<Prompts>,
    questions: Option<Vec<Question>>,
    grading: GradingSettings,
    grader: Arc<Grader>,
    repair: Option<u32>,
    budget: Option<Budget>,
    /// Which shard of the question list this run is (`--shard`).
    shard: Option<crate::domain::Shard>,
    /// `--allow-outside-datasets`, for the inspector (not recorded).
    allow_outside_datasets: bool,
    /// `--engine`, `--python` and `--differential` over `[sandbox]`.
    engine: super::providers::EngineChoice,
}

fn prepare(args: &RunArgs) -> anyhow::Result<Prepared> {
    if args.judge_rejected && args.judges.is_empty() {
        anyhow::bail!("--judge-rejected needs at least one --judge: it calls the run's judges on rejected iterations");
    }
    let file = Config::load(args.config.as_deref())?;
    // A theme that does not load is bad input, found before the run starts.
    let theme_name = file.theme(std::env::var("EVAL_DAG_THEME").ok());
    // No terminal to draw on (output piped or redirected, CI): progress on stderr instead.
    let headless = args.headless || !std::io::stdout().is_terminal();
    let theme = (!headless).then(|| Theme::load(&theme_name)).transpose()?;
    let env = |name: &str| std::env::var(name).ok();
    let mut config = file.resolve(args, env)?;
    let plan = plan(args)?;
    if let Some(earlier) = &plan.earlier {
        // A continued run keeps who played each role, whatever the flags and the environment say.
        let played = &earlier.header.settings.roles;
        config.roles = file.recorded_role_configs(played, &crate::cli::RoleFlags::default(), None, env)?;
        if args.batch {
            config.roles.values_mut().for_each(|role| role.batch = true);
        }
    }
    let mut data = load_data(args, &plan)?;
    if data.several.is_some() && config.role(LlmRole::DagBuild).provider == crate::domain::ProviderKind::Offline {
        anyhow::bail!(
            "the offline planner plans one dataset's questions: a benchmark directory needs --llm openai or --llm anthropic"
        );
    }
    let node_timeout = file.node_timeout(args.node_timeout);
    let prompts = Prompts::load(override_dir().as_deref())?;
    let prompts = Arc::new(match file.schema_budget(args.schema_budget) {
        Some(tokens) => prompts.with_schema_budget(tokens.into()),
        None => prompts,
    });
    let questions = match (&args.questions_file, data.questions.take(), &plan.earlier) {
        (Some(path), _, _) => Some(read_questions_file(path)?.into_iter().map(|spec| spec.question).collect()),
        (None, Some(benchmark), _) => Some(benchmark),
        // A continued run plans the questions it recorded (an offline planner
        // asked for the default count would give their ids other questions).
        (None, None, Some(earlier)) => recorded_questions(earlier)?,
        (None, None, None) => None,
    };
    let (questions, shard) = match args.shard {
        Some(spec) => {
            let (own, shard) = super::shard::split(spec, questions, &plan.out, args.harness.dry_run)?;
            (Some(own), Some(shard))
        }
        None => (questions, None),
    };
    let grading = match &plan.earlier {
        Some(earlier) => earlier.header.settings.grading.clone(),
        None => GradingSettings {
            match_options: args.match_options.clone().unwrap_or_default(),
            judges: args.judges.clone(),
            judge_rejected: args.judge_rejected,
        },
    };
    // A continued run keeps the repair limit it started with; a new one records its own unless it is the default.
    let repair = match &plan.earlier {
        Some(earlier) => earlier.header.settings.repair,
        None => (config.repair != DEFAULT_REPAIRS).then_some(config.repair),
    };
    let repairs = Repairs::new(repair.unwrap_or(DEFAULT_REPAIRS), prompts.clone());
    let grader = Arc::new(Grader::from_settings(&grading)?.with_repairs(repairs));
    if args.baselines && config.role(LlmRole::Baseline).provider == crate::domain::ProviderKind::Offline {
        anyhow::bail!(
            "baselines need an LLM: the offline planner does not answer them (use --llm openai or --llm anthropic, or --baseline-model with [roles.baseline])"
        );
    }
    if grader.has_judges() && config.role(LlmRole::Judge).provider == crate::domain::ProviderKind::Offline {
        anyhow::bail!(
            "judges need an LLM: the offline planner does not judge answers (use --llm openai or --llm anthropic)"
        );
    }
    let budget = file.budget(&args.harness)?;
    let engine = super::providers::EngineChoice::of(&args.engine, &file.sandbox)?;
    Ok(Prepared {
        engine,
        file,
        config,
        plan,
        data,
        headless,
        theme,
        node_timeout,
        prompts,
        questions,
        grading,
        grader,
        repair,
        budget,
        shard,
        allow_outside_datasets: args.allow_outside_datasets,
    })
}

/// The settings of a new run, as its trace header records them.
fn new_settings(args: &RunArgs, run: &Prepared, llm: &dyn LlmClient, roles: crate::domain::RoleModels) -> RunSettings {
    let (config, data) = (&run.config, &run.data);
    RunSettings {
        dataset_dir: run.plan.dataset_dir.clone(),
        dataset_hash: data.several.as_ref().map_or_else(|| data.dataset.content_hash.clone(), |s| s.combined_hash()),
        provider: llm.provider(),
        model: llm.model().to_string(),
        questions: run.questions.as_ref().map_or(config.questions, |q| q.len() as u32),
        max_iterations: config.max_iterations,
        concurrency: config.concurrency,
        review_concurrency: config.review_concurrency,
        seed: args.seed,
        step: args.step,
        grading: run.grading.clone(),
        roles: roles
            .into_iter()
            .filter(|(role, _)| *role != crate::domain::LlmRole::Baseline || args.baselines)
            .collect(),
        datasets: data.several.as_ref().map_or_else(Vec::new, |several| several.refs()),
        repeat: args.repeat.unwrap_or(1),
        consensus: args.consensus.unwrap_or(1),
        repair: run.repair,
        budget: run.budget,
        metamorphic: config.metamorphic,
        shard: run.shard.clone(),
        baselines: args.baselines,
        now: args.now.or(run.file.run.now).or_else(|| run.shard.is_none().then(crate::domain::RunClock::now)),
        engine: run.engine.engine,
        differential: run.engine.differential,
        python: run.engine.python.clone(),
    }
}

/// The sandbox of the run's data: a pool over its one dataset, or a pool per
/// dataset of a benchmark directory (at most one per question running at once
/// kept alive), for the run of `settings`; call from within a tokio runtime.
fn sandbox(
    run: &Prepared,
    settings: &RunSettings,
) -> anyhow::Result<(Arc<dyn DagExecutor>, BTreeMap<String, NamedDataset>)> {
    let dataset = &run.data.dataset;
    match &run.data.several {
        Some(several) => {
            let data = several.engine_data(run.node_timeout, run.config.concurrency as usize, settings)?;
            Ok((data.executor, data.named))
        }
        None => {
            let config = super::providers::sandbox_config(dataset, run.node_timeout, settings)?;
            Ok((super::providers::build_executor(dataset, config)?, BTreeMap::new()))
        }
    }
}

/// The differential check's sandbox: the run's data on the other engine.
fn other_engine(run: &Prepared, settings: &RunSettings) -> anyhow::Result<Arc<engine::differential::EngineCheck>> {
    let other = RunSettings { engine: settings.engine.other(), ..settings.clone() };
    let (executor, named) = sandbox(run, &other)?;
    let named = named.into_iter().map(|(name, dataset)| (name, dataset.executor)).collect();
    Ok(Arc::new(engine::differential::EngineCheck { executor, named }))
}

/// Run the `run` subcommand.
pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let mut run = prepare(&args)?;
    let folded = run.plan.earlier.as_ref().map(super::recorded::fold_recorded).transpose()?;
    if folded.as_ref().is_some_and(|(prior, _)| !super::batch::open_batches(prior).is_empty()) {
        // A run that left batches in flight goes on batched: their results are fetched, never sent again.
        run.config.roles.values_mut().for_each(|role| role.batch = true);
    }
    let offline = crate::llm::OfflineOptions {
        clean_drafts: args.clean_drafts,
        delay: args.offline_delay.map_or(
            if run.headless { std::time::Duration::ZERO } else { crate::llm::TUI_DELAY },
            std::time::Duration::from_millis,
        ),
    };
    let seed = run.plan.earlier.as_ref().map_or(args.seed, |earlier| earlier.header.settings.seed);
    let (config, dataset) = (&run.config, &run.data.dataset);
    let (mut llm, roles) = super::providers::build_llm(config, seed, dataset, run.questions.as_deref(), offline)?;
    let loops = (args.repeat.unwrap_or(1), args.consensus.unwrap_or(1));
    let budget = run.budget.unwrap_or_default();
    let (datasets, prompts) = (run.data.several.as_ref(), &run.prompts);
    let plan = super::dry_run::DryRun { config, dataset, datasets, prompts, llm: llm.as_ref(), loops, budget };
    if args.harness.dry_run {
        return plan.print(run.questions.as_deref());
    }
    plan.refuse_unfitting(run.questions.as_deref())?;
    if args.questions_only {
        let questions = match &run.questions {
            Some(questions) => questions.clone(),
            None => generate_only(&args, &run, llm, roles)?,
        };
        return super::shard::questions_only(&run.plan.out, &questions);
    }
    super::batch::probe(llm.as_ref())?;
    let cache = super::cache::with_cache(run.file.cache_path(&args.harness).as_deref(), config, &mut llm)?;
    let cache_warning = cache.as_ref().and_then(|cache| cache.warning());
    let out = &run.plan.out;
    let trace_path = out.join("trace.jsonl");
    let live = match &args.otlp {
        Some(url) => Some(super::export::Live::new(url, &args.otlp_headers, out, trace_path.clone())?),
        None => None,
    };
    std::fs::create_dir_all(out).with_context(|| format!("cannot create output directory {}", out.display()))?;
    let (settings, trace, prior) = match (&run.plan.earlier, folded) {
        (Some(earlier), Some((prior, recorded))) => {
            let mut settings = earlier.header.settings.clone();
            settings.budget = continued_budget(settings.budget, run.budget);
            llm = Arc::new(recorded.with_fallback(llm));
            (settings, TraceWriter::append(&trace_path, earlier)?, Some(prior))
        }
        _ => {
            let settings = new_settings(&args, &run, llm.as_ref(), roles);
            (settings.clone(), TraceWriter::create(&trace_path, &TraceHeader::new(settings))?, None)
        }
    };
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let (state, exported) = runtime.block_on(async {
        let (done, done_rx) = tokio::sync::oneshot::channel();
        let live = live.map(|live| tokio::spawn(live.follow(done_rx)));
        let copies = tempfile::tempdir().context("cannot create a directory for the transformed copies")?;
        let metamorphic =
            if settings.metamorphic { Some(metamorphic_checks(&run, copies.path(), &settings)?) } else { None };
        let (executor, named) = sandbox(&run, &settings)?;
        let differential = if settings.differential { Some(other_engine(&run, &settings)?) } else { None };
        if let Some(prior) = &prior {
            super::batch::adopt(llm.as_ref(), prior);
        }
        let (prompts, grader) = (run.prompts.clone(), run.grader.clone());
        let parts =
            EngineParts { dataset: dataset.clone(), llm, executor, prompts, grader, metamorphic, named, differential };
        let initial = prior.clone().unwrap_or_default();
        let questions = run.questions.clone();
        let options = RunOptions {
            keep_alive: !run.headless,
            questions,
            prior,
            retry_failed: args.retry_failed.is_some(),
            idle: false,
            ask_baselines: false,
        };
        let handle = engine::start(parts, Some(trace), settings, options);
        let shown = follow(&run, handle.events, handle.commands, initial).await;
        let state = handle.task.await.unwrap_or(shown);
        let _ = done.send(());
        let exported = match live {
            Some(task) => Some(task.await.unwrap_or_else(|err| Err(err.into()))),
            None => None,
        };
        anyhow::Ok((state, exported))
    })?;
    close(
        &run.plan.out,
        &state,
        cache.as_ref().and_then(|c| c.warning()).filter(|w| Some(w) != cache_warning.as_ref()),
        exported,
    )
}

/// The metamorphic checks of `run --metamorphic`: each dataset's transformed
/// copies, written under `dir`.
fn metamorphic_checks(run: &Prepared, dir: &Path, settings: &RunSettings) -> anyhow::Result<Arc<RunChecks>> {
    Ok(Arc::new(match &run.data.several {
        None => RunChecks::One(super::metamorphic::prepare_checks(&run.data.dataset, run.node_timeout, dir, settings)?),
        Some(several) => {
            let keep = run.config.concurrency as usize;
            super::metamorphic::prepare_checks_each(&several.datasets, run.node_timeout, dir, keep, settings)?
        }
    }))
}

/// `run --questions-only` over a dataset without a list: the questions the
/// run's generator writes, asked for outside a run.
fn generate_only(
    args: &RunArgs,
    run: &Prepared,
    llm: Arc<dyn LlmClient>,
    roles: crate::domain::RoleModels,
) -> anyhow::Result<Vec<Question>> {
    let settings = new_settings(args, run, llm.as_ref(), roles);
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(async {
        let (executor, named) = sandbox(run, &settings)?;
        let (prompts, grader, dataset) = (run.prompts.clone(), run.grader.clone(), run.data.dataset.clone());
        let parts = EngineParts { named, ..EngineParts::new(dataset, llm, executor, prompts, grader) };
        Ok(engine::question_list(parts, &settings).await?)
    })
}

/// Follow the run's events to its end: in the terminal UI, or headless (also
/// when the terminal UI stops).
async fn follow(
    run: &Prepared,
    events: tokio::sync::mpsc::UnboundedReceiver<(u64, EngineEvent)>,
    commands: tokio::sync::mpsc::UnboundedSender<crate::run::Command>,
    initial: RunState,
) -> RunState {
    if run.headless {
        return headless::follow(events, initial, commands, Box::pin(super::signals::interrupted())).await;
    }
    let resume = resume_command(&run.plan.out);
    let people = super::review::people(&run.plan.out, &run.file);
    let allow_outside_datasets = run.allow_outside_datasets;
    let live = crate::tui::Live { events, commands, resume, allow_outside_datasets, people };
    let theme = run.theme.clone().unwrap_or_else(Theme::dark);
    let keys = run.file.keys.clone();
    match crate::tui::watch_live(initial, live, theme, keys, Box::pin(super::signals::interrupted())).await {
        crate::tui::LiveEnd::Quit(state) => state,
        crate::tui::LiveEnd::Failed { error, state, events, commands, stop } => {
            // The terminal is gone or broken: the run goes on, reported as headless.
            let _ = writeln!(std::io::stderr(), "the terminal UI stopped ({error}); the run goes on here");
            let stop = stop.unwrap_or_else(|| Box::pin(super::signals::interrupted()));
            headless::follow(events, state, commands, stop).await
        }
    }
}

/// Write the results and the report of the finished run in `out`, and say
/// where they are, how it went, and what is left.
fn close(
    out: &Path,
    state: &RunState,
    cache_warning: Option<String>,
    exported: Option<anyhow::Result<String>>,
) -> anyhow::Result<ExitCode> {
    let report_templates = super::report::templates()?;
    let results = super::results_file::write_results(out, state)?;
    let report_path = out.join("eval_report.html");
    let report_size =
        super::report::write_report(&report_path, &report_templates, state, out, &chrono::Local::now().fixed_offset())?;
    let mut stderr = std::io::stderr();
    let _ = writeln!(stderr, "{}", summary_line(state));
    let _ = writeln!(stderr, "results: {}", results.display());
    let _ = writeln!(stderr, "report:  {} ({:.1} KiB)", report_path.display(), report_size as f64 / 1024.0);
    let _ = writeln!(stderr, "trace:   {}", out.join("trace.jsonl").display());
    if state.questions.iter().any(|q| q.status.is_unfinished()) {
        let _ = writeln!(stderr, "resume:  {}", resume_command(out));
    }
    if let Some(warning) = cache_warning {
        let _ = writeln!(stderr, "warning: {warning}");
    }
    if let Some(line) = budget_line(state) {
        let _ = writeln!(stderr, "{line}");
    }
    if let Some(line) = super::batch::in_flight_line(state, &resume_command(out)) {
        let _ = writeln!(stderr, "{line}");
    }
    if let Some(line) = crate::report::baselines_line(state) {
        let _ = writeln!(stderr, "{line}");
    }
    match exported {
        Some(Ok(line)) => {
            let _ = writeln!(stderr, "otlp:    {line}");
        }
        Some(Err(err)) => {
            let _ = writeln!(stderr, "error: the run's spans were not all sent: {}", super::one_line(&err));
            return Ok(ExitCode::from(1));
        }
        None => {}
    }
    Ok(exit_code(state))
}
