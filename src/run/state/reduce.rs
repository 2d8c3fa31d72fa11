//! The reducer's event families: [`RunState::apply_owned`] hands each event to
//! the method of its family.

use std::sync::Arc;

use super::{FeedKind, RunState};
use crate::domain::{AttemptAt, CriticFeedback, FindingSource, IterationAt};
use crate::run::events::{Command, EngineEvent, Outcome};
use crate::run::llm_call::LlmCall;
use crate::run::question_state::{AnswerLabel, Attempt, NodeRun, QuestionState, QuestionStatus, StageRecord};
use crate::text::plural;

impl RunState {
    /// The run as a whole: started, its questions, failed, finished.
    pub(super) fn apply_run_event(&mut self, event: EngineEvent) {
        match event {
            EngineEvent::RunStarted { settings } => {
                // A continued run starts again: it is not finished until it says so.
                self.summary = None;
                self.paused = settings.step;
                let mut text = format!(
                    "run started: {} via {} ({})",
                    settings.dataset_dir.display(),
                    settings.provider,
                    settings.model
                );
                // Roles played by more than one provider, model or server: each named.
                if let Some(players) = crate::run::Players::of(&settings).line() {
                    text.push_str(&format!(" · {players}"));
                }
                self.settings = Some(settings);
                self.push_feed(None, FeedKind::Info, text);
            }
            EngineEvent::QuestionsGenerated { questions } => {
                let count = questions.len();
                for question in questions {
                    if self.index.contains_key(&question.id) {
                        continue;
                    }
                    self.longest_id = self.longest_id.max(question.id.chars().count());
                    Arc::make_mut(&mut self.index).insert(question.id.clone(), self.questions.len());
                    self.questions.0.push(Arc::new(QuestionState::queued(question)));
                    self.statuses.add(QuestionStatus::Queued, 1);
                }
                let asked = self.settings.as_ref().map_or(0, |s| s.questions as usize);
                if count < asked {
                    let text = format!(
                        "{count} questions generated of the {asked} asked for: the generator could write no more for this dataset"
                    );
                    self.push_feed(None, FeedKind::Bad, text);
                } else {
                    self.push_feed(None, FeedKind::Info, format!("{count} questions generated"));
                }
            }
            EngineEvent::RunFailed { error } => {
                self.push_feed(None, FeedKind::Bad, format!("run failed: {error}"));
                self.failure = Some(error);
            }
            EngineEvent::RunFinished { summary } => {
                self.paused = false;
                let text = format!("run finished: {}/{} passed", summary.passed, summary.total);
                self.summary = Some(summary);
                self.push_feed(None, FeedKind::Info, text);
            }
            // The other families' events are folded by their own methods.
            _ => {}
        }
    }

    /// An LLM call: sent, streaming, retried, finished.
    pub(super) fn apply_call_event(&mut self, event: EngineEvent) {
        match event {
            EngineEvent::LlmCallStarted { call_id, key, provider, model, messages } => {
                self.call_started(call_id, key, provider, model, messages);
            }
            EngineEvent::LlmTextDelta { call_id, text } => {
                if let Some(call) = self.calls.get_mut(&call_id) {
                    Arc::make_mut(call).response.push_str(&text);
                }
            }
            EngineEvent::LlmCallRetrying { call_id, retry, error, wait_ms } => {
                if let Some(call) = self.calls.get_mut(&call_id) {
                    let call = Arc::make_mut(call);
                    call.response.clear();
                    call.retries = retry;
                    let (question_id, role) = (call.key.question_id.clone(), call.key.role.label());
                    let text = format!("{role} call retry {retry} in {:.1} s: {error}", wait_ms as f64 / 1000.0);
                    self.push_feed(question_id.as_ref(), FeedKind::Info, text);
                }
            }
            EngineEvent::LlmCallFinished {
                call_id,
                key,
                response,
                usage,
                latency_ms,
                error,
                retries,
                cost_usd,
                finish_reason,
                from_cache,
                list_cost_usd,
                estimated,
                batch_id,
            } => {
                if self.open_calls.get(&key) == Some(&call_id) {
                    self.open_calls.remove(&key);
                }
                self.usage += usage;
                self.cost_usd += cost_usd;
                self.calls_finished += 1;
                self.cache_hits += usize::from(from_cache);
                self.cache_list_cost_usd += list_cost_usd.unwrap_or(0.0);
                self.tokens_estimated |= estimated;
                // A question's own tokens and cost are its loop's: baselines count run-wide only.
                if let Some(id) = &key.question_id
                    && key.baseline.is_none()
                    && let Some(q) = self.question_mut(id)
                {
                    q.usage += usage;
                    q.cost_usd += cost_usd;
                }
                if let Some(error) = &error {
                    let text = format!("{} call failed: {error}", key.role.label());
                    self.push_feed(key.question_id.as_ref(), FeedKind::Bad, text);
                }
                let waited_in = self.waiting_in_batch(call_id).map(|batch| batch.batch_id.clone());
                // A finish without its start (a trace cut at the front) still counts; who served it is unknown.
                let call = self.calls.entry(call_id).or_insert_with(|| {
                    let unknown = crate::domain::Provider::Other(String::new());
                    Arc::new(LlmCall::sent(call_id, key, unknown, String::new(), Arc::default()))
                });
                let call = Arc::make_mut(call);
                call.response = response.unwrap_or_default();
                call.finished = true;
                call.error = error;
                call.usage = usage;
                call.cost_usd = cost_usd;
                call.latency_ms = latency_ms;
                call.retries = retries;
                call.finish_reason = finish_reason;
                call.from_cache = from_cache;
                call.estimated = estimated;
                // Where the reply came from; a call cancelled before its reply keeps the batch it waits in.
                let cancelled = call.error.as_deref() == Some(crate::run::CALL_CANCELLED);
                call.batch_id = if cancelled && batch_id.is_none() { call.batch_id.take() } else { batch_id };
                self.replied(waited_in, call_id);
            }
            // The other families' events are folded by their own methods.
            _ => {}
        }
    }

    /// A call sent: filed under its question's attempt and iteration (a
    /// judge's under the attempt, a baseline's under the question).
    fn call_started(
        &mut self,
        call_id: u64,
        key: crate::domain::CallKey,
        provider: crate::domain::Provider,
        model: String,
        messages: Vec<crate::domain::ChatMessage>,
    ) {
        if let Some(id) = &key.question_id
            && let Some(q) = self.question_mut(id)
            && key.baseline.is_some()
        {
            q.baseline_calls.push(call_id);
        } else if let Some(id) = &key.question_id
            && let Some(q) = self.question_mut(id)
        {
            let place = AttemptAt::new(id.as_str(), key.attempt).in_epoch(key.epoch, key.draft);
            let attempt = q.attempt_mut(&place);
            // A judge call's iteration is its judge's place in the panel, not a DAG iteration.
            if key.role == crate::domain::LlmRole::Judge {
                attempt.judge_calls.push(call_id);
            } else {
                attempt.iteration_mut(key.iteration).calls.push(call_id);
            }
        }
        let messages = Arc::new(self.prompt_heads.share(key.role, messages));
        self.open_calls.insert(key.clone(), call_id);
        self.calls.insert(call_id, Arc::new(LlmCall::sent(call_id, key, provider, model, messages)));
    }

    /// An attempt's start and its iterations: stages, DAGs, runs, grades, nodes run on their own (the critic's verdict is [`Self::critic_verdict`]).
    pub(super) fn apply_iteration_event(&mut self, event: EngineEvent) {
        match event {
            EngineEvent::QuestionStarted { at, forked_from, by_hand } => {
                let now = self.now_ms;
                let question_id = at.question_id.clone();
                if let Some(q) = self.question_mut(&question_id) {
                    // A start of an attempt that already has a record (a resumed
                    // run restarting it) replaces the interrupted record.
                    *q.attempt_mut(&at) = Attempt { forked_from, by_hand, ..Attempt::new(&at) };
                    q.started_ms.get_or_insert(now);
                    // A draft by hand is checked beside the model's work and leaves its status alone.
                    if !by_hand {
                        q.finished_ms = None;
                        q.status = QuestionStatus::Queued;
                    }
                }
                if by_hand {
                    self.push_feed(Some(&question_id), FeedKind::Control, format!("{} by hand", at.label()));
                } else if at.attempt > 1 || (at.epoch, at.draft) != (1, 1) {
                    self.push_feed(Some(&question_id), FeedKind::Control, format!("{} started", at.label()));
                }
            }
            EngineEvent::StageStarted { at, stage } => {
                let now = self.now_ms;
                if let Some(q) = self.question_mut(&at.question_id) {
                    let attempt = q.attempt_mut(&at.attempt_at());
                    let by_hand = attempt.by_hand;
                    attempt.iteration_mut(at.iteration).stages.push(StageRecord {
                        stage,
                        started_ms: now,
                        finished: None,
                    });
                    if !by_hand {
                        q.status = QuestionStatus::Working(stage);
                    }
                }
            }
            EngineEvent::StageFinished { at, stage, ok, duration_ms } => {
                if let Some(q) = self.question_mut(&at.question_id) {
                    let it = q.attempt_mut(&at.attempt_at()).iteration_mut(at.iteration);
                    if let Some(record) = it.stages.iter_mut().rev().find(|r| r.stage == stage) {
                        record.finished = Some((ok, duration_ms));
                    }
                }
            }
            EngineEvent::DagBuilt { at, dag } => {
                if let Some(q) = self.question_mut(&at.question_id) {
                    q.attempt_mut(&at.attempt_at()).iteration_mut(at.iteration).dag = Some(dag);
                }
            }
            EngineEvent::Executed { at, trial, result } => {
                if let Some(q) = self.question_mut(&at.question_id) {
                    let a = q.attempt_mut(&at.attempt_at());
                    if trial {
                        a.iteration_mut(at.iteration).trial = Some(result);
                    } else {
                        a.execution = Some(result);
                    }
                }
            }
            EngineEvent::IterationGraded { at, grades, .. } => {
                if let Some(q) = self.question_mut(&at.question_id) {
                    q.attempt_mut(&at.attempt_at()).iteration_mut(at.iteration).judge_grades = grades;
                }
            }
            EngineEvent::NodeRan { at, node_id, code, result } => {
                let text = match (&result.error, result.node_outputs.get(&node_id)) {
                    (None, Some(output)) => {
                        format!("node {node_id} ran on its own → {}", crate::text::preview(output, 60))
                    }
                    (error, _) => format!("node {node_id} ran on its own: {}", error.as_deref().unwrap_or("no output")),
                };
                let kind = if result.success { FeedKind::Info } else { FeedKind::Bad };
                self.push_feed(Some(&at.question_id), kind, text);
                if let Some(q) = self.question_mut(&at.question_id) {
                    let run = NodeRun { node_id, code, result };
                    q.attempt_mut(&at.attempt_at()).iteration_mut(at.iteration).node_runs.push(run);
                }
            }
            // The other families' events are folded by their own methods.
            _ => {}
        }
    }

    /// How an attempt ended: its outcome, grades, consensus and metamorphic checks.
    pub(super) fn apply_outcome_event(&mut self, event: EngineEvent) {
        match event {
            EngineEvent::QuestionFinished { at, outcome, final_answer, reason, .. } => {
                let question_id = at.question_id.clone();
                let kind = match outcome {
                    Outcome::Passed => FeedKind::Good,
                    Outcome::Drafted | Outcome::FixedByHand => FeedKind::Control,
                    _ => FeedKind::Bad,
                };
                let detail = match (&final_answer, &reason) {
                    (Some(answer), _) => format!(" → {}", crate::text::preview(answer, 60)),
                    (None, Some(reason)) => format!(": {reason}"),
                    _ => String::new(),
                };
                self.push_feed(Some(&question_id), kind, format!("{}{detail}", outcome.label()));
                let now = self.now_ms;
                if let Some(q) = self.question_mut(&question_id) {
                    let a = q.attempt_mut(&at);
                    a.outcome = Some(outcome);
                    a.final_answer = final_answer;
                    a.reason = reason;
                    // The question takes the outcome of the attempt that speaks for
                    // it; asked in several epochs or drafts, once every one has ended.
                    let several = q.attempts().iter().any(|a| (a.epoch, a.draft) != (1, 1));
                    let speaking = if several {
                        q.latest().and_then(|a| a.outcome).filter(|_| q.loops_ended())
                    } else {
                        q.latest().filter(|a| a.is_at(&at)).map(|_| outcome)
                    };
                    if let Some(outcome) = speaking {
                        q.status = QuestionStatus::Done(outcome);
                        q.finished_ms = Some(now);
                    }
                }
            }
            EngineEvent::Graded { at, grades, narrative } => {
                if let Some(wrong) = grades.iter().find(|g| !g.passed) {
                    let text = format!("graded wrong by {}: {}", wrong.method, wrong.reason);
                    self.push_feed(Some(&at.question_id), FeedKind::Bad, text);
                }
                if let Some(q) = self.question_mut(&at.question_id) {
                    let attempt = q.attempt_mut(&at);
                    attempt.grades = grades;
                    attempt.narrative = narrative;
                }
            }
            EngineEvent::ConsensusReached { question_id, epoch, consensus } => {
                if let Some(q) = self.question_mut(&question_id) {
                    q.record_consensus(epoch, consensus);
                    if let Some(outcome) = q.latest().and_then(|a| a.outcome).filter(|_| q.loops_ended()) {
                        q.status = QuestionStatus::Done(outcome);
                    }
                }
            }
            EngineEvent::MetamorphicChecked { at, metamorphic } => {
                if let Some(check) = metamorphic.checks.iter().find(|c| c.broken) {
                    let (transform, relation) = (check.transform.label(), check.relation.label());
                    let text = format!("the answer breaks an invariant: {transform} gives {relation}");
                    self.push_feed(Some(&at.question_id), FeedKind::Bad, text);
                }
                if let Some(q) = self.question_mut(&at.question_id) {
                    q.attempt_mut(&at).metamorphic = Some(metamorphic);
                }
            }
            EngineEvent::EngineDivergence { at, divergence } => {
                let (primary, other, kind) = (divergence.primary.engine, divergence.other.engine, divergence.kind);
                let text = format!("{primary} and {other} differ ({})", kind.name());
                self.push_feed(Some(&at.question_id), FeedKind::Bad, text);
                if let Some(q) = self.question_mut(&at.question_id) {
                    q.attempt_mut(&at.attempt_at()).divergence = Some(divergence);
                }
            }
            // The other families' events are folded by their own methods.
            _ => {}
        }
    }

    /// The critic's verdict on an iteration.
    pub(super) fn critic_verdict(&mut self, at: IterationAt, feedback: CriticFeedback) {
        let (question_id, iteration) = (at.question_id.clone(), at.iteration);
        let place = at.attempt_at();
        let by_hand = self.question(&question_id).and_then(|q| q.attempt_at(&place)).is_some_and(|a| a.by_hand);
        let (kind, text) = if by_hand {
            let findings = plural(feedback.findings.len(), "finding");
            (FeedKind::Control, format!("hand-written DAG checked: {findings}"))
        } else if feedback.is_approved {
            (FeedKind::Good, format!("iteration {iteration} approved"))
        } else {
            let first = feedback
                .findings
                .first()
                .map(|f| f.message.as_str())
                .unwrap_or(&feedback.overall_reasoning)
                .lines()
                .next()
                .unwrap_or_default();
            (
                FeedKind::Bad,
                format!("iteration {iteration} rejected ({}): {first}", plural(feedback.findings.len(), "finding")),
            )
        };
        self.push_feed(Some(&question_id), kind, text);
        if let Some(q) = self.question_mut(&question_id) {
            if !q.attempt_mut(&place).by_hand {
                q.status = if feedback.is_approved { QuestionStatus::Approved } else { QuestionStatus::Rejected };
            }
            let it = q.attempt_mut(&place).iteration_mut(iteration);
            // A note written while the critic was still at work stays.
            let notes = it.feedback.take().map(|f| f.findings.into_iter().filter(|f| f.source == FindingSource::Human));
            let mut feedback = feedback;
            feedback.findings.extend(notes.into_iter().flatten());
            it.feedback = Some(feedback);
        }
    }

    /// A command the engine carried out, `t_ms` into the run.
    pub(super) fn apply_control(&mut self, action: Command, t_ms: u64) {
        let (question, text) = match action {
            Command::Pause => {
                self.paused = true;
                (None, "paused".to_string())
            }
            Command::Resume => {
                self.paused = false;
                (None, "resumed".to_string())
            }
            Command::Step { question_id } => (question_id, "step".to_string()),
            Command::Rerun { question_id, epoch, draft } => {
                let place = crate::domain::epoch_draft_prefix(epoch, draft);
                (Some(question_id), format!("{place}rerun from scratch"))
            }
            Command::Fork { from } => {
                let text = format!("fork from {}", from.label());
                (Some(from.question_id), text)
            }
            Command::TryDag { from, .. } => {
                let text = format!("edited by hand from {}", from.label());
                (Some(from.question_id), text)
            }
            Command::Accept { at } => {
                let text = format!("accepted by hand: {}", at.label());
                (Some(at.question_id), text)
            }
            Command::Note { at, node_id, text } => {
                let first = text.lines().next().unwrap_or_default();
                let line = format!("note on {}: {first}", at.label());
                if let Some(q) = self.question_mut(&at.question_id) {
                    q.add_note(&at, node_id, text);
                }
                (Some(at.question_id), line)
            }
            Command::Label { at, right, reason } => {
                let verdict = if right { "right" } else { "wrong" };
                let text = format!("labelled {verdict}: {} — {reason}", at.label());
                if let Some(q) = self.question_mut(&at.question_id) {
                    let label = AnswerLabel { right, reason, t_ms };
                    q.attempt_mut(&at.attempt_at()).iteration_mut(at.iteration).labels.push(label);
                }
                (Some(at.question_id), text)
            }
            Command::RunNode { at, node_id, code } => {
                let how = if code.is_some() { "as edited" } else { "as recorded" };
                let text = format!("run node {node_id} of {} {how}", at.label());
                (Some(at.question_id), text)
            }
            Command::CancelQuestion { question_id } => (Some(question_id), "cancel".to_string()),
            Command::CancelBatches => (None, "batches cancelled".to_string()),
            Command::CancelRun => (None, "run cancelled".to_string()),
        };
        self.push_feed(question.as_ref(), FeedKind::Control, text);
    }
}
