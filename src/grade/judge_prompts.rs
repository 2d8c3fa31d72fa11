//! Judge prompt templates (`prompts/judges/*.j2`, built in) and the LLM calls
//! judges make.
//!
//! Every judge call is keyed `{question_id, role: judge, attempt, iteration:
//! judge index (1-based, in panel order), layer: step}` so that replay can find
//! it; the step is the node's position in a DAG judge's topological order, 0 for
//! a rubric, and 0-2 (claims, truths, verdicts) for faithfulness.

use indexmap::IndexMap;
use minijinja::{Environment, context};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::GradeError;
use crate::domain::Question;
use crate::llm::{CallKey, ChatMessage, LlmClient, LlmRequest, LlmRole};
use crate::prompts::extract_json_object;

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
            env.add_template(name, source).map_err(|err| GradeError::Judge {
                origin: format!("prompts/judges/{name}"),
                message: err.to_string(),
            })?;
        }
        Ok(Self { env })
    }

    /// The system and user messages of template `name`.
    fn render(&self, name: &str, ctx: &minijinja::Value) -> Result<Vec<ChatMessage>, String> {
        let template = self.env.get_template(name).map_err(|err| err.to_string())?;
        let section = |section: &str| {
            template
                .render(context! { section => section, ..ctx.clone() })
                .map_err(|err| format!("template {name} failed to render: {err}"))
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
    /// The question answered.
    pub question: &'a Question,
    /// The answer under judgement.
    pub answer: &'a Value,
    /// Its one-sentence narrative, when one was written.
    pub narrative: Option<&'a str>,
    /// The DAG's node outputs.
    pub node_outputs: &'a IndexMap<String, Value>,
    /// Attempt number of the question (for call keys).
    pub attempt: u32,
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
            .map(|(id, v)| context! { id => id, output => crate::text::preview(v, NODE_OUTPUT_CHARS) })
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

    /// Render `template` and send it; the reply's text.
    pub(crate) async fn ask(
        &self,
        step: usize,
        template: &str,
        ctx: &minijinja::Value,
        json: bool,
    ) -> Result<String, String> {
        let request = LlmRequest {
            key: CallKey {
                question_id: Some(self.question.id.clone()),
                role: LlmRole::Judge,
                attempt: self.attempt,
                iteration: self.judge_index,
                layer: Some(step),
            },
            messages: self.prompts.render(template, ctx)?,
            json,
        };
        self.llm
            .complete(&request, crate::llm::ignore_stream())
            .await
            .map(|response| response.text)
            .map_err(|err| format!("judge call failed: {err}"))
    }

    /// Like [`Self::ask`], with the reply parsed as a JSON object.
    pub(crate) async fn ask_json(&self, step: usize, template: &str, ctx: &minijinja::Value) -> Result<Value, String> {
        let reply = self.ask(step, template, ctx, true).await?;
        extract_json_object(&reply).map_err(|err| err.to_string())
    }
}

/// One line of at most `max` characters.
pub(crate) fn one_line(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::text::preview(&Value::String(flat), max)
}
