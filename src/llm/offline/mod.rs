//! The `offline` provider: a deterministic schema planner that needs no model.
//!
//! From the dataset's schema catalogue it writes a ranked set of questions —
//! easy, medium and hard, no two of one shape — from a library of templates
//! (`library.rs`: lookups, filters, counts, group-bys, label rates, date parts
//! and ranges, percentiles, correlations, streaks, top-k, differences between
//! groups and periods; on data without measures or dates, `pairs.rs`: distinct
//! values per group, the longest text, great-circle distances; on a dataset of
//! several tables, `joins.rs`: joins on a key column two tables share, leading
//! their level), a multi-layer Python DAG for each, and each answer
//! computed independently in Rust (`calc.rs`). It answers the engine's calls
//! through the same text interface a model uses (JSON replies), so the engine
//! parses, checks, runs and records it exactly like a real LLM.
//!
//! About a third of the first drafts carry a mistake a model would make
//! (`drafts.rs`), which the critic catches and the rebuild fixes; the offline
//! reviewer rejects a layer only for a planted slip it recognises.
//! `OfflineOptions` turns the mistakes off and sets a delay per answer.

mod advanced;
mod calc;
mod drafts;
mod groups;
mod ingredients;
mod joins;
mod library;
mod pairs;
mod templates;

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::{DeltaSink, LlmClient, LlmError, LlmErrorKind, LlmRequest, LlmResponse, StreamUpdate};
use crate::dataset::Dataset;
use crate::domain::LlmRole;
use crate::domain::{CallKey, DagEdge, DagNodeSpec, GeneratedDag, NodeId, Question, QuestionId};
use crate::domain::{Provider, ProviderKind};
use drafts::Draft;
use templates::Candidate;

/// How the offline planner behaves beyond what it plans.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OfflineOptions {
    /// First drafts are the clean DAGs: no planted mistakes.
    pub clean_drafts: bool,
    /// Typical time an answer takes (each is jittered between half and one and
    /// a half of it, streamed in pieces); zero answers at once.
    pub delay: Duration,
}

/// The delay per answer the terminal UI uses unless told otherwise.
pub const TUI_DELAY: Duration = Duration::from_millis(550);

/// A planned question with its DAG.
struct Plan {
    question: Question,
    dag: GeneratedDag,
    /// The first draft, when it carries a mistake.
    draft: Option<Draft>,
}

/// Characters of a question quoted when the planner cannot take it.
const QUOTED_CHARS: usize = 60;

/// Why the offline planner cannot plan the questions it is given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OfflinePlanError {
    /// A question is not one the planner writes itself.
    #[error(
        "the offline planner can only build DAGs for questions it writes itself, and {id} ({:?}) is not one \
         of them: use an LLM (--llm openai) for your own questions",
        crate::text::preview(&Value::String(question.clone()), QUOTED_CHARS)
    )]
    ForeignQuestion {
        /// The question's id.
        id: QuestionId,
        /// Its text.
        question: String,
    },
}

/// The offline planner.
pub struct OfflinePlanner {
    plans: Vec<Plan>,
    by_id: HashMap<QuestionId, usize>,
    options: OfflineOptions,
    seed: u64,
}

fn to_dag(question_id: &QuestionId, candidate: &Candidate) -> GeneratedDag {
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    for (layer, step) in candidate.steps.iter().enumerate() {
        let node_id = NodeId::from(format!("step_{}", layer + 1));
        let inputs = if layer == 0 {
            let other = candidate.joined.as_ref().map(|key| ("other".to_string(), format!("dataset.{key}")));
            [(candidate.input_param.to_string(), format!("dataset.{}", candidate.input_key))]
                .into_iter()
                .chain(other)
                .collect()
        } else {
            edges.push(DagEdge { source: format!("step_{layer}").into(), target: node_id.clone() });
            [("values".to_string(), format!("prev_node.step_{layer}.output"))].into_iter().collect()
        };
        nodes.push(DagNodeSpec {
            node_id,
            operation: step.operation.clone(),
            function_name: step.function.to_string(),
            inputs,
            expected_output_type: step.output.to_string(),
            layer,
            code: step.code.clone(),
        });
    }
    GeneratedDag {
        question_id: question_id.clone(),
        description: candidate.reasoning.clone(),
        final_answer_node: format!("step_{}", candidate.steps.len()).into(),
        nodes,
        edges,
    }
}

impl OfflinePlanner {
    /// Plan up to `count` questions over `dataset`: fewer when its columns
    /// offer fewer distinct shapes (`questions().len()` says how many).
    pub fn new(dataset: Arc<Dataset>, count: usize, seed: u64, options: OfflineOptions) -> Self {
        let found = ingredients::find(&dataset).sampled(seed);
        let chosen = library::choose(library::candidates(&dataset.data, &found, seed), count, seed);
        let plans: Vec<(Question, &Candidate)> = chosen
            .iter()
            .enumerate()
            .map(|(i, candidate)| {
                let question = Question {
                    reasoning: candidate.reasoning.clone(),
                    relevant_data_keys: std::iter::once(&candidate.input_key)
                        .chain(&candidate.joined)
                        .cloned()
                        .collect(),
                    expected_answer: Some(candidate.expected.clone()),
                    ..Question::new(format!("q_{:02}", i + 1), candidate.text.clone(), i + 1, candidate.level)
                };
                (question, candidate)
            })
            .collect();
        if plans.len() < count {
            tracing::warn!("the offline planner wrote {} of the {count} questions asked for", plans.len());
        }
        Self::planned(&dataset, plans, seed, options)
    }

    /// What planning `count` questions over `dataset` says before it starts
    /// when its table is wide (planning a narrow one takes a moment).
    pub fn progress_note(dataset: &Dataset, count: usize) -> Option<String> {
        let (entry, fields) =
            ingredients::rows_entry(dataset).filter(|(_, fields)| fields.len() > ingredients::WIDE)?;
        Some(format!(
            "planning {} over a sample of the {} columns of `{}` (offline)…",
            crate::text::plural(count, "question"),
            crate::text::thousands(fields.len() as u64),
            entry.key
        ))
    }

    /// A planner for questions given from outside (a questions file): each must
    /// be one the planner can write itself (matched by text); the error names
    /// the first that is not.
    pub fn for_questions(
        dataset: Arc<Dataset>,
        questions: &[Question],
        seed: u64,
        options: OfflineOptions,
    ) -> Result<Self, OfflinePlanError> {
        let texts: Vec<&str> = questions.iter().map(|q| q.question.as_str()).collect();
        let found = ingredients::find(&dataset).named_in(&texts);
        // Every wording any seed gives: the file may come from a run with another seed.
        let candidates: HashMap<String, Candidate> = (0..templates::WORDINGS)
            .flat_map(|wording| library::candidates(&dataset.data, &found, wording))
            .map(|candidate| (candidate.text.clone(), candidate))
            .collect();
        let mut plans = Vec::with_capacity(questions.len());
        for question in questions {
            let candidate = candidates.get(&question.question).ok_or_else(|| OfflinePlanError::ForeignQuestion {
                id: question.id.clone(),
                question: question.question.clone(),
            })?;
            plans.push((question.clone(), candidate));
        }
        Ok(Self::planned(&dataset, plans, seed, options))
    }

    fn planned(dataset: &Dataset, questions: Vec<(Question, &Candidate)>, seed: u64, options: OfflineOptions) -> Self {
        let dags: Vec<GeneratedDag> = questions.iter().map(|(q, candidate)| to_dag(&q.id, candidate)).collect();
        let mut drafts = if options.clean_drafts {
            HashMap::new()
        } else {
            let candidates: Vec<&Candidate> = questions.iter().map(|(_, c)| *c).collect();
            drafts::plant_all(&candidates, &dags, &dataset.catalogue, seed)
        };
        let plans: Vec<Plan> = questions
            .into_iter()
            .zip(dags)
            .enumerate()
            .map(|(position, ((question, _), dag))| Plan { question, dag, draft: drafts.remove(&position) })
            .collect();
        let by_id = plans.iter().enumerate().map(|(i, p)| (p.question.id.clone(), i)).collect();
        Self { plans, by_id, options, seed }
    }

    /// The planned questions.
    pub fn questions(&self) -> Vec<Question> {
        self.plans.iter().map(|p| p.question.clone()).collect()
    }

    fn reply(&self, request: &LlmRequest) -> Result<String, LlmError> {
        let key = &request.key;
        let plan = || {
            key.question_id.as_ref().and_then(|id| self.by_id.get(id)).map(|&i| &self.plans[i]).ok_or_else(|| {
                LlmError::new(
                    LlmErrorKind::BadRequest,
                    format!("the offline planner has no plan for {:?}", key.question_id),
                )
            })
        };
        let first_draft = key.attempt == 1 && key.iteration == 1;
        let value: Value = match key.role {
            LlmRole::QuestionGeneration => json!({"questions": self.questions()}),
            LlmRole::DagBuild => {
                let plan = plan()?;
                let dag = plan.draft.as_ref().filter(|_| first_draft).map_or(&plan.dag, |draft| &draft.dag);
                serde_json::to_value(dag).map_err(|err| {
                    LlmError::new(LlmErrorKind::BadRequest, format!("the offline planner cannot write its DAG: {err}"))
                })?
            }
            LlmRole::LayerReview => review(plan()?, request),
            LlmRole::Judge => json!({"reason": "the offline planner does not judge answers", "verdict": true}),
            LlmRole::Narrative => return Ok("The offline planner writes no narrative answers.".to_string()),
            LlmRole::Baseline => {
                let refusal = "the offline planner does not answer baselines: give the baseline role a model";
                return Err(LlmError::new(LlmErrorKind::BadRequest, refusal));
            }
        };
        Ok(format!("{value:#}"))
    }

    /// How long the answer to `key` takes: the delay jittered by the key and the seed.
    fn pause(&self, key: &CallKey) -> Duration {
        if self.options.delay.is_zero() {
            return Duration::ZERO;
        }
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        (self.seed, key.question_id.as_deref(), key.role, key.attempt, key.iteration, key.layer).hash(&mut hasher);
        let jitter = (hasher.finish() % 1000) as f64 / 1000.0;
        self.options.delay.mul_f64(0.5 + jitter)
    }
}

/// The offline reviewer's verdict on a layer: a planted slip in it, when the
/// prompt shows the slipped code, is rejected with what is wrong; anything
/// else is approved (the structural checks and the trial run gate it).
fn review(plan: &Plan, request: &LlmRequest) -> Value {
    let prompt: String = request.messages.iter().map(|m| m.content.as_str()).collect();
    let slip = plan
        .draft
        .as_ref()
        .and_then(|d| d.review.as_ref())
        .filter(|r| Some(r.layer) == request.key.layer && prompt.contains(r.code.trim_end()));
    match slip {
        Some(slip) => json!({
            "is_valid": false,
            "issues": [{"node_id": slip.node_id, "message": slip.message}],
            "reasoning": format!("offline review: {} does not do what the question asks", slip.node_id)
        }),
        None => json!({
            "is_valid": true,
            "issues": [],
            "reasoning": "offline review: this layer does what the question asks"
        }),
    }
}

/// `text` in about `pieces` parts, cut at character boundaries.
fn pieces(text: &str, pieces: usize) -> Vec<&str> {
    let size = text.len().div_ceil(pieces.max(1)).max(1);
    let mut parts = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut cut = size.min(rest.len());
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        let (part, tail) = rest.split_at(cut);
        parts.push(part);
        rest = tail;
    }
    parts
}

/// Pieces a delayed answer streams in.
const STREAMED_PIECES: usize = 8;

impl LlmClient for OfflinePlanner {
    fn provider(&self) -> Provider {
        ProviderKind::Offline.into()
    }

    fn model(&self) -> &str {
        "schema-planner"
    }

    fn complete<'a>(
        &'a self,
        request: &'a LlmRequest,
        sink: DeltaSink,
    ) -> BoxFuture<'a, Result<LlmResponse, LlmError>> {
        Box::pin(async move {
            let text = self.reply(request)?;
            let pause = self.pause(&request.key);
            if pause.is_zero() {
                sink(StreamUpdate::Text(&text));
            } else {
                let parts = pieces(&text, STREAMED_PIECES);
                for part in &parts {
                    tokio::time::sleep(pause / parts.len() as u32).await;
                    sink(StreamUpdate::Text(part));
                }
            }
            Ok(LlmResponse { text, ..LlmResponse::default() })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ChatMessage;

    fn fraud() -> Arc<Dataset> {
        Arc::new(Dataset::load(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data/fraud")).unwrap())
    }

    fn review_request(plan: &Plan, layer: usize, code: &str) -> LlmRequest {
        let key = CallKey {
            question_id: Some(plan.question.id.clone()),
            role: LlmRole::LayerReview,
            attempt: 1,
            iteration: 1,
            layer: Some(layer),
            judge: None,
            epoch: 1,
            draft: 1,
            repair: 0,
            judge_repeat: 1,
            baseline: None,
        };
        LlmRequest { key, messages: vec![ChatMessage::user(format!("```python\n{code}```"))], schema: None }
    }

    #[test]
    fn a_third_of_the_drafts_are_flawed_and_the_reviewer_names_only_the_planted_slip() {
        let planner = OfflinePlanner::new(fraud(), 10, 0, OfflineOptions::default());
        let flawed: Vec<&Plan> = planner.plans.iter().filter(|p| p.draft.is_some()).collect();
        assert_eq!(flawed.len(), 4);
        let slipped: Vec<&Plan> =
            flawed.iter().copied().filter(|p| p.draft.as_ref().is_some_and(|d| d.review.is_some())).collect();
        assert_eq!(slipped.len(), 1, "one of the four kinds is a slip for the reviewer");
        let plan = slipped[0];
        let slip = plan.draft.as_ref().and_then(|d| d.review.as_ref()).unwrap();
        let verdict = review(plan, &review_request(plan, slip.layer, &slip.code));
        assert_eq!(verdict["is_valid"], false);
        assert_eq!(verdict["issues"][0]["message"], slip.message.as_str());
        let clean = &plan.dag.nodes[slip.layer].code;
        assert_eq!(review(plan, &review_request(plan, slip.layer, clean))["is_valid"], true, "the rebuild is approved");
        assert_eq!(review(plan, &review_request(plan, slip.layer + 1, &slip.code))["is_valid"], true, "other layers");
        let clean_planner =
            OfflinePlanner::new(fraud(), 10, 0, OfflineOptions { clean_drafts: true, ..Default::default() });
        assert!(clean_planner.plans.iter().all(|p| p.draft.is_none()));
    }

    #[test]
    fn delayed_answers_are_jittered_by_the_key_and_streamed_whole() {
        let delay = Duration::from_millis(100);
        let planner = OfflinePlanner::new(fraud(), 3, 0, OfflineOptions { clean_drafts: true, delay });
        let key = |iteration| {
            CallKey::for_iteration(
                &crate::domain::AttemptAt::new("q_01", 1).iteration(iteration),
                LlmRole::DagBuild,
                None,
            )
        };
        let pauses: Vec<Duration> = (1..=20).map(|i| planner.pause(&key(i))).collect();
        assert!(pauses.iter().all(|p| (delay / 2..delay * 3 / 2).contains(p)), "{pauses:?}");
        assert!(pauses.windows(2).any(|w| w[0] != w[1]), "jittered");
        assert_eq!(planner.pause(&key(1)), pauses[0], "the same call waits the same");
        let instant = OfflinePlanner::new(fraud(), 3, 0, OfflineOptions::default());
        assert_eq!(instant.pause(&key(1)), Duration::ZERO);
        let text = "ünïcödé → {\"a\": 1}";
        assert_eq!(pieces(text, STREAMED_PIECES).concat(), text);
        assert!(pieces(text, STREAMED_PIECES).len() > 1);
    }

    #[test]
    fn a_questions_file_written_with_another_seed_is_planned() {
        let questions = OfflinePlanner::new(fraud(), 30, 1, OfflineOptions::default()).questions();
        let planner = OfflinePlanner::for_questions(fraud(), &questions, 0, OfflineOptions::default()).unwrap();
        assert_eq!(planner.questions(), questions);
    }

    #[test]
    fn a_foreign_question_is_named_and_quoted_on_one_line() {
        let err = OfflinePlanError::ForeignQuestion { id: "q_01".into(), question: "How\nmany?".into() };
        assert_eq!(
            err.to_string(),
            "the offline planner can only build DAGs for questions it writes itself, and q_01 (\"How many?\") is not \
             one of them: use an LLM (--llm openai) for your own questions"
        );
    }
}
