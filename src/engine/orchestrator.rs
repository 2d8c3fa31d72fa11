//! The run: generate questions once, then one critic loop per question,
//! bounded by the concurrency limit, while commands are honoured.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::{
    Semaphore,
    mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel},
};
use tokio::task::JoinSet;

use super::baselines::{ask_baselines, unasked};
use super::by_hand::{Acceptance, HandStart, accept, try_dag};
use super::consensus::{DraftStart, record_consensus, run_drafts};
use super::context::{EngineParts, RunContext};
use super::critic::{Seed, run_attempt};
use super::emitter::Emitter;
use super::gate::Gate;
use super::loop_slot::run_in_slot;
use super::node_run::run_node;
use super::questions::{GenerationError, generate_questions};
use crate::domain::{AttemptAt, ForkedFrom, IterationAt};
use crate::domain::{Question, QuestionId};
use crate::llm::{BatchHub, DEFAULT_REPAIRS, LoopGuard, Repairs};
use crate::run::{Command, EngineEvent, HandEdit, Outcome, RunSettings, RunState};
use crate::trace::TraceWriter;

/// What the caller holds while a run goes on.
pub struct EngineHandle {
    /// Every event, timestamped in ms since the run started.
    pub events: UnboundedReceiver<(u64, EngineEvent)>,
    /// Commands to the engine.
    pub commands: UnboundedSender<Command>,
    /// Resolves to the final state when the run is over.
    pub task: tokio::task::JoinHandle<RunState>,
}

/// How a run behaves beyond its settings.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Keep serving commands (reruns) after every loop finished, until
    /// `CancelRun` or the command channel closes (the TUI does this).
    pub keep_alive: bool,
    /// Questions to use instead of generating them.
    pub questions: Option<Vec<Question>>,
    /// The state of an earlier, interrupted run to continue: its finished
    /// questions are kept, unfinished and cancelled attempts restart.
    pub prior: Option<RunState>,
    /// With `prior`: also start a new attempt for every question whose latest
    /// attempt failed or exhausted.
    pub retry_failed: bool,
    /// With `prior`: start no attempt, only carry out commands (work by hand,
    /// reruns) — a run derived from a replay.
    pub idle: bool,
    /// With `idle`: still ask the baselines not asked yet (`eval-dag baseline`).
    pub ask_baselines: bool,
}

struct Orchestrator {
    ctx: Arc<RunContext>,
    slots: Arc<Semaphore>,
    tasks: JoinSet<()>,
    /// Nodes run on their own: they change no question, so the run does not
    /// finish again when they end.
    node_runs: JoinSet<()>,
    /// Per question: the model's latest attempt of epoch 1 (the one a rerun cancels).
    latest_attempt: HashMap<QuestionId, u32>,
    /// Per question: the attempts of its other critic loops (later epochs,
    /// `run --repeat`; other drafts, `run --consensus`), which cancelling the
    /// question cancels too.
    other_loops: HashMap<QuestionId, Vec<AttemptAt>>,
    /// Per question, epoch and draft: the highest attempt number given out, drafts by hand included.
    issued: HashMap<(QuestionId, u32, u32), u32>,
    /// Drafts per question and epoch (`run --consensus`): above 1, a loop
    /// started again records its epoch's consensus anew when it ends.
    drafts: u32,
}

impl Orchestrator {
    /// The number of the next attempt of `question_id`'s `epoch` and `draft`.
    fn next_attempt(&mut self, question_id: &QuestionId, (epoch, draft): (u32, u32)) -> u32 {
        let recorded =
            self.ctx.emitter.with_state(|s| s.question(question_id).map_or(0, |q| q.last_attempt_in(epoch, draft)));
        let issued = self.issued.entry((question_id.clone(), epoch, draft)).or_default();
        *issued = (*issued).max(recorded) + 1;
        *issued
    }

    /// Note `at` as the question's latest attempt (epoch 1, draft 1) or as one of its other loops.
    fn register(&mut self, question_id: &QuestionId, at: &AttemptAt) {
        let issued = self.issued.entry((question_id.clone(), at.epoch, at.draft)).or_default();
        *issued = (*issued).max(at.attempt);
        if (at.epoch, at.draft) == (1, 1) {
            self.latest_attempt.insert(question_id.clone(), at.attempt);
        } else {
            self.other_loops.entry(question_id.clone()).or_default().push(at.clone());
        }
    }

    /// Run the drafts `starts` of `question`'s `epoch` side by side, then record their consensus.
    fn spawn_drafts(&mut self, question: Question, epoch: u32, drafts: u32, starts: Vec<DraftStart>) {
        for (at, ..) in &starts {
            self.register(&question.id, at);
        }
        let batching = starts.iter().map(|_| self.batching()).collect();
        let (ctx, slots) = (self.ctx.clone(), self.slots.clone());
        self.tasks.spawn(run_drafts((ctx, slots), question, (epoch, drafts), starts, batching));
    }

    /// A loop started now, counted as running in the run's batches (when its calls are batched).
    fn batching(&self) -> Option<LoopGuard> {
        self.ctx.parts.llm.batch_hub().map(BatchHub::loop_started)
    }

    fn spawn(&mut self, question: Question, at: AttemptAt, seed: Seed, forked_from: Option<ForkedFrom>) {
        self.register(&question.id, &at);
        let (ctx, slots, drafts, batching) = (self.ctx.clone(), self.slots.clone(), self.drafts, self.batching());
        self.tasks.spawn(async move {
            let epoch = at.epoch;
            let work = async {
                run_attempt(&ctx, &question, at, seed, forked_from).await;
                if drafts > 1 {
                    record_consensus(&ctx, &question, epoch, drafts);
                }
            };
            run_in_slot(slots, batching, work).await;
        });
    }

    fn question(&self, id: &str) -> Option<Question> {
        self.ctx.emitter.with_state(|s| s.question(id).map(|q| q.question.clone()))
    }

    /// Cancel the latest attempt of `question_id`'s `epoch` and `draft` and
    /// start the next one, recording `command`.
    fn restart(
        &mut self,
        question_id: &QuestionId,
        (epoch, draft): (u32, u32),
        seed: Seed,
        forked_from: Option<ForkedFrom>,
        command: Command,
    ) {
        let Some(question) = self.question(question_id) else {
            return;
        };
        let previous = if (epoch, draft) == (1, 1) {
            self.latest_attempt.get(question_id).copied()
        } else {
            self.ctx.emitter.with_state(|s| s.question(question_id).map(|q| q.last_attempt_in(epoch, draft)))
        };
        if let Some(previous) = previous.filter(|&n| n > 0) {
            self.ctx.gate.cancel_attempt(AttemptAt::new(question_id, previous).in_epoch(epoch, draft));
        }
        self.ctx.emitter.emit(EngineEvent::Control(command));
        let attempt = self.next_attempt(question_id, (epoch, draft));
        self.spawn(question, AttemptAt::new(question_id, attempt).in_epoch(epoch, draft), seed, forked_from);
    }

    /// Start a draft by hand of `from`'s question: `edit` checked and trial-run.
    /// Beside the model's work, which goes on.
    fn try_by_hand(&mut self, from: IterationAt, edit: HandEdit, command: Command) {
        let Some(question) = self.question(&from.question_id) else { return };
        self.ctx.emitter.emit(EngineEvent::Control(command));
        let attempt = self.next_attempt(&question.id, (from.epoch, from.draft));
        let ctx = self.ctx.clone();
        self.tasks.spawn(async move {
            try_dag(HandStart { ctx: &ctx, question: &question, attempt, from }, edit).await;
        });
    }

    /// Accept iteration `at` as its question's answer (see [`accept`]);
    /// an iteration without a DAG is refused with a feed note.
    fn accept(&mut self, at: IterationAt, command: Command) {
        let Some(question) = self.question(&at.question_id) else { return };
        let acceptance = self.ctx.emitter.with_state(|s| {
            let attempt = s.question(&at.question_id)?.attempt_at(&at.attempt_at())?;
            let iteration = attempt.iteration(at.iteration)?;
            let draft = attempt.by_hand && attempt.outcome == Some(Outcome::Drafted);
            match (&iteration.trial, &iteration.dag) {
                (Some(trial), _) if draft && trial.success => Some(Acceptance::Draft(Box::new(trial.clone()))),
                (_, Some(dag)) if !dag.nodes.is_empty() => Some(Acceptance::Copy(dag.clone())),
                _ => None,
            }
        });
        let Some(acceptance) = acceptance else { return };
        self.ctx.emitter.emit(EngineEvent::Control(command));
        let attempt = match acceptance {
            Acceptance::Draft(_) => at.attempt,
            Acceptance::Copy(_) => self.next_attempt(&question.id, (at.epoch, at.draft)),
        };
        let (ctx, drafts, epoch) = (self.ctx.clone(), self.drafts, at.epoch);
        self.tasks.spawn(async move {
            accept(HandStart { ctx: &ctx, question: &question, attempt, from: at }, acceptance).await;
            // The answer accepted speaks for its draft: the epoch's consensus is recorded anew.
            if drafts > 1 {
                record_consensus(&ctx, &question, epoch, drafts);
            }
        });
    }

    /// Carry out `command` and record it; false once the run is to end.
    fn handle(&mut self, command: Command) -> bool {
        let gate = &self.ctx.gate;
        let record = match &command {
            Command::Pause => {
                gate.pause();
                true
            }
            Command::Resume => {
                gate.resume();
                true
            }
            Command::Step { question_id } => {
                gate.step(question_id.clone());
                true
            }
            Command::Rerun { question_id, epoch, draft } => {
                let (question_id, loop_at) = (question_id.clone(), (*epoch, *draft));
                self.restart(&question_id, loop_at, None, None, command);
                return true;
            }
            Command::Fork { from } => {
                let seed = self.ctx.emitter.with_state(|s| {
                    let it = s.question(&from.question_id)?.iteration_at(from)?;
                    Some((it.dag.clone()?, it.feedback.clone()?))
                });
                if seed.is_some() {
                    let (question_id, forked_from) = (from.question_id.clone(), ForkedFrom::of(from));
                    self.restart(&question_id, (from.epoch, from.draft), seed, Some(forked_from), command);
                }
                return true;
            }
            Command::TryDag { from, edit } => {
                let (from, edit) = (from.clone(), edit.clone());
                self.try_by_hand(from, edit, command);
                return true;
            }
            Command::Accept { at } => {
                let at = at.clone();
                self.accept(at, command);
                return true;
            }
            Command::RunNode { at, node_id, code } => {
                let dag = self.ctx.emitter.with_state(|s| s.question(&at.question_id)?.iteration_at(at)?.dag.clone());
                let Some(dag) = dag else { return true };
                let (at, node_id, code) = (at.clone(), node_id.clone(), code.clone());
                self.ctx.emitter.emit(EngineEvent::Control(command));
                let ctx = self.ctx.clone();
                self.node_runs.spawn(async move { run_node(&ctx, at, dag, node_id, code).await });
                return true;
            }
            Command::Label { at, .. } => {
                self.ctx.emitter.with_state(|s| s.question(&at.question_id).and_then(|q| q.iteration_at(at)).is_some())
            }
            Command::Note { at, text, .. } => {
                !text.trim().is_empty()
                    && self
                        .ctx
                        .emitter
                        .with_state(|s| s.question(&at.question_id).and_then(|q| q.iteration_at(at)).is_some())
            }
            Command::CancelQuestion { question_id } => match self.latest_attempt.get(question_id) {
                Some(&attempt) => {
                    gate.cancel_attempt(AttemptAt::new(question_id.clone(), attempt));
                    for at in self.other_loops.get(question_id).into_iter().flatten() {
                        gate.cancel_attempt(at.clone());
                    }
                    true
                }
                None => false,
            },
            // Carried out by the run's loop, which awaits the providers.
            Command::CancelBatches => false,
            Command::CancelRun => {
                gate.cancel_run();
                // After the run finished there is nothing to cancel: its trace ends with its finish.
                if !self.tasks.is_empty() {
                    self.ctx.emitter.emit(EngineEvent::Control(command));
                }
                return false;
            }
        };
        if record {
            self.ctx.emitter.emit(EngineEvent::Control(command));
        }
        true
    }

    /// Ask `question`'s baselines that `prior` has no reply for (`run --baselines`).
    fn spawn_baselines(&mut self, question: &Question, prior: Option<&RunState>) {
        let calls = unasked(prior, question);
        if !calls.is_empty() {
            let (ctx, slots, batching) = (self.ctx.clone(), self.slots.clone(), self.batching());
            self.tasks.spawn(ask_baselines(ctx, slots, batching, question.clone(), calls));
        }
    }

    /// Start every epoch and draft of `questions` (on a continued run, those
    /// not finished; on an idle one, none, their latest attempts noted), and
    /// the baselines not asked yet of a run with baselines (`ask_baselines`
    /// too on an idle one).
    fn start(&mut self, questions: Vec<Question>, settings: &RunSettings, options: &RunOptions) {
        let drafts = settings.drafts();
        for question in questions {
            if settings.baselines && (!options.idle || options.ask_baselines) {
                self.spawn_baselines(&question, options.prior.as_ref());
            }
            for epoch in 1..=settings.epochs() {
                let mut starts: Vec<DraftStart> = Vec::new();
                for draft in 1..=drafts {
                    let plan = match &options.prior {
                        Some(prior) if options.idle => Resumption::Keep(
                            prior
                                .question(&question.id)
                                .and_then(|q| q.latest_in(epoch, draft))
                                .map_or(0, |a| a.number),
                        ),
                        Some(prior) => resumption(prior, &question.id, (epoch, draft), options.retry_failed),
                        None => Resumption::Start(1, None, None),
                    };
                    match plan {
                        Resumption::Keep(attempt) if (epoch, draft) == (1, 1) => {
                            self.latest_attempt.insert(question.id.clone(), attempt);
                        }
                        Resumption::Keep(_) => {}
                        Resumption::Start(attempt, seed, forked_from) => {
                            let at = AttemptAt::new(question.id.as_str(), attempt).in_epoch(epoch, draft);
                            starts.push((at, seed, forked_from));
                        }
                    }
                }
                let recorded = options
                    .prior
                    .as_ref()
                    .and_then(|p| p.question(&question.id))
                    .is_some_and(|q| q.consensus.contains_key(&epoch));
                if drafts > 1 && !(options.idle || starts.is_empty() && recorded) {
                    self.spawn_drafts(question.clone(), epoch, drafts, starts);
                } else {
                    for (at, seed, forked_from) in starts {
                        self.spawn(question.clone(), at, seed, forked_from);
                    }
                }
            }
        }
    }
}

/// What a continued run does with one question of the earlier run.
#[allow(clippy::large_enum_variant)] // one per question, once per run
enum Resumption {
    /// Its latest attempt (this number) finished: keep it.
    Keep(u32),
    /// Start attempt n, seeded and forked as given.
    Start(u32, Seed, Option<ForkedFrom>),
}

fn resumption(
    prior: &RunState,
    question_id: &QuestionId,
    (epoch, draft): (u32, u32),
    retry_failed: bool,
) -> Resumption {
    let Some(question) = prior.question(question_id) else {
        return Resumption::Start(1, None, None);
    };
    let Some(latest) = question.latest_in(epoch, draft) else {
        return Resumption::Start(question.last_attempt_in(epoch, draft) + 1, None, None);
    };
    match latest.outcome {
        Some(Outcome::Failed | Outcome::Exhausted) if retry_failed => {
            Resumption::Start(question.last_attempt_in(epoch, draft) + 1, None, None)
        }
        Some(Outcome::Passed | Outcome::Failed | Outcome::Exhausted | Outcome::FixedByHand | Outcome::Drafted) => {
            Resumption::Keep(latest.number)
        }
        // Interrupted (killed, cancelled by the user, stopped by the budget):
        // the same attempt goes on, its recorded LLM responses reused.
        Some(Outcome::Cancelled | Outcome::Budget) | None => {
            let seed = latest.forked_from.and_then(|fork| {
                let from = fork.within(&AttemptAt::new(question_id, latest.number).in_epoch(epoch, draft));
                let it = prior.question(question_id)?.attempt_at(&from.attempt_at())?.iteration(from.iteration)?;
                Some((it.dag.clone()?, it.feedback.clone()?))
            });
            Resumption::Start(latest.number, seed, latest.forked_from)
        }
    }
}

async fn orchestrate(
    ctx: Arc<RunContext>,
    settings: RunSettings,
    options: RunOptions,
    mut commands: UnboundedReceiver<Command>,
) -> RunState {
    let emitter = ctx.emitter.clone();
    emitter.emit(EngineEvent::RunStarted { settings: settings.clone() });
    let earlier_questions = options
        .prior
        .as_ref()
        .filter(|p| !p.questions.is_empty())
        .map(|p| p.questions.iter().map(|q| q.question.clone()).collect::<Vec<_>>());
    let continuing = earlier_questions.is_some();
    let questions = match earlier_questions.or(options.questions.clone()) {
        Some(questions) => questions,
        None => match generate_questions(&ctx, settings.questions).await {
            Ok(questions) => questions,
            Err(error) => {
                emitter.emit(EngineEvent::RunFailed { error: error.to_string() });
                let summary = emitter.with_state(|s| s.summary(emitter.now_ms()));
                emitter.emit(EngineEvent::RunFinished { summary });
                return emitter.with_state(RunState::clone);
            }
        },
    };
    if !continuing {
        emitter.emit(EngineEvent::QuestionsGenerated { questions: questions.clone() });
    }
    let mut run = Orchestrator {
        slots: Arc::new(Semaphore::new(settings.concurrency.max(1) as usize)),
        ctx,
        tasks: JoinSet::new(),
        node_runs: JoinSet::new(),
        latest_attempt: HashMap::new(),
        other_loops: HashMap::new(),
        issued: HashMap::new(),
        drafts: settings.drafts(),
    };
    run.start(questions, &settings, &options);
    if run.tasks.is_empty() {
        let summary = emitter.with_state(|s| s.summary(emitter.now_ms()));
        emitter.emit(EngineEvent::RunFinished { summary });
        if !options.keep_alive {
            return emitter.with_state(RunState::clone);
        }
    }
    let mut commands_open = true;
    loop {
        tokio::select! {
            command = commands.recv(), if commands_open => match command {
                // Awaited here: the run's loops go on meanwhile, and `CancelRun` waits behind it.
                Some(Command::CancelBatches) => {
                    if let Some(hub) = run.ctx.parts.llm.batch_hub() {
                        let cancelled = hub.cancel().await;
                        if cancelled.left > 0 {
                            tracing::warn!("{} batches still ran at their providers after the cancel wait", cancelled.left);
                        }
                    }
                }
                Some(command) => {
                    if !run.handle(command) {
                        commands_open = false;
                    }
                }
                None => commands_open = false,
            },
            Some(joined) = run.node_runs.join_next(), if !run.node_runs.is_empty() => {
                if let Err(err) = joined {
                    tracing::error!("a node run panicked: {err}");
                }
            }
            joined = run.tasks.join_next(), if !run.tasks.is_empty() => {
                if let Some(Err(err)) = joined {
                    tracing::error!("a critic loop panicked: {err}");
                }
                if run.tasks.is_empty() {
                    let summary = emitter.with_state(|s| s.summary(emitter.now_ms()));
                    emitter.emit(EngineEvent::RunFinished { summary });
                    if !(options.keep_alive && commands_open) {
                        break;
                    }
                }
            }
            else => break,
        }
    }
    emitter.with_state(RunState::clone)
}

/// The context of a run continuing from `prior` (empty for a fresh one), its
/// events recorded in `trace` first, and the receiving end of its events.
pub(super) fn context(
    parts: EngineParts,
    trace: Option<TraceWriter>,
    settings: &RunSettings,
    prior: RunState,
) -> (Arc<RunContext>, UnboundedReceiver<(u64, EngineEvent)>) {
    let (event_tx, events) = unbounded_channel();
    // A continued run goes on from the earlier state: its clock and call ids
    // carry on where the trace stopped.
    let first_call_id = prior.calls.keys().max().map_or(1, |id| id + 1);
    let offset_ms = prior.now_ms;
    let emitter = Arc::new(Emitter::new(event_tx, trace, prior, offset_ms, first_call_id));
    if let Some(hub) = parts.llm.batch_hub() {
        // Batches submitted and ended are recorded with the calls' own events
        // (while the run lasts: the hub does not keep its events' channel open).
        let emitter = Arc::downgrade(&emitter);
        hub.observe(Arc::new(move |event| {
            if let Some(emitter) = emitter.upgrade() {
                emitter.emit(event);
            }
        }));
    }
    let repairs = Repairs::new(settings.repair.unwrap_or(DEFAULT_REPAIRS), parts.prompts.clone());
    let ctx = RunContext {
        parts,
        emitter,
        gate: Arc::new(Gate::new(settings.step)),
        max_iterations: settings.max_iterations,
        seed: settings.seed,
        review_concurrency: settings.review_concurrency as usize,
        budget: settings.budget.unwrap_or_default(),
        repairs,
    };
    (Arc::new(ctx), events)
}

/// Start a run in the background on the current tokio runtime; every event
/// is recorded in `trace` first, when there is one.
pub fn start(
    parts: EngineParts,
    trace: Option<TraceWriter>,
    settings: RunSettings,
    options: RunOptions,
) -> EngineHandle {
    let (commands, command_rx) = unbounded_channel();
    let (ctx, events) = context(parts, trace, &settings, options.prior.clone().unwrap_or_default());
    let task = tokio::spawn(orchestrate(ctx, settings, options, command_rx));
    EngineHandle { events, commands, task }
}

/// Ask the run's question generator for `settings.questions` questions
/// outside a run (`run --questions-only`): no trace is written and no
/// critic loop starts.
pub async fn question_list(
    parts: super::EngineParts,
    settings: &crate::run::RunSettings,
) -> Result<Vec<Question>, GenerationError> {
    let (ctx, _events) = context(parts, None, settings, crate::run::RunState::default());
    generate_questions(&ctx, settings.questions).await
}
