//! Turning a trial run and the LLM's layer reviews into findings.

use futures::{StreamExt, stream};
use schemars::JsonSchema;
use serde_json::Value;

use super::context::RunContext;
use crate::domain::{CallKey, LlmRole, NodeId};
use crate::domain::{
    ExecutionResult, Finding, FindingSource, GeneratedDag, IterationAt, LayerValidation, Question, ReplySchema, Rule,
    Severity,
};
use crate::llm::{LlmError, Unreadable};
use crate::prompts::extract_json_object;

/// How many trailing traceback lines a runtime finding quotes.
const TRACEBACK_LINES: usize = 4;

/// Whether a JSON value is of the Python type a builder promised (unknown
/// promises are accepted).
fn matches_type(expected: &str, value: &Value) -> bool {
    let expected = expected.trim().to_ascii_lowercase();
    let base = expected.split(['[', '(', ' ']).next().unwrap_or("");
    match base {
        "float" | "number" | "numeric" => value.is_number(),
        "int" | "integer" => value.is_i64() || value.is_u64(),
        "str" | "string" => value.is_string(),
        "bool" | "boolean" => value.is_boolean(),
        "list" | "array" | "tuple" | "set" => value.is_array(),
        "dict" | "object" | "mapping" => value.is_object(),
        _ => true,
    }
}

/// Findings of a trial run: the failing node with its traceback, output types
/// that break the builder's promise, and a final answer of `None`.
pub fn trial_findings(dag: &GeneratedDag, result: &ExecutionResult) -> Vec<Finding> {
    let mut findings = Vec::new();
    let layer_of = |id: &str| dag.node(id).map(|n| n.layer);
    if !result.success {
        let mut message = result.error.clone().unwrap_or_else(|| "execution failed".into());
        if let Some(traceback) = &result.traceback {
            let lines: Vec<&str> = traceback.lines().collect();
            let tail = lines[lines.len().saturating_sub(TRACEBACK_LINES)..].join("\n");
            if !tail.is_empty() && !message.contains(tail.trim()) {
                message = format!("{message}\n{tail}");
            }
        }
        findings.push(Finding {
            node_id: result.error_node.clone(),
            layer: result.error_node.as_deref().and_then(layer_of),
            rule: Rule::RuntimeError,
            source: FindingSource::TrialRun,
            message,
            severity: Severity::Error,
        });
        return findings;
    }
    for node in &dag.nodes {
        let Some(output) = result.node_outputs.get(&node.node_id) else {
            continue;
        };
        if node.node_id == dag.final_answer_node && output.is_null() {
            findings.push(Finding {
                node_id: Some(node.node_id.clone()),
                layer: Some(node.layer),
                rule: Rule::FinalAnswerNone,
                source: FindingSource::TrialRun,
                message: format!("the final node {} returned None; it must return the answer", node.node_id),
                severity: Severity::Error,
            });
        } else if !output.is_null() && !matches_type(&node.expected_output_type, output) {
            findings.push(Finding {
                node_id: Some(node.node_id.clone()),
                layer: Some(node.layer),
                rule: Rule::OutputTypeMismatch,
                source: FindingSource::TrialRun,
                message: format!(
                    "node {} promised {} but returned {}",
                    node.node_id,
                    node.expected_output_type,
                    crate::dataset::python_type_name(output)
                ),
                severity: Severity::Warning,
            });
        }
    }
    findings
}

/// The LLM's review of every layer.
pub struct SemanticReview {
    /// One validation per layer.
    pub layers: Vec<LayerValidation>,
    /// Findings pinned to nodes where the reviewer named one.
    pub findings: Vec<Finding>,
    /// The reviewers' reasoning, one paragraph per layer.
    pub reasoning: Vec<String>,
}

/// Layer `layer`'s verdict from its review: the reply's JSON object, or why
/// none could be read (after the repairs).
fn parse_layer_reply(
    dag: &GeneratedDag,
    layer: usize,
    reply: Result<Value, Unreadable>,
) -> (LayerValidation, Vec<Finding>, String) {
    let nodes: Vec<NodeId> = dag.nodes_in_layer(layer).map(|n| n.node_id.clone()).collect();
    let only_node = (nodes.len() == 1).then(|| nodes[0].clone());
    let finding = |node_id: Option<NodeId>, rule: Rule, message: String| Finding {
        node_id,
        layer: Some(layer),
        rule,
        source: FindingSource::Semantic,
        message,
        severity: Severity::Error,
    };
    let value = match reply {
        Ok(value) => value,
        Err(Unreadable(err)) => {
            let message = format!("the review of layer {layer} could not be read: {err}");
            let validation = LayerValidation {
                layer_index: layer,
                nodes_in_layer: nodes,
                is_valid: false,
                issues: vec![message.clone()],
            };
            return (validation, vec![finding(None, Rule::UnparseableReview, message)], String::new());
        }
    };
    let reply = LayerReviewReply::read(&value);
    let mut issues = Vec::new();
    let mut findings = Vec::new();
    for issue in reply.issues {
        let node_id = issue.node_id.filter(|id| nodes.contains(id)).or(only_node.clone());
        if issue.message.trim().is_empty() {
            continue;
        }
        issues.push(issue.message.clone());
        findings.push(finding(node_id, Rule::SemanticIssue, issue.message));
    }
    let is_valid = reply.is_valid;
    if !is_valid && findings.is_empty() {
        let message = format!("the reviewer rejected layer {layer} without naming an issue");
        issues.push(message.clone());
        findings.push(finding(only_node, Rule::SemanticIssue, message));
    }
    let findings = if is_valid { Vec::new() } else { findings };
    (LayerValidation { layer_index: layer, nodes_in_layer: nodes, is_valid, issues }, findings, reply.reasoning)
}

/// A reviewer's verdict on one layer: the shape its schema asks for.
#[derive(Debug, JsonSchema)]
struct LayerReviewReply {
    /// Whether every node of the layer is right.
    is_valid: bool,
    /// What is wrong, one entry per problem.
    issues: Vec<ReviewIssue>,
    /// Why, in a few sentences.
    reasoning: String,
}

/// One problem a reviewer names.
#[derive(Debug, JsonSchema)]
struct ReviewIssue {
    /// The node at fault, if one is.
    node_id: Option<NodeId>,
    /// What is wrong and how to fix it.
    message: String,
}

impl LayerReviewReply {
    /// The reply in `value`, read leniently: an issue may be a bare string, its
    /// text under `message` or `issue`; a missing verdict is "valid when no
    /// issue is named".
    fn read(value: &Value) -> Self {
        let issues: Vec<ReviewIssue> = value
            .get("issues")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|issue| match issue {
                Value::String(text) => Some(ReviewIssue { node_id: None, message: text.clone() }),
                Value::Object(map) => Some(ReviewIssue {
                    node_id: map.get("node_id").and_then(Value::as_str).map(NodeId::from),
                    message: map
                        .get("message")
                        .or(map.get("issue"))
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                }),
                _ => None,
            })
            .collect();
        let named = issues.iter().any(|i| !i.message.trim().is_empty());
        Self {
            is_valid: value.get("is_valid").and_then(Value::as_bool).unwrap_or(!named),
            issues,
            reasoning: value.get("reasoning").and_then(Value::as_str).unwrap_or_default().to_string(),
        }
    }
}

/// The schema of a layer review's reply.
fn review_schema() -> ReplySchema {
    ReplySchema::of::<LayerReviewReply>("layer_review")
}

/// Review every layer of `dag`, `ctx.review_concurrency` layers at a time (0:
/// all at once). An LLM call that fails for good (rate limits included) fails
/// the review: it is never silently approved.
pub async fn review_layers(
    ctx: &RunContext,
    question: &Question,
    dag: &GeneratedDag,
    trial: &ExecutionResult,
    at: &IterationAt,
) -> Result<SemanticReview, (usize, LlmError)> {
    let layers = dag.layer_count();
    let calls = (0..layers).map(|layer| async move {
        let key = CallKey::for_iteration(at, LlmRole::LayerReview, Some(layer));
        let messages = ctx.parts.prompts.layer_review(ctx.parts.data_of(question).0, question, dag, layer, trial);
        let read = |reply: &str| extract_json_object(reply).map_err(|err| err.to_string());
        (layer, ctx.call_readable(key, messages, Some(review_schema()), read).await)
    });
    let mut review = SemanticReview { layers: Vec::new(), findings: Vec::new(), reasoning: Vec::new() };
    let at_once = if ctx.review_concurrency == 0 { layers } else { ctx.review_concurrency };
    let replies: Vec<_> = stream::iter(calls).buffered(at_once.max(1)).collect().await;
    for (layer, reply) in replies {
        let reply = reply.map_err(|err| (layer, err))?;
        let (validation, findings, reasoning) = parse_layer_reply(dag, layer, reply);
        review.layers.push(validation);
        review.findings.extend(findings);
        if !reasoning.is_empty() {
            review.reasoning.push(format!("layer {layer}: {reasoning}"));
        }
    }
    Ok(review)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dag() -> GeneratedDag {
        serde_json::from_value(json!({"question_id": "q", "final_answer_node": "b", "nodes": [
            {"node_id": "a", "function_name": "f", "layer": 0, "code": "", "expected_output_type": "dict"},
            {"node_id": "b", "function_name": "g", "layer": 1, "code": "", "expected_output_type": "float"}]}))
        .unwrap()
    }

    #[test]
    fn runtime_error_is_pinned_with_the_traceback_tail() {
        let result = ExecutionResult {
            success: false,
            error: Some("KeyError: 'amount'".into()),
            error_node: Some("a".into()),
            traceback: Some("Traceback:\n  line 1\n  line 2\n  line 3\nKeyError: 'amount'".into()),
            ..Default::default()
        };
        let findings = trial_findings(&dag(), &result);
        assert_eq!(findings.len(), 1);
        assert_eq!((findings[0].node_id.as_deref(), findings[0].layer), (Some("a"), Some(0)));
        assert!(findings[0].message.contains("line 3"), "{}", findings[0].message);
    }

    #[test]
    fn type_mismatch_and_none_answer() {
        let mut result = ExecutionResult { success: true, ..Default::default() };
        result.node_outputs.insert("a".into(), json!([1, 2]));
        result.node_outputs.insert("b".into(), Value::Null);
        let findings = trial_findings(&dag(), &result);
        let rules: Vec<&str> = findings.iter().map(|f| f.rule.name()).collect();
        assert_eq!(rules, vec!["output_type_mismatch", "final_answer_none"]);
        assert_eq!(findings[0].severity, Severity::Warning);
    }

    #[test]
    fn review_replies_are_read_leniently() {
        let read = |reply: &str| extract_json_object(reply).map_err(|err| Unreadable(err.to_string()));
        let (v, f, _) = parse_layer_reply(
            &dag(),
            1,
            read(
                r#"```json
{"is_valid": false, "issues": ["divides by the wrong count",], "reasoning": "r"}```"#,
            ),
        );
        assert!(!v.is_valid);
        assert_eq!(f[0].node_id.as_deref(), Some("b"), "a one-node layer's issue is pinned to that node");
        let (v, f, _) = parse_layer_reply(&dag(), 0, read("looks fine to me"));
        assert!(!v.is_valid && f[0].rule == Rule::UnparseableReview);
        let (v, f, r) = parse_layer_reply(&dag(), 0, read(r#"{"is_valid": true, "issues": [], "reasoning": "ok"}"#));
        assert!(v.is_valid && f.is_empty() && r == "ok");
    }
}
