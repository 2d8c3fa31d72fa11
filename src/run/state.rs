//! The one reducer: [`RunState::apply`] folds engine events into the state that
//! every screen, the results file and the report are drawn from. Live runs and
//! replays feed it the same way.
//!
//! Questions and LLM calls sit behind `Arc`s and are copied only when changed,
//! so cloning a state (the replay keeps snapshots for scrubbing) shares
//! everything that did not change since.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

use super::events::{Command, EngineEvent, Outcome, RunSettings, RunSummary};
use crate::domain::{AttemptAt, FindingSource, TokenUsage};

use super::llm_call::{LlmCall, PromptHeads};
use super::question_state::{AnswerLabel, Attempt, NodeRun, QuestionState, QuestionStatus, StageRecord};
use crate::text::plural;

/// How many feed entries are kept.
const FEED_CAPACITY: usize = 500;

/// Tone of a feed line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedKind {
    /// Progress.
    Info,
    /// Something went well.
    Good,
    /// A rejection or failure.
    Bad,
    /// A user action.
    Control,
}

/// One line of the activity feed.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedEntry {
    /// When (ms since run start).
    pub t_ms: u64,
    /// Question concerned.
    pub question_id: Option<String>,
    /// Tone.
    pub kind: FeedKind,
    /// Text.
    pub text: String,
}

/// The questions of a run in rank order, each shared between clones of the
/// state until it changes.
#[derive(Debug, Clone, Default)]
pub struct Questions(Vec<Arc<QuestionState>>);

impl Questions {
    /// Number of questions.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every question in rank order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &QuestionState> + DoubleEndedIterator {
        self.0.iter().map(|q| &**q)
    }

    fn get_mut(&mut self, index: usize) -> &mut QuestionState {
        Arc::make_mut(&mut self.0[index])
    }
}

impl std::ops::Index<usize> for Questions {
    type Output = QuestionState;

    fn index(&self, index: usize) -> &QuestionState {
        &self.0[index]
    }
}

impl<'a> IntoIterator for &'a Questions {
    type Item = &'a QuestionState;
    type IntoIter = std::iter::Map<std::slice::Iter<'a, Arc<QuestionState>>, fn(&Arc<QuestionState>) -> &QuestionState>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|q| &**q)
    }
}

/// Everything known about a run.
#[derive(Debug, Clone, Default)]
pub struct RunState {
    /// Settings, once the run started.
    pub settings: Option<RunSettings>,
    /// Questions in rank order.
    pub questions: Questions,
    index: Arc<HashMap<String, usize>>,
    prompt_heads: PromptHeads,
    /// All LLM calls by id.
    pub calls: BTreeMap<u64, Arc<LlmCall>>,
    /// Recent activity, oldest first.
    pub feed: VecDeque<FeedEntry>,
    /// Feed entries ever pushed (the feed itself keeps only the latest).
    pub feed_total: u64,
    /// Whether the engine is paused.
    pub paused: bool,
    /// Tokens over all calls.
    pub usage: TokenUsage,
    /// Cost over all calls, USD.
    pub cost_usd: f64,
    /// Calls finished (failed ones included).
    pub calls_finished: usize,
    /// Of those, calls the response cache served.
    pub cache_hits: usize,
    /// Whether some token counts were computed locally because a server sent none.
    pub tokens_estimated: bool,
    /// Time of the latest event (ms since run start).
    pub now_ms: u64,
    /// Summary, once the run finished.
    pub summary: Option<RunSummary>,
    /// Run-wide failure, if any.
    pub failure: Option<String>,
    /// Events applied so far.
    pub events_applied: usize,
}

impl RunState {
    /// The question with id `id`.
    pub fn question(&self, id: &str) -> Option<&QuestionState> {
        self.index.get(id).map(|&i| &self.questions[i])
    }

    fn question_mut(&mut self, id: &str) -> Option<&mut QuestionState> {
        self.index.get(id).map(|&i| self.questions.get_mut(i))
    }

    /// The run's summary after `elapsed_ms`.
    pub fn summary(&self, elapsed_ms: u64) -> RunSummary {
        let outcome = |wanted: Outcome| self.count(|s| s == QuestionStatus::Done(wanted));
        RunSummary {
            total: self.questions.len(),
            passed: outcome(Outcome::Passed),
            failed: outcome(Outcome::Failed),
            exhausted: outcome(Outcome::Exhausted),
            cancelled: outcome(Outcome::Cancelled),
            fixed_by_hand: outcome(Outcome::FixedByHand),
            budget: outcome(Outcome::Budget),
            usage: self.usage,
            cost_usd: self.cost_usd,
            elapsed_ms,
        }
    }

    /// Number of questions with `status` matching `pred`.
    pub fn count(&self, pred: impl Fn(QuestionStatus) -> bool) -> usize {
        self.questions.iter().filter(|q| pred(q.status)).count()
    }

    fn push_feed(&mut self, question_id: Option<&str>, kind: FeedKind, text: String) {
        if self.feed.len() == FEED_CAPACITY {
            self.feed.pop_front();
        }
        self.feed_total += 1;
        self.feed.push_back(FeedEntry { t_ms: self.now_ms, question_id: question_id.map(str::to_string), kind, text });
    }

    /// Fold one event, which happened `t_ms` after the run started.
    pub fn apply(&mut self, t_ms: u64, event: &EngineEvent) {
        self.apply_owned(t_ms, event.clone());
    }

    /// [`Self::apply`] for an event the caller no longer needs: its prompts,
    /// responses, DAGs and results move into the state instead of being copied.
    pub fn apply_owned(&mut self, t_ms: u64, event: EngineEvent) {
        self.now_ms = self.now_ms.max(t_ms);
        self.events_applied += 1;
        match event {
            EngineEvent::RunStarted { settings } => {
                // A continued run starts again: it is not finished until it says so.
                self.summary = None;
                self.paused = settings.step;
                let text =
                    format!("run started: {} via {} ({})", settings.dataset_dir, settings.provider, settings.model);
                self.settings = Some(settings);
                self.push_feed(None, FeedKind::Info, text);
            }
            EngineEvent::QuestionsGenerated { questions } => {
                let count = questions.len();
                for question in questions {
                    if self.index.contains_key(&question.id) {
                        continue;
                    }
                    Arc::make_mut(&mut self.index).insert(question.id.clone(), self.questions.len());
                    self.questions.0.push(Arc::new(QuestionState::queued(question)));
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
            EngineEvent::LlmCallStarted { call_id, key, provider, model, messages } => {
                if let Some(id) = &key.question_id
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
                self.calls.insert(call_id, Arc::new(LlmCall::sent(call_id, key, provider, model, messages)));
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
                    self.push_feed(question_id.as_deref(), FeedKind::Info, text);
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
                estimated,
            } => {
                self.usage += usage;
                self.cost_usd += cost_usd;
                self.calls_finished += 1;
                self.cache_hits += usize::from(from_cache);
                self.tokens_estimated |= estimated;
                if let Some(id) = &key.question_id
                    && let Some(q) = self.question_mut(id)
                {
                    q.usage += usage;
                    q.cost_usd += cost_usd;
                }
                if let Some(error) = &error {
                    let text = format!("{} call failed: {error}", key.role.label());
                    self.push_feed(key.question_id.as_deref(), FeedKind::Bad, text);
                }
                // A finish without its start (a trace cut at the front) still counts.
                let call = self.calls.entry(call_id).or_insert_with(|| {
                    Arc::new(LlmCall::sent(call_id, key, String::new(), String::new(), Arc::default()))
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
            }
            EngineEvent::DagBuilt { at, dag } => {
                if let Some(q) = self.question_mut(&at.question_id) {
                    q.attempt_mut(&at.attempt_at()).iteration_mut(at.iteration).dag = Some(dag);
                }
            }
            EngineEvent::CriticVerdict { at, feedback } => {
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
                        format!(
                            "iteration {iteration} rejected ({}): {first}",
                            plural(feedback.findings.len(), "finding")
                        ),
                    )
                };
                self.push_feed(Some(&question_id), kind, text);
                if let Some(q) = self.question_mut(&question_id) {
                    if !q.attempt_mut(&place).by_hand {
                        q.status =
                            if feedback.is_approved { QuestionStatus::Approved } else { QuestionStatus::Rejected };
                    }
                    let it = q.attempt_mut(&place).iteration_mut(iteration);
                    // A note written while the critic was still at work stays.
                    let notes =
                        it.feedback.take().map(|f| f.findings.into_iter().filter(|f| f.source == FindingSource::Human));
                    let mut feedback = feedback;
                    feedback.findings.extend(notes.into_iter().flatten());
                    it.feedback = Some(feedback);
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
                    let several = q.attempts.iter().any(|a| (a.epoch, a.draft) != (1, 1));
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
                    q.consensus.insert(epoch, consensus);
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
            EngineEvent::Control(action) => {
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
                    Command::CancelRun => (None, "run cancelled".to_string()),
                };
                self.push_feed(question.as_deref(), FeedKind::Control, text);
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
            EngineEvent::RunFinished { summary } => {
                self.paused = false;
                let text = format!("run finished: {}/{} passed", summary.passed, summary.total);
                self.summary = Some(summary);
                self.push_feed(None, FeedKind::Info, text);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn event(value: Value) -> EngineEvent {
        serde_json::from_value(value).unwrap()
    }

    fn generated(ids: &[&str]) -> EngineEvent {
        let questions: Vec<Value> = ids
            .iter()
            .map(|id| json!({"id": id, "question": "?", "difficulty_rank": 1, "difficulty_level": "easy"}))
            .collect();
        event(json!({"type": "questions_generated", "questions": questions}))
    }

    #[test]
    fn a_clone_shares_what_did_not_change_and_never_sees_later_changes() {
        let mut state = RunState::default();
        state.apply(0, &generated(&["q1", "q2"]));
        let key = json!({"question_id": "q1", "role": "dag_build", "attempt": 1, "iteration": 1, "layer": null});
        state.apply(
            1,
            &event(json!({"type": "llm_call_started", "call_id": 7, "key": key, "provider": "openai", "model": "m", "messages": []})),
        );
        let snapshot = state.clone();
        state.apply(2, &event(json!({"type": "question_started", "at": {"question_id": "q1", "attempt": 1}})));
        state.apply(3, &EngineEvent::LlmTextDelta { call_id: 7, text: "partial".into() });
        assert!(Arc::ptr_eq(&state.questions.0[1], &snapshot.questions.0[1]), "q2 did not change: shared");
        assert!(!Arc::ptr_eq(&state.questions.0[0], &snapshot.questions.0[0]), "q1 changed: copied");
        assert_eq!(snapshot.question("q1").unwrap().started_ms, None, "the snapshot keeps the old q1");
        assert_eq!(state.question("q1").unwrap().started_ms, Some(2));
        assert_eq!((snapshot.calls[&7].response.as_str(), state.calls[&7].response.as_str()), ("", "partial"));
    }

    #[test]
    fn a_retried_call_drops_the_failed_attempts_text_and_says_why() {
        let mut state = RunState::default();
        state.apply(0, &generated(&["q1"]));
        let key = json!({"question_id": "q1", "role": "dag_build", "attempt": 1, "iteration": 1, "layer": null});
        state.apply(
            1,
            &event(json!({"type": "llm_call_started", "call_id": 7, "key": key, "provider": "openai", "model": "m", "messages": []})),
        );
        state.apply(2, &EngineEvent::LlmTextDelta { call_id: 7, text: "{\"nodes\": [cut".into() });
        let retry = EngineEvent::LlmCallRetrying { call_id: 7, retry: 1, error: "HTTP 429".into(), wait_ms: 1500 };
        state.apply(3, &retry);
        state.apply(4, &EngineEvent::LlmTextDelta { call_id: 7, text: "{\"nodes\"".into() });
        assert_eq!((state.calls[&7].response.as_str(), state.calls[&7].retries), ("{\"nodes\"", 1));
        let last = state.feed.back().unwrap();
        assert_eq!(
            (last.question_id.as_deref(), last.text.as_str()),
            (Some("q1"), "build call retry 1 in 1.5 s: HTTP 429")
        );
    }

    #[test]
    fn verdicts_count_findings_in_words() {
        let mut state = RunState::default();
        state.apply(0, &generated(&["q1"]));
        let finding = json!({"node_id": null, "layer": null, "rule": "r", "source": "structural", "message": "bad"});
        for (iteration, findings) in [(1, json!([finding])), (2, json!([finding, finding]))] {
            let feedback = json!({"is_approved": false, "findings": findings});
            let at = json!({"question_id": "q1", "attempt": 1, "iteration": iteration});
            let verdict = json!({"type": "critic_verdict", "at": at, "feedback": feedback});
            state.apply(1, &event(verdict));
        }
        let texts: Vec<&str> = state.feed.iter().skip(1).map(|e| e.text.as_str()).collect();
        assert_eq!(texts, ["iteration 1 rejected (1 finding): bad", "iteration 2 rejected (2 findings): bad"]);
    }
}
