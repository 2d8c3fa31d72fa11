//! The one reducer: [`RunState::apply`] folds engine events into the state that
//! every screen, the results file and the report are drawn from. Live runs and
//! replays feed it the same way.
//!
//! Questions and LLM calls sit behind `Arc`s and are copied only when changed,
//! so cloning a state (the replay keeps snapshots for scrubbing) shares
//! everything that did not change since.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

use super::events::{EngineEvent, Outcome, RunSummary};
use super::settings::RunSettings;
use crate::domain::{BatchId, BatchStatus, LlmRole, Provider, QuestionId, TokenUsage};

use super::llm_call::{LlmCall, PromptHeads};
use super::question_state::{QuestionState, QuestionStatus};

/// How many feed entries are kept.
const FEED_CAPACITY: usize = 500;

mod batches;
mod reduce;
mod timeline;

pub use timeline::{TimeBucket, Timeline};

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
    pub question_id: Option<QuestionId>,
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

/// How many questions are in each status, kept as events change them, so
/// counting by status costs the same for 10 questions as for 10,000.
#[derive(Debug, Clone, Default)]
struct StatusTally(Vec<(QuestionStatus, usize)>);

impl StatusTally {
    /// `n` more questions in `status`.
    fn add(&mut self, status: QuestionStatus, n: usize) {
        match self.0.iter_mut().find(|(held, _)| *held == status) {
            Some((_, count)) => *count += n,
            None => self.0.push((status, n)),
        }
    }

    /// A question moved from `from` to `to`.
    fn moved(&mut self, from: QuestionStatus, to: QuestionStatus) {
        if let Some((_, count)) = self.0.iter_mut().find(|(held, _)| *held == from) {
            *count = count.saturating_sub(1);
        }
        self.0.retain(|(_, count)| *count > 0);
        self.add(to, 1);
    }
}

/// Everything known about a run.
#[derive(Debug, Clone, Default)]
pub struct RunState {
    /// Settings, once the run started.
    pub settings: Option<RunSettings>,
    /// Questions in rank order.
    pub questions: Questions,
    index: Arc<HashMap<QuestionId, usize>>,
    /// Characters of the longest question id.
    longest_id: usize,
    /// Questions per status.
    statuses: StatusTally,
    prompt_heads: PromptHeads,
    /// All LLM calls by id.
    pub calls: BTreeMap<u64, Arc<LlmCall>>,
    /// The latest call started with each key (a batch names its calls by key).
    open_calls: HashMap<crate::domain::CallKey, u64>,
    /// The provider batches the run's calls went out in (`run --batch`), in submission order.
    pub batches: indexmap::IndexMap<crate::domain::BatchId, BatchState>,
    /// Of those, how many have not ended.
    batches_open: usize,
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
    /// What the calls the cache served would have cost at list price, USD.
    pub cache_list_cost_usd: f64,
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
    /// The run over time: questions finished, tokens, cost and calls in flight per stretch.
    pub timeline: Timeline,
}

impl RunState {
    /// The question with id `id`.
    pub fn question(&self, id: &str) -> Option<&QuestionState> {
        self.index.get(id).map(|&i| &self.questions[i])
    }

    /// Characters of the longest question id (0 before any question), kept
    /// as questions arrive: an id column's width without a pass over them.
    pub fn longest_id(&self) -> usize {
        self.longest_id
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

    /// Number of questions with `status` matching `pred` (from the tally the
    /// reducer keeps: no pass over the questions).
    pub fn count(&self, pred: impl Fn(QuestionStatus) -> bool) -> usize {
        self.statuses.0.iter().filter(|(status, _)| pred(*status)).map(|(_, count)| count).sum()
    }

    fn push_feed(&mut self, question_id: Option<&QuestionId>, kind: FeedKind, text: String) {
        if self.feed.len() == FEED_CAPACITY {
            self.feed.pop_front();
        }
        self.feed_total += 1;
        self.feed.push_back(FeedEntry { t_ms: self.now_ms, question_id: question_id.cloned(), kind, text });
    }

    /// Time went on to `t_ms` without an event (a live run waiting on a model
    /// or a batch): what is shown as elapsed follows. Never moves it back.
    pub fn advance_clock(&mut self, t_ms: u64) {
        self.now_ms = self.now_ms.max(t_ms);
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
        let question = event.question_id().and_then(|id| self.index.get(id).copied());
        let before = question.map(|index| self.questions[index].status);
        self.time_call(&event);
        match event {
            EngineEvent::RunStarted { .. }
            | EngineEvent::QuestionsGenerated { .. }
            | EngineEvent::RunFailed { .. }
            | EngineEvent::RunFinished { .. } => self.apply_run_event(event),
            EngineEvent::LlmCallStarted { .. }
            | EngineEvent::LlmTextDelta { .. }
            | EngineEvent::LlmCallRetrying { .. }
            | EngineEvent::LlmCallFinished { .. } => self.apply_call_event(event),
            EngineEvent::QuestionStarted { .. }
            | EngineEvent::StageStarted { .. }
            | EngineEvent::StageFinished { .. }
            | EngineEvent::DagBuilt { .. }
            | EngineEvent::Executed { .. }
            | EngineEvent::IterationGraded { .. }
            | EngineEvent::NodeRan { .. } => self.apply_iteration_event(event),
            EngineEvent::CriticVerdict { at, feedback } => self.critic_verdict(at, feedback),
            EngineEvent::QuestionFinished { .. }
            | EngineEvent::Graded { .. }
            | EngineEvent::ConsensusReached { .. }
            | EngineEvent::MetamorphicChecked { .. }
            | EngineEvent::EngineDivergence { .. } => self.apply_outcome_event(event),
            EngineEvent::BatchSubmitted { .. } | EngineEvent::BatchEnded { .. } => self.apply_batch_event(event),
            EngineEvent::Control(action) => self.apply_control(action, t_ms),
        }
        if let (Some(index), Some(before)) = (question, before) {
            let after = self.questions[index].status;
            if after != before {
                self.statuses.moved(before, after);
                self.time_question(before, after);
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
    fn what_speaks_for_a_question_follows_every_change_to_its_drafts_and_consensus() {
        let mut state = RunState::default();
        state.apply(0, &generated(&["q1"]));
        let finish = |draft: u32, answer: Value| finish_attempt(1, draft, answer);
        let spoken =
            |state: &RunState| state.question("q1").and_then(|q| q.latest()).map(|a| (a.draft, a.final_answer.clone()));
        state.apply(1, &finish(1, json!(1)));
        assert_eq!(spoken(&state), Some((1, Some(json!(1)))));
        state.apply(2, &finish(2, json!(2)));
        state.apply(3, &finish(3, json!(2)));
        assert_eq!(spoken(&state), Some((1, Some(json!(1)))), "draft 1 speaks until the consensus is recorded");
        let answer = |draft: u32, value: i64| json!({"draft": draft, "answer": value, "in_majority": value == 2});
        let consensus = json!({"answers": [answer(1, 1), answer(2, 2), answer(3, 2)], "agreement": 0.67});
        let reached = json!({"type": "consensus_reached", "question_id": "q1", "epoch": 1, "consensus": consensus});
        state.apply(4, &event(reached));
        assert_eq!(spoken(&state), Some((2, Some(json!(2)))), "the first draft of the majority");
        let snapshot = state.clone();
        let rerun =
            json!({"type": "question_started", "at": {"question_id": "q1", "attempt": 2, "epoch": 1, "draft": 2}});
        state.apply(5, &event(rerun));
        state.apply(6, &finish_attempt(2, 2, json!(7)));
        assert_eq!(spoken(&state), Some((2, Some(json!(7)))), "the rerun of the majority draft speaks");
        assert_eq!(spoken(&snapshot), Some((2, Some(json!(2)))), "a clone keeps what spoke then");
        assert_eq!(state.question("q1").and_then(|q| q.majority_epoch()).map(|(_, n)| n), Some(1));
    }

    fn finish_attempt(attempt: u32, draft: u32, answer: Value) -> EngineEvent {
        let at = json!({"question_id": "q1", "attempt": attempt, "epoch": 1, "draft": draft});
        event(
            json!({"type": "question_finished", "at": at, "outcome": "passed", "iterations": 1, "final_answer": answer}),
        )
    }

    #[test]
    fn counts_by_status_follow_every_event_without_a_pass_over_the_questions() {
        let mut state = RunState::default();
        let at = |id: &str, attempt: u32| json!({"question_id": id, "attempt": attempt});
        let it = |id: &str| json!({"question_id": id, "attempt": 1, "iteration": 1});
        let approved = json!({"is_approved": true, "findings": []});
        let events = [
            generated(&["q1", "q2", "q3"]),
            generated(&["q3", "q4"]),
            event(json!({"type": "question_started", "at": at("q1", 1)})),
            event(json!({"type": "stage_started", "at": it("q1"), "stage": "build"})),
            event(json!({"type": "stage_started", "at": it("q2"), "stage": "build"})),
            event(json!({"type": "critic_verdict", "at": it("q1"), "feedback": approved})),
            finish_attempt(1, 1, json!(3)),
            event(json!({"type": "question_started", "at": at("q1", 2)})),
        ];
        let statuses = |state: &RunState| {
            let mut seen: Vec<QuestionStatus> = state.questions.iter().map(|q| q.status).collect();
            seen.dedup();
            seen
        };
        for (t, event) in (0..).zip(&events) {
            state.apply(t, event);
            for status in statuses(&state) {
                let passed = state.questions.iter().filter(|q| q.status == status).count();
                assert_eq!(state.count(|s| s == status), passed, "{status:?} after event {t}");
            }
            assert_eq!(state.count(|_| true), state.questions.len());
        }
        assert_eq!(state.count(QuestionStatus::is_active), 1, "q2 building");
        assert_eq!(state.count(|s| s == QuestionStatus::Queued), 3, "q1 started again, q3 and q4");
    }

    #[test]
    fn the_longest_id_is_kept_as_questions_arrive() {
        let mut state = RunState::default();
        assert_eq!(state.longest_id(), 0);
        state.apply(0, &generated(&["q1", "task_1234"]));
        state.apply(1, &generated(&["ab", "é_accented"]));
        assert_eq!(state.longest_id(), 10, "characters, not bytes");
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

/// One batch as the run has seen it.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchState {
    /// The batch, as the provider named it.
    pub batch_id: BatchId,
    /// The provider that took it.
    pub provider: Provider,
    /// The role whose calls it holds.
    pub role: LlmRole,
    /// Its calls, by id (a listed key with no open call is left out).
    pub calls: Vec<u64>,
    /// When it was submitted (ms since the run started).
    pub submitted_ms: u64,
    /// Of its calls, those still waiting for a reply (kept as replies come).
    pub waiting: usize,
    /// How it ended, once it did.
    pub ended: Option<BatchEnd>,
}

/// How a batch ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BatchEnd {
    /// Completed, expired, cancelled or failed.
    pub status: BatchStatus,
    /// Calls that came back with a reply.
    pub succeeded: usize,
    /// Calls that came back with an error.
    pub failed: usize,
    /// When (ms since the run started).
    pub t_ms: u64,
}
