//! The attributes a span carries, by convention:
//!
//! - OpenTelemetry GenAI semantic conventions for model calls
//!   (<https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/>):
//!   `gen_ai.operation.name`, `gen_ai.provider.name` (and the older
//!   `gen_ai.system`, which Langfuse and older readers still take),
//!   `gen_ai.request.model`, `gen_ai.usage.input_tokens`/`output_tokens`, the
//!   prompt and completion as `gen_ai.input.messages`/`gen_ai.output.messages`.
//! - OpenInference (<https://arize-ai.github.io/openinference/spec/attributes/semantic-conventions.html>),
//!   which Arize Phoenix reads: `openinference.span.kind`, `llm.model_name`,
//!   `llm.token_count.*`, `llm.cost.total`, `llm.input_messages.N.message.*`,
//!   `input.value`/`output.value`, and the resource attribute
//!   `openinference.project.name` that groups spans into a project.
//! - eval-dag's own under `eval_dag.`.

use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value::Value};
use serde_json::json;

use crate::domain::{ChatMessage, Provider, TokenUsage};
use crate::run::Stage;

/// The OpenInference span kind of a span (`openinference.span.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanKind {
    /// A call to a model.
    Llm,
    /// A step that links others: the run, a question, an attempt, an iteration, a build.
    Chain,
    /// Code run on the data: a trial run, an execution, one node.
    Tool,
    /// A judgement: the structural check, the layer review.
    Evaluator,
}

impl SpanKind {
    /// The attribute value.
    fn as_str(self) -> &'static str {
        match self {
            Self::Llm => "LLM",
            Self::Chain => "CHAIN",
            Self::Tool => "TOOL",
            Self::Evaluator => "EVALUATOR",
        }
    }
}

/// A span's attributes, built up in order.
#[derive(Debug, Clone, Default)]
pub struct Attributes(pub Vec<KeyValue>);

impl Attributes {
    /// Set `key` to `value`, replacing an earlier value of the same key.
    fn put(&mut self, key: &str, value: Value) {
        let value = Some(AnyValue { value: Some(value) });
        match self.0.iter_mut().find(|kv| kv.key == key) {
            Some(kv) => kv.value = value,
            None => self.0.push(KeyValue { key: key.to_string(), value, ..Default::default() }),
        }
    }

    /// A string attribute.
    pub fn text(&mut self, key: &str, value: impl Into<String>) -> &mut Self {
        self.put(key, Value::StringValue(value.into()));
        self
    }

    /// An integer attribute.
    pub fn int(&mut self, key: &str, value: u64) -> &mut Self {
        self.put(key, Value::IntValue(i64::try_from(value).unwrap_or(i64::MAX)));
        self
    }

    /// A floating-point attribute.
    pub fn float(&mut self, key: &str, value: f64) -> &mut Self {
        self.put(key, Value::DoubleValue(value));
        self
    }

    /// A boolean attribute.
    pub fn flag(&mut self, key: &str, value: bool) -> &mut Self {
        self.put(key, Value::BoolValue(value));
        self
    }

    /// A JSON value as its compact text.
    pub fn json(&mut self, key: &str, value: &serde_json::Value) -> &mut Self {
        self.text(key, value.to_string())
    }

    /// The OpenInference span kind.
    pub fn kind(&mut self, kind: SpanKind) -> &mut Self {
        self.text("openinference.span.kind", kind.as_str())
    }

    /// OpenInference `input.value`: plain text.
    pub fn input_text(&mut self, value: impl Into<String>) -> &mut Self {
        self.text("input.value", value).text("input.mime_type", "text/plain")
    }

    /// OpenInference `output.value`: plain text.
    pub fn output_text(&mut self, value: impl Into<String>) -> &mut Self {
        self.text("output.value", value).text("output.mime_type", "text/plain")
    }

    /// OpenInference `input.value`: a JSON document.
    pub fn input_json(&mut self, value: &serde_json::Value) -> &mut Self {
        self.json("input.value", value).text("input.mime_type", "application/json")
    }

    /// OpenInference `output.value`: a JSON document.
    pub fn output_json(&mut self, value: &serde_json::Value) -> &mut Self {
        self.json("output.value", value).text("output.mime_type", "application/json")
    }

    /// What a model was asked: provider, model and the prompt's messages, in
    /// both conventions (the GenAI messages as structured JSON parts).
    pub fn llm_request(&mut self, provider: &Provider, model: &str, messages: &[ChatMessage]) -> &mut Self {
        let provider = provider.name();
        self.kind(SpanKind::Llm)
            .text("gen_ai.operation.name", "chat")
            .text("gen_ai.provider.name", provider)
            .text("gen_ai.system", provider)
            .text("gen_ai.request.model", model)
            .text("llm.provider", provider)
            .text("llm.model_name", model);
        let parts: Vec<serde_json::Value> = messages
            .iter()
            .map(|m| json!({"role": m.role, "parts": [{"type": "text", "content": m.content}]}))
            .collect();
        self.json("gen_ai.input.messages", &serde_json::Value::Array(parts));
        for (i, message) in messages.iter().enumerate() {
            self.text(&format!("llm.input_messages.{i}.message.role"), message.role.as_str())
                .text(&format!("llm.input_messages.{i}.message.content"), message.content.clone());
        }
        let plain: Vec<serde_json::Value> =
            messages.iter().map(|m| json!({"role": m.role, "content": m.content})).collect();
        self.input_json(&serde_json::Value::Array(plain))
    }

    /// What a model answered: the completion, tokens and cost.
    pub fn llm_response(&mut self, response: Option<&str>, usage: TokenUsage, cost_usd: f64) -> &mut Self {
        if let Some(text) = response {
            let output = json!([{
                "role": "assistant",
                "parts": [{"type": "text", "content": text}],
                "finish_reason": "stop",
            }]);
            self.json("gen_ai.output.messages", &output)
                .text("llm.output_messages.0.message.role", "assistant")
                .text("llm.output_messages.0.message.content", text)
                .output_text(text);
        }
        self.int("gen_ai.usage.input_tokens", usage.prompt_tokens)
            .int("gen_ai.usage.output_tokens", usage.completion_tokens)
            .int("llm.token_count.prompt", usage.prompt_tokens)
            .int("llm.token_count.completion", usage.completion_tokens)
            .int("llm.token_count.total", usage.total())
            .int("llm.token_count.prompt_details.cache_read", usage.cached_tokens)
            .float("llm.cost.total", cost_usd)
            .float("eval_dag.cost_usd", cost_usd)
    }
}

/// The grades of an answer: each method's score, pass and reason, and the narrative judged.
pub(super) fn put_grades(attributes: &mut Attributes, grades: &[crate::domain::Grade], narrative: Option<&str>) {
    for grade in grades {
        let prefix = format!("eval_dag.grade.{}", grade.method);
        attributes.flag(&format!("{prefix}.passed"), grade.passed);
        attributes.text(&format!("{prefix}.reason"), grade.reason.clone());
        if let Some(score) = grade.score {
            attributes.float(&format!("{prefix}.score"), score);
        }
    }
    if !grades.is_empty() {
        attributes.flag("eval_dag.grade.passed", grades.iter().all(|g| g.passed));
    }
    if let Some(narrative) = narrative {
        attributes.text("eval_dag.narrative", narrative);
    }
}

/// The OpenInference kind of a stage's span.
pub(super) fn stage_kind(stage: Stage) -> SpanKind {
    match stage {
        Stage::Build => SpanKind::Chain,
        Stage::StructuralCheck | Stage::SemanticReview => SpanKind::Evaluator,
        Stage::TrialRun | Stage::Execute => SpanKind::Tool,
    }
}

/// A stage's name as the trace spells it.
pub(super) fn stage_name(stage: Stage) -> &'static str {
    match stage {
        Stage::Build => "build",
        Stage::StructuralCheck => "structural_check",
        Stage::TrialRun => "trial_run",
        Stage::SemanticReview => "semantic_review",
        Stage::Execute => "execute",
    }
}
