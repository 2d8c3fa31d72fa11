//! The `offline` provider: a deterministic schema planner that needs no model.
//!
//! From the dataset's schema catalogue alone it writes N questions across
//! difficulty levels and a multi-layer Python DAG for each, and computes each
//! question's expected answer independently in Rust. It answers the engine's
//! calls through the same text interface a model uses (JSON replies), so the
//! engine parses, checks, runs and records it exactly like a real LLM. The
//! offline reviewer approves every layer: structural checks and the trial run
//! still gate each DAG.

mod ingredients;
mod templates;

use std::collections::HashMap;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::{DeltaSink, LlmClient, LlmError, LlmErrorKind, LlmRequest, LlmResponse, LlmRole, StreamUpdate};
use crate::dataset::Dataset;
use crate::domain::{DagEdge, DagNodeSpec, DifficultyLevel, GeneratedDag, Question};
use templates::Candidate;

/// A planned question with its DAG.
struct Plan {
    question: Question,
    dag: GeneratedDag,
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
        id: String,
        /// Its text.
        question: String,
    },
}

/// The offline planner.
pub struct OfflinePlanner {
    plans: Vec<Plan>,
    by_id: HashMap<String, usize>,
}

fn to_dag(question_id: &str, candidate: &Candidate) -> GeneratedDag {
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    for (layer, step) in candidate.steps.iter().enumerate() {
        let node_id = format!("step_{}", layer + 1);
        let inputs = if layer == 0 {
            [(candidate.input_param.to_string(), format!("dataset.{}", candidate.input_key))].into_iter().collect()
        } else {
            edges.push(DagEdge { source: format!("step_{layer}"), target: node_id.clone() });
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
        question_id: question_id.to_string(),
        description: candidate.reasoning.clone(),
        final_answer_node: format!("step_{}", candidate.steps.len()),
        nodes,
        edges,
    }
}

/// Pick `need` of `pool`, evenly spread, starting at an offset chosen by `seed`.
fn spread<T>(pool: &mut [Option<T>], need: usize, seed: u64) -> Vec<T> {
    let len = pool.len();
    if len == 0 || need == 0 {
        return Vec::new();
    }
    let offset = (seed as usize) % len;
    let mut picked = Vec::new();
    for i in 0..need.min(len) {
        let index = (offset + i * len / need.min(len)) % len;
        if let Some(item) = pool[index].take() {
            picked.push(item);
        }
    }
    picked
}

impl OfflinePlanner {
    /// Plan up to `count` questions over `dataset` (fewer when the schema offers
    /// fewer distinct questions).
    pub fn new(dataset: Arc<Dataset>, count: usize, seed: u64) -> Self {
        let found = ingredients::find(&dataset);
        let [easy, medium, hard] = templates::candidates(&dataset.data, &found);
        let mut wanted = [0usize; 3];
        for rank in 1..=count {
            wanted[DifficultyLevel::from_rank(rank, count) as usize] += 1;
        }
        let mut pools: Vec<Vec<Option<Candidate>>> =
            [easy, medium, hard].into_iter().map(|p| p.into_iter().map(Some).collect()).collect();
        let mut chosen: Vec<Candidate> = Vec::new();
        for level in 0..3 {
            chosen.extend(spread(&mut pools[level], wanted[level], seed));
        }
        // Fill any shortfall from whatever is left, easiest first.
        for pool in &mut pools {
            for candidate in pool.iter_mut() {
                if chosen.len() >= count {
                    break;
                }
                if let Some(candidate) = candidate.take() {
                    chosen.push(candidate);
                }
            }
        }
        chosen.sort_by_key(|c| c.level);
        let plans: Vec<Plan> = chosen
            .iter()
            .enumerate()
            .map(|(i, candidate)| {
                let id = format!("q_{:02}", i + 1);
                Plan {
                    question: Question {
                        id: id.clone(),
                        question: candidate.text.clone(),
                        difficulty_rank: i + 1,
                        difficulty_level: candidate.level,
                        reasoning: candidate.reasoning.clone(),
                        relevant_data_keys: vec![candidate.input_key.clone()],
                        expected_answer: Some(candidate.expected.clone()),
                        match_overrides: Default::default(),
                    },
                    dag: to_dag(&id, candidate),
                }
            })
            .collect();
        let by_id = plans.iter().enumerate().map(|(i, p)| (p.question.id.clone(), i)).collect();
        Self { plans, by_id }
    }

    /// A planner for questions given from outside (a questions file): each must
    /// be one the planner can write itself (matched by text); the error names
    /// the first that is not.
    pub fn for_questions(dataset: Arc<Dataset>, questions: &[Question]) -> Result<Self, OfflinePlanError> {
        let found = ingredients::find(&dataset);
        let candidates: HashMap<String, Candidate> = templates::candidates(&dataset.data, &found)
            .into_iter()
            .flatten()
            .map(|candidate| (candidate.text.clone(), candidate))
            .collect();
        let mut plans = Vec::with_capacity(questions.len());
        for question in questions {
            let candidate = candidates.get(&question.question).ok_or_else(|| OfflinePlanError::ForeignQuestion {
                id: question.id.clone(),
                question: question.question.clone(),
            })?;
            plans.push(Plan { question: question.clone(), dag: to_dag(&question.id, candidate) });
        }
        let by_id = plans.iter().enumerate().map(|(i, p)| (p.question.id.clone(), i)).collect();
        Ok(Self { plans, by_id })
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
        let value: Value = match key.role {
            LlmRole::QuestionGeneration => json!({"questions": self.questions()}),
            LlmRole::DagBuild => serde_json::to_value(&plan()?.dag).expect("DAGs serialise"),
            LlmRole::LayerReview => json!({
                "is_valid": true,
                "issues": [],
                "reasoning": "offline review: the planner's DAGs are approved once structural checks and the trial run pass"
            }),
            LlmRole::Judge => json!({"reason": "the offline planner does not judge answers", "verdict": true}),
            LlmRole::Narrative => return Ok("The offline planner writes no narrative answers.".to_string()),
        };
        Ok(serde_json::to_string_pretty(&value).expect("replies serialise"))
    }
}

impl LlmClient for OfflinePlanner {
    fn provider(&self) -> &str {
        "offline"
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
            sink(StreamUpdate::Text(&text));
            Ok(LlmResponse { text, ..LlmResponse::default() })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
