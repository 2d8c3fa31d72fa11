//! Prompt templates (minijinja) and lenient parsing of replies.
//!
//! The templates in the top-level `prompts/` directory are built in; a file of
//! the same name in `$XDG_CONFIG_HOME/eval-dag/prompts/` (or the directory in
//! `$EVAL_DAG_PROMPTS`) replaces one. Every template is compiled at start-up,
//! so a broken one is a clear error before any work starts.
//!
//! Parts:
//! - The run's prompt templates, loaded through `templating::TemplateSet`: question
//!   generation, DAG build, layer review, narrative.
//! - Each template puts first what every call of a run shares — the schema (the
//!   same head in every role's system text, so a role's first call reuses the
//!   question generation's), the role's system text, the dataset, the reply
//!   format — then the question, then the DAG, for providers' prefix caches. The
//!   templates from before that order are kept in `tests/fixtures/prompts_v1` as
//!   overrides that must keep working.
//! - Lenient JSON extraction from replies.
//! - `RepairNote`: what a repair exchange (`repair.j2`) tells the model about its
//!   unreadable reply.

mod extract;
mod schema;
mod shortened;

use std::path::{Path, PathBuf};

use minijinja::{Environment, Value, context, value::Serde};
use serde::Serialize;

pub use extract::{ExtractError, baseline_answer, extract_json_object};
pub use schema::describe_schema;
pub use shortened::{DEFAULT_SCHEMA_BUDGET, SchemaFocus, schema_within};

use crate::dataset::Dataset;
use crate::domain::{BaselineCall, ChatMessage};
use crate::domain::{CriticFeedback, ExecutionResult, GeneratedDag, Question};
use crate::templating::{TemplateError, TemplateSet};

/// The built-in prompt templates and where a user's replacements live.
const PROMPT_TEMPLATES: TemplateSet = TemplateSet {
    set: "prompt",
    directory: "prompts",
    env_var: "EVAL_DAG_PROMPTS",
    built_in: &[
        ("question_generation.j2", include_str!("../../prompts/question_generation.j2")),
        ("dag_build.j2", include_str!("../../prompts/dag_build.j2")),
        ("layer_review.j2", include_str!("../../prompts/layer_review.j2")),
        ("narrative.j2", include_str!("../../prompts/narrative.j2")),
        ("repair.j2", include_str!("../../prompts/repair.j2")),
        ("baseline.j2", include_str!("../../prompts/baseline.j2")),
    ],
};

/// How many characters of a node output a review prompt shows.
const OUTPUT_PREVIEW_CHARS: usize = 600;

/// Where user templates are looked up.
pub fn override_dir() -> Option<PathBuf> {
    PROMPT_TEMPLATES.override_dir()
}

/// Dataset facts every template may use.
#[derive(Debug, Serialize)]
struct DatasetContext<'a> {
    description: &'a str,
    domain: &'a str,
    notes: &'a [String],
    documentation: &'a indexmap::IndexMap<String, String>,
}

/// The compiled prompt templates, and the token budget of the schema they carry.
#[derive(Debug)]
pub struct Prompts {
    env: Environment<'static>,
    schema_budget: u64,
}

impl Prompts {
    /// Built-in templates, each replaced by a same-named file in `dir` when present.
    pub fn load(dir: Option<&Path>) -> Result<Self, TemplateError> {
        let mut env = Environment::new();
        PROMPT_TEMPLATES.load_into(&mut env, dir)?;
        Ok(Self { env, schema_budget: DEFAULT_SCHEMA_BUDGET })
    }

    /// These templates with the schema held to `tokens` a prompt.
    pub fn with_schema_budget(self, tokens: u64) -> Self {
        Self { schema_budget: tokens, ..self }
    }

    /// The schema a prompt carries: within the budget, `focus` deciding what is in full.
    fn schema(&self, dataset: &Dataset, focus: SchemaFocus<'_>) -> String {
        schema_within(dataset, self.schema_budget, focus)
    }

    fn render(&self, name: &str, ctx: Value) -> Vec<ChatMessage> {
        let render = |section: &str| {
            let ctx = context! { section => section, ..ctx.clone() };
            let text = self.env.get_template(name).and_then(|template| template.render(ctx));
            text.unwrap_or_else(|err| format!("(template {name} failed to render: {err})"))
        };
        vec![ChatMessage::system(render("system")), ChatMessage::user(render("user"))]
    }

    /// The question-generation prompt.
    pub fn question_generation(&self, dataset: &Dataset, count: u32) -> Vec<ChatMessage> {
        self.render(
            "question_generation.j2",
            context! {
                dataset => Serde(dataset_context(dataset)), schema => self.schema(dataset, SchemaFocus::Sample),
                count => count,
            },
        )
    }

    /// The DAG-building prompt; `previous` carries the rejected DAG and its feedback on retries.
    pub fn dag_build(
        &self,
        dataset: &Dataset,
        question: &Question,
        iteration: u32,
        previous: Option<(&GeneratedDag, &CriticFeedback)>,
    ) -> Vec<ChatMessage> {
        let (previous, feedback) = match previous {
            Some((dag, feedback)) => {
                (Some(serde_json::to_string_pretty(dag).unwrap_or_default()), Some(feedback_text(feedback)))
            }
            None => (None, None),
        };
        self.render(
            "dag_build.j2",
            context! {
                dataset => Serde(dataset_context(dataset)), schema => self.schema(dataset, SchemaFocus::Question(&question.question)),
                question => Serde(question), iteration => iteration, previous => previous, feedback => feedback,
            },
        )
    }

    /// The prompt of a question's baseline `call`: the question alone
    /// (`no_data`), or with what the builder is shown of `dataset` (`no_code`).
    pub fn baseline(&self, dataset: &Dataset, question: &Question, call: BaselineCall) -> Vec<ChatMessage> {
        let with_data = call == BaselineCall::NoCode;
        let schema =
            if with_data { self.schema(dataset, SchemaFocus::Question(&question.question)) } else { String::new() };
        self.render(
            "baseline.j2",
            context! {
                dataset => Serde(dataset_context(dataset)), schema => schema, question => Serde(question),
                with_data => with_data,
            },
        )
    }

    /// The prompt asking for a one-sentence narrative of an executed DAG's answer.
    pub fn narrative(&self, question: &Question, result: &ExecutionResult) -> Vec<ChatMessage> {
        let answer = result.final_answer.as_ref().map_or_else(|| "null".to_string(), |a| a.to_string());
        let node_outputs: Vec<_> = result
            .node_outputs
            .iter()
            .map(|(id, v)| context! { id => id.as_str(), output => crate::text::preview(v, OUTPUT_PREVIEW_CHARS) })
            .collect();
        self.render(
            "narrative.j2",
            context! { question => &question.question, answer => answer, node_outputs => node_outputs },
        )
    }

    /// The review prompt of layer `layer`, showing earlier layers and the trial run's real outputs.
    pub fn layer_review(
        &self,
        dataset: &Dataset,
        question: &Question,
        dag: &GeneratedDag,
        layer: usize,
        trial: &ExecutionResult,
    ) -> Vec<ChatMessage> {
        let output = |id: &str| {
            trial
                .node_outputs
                .get(id)
                .map(|v| crate::text::preview(v, OUTPUT_PREVIEW_CHARS))
                .unwrap_or_else(|| "(not produced)".into())
        };
        let node_ctx = |n: &crate::domain::DagNodeSpec| {
            context! {
                node_id => n.node_id.as_str(), operation => &n.operation, code => &n.code,
                inputs => serde_json::to_string(&n.inputs).unwrap_or_default(),
                expected_output_type => &n.expected_output_type, output => output(&n.node_id),
            }
        };
        let earlier: Vec<_> = dag.nodes.iter().filter(|n| n.layer < layer).map(node_ctx).collect();
        let nodes: Vec<_> = dag.nodes_in_layer(layer).map(node_ctx).collect();
        self.render(
            "layer_review.j2",
            context! {
                dataset => Serde(dataset_context(dataset)), question => Serde(question),
                schema => self.schema(dataset, SchemaFocus::Question(&question.question)),
                dag_description => &dag.description, layer => layer, earlier => earlier, nodes => nodes,
            },
        )
    }
}

/// What a repair request tells the model about its unreadable reply.
#[derive(Debug, Default, Serialize)]
pub struct RepairNote {
    /// What was wrong, one entry per problem.
    pub problems: Vec<String>,
    /// The JSON Schema the reply must follow, as text (empty: none).
    pub expected: String,
    /// The reply held no text.
    pub empty: bool,
    /// The reply stopped at the token limit.
    pub cut_off: bool,
    /// For a question list: the questions already kept, which must not come again.
    pub kept: Vec<String>,
    /// For a question list: how many more questions are wanted.
    pub missing: usize,
}

impl Prompts {
    /// The user message of a repair exchange (`repair.j2`).
    pub fn repair(&self, note: &RepairNote) -> ChatMessage {
        let text = self.env.get_template("repair.j2").and_then(|template| template.render(Serde(note)));
        let text = text.unwrap_or_else(|err| format!("(template repair.j2 failed to render: {err})"));
        ChatMessage::user(text.trim())
    }
}

fn dataset_context(dataset: &Dataset) -> DatasetContext<'_> {
    DatasetContext {
        description: &dataset.metadata.description,
        domain: &dataset.metadata.domain,
        notes: &dataset.metadata.important_notes,
        documentation: &dataset.metadata.documentation,
    }
}

/// The complete feedback of a rejected iteration as the builder sees it.
pub fn feedback_text(feedback: &CriticFeedback) -> String {
    let mut lines = Vec::new();
    if !feedback.overall_reasoning.is_empty() {
        lines.push(feedback.overall_reasoning.clone());
    }
    for finding in &feedback.findings {
        let node = finding.node_id.as_deref().map(|n| format!("node {n}")).unwrap_or_else(|| "DAG".into());
        lines.push(format!("- [{}] {node} ({}): {}", finding.source.label(), finding.rule, finding.message));
    }
    for error in &feedback.specific_errors {
        if !feedback.findings.iter().any(|f| &f.message == error) {
            lines.push(format!("- {error}"));
        }
    }
    for suggestion in &feedback.suggestions {
        lines.push(format!("- suggestion: {suggestion}"));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_templates_compile() {
        Prompts::load(None).expect("built-in templates compile");
    }

    #[test]
    fn a_repair_note_names_the_problems_the_schema_and_the_kept_questions() {
        let prompts = Prompts::load(None).unwrap();
        let note = RepairNote {
            problems: vec!["question 2 is malformed".into()],
            expected: "{\"type\": \"object\"}".into(),
            kept: vec!["How many rows?".into()],
            missing: 1,
            ..RepairNote::default()
        };
        let text = prompts.repair(&note).content;
        assert!(text.starts_with("Your reply could not be read.\n- question 2 is malformed"), "{text}");
        assert!(text.contains("- How many rows?") && text.contains("Write 1 new question in"), "{text}");
        assert!(text.ends_with("following this JSON Schema:\n{\"type\": \"object\"}"), "{text}");
        let cut = prompts.repair(&RepairNote { cut_off: true, ..RepairNote::default() }).content;
        assert!(cut.contains("Write a shorter reply") && cut.ends_with("and nothing else."), "{cut}");
    }

    #[test]
    fn a_broken_user_template_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("dag_build.j2"), "{% if %}").unwrap();
        let err = Prompts::load(Some(dir.path())).unwrap_err().to_string();
        assert!(err.contains("dag_build.j2") && err.contains("syntax error"), "{err}");
    }
}
