//! `eval-dag recritic RUN`: judge every recorded iteration of a saved run
//! again with another critic — another model, other prompt templates — and
//! never rebuild. The new verdicts go into a derived run whose
//! trace begins with the source's question list; results and report are
//! written as for any run, and the comparison with the original critic is
//! printed: verdict agreement, the flips, both scorecards, what it cost.
//! Rerun with the same `--out`, an interrupted re-criticism goes on with its
//! recorded review responses reused.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;

use super::derive::{Origin, begin_derived};
use crate::cli::RecriticArgs;
use crate::config::Config;
use crate::dataset::Dataset;
use crate::domain::sha256_hex;
use crate::domain::{LlmRole, RoleModels};
use crate::engine::{EngineParts, start_recritic};
use crate::grade::Grader;
use crate::llm::LlmClient;
use crate::prompts::{Prompts, override_dir};
use crate::report::{CriticScorecard, FateCounts, VerdictOverlap, critic_scorecard, fold_trace, verdict_overlap};
use crate::run::{EngineEvent, Outcome, RunSettings, RunState};
use crate::trace::{Trace, TraceWriter};

/// The critic that answers the layer reviews: the role flags over the flags
/// for every role, over the config file's `[roles.critic]` and `[llm]`.
fn critic_llm(
    args: &RecriticArgs,
    file: &Config,
    settings: &RunSettings,
    dataset: &Arc<Dataset>,
) -> anyhow::Result<(Arc<dyn LlmClient>, RoleModels)> {
    let roles = super::providers::flagged_roles(file, &args.roles, args.llm, args.structured)?;
    super::providers::recorded_run_llm(roles, settings, dataset)
}

/// The prompt templates: `--prompts DIR` over the usual override directory.
fn prompts(args: &RecriticArgs) -> anyhow::Result<Prompts> {
    if let Some(dir) = &args.prompts
        && !dir.is_dir()
    {
        anyhow::bail!("--prompts {} is not a directory of prompt templates", dir.display());
    }
    Ok(Prompts::load(args.prompts.clone().or_else(override_dir).as_deref())?)
}

/// Where the derived run starts: a new trace, or an interrupted re-criticism continued.
struct Start {
    writer: TraceWriter,
    prior: RunState,
    llm: Arc<dyn LlmClient>,
}

/// Continue the re-criticism in `trace_path` when there is one (it must be of
/// the same source, by the same critic: its recorded review responses are
/// reused), else begin a new derived run there.
fn start(
    trace_path: &Path,
    origin: &Origin,
    position: usize,
    settings: &RunSettings,
    critic: Arc<dyn LlmClient>,
) -> anyhow::Result<Start> {
    let dir = trace_path.parent().unwrap_or(Path::new("."));
    if !trace_path.exists() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let (writer, prior) = begin_derived(trace_path, origin, position, settings.clone())?;
        return Ok(Start { writer, prior, llm: critic });
    }
    let earlier = super::recorded::read_trace(trace_path)?;
    match &earlier.header.derived_from {
        Some(from) if from.sha256 == sha256_hex(origin.bytes) && from.up_to_seq == position as u64 => {}
        Some(from) if from.path == origin.path.display().to_string() => anyhow::bail!(
            "{} re-criticises {} as it was before it changed; choose another --out",
            dir.display(),
            from.path
        ),
        _ => anyhow::bail!("{} already holds another run; choose another --out", dir.display()),
    }
    let was = &earlier.header.settings;
    if (&was.provider, &was.model) != (&settings.provider, &settings.model) {
        anyhow::bail!(
            "{} re-criticises with {}/{}; continue it with that critic or choose another --out",
            dir.display(),
            was.provider,
            was.model
        );
    }
    let (prior, recorded) = super::recorded::fold_recorded(&earlier)?;
    let writer = TraceWriter::append(trace_path, &earlier)?;
    let llm = Arc::new(recorded.with_fallback(critic));
    Ok(Start { writer, prior, llm })
}

/// The events of `source` the derived run begins with: up to and including its question list.
fn question_list_end(source: &Trace, path: &Path) -> anyhow::Result<usize> {
    source
        .records
        .iter()
        .position(|r| matches!(r.event, EngineEvent::QuestionsGenerated { .. }))
        .map(|at| at + 1)
        .with_context(|| format!("{} holds no question list: there is nothing to re-criticise", path.display()))
}

/// One count of a scorecard's totals.
type CountOf = fn(&FateCounts) -> usize;

/// The scorecards side by side.
fn scorecard_lines(original: &CriticScorecard, recritic: &CriticScorecard) -> Vec<String> {
    let rows: [(&str, CountOf); 8] = [
        ("correct approvals", |c| c.correct_approvals),
        ("wrong approvals", |c| c.wrong_approvals),
        ("correct rejections", |c| c.correct_rejections),
        ("wrong rejections", |c| c.wrong_rejections),
        ("answer-neutral rejections", |c| c.answer_neutral_rejections),
        ("ungraded approvals", |c| c.ungraded_approvals),
        ("ungraded rejections", |c| c.ungraded_rejections),
        ("rejections without answer", |c| c.rejections_without_answer),
    ];
    let mut lines = vec![format!("{:<28}{:>10}{:>10}", "critic scorecard", "original", "recritic")];
    for (name, count) in rows {
        lines.push(format!("{name:<28}{:>10}{:>10}", count(&original.total), count(&recritic.total)));
    }
    let share = |c: &FateCounts| c.agreement().map_or("—".into(), |a| format!("{:.0}%", a * 100.0));
    lines.push(format!("{:<28}{:>10}{:>10}", "right by the answers", share(&original.total), share(&recritic.total)));
    lines
}

/// The verdicts compared, flips listed by direction.
fn agreement_lines(agreement: &VerdictOverlap) -> Vec<String> {
    let mut lines = vec![format!("verdicts: {} of {} iterations agree", agreement.agreeing, agreement.compared)];
    let place = |at: &crate::domain::IterationAt| {
        format!("  {} attempt {} iteration {}", at.question_id, at.attempt, at.iteration)
    };
    let rejected: Vec<String> = agreement.newly_rejected().map(|f| place(&f.at)).collect();
    let approved: Vec<String> = agreement.newly_approved().map(|f| place(&f.at)).collect();
    for (direction, flips) in [("approved → rejected", rejected), ("rejected → approved", approved)] {
        lines.push(format!("{direction}: {}", flips.len()));
        lines.extend(flips);
    }
    if !agreement.unjudged.is_empty() {
        lines.push(format!("not judged again: {}", agreement.unjudged.len()));
        lines.extend(agreement.unjudged.iter().map(place));
    }
    lines
}

/// What the re-criticism spent beyond the copied events (`before`): its
/// distinct review calls answered, tokens and cost.
fn spending_line(state: &RunState, before: &RunState) -> String {
    let calls: BTreeSet<_> = state
        .calls
        .values()
        .filter(|c| c.key.role == LlmRole::LayerReview && c.finished && c.error.is_none())
        .map(|c| &c.key)
        .collect();
    let tokens = state.usage.total() - before.usage.total();
    format!("recritic: {} review calls, {tokens} tokens, ${:.4}", calls.len(), state.cost_usd - before.cost_usd)
}

/// Run the `recritic` subcommand.
pub fn run(args: RecriticArgs) -> anyhow::Result<ExitCode> {
    let source_path = super::report::trace_path(&args.run)?;
    let bytes = std::fs::read(&source_path).with_context(|| format!("cannot read {}", source_path.display()))?;
    let source_trace = Trace::from_lines(super::recorded::read_trace(&source_path)?)?;
    let position = question_list_end(&source_trace, &source_path)?;
    let origin = Origin { path: &source_path, bytes: &bytes, trace: &source_trace };
    let file = Config::load(args.config.as_deref())?;
    let mut settings = source_trace.header.settings.clone();
    let at =
        super::datasets::DatasetsAt { root: args.dataset_root.as_deref(), allow_outside: args.allow_outside_datasets };
    let (dataset, several) = super::datasets::recorded_data(&mut settings, at, "re-criticising")?;
    let prompts = Arc::new(prompts(&args)?);
    let (critic, roles) = critic_llm(&args, &file, &settings, &dataset)?;
    settings.concurrency = args.concurrency.or(file.run.concurrency).unwrap_or(settings.concurrency);
    settings.review_concurrency =
        args.review_concurrency.or(file.run.review_concurrency).unwrap_or(settings.review_concurrency);
    settings.step = false;
    let played = settings.role(LlmRole::LayerReview);
    let original_critic = format!("{}/{}", played.provider, played.model);
    let critic_played = roles[&LlmRole::LayerReview].clone();
    settings.provider = critic_played.provider;
    settings.model = critic_played.model;
    settings.roles = roles;
    let out = args.out.clone().unwrap_or_else(super::run::default_out_dir);
    let trace_path = out.join("trace.jsonl");
    let Start { writer, prior, llm } = start(&trace_path, &origin, position, &settings, critic)?;
    let mut before = RunState::default();
    for record in &source_trace.records[..position] {
        before.apply(record.t_ms, &record.event);
    }
    let source = Arc::new(fold_trace(&source_trace));
    // Answers are graded by ground truth as in the run; judges are not called again.
    let grader = Arc::new(Grader::ground_truth_with(&settings.grading));
    let new_critic = format!("{}/{}", settings.provider, settings.model);
    let sandbox = super::providers::sandbox_config(&dataset, None, &settings)?;
    let keep = settings.concurrency as usize;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let state = runtime.block_on(async {
        let (executor, named) = match &several {
            Some(several) => several.engine_data(None, keep, &settings).map(|data| (data.executor, data.named))?,
            None => (super::providers::build_executor(&dataset, sandbox)?, Default::default()),
        };
        let parts = EngineParts { named, ..EngineParts::new(dataset.clone(), llm, executor, prompts, grader) };
        let handle = start_recritic(parts, writer, settings, source.clone(), prior.clone());
        let stop = Box::pin(super::signals::interrupted());
        let shown = super::headless::follow(handle.events, prior, handle.commands, stop).await;
        anyhow::Ok(handle.task.await.unwrap_or(shown))
    })?;
    let results = super::results_file::write_results(&out, &state)?;
    let report_path = out.join("eval_report.html");
    super::report::write_report(
        &report_path,
        &super::report::templates()?,
        &state,
        &out,
        &chrono::Local::now().fixed_offset(),
    )?;

    let (original, recritic) = (critic_scorecard(&source), critic_scorecard(&state));
    let agreement = verdict_overlap(&original, &recritic);
    say!("recritic of {}: critic {new_critic} (original {original_critic})", source_path.display());
    for line in agreement_lines(&agreement).into_iter().chain(scorecard_lines(&original, &recritic)) {
        say!("{line}");
    }
    say!("{}", spending_line(&state, &before));
    let mut stderr = std::io::stderr();
    let _ = writeln!(stderr, "results: {}", results.display());
    let _ = writeln!(stderr, "report:  {}", report_path.display());
    let _ = writeln!(stderr, "trace:   {}", trace_path.display());
    let unfinished = state.questions.iter().any(|q| {
        q.attempts()
            .iter()
            .any(|a| !a.by_hand && matches!(a.outcome, None | Some(Outcome::Cancelled | Outcome::Failed)))
    });
    if unfinished {
        let _ = writeln!(stderr, "resume:  eval-dag recritic {} --out {}", args.run.display(), out.display());
    }
    Ok(if unfinished || !agreement.unjudged.is_empty() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
