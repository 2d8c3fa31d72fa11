//! A run's recorded events folded into a tree of spans: the run, then per
//! question its attempts, their iterations, and in each iteration its stages
//! (build, check, trial run, review, execution) with the model calls inside
//! them. Times are milliseconds since the run started; ids come later.

use std::collections::HashMap;

use crate::domain::{AttemptAt, IterationAt};
use crate::domain::{CallKey, LlmRole, Provider, Question, QuestionId};
use crate::run::{Command, EngineEvent, Outcome, Stage};
use crate::trace::Trace;

use super::attributes::{Attributes, SpanKind, put_grades, stage_kind, stage_name};

/// Index of the run's root span.
const ROOT: usize = 0;

/// A timed event inside a span.
#[derive(Debug, Clone)]
pub struct SpanEvent {
    /// When, in ms since the run started.
    pub t_ms: u64,
    /// Its name.
    pub name: String,
    /// Its attributes.
    pub attributes: Attributes,
}

/// One span of the tree.
#[derive(Debug, Clone)]
pub struct Node {
    /// Identity within the run, stable across exports (the span id is derived from it).
    pub key: String,
    /// Display name.
    pub name: String,
    /// The parent's index (none for the root).
    pub parent: Option<usize>,
    /// Whether it is a call to another service (a model call).
    pub client: bool,
    /// Start, in ms since the run started.
    pub start_ms: u64,
    /// End, in ms since the run started, once known.
    pub end_ms: Option<u64>,
    /// Attributes.
    pub attributes: Attributes,
    /// Events inside it.
    pub events: Vec<SpanEvent>,
    /// Why it failed, if it did.
    pub error: Option<String>,
    /// Whether it is over and will not change as the run goes on: a stage or
    /// call that ended, an attempt that finished with its iterations (a
    /// question and the run close only with the trace).
    pub closed: bool,
    /// Whether its end is its children's (question, attempt, iteration, run)
    /// rather than an event of its own.
    aggregate: bool,
}

/// The spans of a run, parents before children.
#[derive(Debug)]
pub struct SpanTree {
    /// Every span; index 0 is the run.
    pub nodes: Vec<Node>,
    by_key: HashMap<String, usize>,
    open_stages: HashMap<(IterationAt, Stage), usize>,
    last_stages: HashMap<(IterationAt, Stage), usize>,
    open_calls: HashMap<u64, usize>,
    questions: HashMap<QuestionId, Question>,
    provider: Provider,
}

impl SpanTree {
    /// Fold every record of `trace`.
    pub fn build(trace: &Trace) -> Self {
        let settings = &trace.header.settings;
        let mut root = Attributes::default();
        root.kind(SpanKind::Chain)
            .text("eval_dag.dataset", settings.dataset_dir.to_string_lossy().into_owned())
            .text("eval_dag.provider", settings.provider.name())
            .text("eval_dag.model", settings.model.clone())
            .int("eval_dag.questions", settings.questions.into())
            .int("eval_dag.max_iterations", settings.max_iterations.into())
            .int("eval_dag.seed", settings.seed)
            .input_text(settings.dataset_dir.to_string_lossy().into_owned());
        if let Some(from) = &trace.header.derived_from {
            root.text("eval_dag.derived_from", from.path.clone());
        }
        let mut tree = Self {
            nodes: Vec::new(),
            by_key: HashMap::new(),
            open_stages: HashMap::new(),
            last_stages: HashMap::new(),
            open_calls: HashMap::new(),
            questions: HashMap::new(),
            provider: settings.provider.clone(),
        };
        tree.push("run".into(), "eval-dag run".into(), None, 0, root, true);
        let last_t = trace.records.last().map_or(0, |r| r.t_ms);
        for record in &trace.records {
            tree.fold(record.seq, record.t_ms, &record.event);
        }
        tree.finish(last_t);
        tree
    }

    fn push(
        &mut self,
        key: String,
        name: String,
        parent: Option<usize>,
        start_ms: u64,
        attributes: Attributes,
        aggregate: bool,
    ) -> usize {
        let index = self.nodes.len();
        self.by_key.insert(key.clone(), index);
        self.nodes.push(Node {
            key,
            name,
            parent,
            client: false,
            start_ms,
            end_ms: None,
            attributes,
            events: Vec::new(),
            error: None,
            closed: false,
            aggregate,
        });
        index
    }

    /// The span of question `id`, made at `t_ms` if new.
    fn question(&mut self, id: &str, t_ms: u64) -> usize {
        let key = format!("question/{id}");
        if let Some(&index) = self.by_key.get(&key) {
            return index;
        }
        let mut attributes = Attributes::default();
        attributes.kind(SpanKind::Chain).text("eval_dag.question.id", id);
        if let Some(q) = self.questions.get(id) {
            attributes
                .text("eval_dag.question.text", q.question.clone())
                .text("eval_dag.question.difficulty", q.difficulty_level.as_str())
                .int("eval_dag.question.difficulty_rank", q.difficulty_rank as u64)
                .input_text(q.question.clone());
            if let Some(expected) = &q.expected_answer {
                attributes.json("eval_dag.question.expected_answer", expected);
            }
        }
        self.push(key, format!("question {id}"), Some(ROOT), t_ms, attributes, true)
    }

    /// The span of attempt `at`.
    fn attempt(&mut self, at: &AttemptAt, t_ms: u64) -> usize {
        let (id, attempt) = (at.question_id.as_str(), at.attempt);
        let key = format!("attempt/{id}/{attempt}{}", place_suffix(at.epoch, at.draft));
        if let Some(&index) = self.by_key.get(&key) {
            return index;
        }
        let parent = self.question(id, t_ms);
        let mut attributes = Attributes::default();
        attributes.kind(SpanKind::Chain).text("eval_dag.question.id", id).int("eval_dag.attempt", attempt.into());
        if (at.epoch, at.draft) != (1, 1) {
            attributes.int("eval_dag.epoch", at.epoch.into()).int("eval_dag.draft", at.draft.into());
        }
        self.push(key, at.label(), Some(parent), t_ms, attributes, true)
    }

    /// The span of iteration `at`.
    fn iteration(&mut self, at: &IterationAt, t_ms: u64) -> usize {
        let suffix = place_suffix(at.epoch, at.draft);
        let key = format!("iteration/{}/{}/{}{suffix}", at.question_id, at.attempt, at.iteration);
        if let Some(&index) = self.by_key.get(&key) {
            return index;
        }
        let parent = self.attempt(&at.attempt_at(), t_ms);
        let mut attributes = Attributes::default();
        attributes
            .kind(SpanKind::Chain)
            .text("eval_dag.question.id", at.question_id.clone())
            .int("eval_dag.attempt", at.attempt.into())
            .int("eval_dag.iteration", at.iteration.into());
        self.push(key, format!("iteration {}", at.iteration), Some(parent), t_ms, attributes, true)
    }

    /// Where a model call belongs: in the stage it serves when that stage is
    /// open, else in its iteration, attempt or the run.
    fn call_parent(&mut self, key: &CallKey, t_ms: u64) -> usize {
        let Some(id) = &key.question_id else {
            return ROOT;
        };
        // A baseline is asked of the question, beside its attempts.
        if key.baseline.is_some() {
            return self.question(id, t_ms);
        }
        let at = AttemptAt::new(id.as_str(), key.attempt).in_epoch(key.epoch, key.draft).iteration(key.iteration);
        let stage = match key.role {
            LlmRole::DagBuild => Some(Stage::Build),
            LlmRole::LayerReview => Some(Stage::SemanticReview),
            _ => None,
        };
        if let Some(&open) = stage.and_then(|stage| self.open_stages.get(&(at.clone(), stage))) {
            return open;
        }
        match key.role {
            // A judge of the attempt's answer numbers itself where the iteration would be.
            LlmRole::Judge if key.judge.is_none() => self.attempt(&at.attempt_at(), t_ms),
            LlmRole::QuestionGeneration => ROOT,
            _ => self.iteration(&at, t_ms),
        }
    }

    /// Fold one record: the run, its questions' starts and stages here; a
    /// model call, an iteration's results and an attempt's end in the method of
    /// their family.
    fn fold(&mut self, seq: u64, t: u64, event: &EngineEvent) {
        match event {
            EngineEvent::QuestionsGenerated { questions } => {
                self.questions = questions.iter().map(|q| (q.id.clone(), q.clone())).collect();
            }
            EngineEvent::RunFailed { error } => self.nodes[ROOT].error = Some(error.clone()),
            EngineEvent::QuestionStarted { at, forked_from, by_hand } => {
                let index = self.attempt(at, t);
                let attributes = &mut self.nodes[index].attributes;
                attributes.flag("eval_dag.by_hand", *by_hand);
                if let Some(from) = forked_from {
                    attributes.text("eval_dag.forked_from", from.label());
                }
            }
            EngineEvent::StageStarted { at, stage } => {
                let parent = self.iteration(at, t);
                self.close_ended_children(parent);
                let mut attributes = Attributes::default();
                attributes.kind(stage_kind(*stage)).text("eval_dag.stage", stage_name(*stage));
                let index = self.push(format!("stage/{seq}"), stage.label().into(), Some(parent), t, attributes, false);
                self.open_stages.insert((at.clone(), *stage), index);
                self.last_stages.insert((at.clone(), *stage), index);
            }
            EngineEvent::StageFinished { at, stage, ok, duration_ms } => {
                if let Some(index) = self.open_stages.remove(&(at.clone(), *stage)) {
                    let node = &mut self.nodes[index];
                    node.end_ms = Some(t);
                    node.attributes.flag("eval_dag.stage.ok", *ok).int("eval_dag.duration_ms", *duration_ms);
                }
            }
            EngineEvent::Control(command) => self.control(t, command),
            EngineEvent::RunFinished { summary } => {
                let root = &mut self.nodes[ROOT];
                root.end_ms = Some(t);
                let summary_json = serde_json::to_value(summary).unwrap_or_default();
                root.attributes
                    .int("eval_dag.passed", summary.passed as u64)
                    .int("eval_dag.failed", summary.failed as u64)
                    .int("eval_dag.exhausted", summary.exhausted as u64)
                    .int("llm.token_count.total", summary.usage.total())
                    .float("eval_dag.cost_usd", summary.cost_usd)
                    .output_json(&summary_json);
            }
            // A batch is a provider's transport: each call's span names its batch.
            EngineEvent::RunStarted { .. }
            | EngineEvent::LlmTextDelta { .. }
            | EngineEvent::BatchSubmitted { .. }
            | EngineEvent::BatchEnded { .. } => {}
            EngineEvent::LlmCallStarted { .. }
            | EngineEvent::LlmCallRetrying { .. }
            | EngineEvent::LlmCallFinished { .. } => self.fold_call(seq, t, event),
            EngineEvent::DagBuilt { .. }
            | EngineEvent::NodeRan { .. }
            | EngineEvent::CriticVerdict { .. }
            | EngineEvent::Executed { .. }
            | EngineEvent::IterationGraded { .. } => self.fold_iteration(seq, t, event),
            EngineEvent::QuestionFinished { .. }
            | EngineEvent::Graded { .. }
            | EngineEvent::ConsensusReached { .. }
            | EngineEvent::MetamorphicChecked { .. }
            | EngineEvent::EngineDivergence { .. } => self.fold_outcome(t, event),
        }
    }

    /// A model call: its span opened, its retries, its end.
    fn fold_call(&mut self, seq: u64, t: u64, event: &EngineEvent) {
        match event {
            EngineEvent::LlmCallStarted { call_id, key, provider, model, messages } => {
                let parent = self.call_parent(key, t);
                // The provider that served the call (a model per role); the run's before trace version 5.
                let provider = if provider.name().is_empty() { &self.provider } else { provider };
                let mut attributes = Attributes::default();
                attributes.llm_request(provider, model, messages).text("eval_dag.llm.role", key.role.label());
                if let Some(id) = &key.question_id {
                    attributes.text("eval_dag.question.id", id.clone());
                }
                if let Some(layer) = key.layer {
                    attributes.int("eval_dag.llm.layer", layer as u64);
                }
                if let Some(baseline) = key.baseline {
                    attributes.text("eval_dag.baseline", crate::domain::Baseline::from(baseline).name().to_string());
                }
                let index =
                    self.push(format!("llm/{seq}"), format!("chat {model}"), Some(parent), t, attributes, false);
                self.nodes[index].client = true;
                self.open_calls.insert(*call_id, index);
            }
            EngineEvent::LlmCallRetrying { call_id, retry, error, wait_ms } => {
                if let Some(&index) = self.open_calls.get(call_id) {
                    let mut attributes = Attributes::default();
                    attributes.int("eval_dag.retry", (*retry).into()).text("eval_dag.error", error.clone());
                    attributes.int("eval_dag.wait_ms", *wait_ms);
                    self.nodes[index].events.push(SpanEvent { t_ms: t, name: "retry".into(), attributes });
                }
            }
            EngineEvent::LlmCallFinished {
                call_id,
                response,
                usage,
                latency_ms,
                error,
                retries,
                cost_usd,
                batch_id,
                ..
            } => {
                if let Some(index) = self.open_calls.remove(call_id) {
                    let node = &mut self.nodes[index];
                    node.end_ms = Some(t);
                    node.closed = true;
                    node.attributes
                        .llm_response(response.as_deref(), *usage, *cost_usd)
                        .int("eval_dag.latency_ms", *latency_ms)
                        .int("eval_dag.retries", (*retries).into());
                    if let Some(batch) = batch_id {
                        node.attributes.text("eval_dag.batch_id", batch.0.clone());
                    }
                    node.error.clone_from(error);
                }
            }
            _ => {}
        }
    }

    /// What an iteration gave: its DAG, nodes run on their own, the verdict, runs and grades.
    fn fold_iteration(&mut self, seq: u64, t: u64, event: &EngineEvent) {
        match event {
            EngineEvent::DagBuilt { at, dag } => {
                let index = self.last_stage(at, Stage::Build, t);
                let dag = serde_json::to_value(dag).unwrap_or_default();
                self.nodes[index].attributes.output_json(&dag);
            }
            EngineEvent::NodeRan { at, node_id, result, .. } => {
                let parent = self.iteration(at, t);
                let mut attributes = Attributes::default();
                attributes.kind(SpanKind::Tool).text("eval_dag.node", node_id.clone());
                attributes.flag("eval_dag.success", result.success);
                let key = format!("node/{seq}");
                let index = self.push(key, format!("node {node_id}"), Some(parent), t, attributes, false);
                self.nodes[index].end_ms = Some(t);
                self.nodes[index].closed = true;
                self.nodes[index].error.clone_from(&result.error);
            }
            EngineEvent::CriticVerdict { at, feedback } => {
                let index = self.iteration(at, t);
                self.close_ended_children(index);
                let findings = serde_json::to_value(&feedback.findings).unwrap_or_default();
                let verdict = if feedback.is_approved { "approved" } else { "rejected" };
                self.nodes[index]
                    .attributes
                    .text("eval_dag.verdict", verdict)
                    .text("eval_dag.verdict.reasoning", feedback.overall_reasoning.clone())
                    .int("eval_dag.findings.count", feedback.findings.len() as u64)
                    .json("eval_dag.findings", &findings);
            }
            EngineEvent::Executed { at, trial, result } => {
                let stage = if *trial { Stage::TrialRun } else { Stage::Execute };
                let index = self.last_stage(at, stage, t);
                let node = &mut self.nodes[index];
                node.attributes.flag("eval_dag.success", result.success);
                node.attributes.float("eval_dag.execution_ms", result.execution_time_ms);
                match (&result.final_answer, &result.error) {
                    (_, Some(error)) => {
                        node.attributes.text("eval_dag.error", error.clone());
                    }
                    (Some(answer), None) => {
                        node.attributes.output_json(answer);
                    }
                    (None, None) => {}
                }
            }
            EngineEvent::IterationGraded { at, grades, narrative } => {
                let index = self.iteration(at, t);
                put_grades(&mut self.nodes[index].attributes, grades, narrative.as_deref());
            }
            _ => {}
        }
    }

    /// How an attempt ended: its outcome, grades, consensus and metamorphic checks.
    fn fold_outcome(&mut self, t: u64, event: &EngineEvent) {
        match event {
            EngineEvent::QuestionFinished { at, outcome, iterations, final_answer, reason } => {
                let index = self.attempt(at, t);
                self.close_under(index);
                let node = &mut self.nodes[index];
                node.end_ms = Some(t);
                node.attributes
                    .text("eval_dag.outcome", outcome.label())
                    .int("eval_dag.iterations", (*iterations).into());
                if let Some(answer) = final_answer {
                    node.attributes.json("eval_dag.answer", answer).output_json(answer);
                }
                if let Some(reason) = reason {
                    node.attributes.text("eval_dag.reason", reason.clone());
                }
                // A failure of the machinery (the final execution, a model call)
                // is an error; an exhausted budget is a result like a pass.
                if *outcome == Outcome::Failed {
                    node.error = Some(reason.clone().unwrap_or_else(|| outcome.label().to_string()));
                }
                let question = self.question(&at.question_id, t);
                let attributes = &mut self.nodes[question].attributes;
                attributes.text("eval_dag.outcome", outcome.label());
                if let Some(answer) = final_answer {
                    attributes.json("eval_dag.answer", answer).output_json(answer);
                }
            }
            EngineEvent::Graded { at, grades, narrative } => {
                let index = self.attempt(at, t);
                put_grades(&mut self.nodes[index].attributes, grades, narrative.as_deref());
                let question = self.question(&at.question_id, t);
                put_grades(&mut self.nodes[question].attributes, grades, narrative.as_deref());
            }
            EngineEvent::ConsensusReached { question_id, consensus, .. } => {
                let index = self.question(question_id, t);
                self.nodes[index]
                    .attributes
                    .text("eval_dag.consensus.agreement", format!("{:.2}", consensus.agreement));
            }
            EngineEvent::MetamorphicChecked { at, metamorphic } => {
                let index = self.attempt(at, t);
                let broken = metamorphic.checks.iter().filter(|c| c.broken).count() as u64;
                self.nodes[index].attributes.int("eval_dag.metamorphic.broken", broken);
            }
            EngineEvent::EngineDivergence { at, divergence } => {
                let index = self.attempt(&at.attempt_at(), t);
                self.nodes[index].attributes.text("eval_dag.engine_divergence", divergence.kind.name().to_string());
            }
            _ => {}
        }
    }

    /// A command carried out: an event of the run's span.
    fn control(&mut self, t_ms: u64, command: &Command) {
        let mut attributes = Attributes::default();
        attributes.json("eval_dag.command", &serde_json::to_value(command).unwrap_or_default());
        self.nodes[ROOT].events.push(SpanEvent { t_ms, name: "command".into(), attributes });
    }

    /// Close the ended children of span `parent`: a stage's results (the DAG
    /// built, the run's answer) are recorded just after it ends, so it is
    /// over once its iteration moves on.
    fn close_ended_children(&mut self, parent: usize) {
        for node in self.nodes.iter_mut().skip(parent + 1) {
            if node.parent == Some(parent) && node.end_ms.is_some() {
                node.closed = true;
            }
        }
    }

    /// Close span `index` and everything under it that ended (an attempt that finished).
    fn close_under(&mut self, index: usize) {
        let mut inside = vec![false; self.nodes.len()];
        inside[index] = true;
        self.nodes[index].closed = true;
        for i in index + 1..self.nodes.len() {
            inside[i] = self.nodes[i].parent.is_some_and(|p| inside[p]);
            let node = &mut self.nodes[i];
            if inside[i] && (node.aggregate || node.end_ms.is_some()) {
                node.closed = true;
            }
        }
    }

    /// The latest span of `stage` in iteration `at` (the iteration's own when none).
    fn last_stage(&mut self, at: &IterationAt, stage: Stage, t_ms: u64) -> usize {
        match self.last_stages.get(&(at.clone(), stage)) {
            Some(&index) => index,
            None => self.iteration(at, t_ms),
        }
    }

    /// Close every span: one never finished ends at the last record and says
    /// so; a parent spans its children.
    fn finish(&mut self, last_t: u64) {
        for node in &mut self.nodes {
            if node.end_ms.is_none() {
                if node.aggregate {
                    node.end_ms = Some(node.start_ms);
                } else {
                    node.end_ms = Some(last_t);
                    node.attributes.flag("eval_dag.unfinished", true);
                }
            }
        }
        for index in (1..self.nodes.len()).rev() {
            let (start, end) = (self.nodes[index].start_ms, self.nodes[index].end_ms.unwrap_or(last_t));
            if let Some(parent) = self.nodes[index].parent {
                let parent = &mut self.nodes[parent];
                parent.start_ms = parent.start_ms.min(start);
                parent.end_ms = Some(parent.end_ms.unwrap_or(end).max(end));
            }
        }
    }
}

/// What a span's place key adds for an epoch or draft other than 1 (nothing
/// otherwise, so spans of a run without them keep their ids).
fn place_suffix(epoch: u32, draft: u32) -> String {
    if (epoch, draft) == (1, 1) { String::new() } else { format!("/e{epoch}d{draft}") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{AttemptAt, ExecutionResult};
    use crate::run::{Outcome, RunSettings};
    use crate::trace::{TraceHeader, TraceRecord};

    fn tree_of(events: Vec<EngineEvent>) -> SpanTree {
        let records = events
            .into_iter()
            .enumerate()
            .map(|(i, event)| TraceRecord { seq: i as u64, t_ms: i as u64, event })
            .collect::<Vec<_>>();
        let header = TraceHeader::new(RunSettings::default());
        SpanTree::build(&crate::trace::written_trace(&header, &records))
    }

    fn closed(tree: &SpanTree, name: &str) -> bool {
        tree.nodes.iter().find(|n| n.name == name).unwrap_or_else(|| panic!("no span {name}")).closed
    }

    #[test]
    fn a_stage_is_over_once_its_iteration_moves_on_and_an_attempt_when_it_finishes() {
        let at = AttemptAt::new("q_01", 1).iteration(1);
        let stage = |stage, started| match started {
            true => EngineEvent::StageStarted { at: at.clone(), stage },
            false => EngineEvent::StageFinished { at: at.clone(), stage, ok: true, duration_ms: 1 },
        };
        let trial = ExecutionResult { success: true, final_answer: Some(7.into()), ..Default::default() };
        let mut events = vec![
            EngineEvent::QuestionStarted { at: at.attempt_at(), forked_from: None, by_hand: false },
            stage(Stage::TrialRun, true),
            stage(Stage::TrialRun, false),
            EngineEvent::Executed { at: at.clone(), trial: true, result: trial },
        ];
        let tree = tree_of(events.clone());
        assert!(!closed(&tree, "trial run"), "its answer may still come");
        assert!(!closed(&tree, "iteration 1") && !closed(&tree, "attempt 1"));

        events.push(stage(Stage::SemanticReview, true));
        let tree = tree_of(events.clone());
        assert!(closed(&tree, "trial run"));
        let trial_run = tree.nodes.iter().find(|n| n.name == "trial run").unwrap();
        assert!(trial_run.attributes.0.iter().any(|kv| kv.key == "output.value"), "closed with its answer");
        assert!(!closed(&tree, "review"), "still running");

        events.push(stage(Stage::SemanticReview, false));
        events.push(EngineEvent::QuestionFinished {
            at: at.attempt_at(),
            outcome: Outcome::Exhausted,
            iterations: 1,
            final_answer: None,
            reason: None,
        });
        let tree = tree_of(events);
        for name in ["review", "iteration 1", "attempt 1"] {
            assert!(closed(&tree, name), "{name}");
        }
        assert!(!closed(&tree, "question q_01") && !closed(&tree, "eval-dag run"), "these close with the run");
        assert_eq!(tree.nodes.iter().find(|n| n.name == "attempt 1").unwrap().error, None, "exhausted is a result");
    }

    #[test]
    fn a_failed_attempt_is_an_error_span_with_its_reason() {
        let at = AttemptAt::new("q_01", 1);
        let tree = tree_of(vec![
            EngineEvent::QuestionStarted { at: at.clone(), forked_from: None, by_hand: false },
            EngineEvent::QuestionFinished {
                at,
                outcome: Outcome::Failed,
                iterations: 1,
                final_answer: None,
                reason: Some("the final execution failed".into()),
            },
        ]);
        let attempt = tree.nodes.iter().find(|n| n.name == "attempt 1").unwrap();
        assert_eq!(attempt.error.as_deref(), Some("the final execution failed"));
    }
}
