//! Judge prompt templates (`prompts/judges/*.j2`, built in) and the LLM calls
//! judges make.
//!
//! Every judge call on an attempt's final answer is keyed `{question_id, role:
//! judge, attempt, iteration: judge index (1-based, in panel order), layer:
//! step}` so that replay can find it; a call on a rejected iteration's answer
//! names that iteration instead, with the judge index in `judge`. The step is the node's position in a DAG judge's topological order, 0 for
//! a rubric, and 0-2 (claims, truths, verdicts) for faithfulness.
//!
//! [`JudgeError`] is what every judge returns when it cannot grade an answer.

use indexmap::IndexMap;
use minijinja::{Environment, context};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::GradeError;
use super::judged::JudgedAt;
use super::rubric_reply::RubricError;
use crate::domain::{CallKey, ChatMessage, LlmRole, ReplySchema};
use crate::domain::{NodeId, Question};
use crate::llm::{LlmClient, LlmError, LlmRequest, Repairs, Unreadable};
use crate::prompts::{ExtractError, extract_json_object};

/// Built-in judge templates: (file name, source).
const BUILT_IN: [(&str, &str); 3] = [
    ("dag_node.j2", include_str!("../../prompts/judges/dag_node.j2")),
    ("rubric.j2", include_str!("../../prompts/judges/rubric.j2")),
    ("faithfulness.j2", include_str!("../../prompts/judges/faithfulness.j2")),
];

/// Characters of one node output shown to a judge.
const NODE_OUTPUT_CHARS: usize = 600;
/// Characters of the answer shown to a judge.
const ANSWER_CHARS: usize = 4000;

/// Why a judge could not grade an answer: its call failed or the reply was
/// unusable. Every judge returns it; the grade shows its message.
#[derive(Debug, thiserror::Error)]
pub(crate) enum JudgeError {
    /// A judge template is not among the compiled ones.
    #[error("{source}")]
    NoTemplate {
        /// The template's file name.
        template: String,
        /// The template engine's error.
        source: minijinja::Error,
    },
    /// A judge template failed to render.
    #[error("template {template} failed to render: {source}")]
    Render {
        /// The template's file name.
        template: String,
        /// The template engine's error.
        source: minijinja::Error,
    },
    /// The LLM call failed.
    #[error("judge call failed: {source}")]
    Call {
        /// The client's error.
        source: LlmError,
    },
    /// The reply holds no usable JSON object.
    #[error(transparent)]
    Reply(#[from] ExtractError),
    /// The reply could not be read, even after its repair exchanges (why).
    #[error("{0}")]
    Unreadable(String),
    /// A node of a decision-tree judge failed.
    #[error("node {id:?}: {source}")]
    Node {
        /// The node's id.
        id: String,
        /// What went wrong at it.
        source: Box<JudgeError>,
    },
    /// The reply lacks a field.
    #[error("the reply has no {field:?}")]
    MissingField {
        /// The field.
        field: &'static str,
    },
    /// A judgement's reply names none of its verdicts.
    #[error("the verdict {said} is not one of {}", options.join(", "))]
    UnknownVerdict {
        /// The `verdict` the reply gave.
        said: Value,
        /// The node's verdicts, as the prompt shows them.
        options: Vec<String>,
    },
    /// No reached verdict leaf carries a score.
    #[error("no verdict with a score was reached")]
    NoScoredVerdict,
    /// A rubric reply holds no score.
    #[error(transparent)]
    Rubric(#[from] RubricError),
    /// The reply lacks a list.
    #[error("the reply has no {field:?} list")]
    MissingList {
        /// The list's field.
        field: &'static str,
    },
    /// A list that should hold strings holds something else.
    #[error("{field:?} holds a non-string item {item}")]
    NonStringItem {
        /// The list's field.
        field: &'static str,
        /// The item.
        item: Value,
    },
    /// The reply judged a different number of claims than it was given.
    #[error("{verdicts} verdicts for {claims} claims")]
    VerdictCount {
        /// Verdicts in the reply.
        verdicts: usize,
        /// Claims asked about.
        claims: usize,
    },
    /// A claim's verdict is none of the three allowed.
    #[error("verdict {number} is not supported, contradicted or unknown")]
    BadClaimVerdict {
        /// 1-based position of the verdict.
        number: usize,
    },
}

/// What a judge step shows the LLM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JudgeInput {
    /// The question text.
    Question,
    /// The final answer (JSON).
    Answer,
    /// The expected answer, when known.
    ExpectedAnswer,
    /// The outputs of the DAG's nodes.
    NodeOutputs,
}

/// The compiled judge templates.
#[derive(Debug)]
pub(crate) struct JudgePrompts {
    env: Environment<'static>,
}

impl JudgePrompts {
    /// Compile the built-in templates.
    pub(crate) fn built_in() -> Result<Self, GradeError> {
        let mut env = Environment::new();
        for (name, source) in BUILT_IN {
            env.add_template(name, source)
                .map_err(|err| GradeError::Template { template: name.to_string(), source: err })?;
        }
        Ok(Self { env })
    }

    /// The system and user messages of template `name`.
    fn render(&self, name: &str, ctx: &minijinja::Value) -> Result<Vec<ChatMessage>, JudgeError> {
        let template = self
            .env
            .get_template(name)
            .map_err(|source| JudgeError::NoTemplate { template: name.to_string(), source })?;
        let section = |section: &str| {
            template
                .render(context! { section => section, ..ctx.clone() })
                .map_err(|source| JudgeError::Render { template: name.to_string(), source })
        };
        Ok(vec![ChatMessage::system(section("system")?), ChatMessage::user(section("user")?)])
    }
}

/// Everything a judge needs to call the LLM about one answer.
pub(crate) struct JudgeCall<'a> {
    /// The templates.
    pub prompts: &'a JudgePrompts,
    /// The judge model.
    pub llm: &'a dyn LlmClient,
    /// How an unreadable JSON reply is asked for again (none: it is not).
    pub repairs: Option<&'a Repairs>,
    /// The question answered.
    pub question: &'a Question,
    /// The answer under judgement.
    pub answer: &'a Value,
    /// Its one-sentence narrative, when one was written.
    pub narrative: Option<&'a str>,
    /// The DAG's node outputs.
    pub node_outputs: &'a IndexMap<NodeId, Value>,
    /// Which answer is judged (for call keys).
    pub at: &'a JudgedAt,
    /// 1-based position of the judge in its panel (for call keys).
    pub judge_index: u32,
}

impl JudgeCall<'_> {
    /// Template variables for `inputs`; inputs not asked for are left out.
    pub(crate) fn inputs(&self, inputs: &[JudgeInput]) -> minijinja::Value {
        let want = |input| inputs.contains(&input);
        let node_outputs: Vec<_> = self
            .node_outputs
            .iter()
            .map(|(id, v)| context! { id => id.as_str(), output => crate::text::preview(v, NODE_OUTPUT_CHARS) })
            .collect();
        context! {
            question => want(JudgeInput::Question).then_some(&self.question.question),
            answer => want(JudgeInput::Answer).then(|| self.answer_text()),
            expected_answer => want(JudgeInput::ExpectedAnswer).then(|| {
                self.question.expected_answer.as_ref().map_or_else(|| "(not known)".to_string(), Value::to_string)
            }),
            node_outputs => want(JudgeInput::NodeOutputs).then_some(node_outputs),
        }
    }

    /// The answer as text: a string as it is, anything else as JSON.
    pub(crate) fn answer_text(&self) -> String {
        let text = match self.answer {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        crate::text::preview(&Value::String(text), ANSWER_CHARS)
    }

    /// The request of judge step `step`: `template` rendered with `ctx`.
    fn request(
        &self,
        step: usize,
        template: &str,
        ctx: &minijinja::Value,
        schema: Option<ReplySchema>,
    ) -> Result<LlmRequest, JudgeError> {
        let attempt = &self.at.attempt;
        let key = match self.at.rejected_iteration {
            // The final answer's judge calls: `iteration` is the judge's place in the panel.
            None => CallKey {
                judge_repeat: self.at.repeat,
                ..CallKey::for_iteration(&attempt.iteration(self.judge_index), LlmRole::Judge, Some(step))
            },
            Some(iteration) => CallKey {
                judge: Some(self.judge_index),
                judge_repeat: self.at.repeat,
                ..CallKey::for_iteration(&attempt.iteration(iteration), LlmRole::Judge, Some(step))
            },
        };
        Ok(LlmRequest { key, messages: self.prompts.render(template, ctx)?, schema })
    }

    /// Render `template` and send it; the reply's text.
    pub(crate) async fn ask(
        &self,
        step: usize,
        template: &str,
        ctx: &minijinja::Value,
        schema: Option<ReplySchema>,
    ) -> Result<String, JudgeError> {
        let request = self.request(step, template, ctx, schema)?;
        self.llm
            .complete(&request, crate::llm::ignore_stream())
            .await
            .map(|response| response.text)
            .map_err(|source| JudgeError::Call { source })
    }

    /// Like [`Self::ask`], for a reply of `schema`, parsed (leniently) as a
    /// JSON object; one that holds none is repaired when the call has repairs.
    pub(crate) async fn ask_json(
        &self,
        step: usize,
        template: &str,
        ctx: &minijinja::Value,
        schema: ReplySchema,
    ) -> Result<Value, JudgeError> {
        let Some(repairs) = self.repairs else {
            let reply = self.ask(step, template, ctx, Some(schema)).await?;
            return Ok(extract_json_object(&reply)?);
        };
        let request = self.request(step, template, ctx, Some(schema))?;
        let read = |reply: &str| extract_json_object(reply).map_err(|err| err.to_string());
        match repairs.complete(self.llm, &request, read).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(Unreadable(why))) => Err(JudgeError::Unreadable(why)),
            Err(source) => Err(JudgeError::Call { source }),
        }
    }
}

/// What a judge step shows when the file does not say.
pub(crate) fn default_inputs() -> Vec<JudgeInput> {
    vec![JudgeInput::Question, JudgeInput::Answer]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn judge_errors_read_as_they_always_have() {
        let at_node = |source| JudgeError::Node { id: "j".into(), source: Box::new(source) };
        let cases = [
            (at_node(JudgeError::MissingField { field: "verdict" }), "node \"j\": the reply has no \"verdict\""),
            (
                at_node(JudgeError::UnknownVerdict {
                    said: json!("maybe"),
                    options: vec!["false".into(), "true".into()],
                }),
                "node \"j\": the verdict \"maybe\" is not one of false, true",
            ),
            (JudgeError::NoScoredVerdict, "no verdict with a score was reached"),
            (JudgeError::MissingList { field: "claims" }, "the reply has no \"claims\" list"),
            (JudgeError::NonStringItem { field: "truths", item: json!(3) }, "\"truths\" holds a non-string item 3"),
            (JudgeError::VerdictCount { verdicts: 2, claims: 3 }, "2 verdicts for 3 claims"),
            (JudgeError::BadClaimVerdict { number: 2 }, "verdict 2 is not supported, contradicted or unknown"),
        ];
        for (error, message) in cases {
            assert_eq!(error.to_string(), message);
        }
    }
}
