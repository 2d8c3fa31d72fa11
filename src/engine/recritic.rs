//! Re-criticising a recorded run: every recorded iteration of the model's
//! attempts has its DAG judged anew — structural checks, trial run, layer
//! review — and nothing is ever rebuilt (no build call is made). Attempts keep
//! their numbers and iterations, so each new verdict stands beside the one it
//! replaces.

use std::sync::Arc;

use tokio::sync::{Semaphore, mpsc::UnboundedReceiver, mpsc::unbounded_channel};
use tokio::task::JoinSet;

use super::context::{EngineParts, RunContext};
use super::critic::{Attempt, Verdict};
use super::gate::Cancelled;
use super::orchestrator::{EngineHandle, context};
use crate::domain::{AttemptAt, ExecutionResult, FindingSource, Question};
use crate::run::{self, Command, EngineEvent, Outcome, RunSettings, RunState};
use crate::trace::TraceWriter;

/// Judge every iteration of `recorded` anew as attempt `recorded.number` of
/// `question`. The attempt passes with the answer of the first iteration the
/// critic approves (where a critic loop would have stopped) and is exhausted
/// when it approves none. An iteration without a DAG (the builder's reply
/// could not be read) keeps its recorded structural rejection; people's labels
/// of the answers are carried over, so both critics are graded alike.
async fn rejudge_attempt(ctx: &RunContext, question: &Question, recorded: &run::Attempt) {
    let run = Attempt { ctx, question, at: AttemptAt::new(question.id.clone(), recorded.number) };
    let (at, forked_from) = (run.at.clone(), recorded.forked_from);
    ctx.emitter.emit(EngineEvent::QuestionStarted { at, forked_from, by_hand: false });
    let mut approved: Option<(u32, ExecutionResult)> = None;
    let mut last = 0;
    for it in &recorded.iterations {
        let approval = match (&it.dag, &it.feedback) {
            (Some(dag), _) => {
                ctx.emitter.emit(EngineEvent::DagBuilt { at: run.at.iteration(it.number), dag: dag.clone() });
                match run.judge(it.number, dag.clone()).await {
                    Err(Cancelled) => {
                        return run.finish(Outcome::Cancelled, it.number, None, Some("cancelled".into()));
                    }
                    Ok(Verdict::Failed(reason)) => return run.finish(Outcome::Failed, it.number, None, Some(reason)),
                    Ok(Verdict::OverBudget(reason)) => {
                        return run.finish(Outcome::Budget, it.number, None, Some(reason));
                    }
                    Ok(Verdict::Approved(_, trial)) => Some(trial),
                    Ok(Verdict::Rejected(..)) => None,
                }
            }
            (None, Some(feedback)) if feedback.findings.iter().any(|f| f.source == FindingSource::Structural) => {
                let mut feedback = feedback.clone();
                feedback.findings.retain(|f| f.source != FindingSource::Human);
                run.verdict(it.number, &feedback);
                None
            }
            // Never built (the build call failed): nothing to judge.
            _ => continue,
        };
        last = it.number;
        if let Some(trial) = approval {
            approved.get_or_insert((it.number, trial));
        }
        for label in &it.labels {
            let (right, reason) = (label.right, label.reason.clone());
            let command = Command::Label { at: run.at.iteration(it.number), right, reason };
            ctx.emitter.emit(EngineEvent::Control(command));
        }
    }
    match approved {
        Some((iteration, trial)) => run.answer(iteration, trial, Outcome::Passed, None).await,
        None => {
            let reason = format!("rejected in all {last} recorded iterations");
            run.finish(Outcome::Exhausted, last, None, Some(reason));
        }
    }
}

/// Whether `state` holds attempt `number` of `question_id` judged to its end
/// (a resumed re-criticism keeps it; one stopped, or failed by a review call
/// that failed for good, is judged again).
fn finished(state: &RunState, question_id: &str, number: u32) -> bool {
    let outcome = state.question(question_id).and_then(|q| q.attempt(number)).and_then(|a| a.outcome);
    matches!(outcome, Some(Outcome::Passed | Outcome::Exhausted))
}

async fn recriticise(
    ctx: Arc<RunContext>,
    settings: RunSettings,
    source: Arc<RunState>,
    mut commands: UnboundedReceiver<Command>,
) -> RunState {
    let emitter = ctx.emitter.clone();
    emitter.emit(EngineEvent::RunStarted { settings: settings.clone() });
    let slots = Arc::new(Semaphore::new(settings.concurrency.max(1) as usize));
    let mut tasks = JoinSet::new();
    for q in &source.questions {
        let id = q.question.id.as_str();
        let todo: Vec<u32> = emitter.with_state(|state| {
            q.attempts().iter().filter(|a| !a.by_hand && !finished(state, id, a.number)).map(|a| a.number).collect()
        });
        if todo.is_empty() {
            continue;
        }
        let (ctx, slots, source, id) = (ctx.clone(), slots.clone(), source.clone(), id.to_string());
        tasks.spawn(async move {
            let Ok(_slot) = slots.acquire_owned().await else { return };
            let Some(q) = source.question(&id) else { return };
            for attempt in q.attempts().iter().filter(|a| todo.contains(&a.number)) {
                rejudge_attempt(&ctx, &q.question, attempt).await;
            }
        });
    }
    let mut commands_open = true;
    loop {
        tokio::select! {
            command = commands.recv(), if commands_open => match command {
                // Re-criticism runs headless: stopping it is the one command it takes.
                Some(Command::CancelRun) => {
                    ctx.gate.cancel_run();
                    emitter.emit(EngineEvent::Control(Command::CancelRun));
                    commands_open = false;
                }
                Some(_) => {}
                None => commands_open = false,
            },
            joined = tasks.join_next() => match joined {
                Some(Err(err)) => tracing::error!("a re-criticism loop panicked: {err}"),
                Some(Ok(())) => {}
                None => break,
            },
        }
    }
    let summary = emitter.with_state(|s| s.summary(emitter.now_ms()));
    emitter.emit(EngineEvent::RunFinished { summary });
    emitter.with_state(RunState::clone)
}

/// Start re-criticising `source` in the background on the current tokio
/// runtime, continuing from `prior` (the derived run's state so far: the
/// source's copied events, and the attempts an interrupted re-criticism
/// already judged, which are kept). Every event is recorded in `trace` first.
/// `parts.llm` answers the layer reviews; no DAG is built.
pub fn start_recritic(
    parts: EngineParts,
    trace: TraceWriter,
    settings: RunSettings,
    source: Arc<RunState>,
    prior: RunState,
) -> EngineHandle {
    let (commands, command_rx) = unbounded_channel();
    let (ctx, events) = context(parts, Some(trace), &settings, prior);
    let task = tokio::spawn(recriticise(ctx, settings, source, command_rx));
    EngineHandle { events, commands, task }
}
