//! The views of one question's section for `templates/question_summary.html.j2`
//! and `templates/question_body.html.j2`: attempts, iterations, the DAG
//! drawing, highlighted code with the findings that blame each node, outputs,
//! feedback, the changes since the previous iteration, and the conversation.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

use super::conversation::{ConversationEntry, conversation};
use super::dag_picture::{DagPicture, dag_picture};
use crate::domain::{CriticFeedback, ExecutionResult, Finding, FindingFate, IterationDiff, NodeChange, NodeId};
use crate::render::{highlight_html, node_verdict};
use crate::run::{Attempt, Iteration, QuestionState, RunState};
use crate::text::preview;

/// How many characters of a node output are shown before "more".
const OUTPUT_PREVIEW: usize = 400;

/// Highlighted node code, each distinct source highlighted once (unchanged
/// nodes repeat across iterations and attempts), kept as markup the
/// templates write as it is.
#[derive(Default)]
pub struct CodeHtml(HashMap<String, minijinja::Value>);

impl CodeHtml {
    /// The highlighted HTML of `code`.
    pub fn of(&mut self, code: &str) -> minijinja::Value {
        if let Some(highlighted) = self.0.get(code) {
            return highlighted.clone();
        }
        let highlighted = minijinja::Value::from_safe_string(highlight_html(code));
        self.0.insert(code.to_string(), highlighted.clone());
        highlighted
    }
}

/// A badge: its CSS class and text.
#[derive(Debug, Serialize)]
pub struct Badge {
    class: &'static str,
    text: &'static str,
}

/// A question's one-line summary.
#[derive(Debug, Serialize)]
pub struct QuestionSummary<'a> {
    id: &'a str,
    status: &'static str,
    status_class: String,
    level: &'static str,
    search: String,
    text: &'a str,
    answer: Option<String>,
    grade: Option<Badge>,
}

/// The summary line of `q`.
pub fn question_summary(q: &QuestionState) -> QuestionSummary<'_> {
    let status = q.status.label();
    QuestionSummary {
        id: &q.question.id,
        status,
        status_class: status.replace(' ', "-"),
        level: q.question.difficulty_level.as_str(),
        search: format!("{} {}", q.question.id, q.question.question).to_lowercase(),
        text: &q.question.question,
        answer: q.latest().and_then(|a| a.final_answer.as_ref()).map(|a| preview(a, 50)),
        grade: q.correct().map(|right| match right {
            true => Badge { class: "passed", text: "✓" },
            false => Badge { class: "failed", text: "✗ wrong" },
        }),
    }
}

/// A finding as shown: where from, which node, the rule and the message.
#[derive(Debug, Serialize)]
pub struct FindingView {
    class: String,
    fate: Option<&'static str>,
    source: &'static str,
    node: Option<NodeId>,
    rule: String,
    message: String,
}

fn finding_view(finding: &Finding, fate: Option<FindingFate>) -> FindingView {
    FindingView {
        class: finding.source.label().replace(' ', "-"),
        fate: fate.map(|f| match f {
            FindingFate::Resolved => "resolved",
            FindingFate::Persisting => "persisting",
            FindingFate::New => "new",
        }),
        source: finding.source.label(),
        node: finding.node_id.clone(),
        rule: finding.rule.to_string(),
        message: finding.message.clone(),
    }
}

/// A node's output: whole, or a preview with the whole text behind "more".
#[derive(Debug, Serialize)]
struct OutputView {
    preview: Option<String>,
    text: String,
}

/// One node of an iteration: its code and the findings that blame it.
#[derive(Debug, Serialize)]
struct NodeView<'a> {
    class: &'static str,
    id: &'a str,
    layer: usize,
    operation: &'a str,
    is_final: bool,
    inputs: String,
    code: minijinja::Value,
    findings: Vec<FindingView>,
    output: Option<OutputView>,
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

fn nodes<'a>(
    it: &'a Iteration,
    trial: Option<&ExecutionResult>,
    code_html: &mut CodeHtml,
) -> Option<Vec<NodeView<'a>>> {
    let dag = it.dag.as_ref()?;
    let feedback = it.feedback.as_ref();
    let views = dag.nodes.iter().map(|node| {
        let inputs: Vec<String> = node.inputs.iter().map(|(k, v)| format!("{k} ← {v}")).collect();
        let output = trial.and_then(|t| t.node_outputs.get(&node.node_id)).map(|output| {
            let text = pretty(output);
            let long = text.chars().count() > OUTPUT_PREVIEW;
            OutputView { preview: long.then(|| preview(output, 80)), text }
        });
        NodeView {
            class: node_verdict(feedback, &node.node_id).class(),
            id: &node.node_id,
            layer: node.layer,
            operation: &node.operation,
            is_final: node.node_id == dag.final_answer_node,
            inputs: inputs.join(", "),
            code: code_html.of(&node.code),
            findings: feedback
                .into_iter()
                .flat_map(|f| f.findings_for_node(&node.node_id))
                .map(|f| finding_view(f, None))
                .collect(),
            output,
        }
    });
    Some(views.collect())
}

/// One layer's validation in the critic's feedback.
#[derive(Debug, Serialize)]
struct LayerView {
    index: usize,
    nodes: String,
    valid: bool,
    issues: String,
}

/// The critic's feedback on an iteration.
#[derive(Debug, Serialize)]
struct FeedbackView<'a> {
    reasoning: &'a str,
    layers: Vec<LayerView>,
    unpinned: Vec<FindingView>,
    suggestions: &'a [String],
}

fn feedback_view(feedback: &CriticFeedback) -> FeedbackView<'_> {
    FeedbackView {
        reasoning: &feedback.overall_reasoning,
        layers: feedback
            .layer_validations
            .iter()
            .map(|layer| LayerView {
                index: layer.layer_index,
                nodes: layer.nodes_in_layer.join(", "),
                valid: layer.is_valid,
                issues: layer.issues.join("; "),
            })
            .collect(),
        unpinned: feedback.findings.iter().filter(|f| f.node_id.is_none()).map(|f| finding_view(f, None)).collect(),
        suggestions: &feedback.suggestions,
    }
}

/// A node added, removed or changed since the previous iteration.
#[derive(Debug, Serialize)]
struct ChangeView {
    kind: &'static str,
    node: NodeId,
    code_diff: Option<String>,
}

/// What changed since the previous iteration, and what became of its findings.
#[derive(Debug, Serialize)]
struct DiffView {
    previous: u32,
    changes: Vec<ChangeView>,
    findings: Vec<FindingView>,
}

fn diff_view(previous: &Iteration, current: &Iteration) -> Option<DiffView> {
    let (Some(before), Some(after)) = (&previous.dag, &current.dag) else { return None };
    let diff = IterationDiff::between(before, previous.feedback.as_ref(), after, current.feedback.as_ref());
    let changes = diff
        .nodes
        .iter()
        .filter_map(|change| match change {
            NodeChange::Added { node } => {
                Some(ChangeView { kind: "added", node: node.node_id.clone(), code_diff: None })
            }
            NodeChange::Removed { node } => {
                Some(ChangeView { kind: "removed", node: node.node_id.clone(), code_diff: None })
            }
            NodeChange::Changed { after, code_diff, .. } => {
                Some(ChangeView { kind: "changed", node: after.node_id.clone(), code_diff: Some(code_diff.clone()) })
            }
            NodeChange::Unchanged { .. } => None,
        })
        .collect();
    let findings = diff.findings.iter().map(|(fate, finding)| finding_view(finding, Some(*fate))).collect();
    Some(DiffView { previous: previous.number, changes, findings })
}

/// A person's label on an iteration's answer.
#[derive(Debug, Serialize)]
struct LabelView<'a> {
    verdict: &'static str,
    superseded: bool,
    at: String,
    reason: &'a str,
}

/// One iteration of an attempt.
#[derive(Debug, Serialize)]
struct IterationView<'a> {
    number: u32,
    open: bool,
    verdict: Badge,
    findings: usize,
    plan: Option<&'a str>,
    dag: Option<DagPicture>,
    nodes: Option<Vec<NodeView<'a>>>,
    labels: Vec<LabelView<'a>>,
    feedback: Option<FeedbackView<'a>>,
    diff: Option<DiffView>,
}

fn iteration_view<'a>(attempt: &'a Attempt, index: usize, code_html: &mut CodeHtml) -> IterationView<'a> {
    let it = &attempt.iterations[index];
    let verdict = match &it.feedback {
        Some(_) if attempt.by_hand => Badge { class: "by-hand", text: "✎ written by hand (checked, not reviewed)" },
        Some(f) if f.is_approved => Badge { class: "passed", text: "approved" },
        Some(_) => Badge { class: "rejected", text: "rejected" },
        None => Badge { class: "", text: "no verdict" },
    };
    IterationView {
        number: it.number,
        open: index + 1 == attempt.iterations.len(),
        verdict,
        findings: it.feedback.as_ref().map_or(0, |f| f.findings.len()),
        plan: it.dag.as_ref().map(|dag| dag.description.as_str()),
        dag: it.dag.as_ref().map(|dag| dag_picture(dag, it.feedback.as_ref())),
        nodes: nodes(it, it.trial.as_ref(), code_html),
        labels: it
            .labels
            .iter()
            .enumerate()
            .map(|(n, label)| LabelView {
                verdict: if label.right { "right" } else { "wrong" },
                superseded: n + 1 < it.labels.len(),
                at: format!("{:.1}s", label.t_ms as f64 / 1000.0),
                reason: &label.reason,
            })
            .collect(),
        feedback: it.feedback.as_ref().map(feedback_view),
        diff: index.checked_sub(1).and_then(|previous| diff_view(&attempt.iterations[previous], it)),
    }
}

/// One attempt at a question.
#[derive(Debug, Serialize)]
struct AttemptView<'a> {
    /// `epoch 2 · draft 3 · ` where not 1 (`run --repeat`, `run --consensus`).
    place: String,
    number: u32,
    forked: Option<String>,
    outcome: &'static str,
    iterations: Vec<IterationView<'a>>,
}

/// A grade of the latest attempt's answer.
#[derive(Debug, Serialize)]
struct GradeView<'a> {
    class: &'static str,
    mark: &'static str,
    method: &'a str,
    score: String,
    reason: &'a str,
}

/// The details of a question.
#[derive(Debug, Serialize)]
pub struct QuestionBody<'a> {
    reasoning: &'a str,
    tokens: u64,
    prompt_tokens: u64,
    cached_tokens: u64,
    cost: String,
    final_answer: Option<String>,
    narrative: Option<&'a str>,
    expected: Option<String>,
    grades: Vec<GradeView<'a>>,
    reason: Option<&'a str>,
    attempts: Vec<AttemptView<'a>>,
    conversation: Vec<ConversationEntry>,
}

/// The details of question `q`: answer, grades, every attempt's iterations and the conversation.
pub fn question_body<'a>(state: &'a RunState, q: &'a QuestionState, code_html: &mut CodeHtml) -> QuestionBody<'a> {
    let latest = q.latest();
    QuestionBody {
        reasoning: &q.question.reasoning,
        tokens: q.usage.total(),
        prompt_tokens: q.usage.prompt_tokens,
        cached_tokens: q.usage.cached_tokens,
        cost: format!("${:.4}", q.cost_usd),
        final_answer: latest.and_then(|a| a.final_answer.as_ref()).map(pretty),
        narrative: latest.and_then(|a| a.narrative.as_deref()),
        expected: q.question.expected_answer.as_ref().map(pretty),
        grades: latest
            .map(|a| a.grades.as_slice())
            .unwrap_or_default()
            .iter()
            .map(|grade| GradeView {
                class: if grade.passed { "passed" } else { "failed" },
                mark: if grade.passed { "✓ right" } else { "✗ wrong" },
                method: grade.method.name(),
                score: grade.score.map_or("error".to_string(), |s| format!("{s:.2}")),
                reason: grade.error.as_deref().unwrap_or(&grade.reason),
            })
            .collect(),
        reason: latest.and_then(|a| a.reason.as_deref()),
        attempts: q
            .attempts()
            .iter()
            .map(|attempt| {
                let how = if attempt.by_hand { "by hand, from" } else { "forked from" };
                AttemptView {
                    place: crate::domain::epoch_draft_prefix(attempt.epoch, attempt.draft),
                    number: attempt.number,
                    forked: attempt.forked_from.map(|from| format!("{how} {}", from.label())),
                    outcome: attempt.outcome.map(|o| o.label()).unwrap_or("unfinished"),
                    iterations: (0..attempt.iterations.len()).map(|i| iteration_view(attempt, i, code_html)).collect(),
                }
            })
            .collect(),
        conversation: conversation(state, q),
    }
}
