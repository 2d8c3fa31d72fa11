//! Differential checks: an approved DAG's final execution run again on the
//! other engine, and the two results compared as the results compare answers
//! (every part equal, numbers to the run's tolerance). The question keeps the
//! run's own engine's answer; a difference is recorded as an
//! `engine_divergence` event, labelled with its kind (see `DivergenceKind`).

use std::sync::Arc;

use serde_json::Value;

use crate::dag::DagExecutor;
use crate::domain::{DivergenceKind, EngineDivergence, EngineOutcome, ExecutionResult, Question};
use crate::grade::{MatchOptions, match_values};

/// A run's differential check: the other engine's sandbox over each dataset.
pub struct EngineCheck {
    /// The sandbox of the other engine over the run's dataset.
    pub executor: Arc<dyn DagExecutor>,
    /// The same over each dataset of a run over several, by name.
    pub named: std::collections::BTreeMap<String, Arc<dyn DagExecutor>>,
}

impl EngineCheck {
    /// The other engine's sandbox over `question`'s dataset.
    #[must_use]
    pub fn executor_of(&self, question: &Question) -> &Arc<dyn DagExecutor> {
        question.dataset.as_ref().and_then(|name| self.named.get(name)).unwrap_or(&self.executor)
    }
}

/// Whether two values are equal part for part under `options`.
fn same(a: &Value, b: &Value, options: &MatchOptions) -> bool {
    let matched = match_values(a, b, options);
    matched.right == matched.total
}

/// `value` with every list sorted by its items' text, recursively: two
/// values equal in this form hold the same items, whatever their order.
fn unordered(value: &Value) -> Value {
    match value {
        Value::Array(items) => {
            let mut items: Vec<Value> = items.iter().map(unordered).collect();
            items.sort_by_cached_key(Value::to_string);
            Value::Array(items)
        }
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), unordered(v))).collect()),
        other => other.clone(),
    }
}

fn outcome(result: &ExecutionResult) -> EngineOutcome {
    EngineOutcome {
        engine: result.engine,
        answer: result.success.then(|| result.final_answer.clone()).flatten(),
        error: result.error.clone(),
    }
}

/// Where the `other` engine's run of a DAG parts from the `primary`'s, if it does.
#[must_use]
pub fn compare(primary: &ExecutionResult, other: &ExecutionResult, options: &MatchOptions) -> Option<EngineDivergence> {
    let (a, b) = (primary, other);
    // A node's None is JSON's null, which reads back as no answer.
    let null = Value::Null;
    let (x, y) = (a.final_answer.as_ref().unwrap_or(&null), b.final_answer.as_ref().unwrap_or(&null));
    let kind = match (a.success, b.success) {
        (true, true) if same(x, y, options) => return None,
        (true, true) if same(&unordered(x), &unordered(y), options) => DivergenceKind::Order,
        (true, true) => DivergenceKind::Answer,
        (false, false) if a.error_node == b.error_node && a.error == b.error => return None,
        (false, false) if a.error_node == b.error_node => DivergenceKind::ErrorText,
        _ => DivergenceKind::Outcome,
    };
    let first_node = a
        .node_outputs
        .iter()
        .find(|(node, shown)| b.node_outputs.get(*node).is_none_or(|theirs| !same(shown, theirs, options)))
        .map(|(node, _)| node.clone())
        .or_else(|| b.node_outputs.keys().find(|node| !a.node_outputs.contains_key(*node)).cloned())
        .or_else(|| a.error_node.clone().or_else(|| b.error_node.clone()));
    Some(EngineDivergence { kind, primary: outcome(a), other: outcome(b), first_node })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Engine;
    use serde_json::json;

    fn answered(answer: Value, outputs: &[(&str, Value)]) -> ExecutionResult {
        ExecutionResult {
            success: true,
            final_answer: Some(answer),
            node_outputs: outputs.iter().map(|(id, v)| ((*id).into(), v.clone())).collect(),
            ..Default::default()
        }
    }

    fn failed(node: &str, error: &str, outputs: &[(&str, Value)]) -> ExecutionResult {
        ExecutionResult {
            error: Some(format!("node {node}: {error}")),
            error_node: Some(node.into()),
            node_outputs: outputs.iter().map(|(id, v)| ((*id).into(), v.clone())).collect(),
            ..Default::default()
        }
    }

    fn check(a: &ExecutionResult, b: &ExecutionResult) -> Option<EngineDivergence> {
        let b = ExecutionResult { engine: Engine::CPython, ..b.clone() };
        compare(a, &b, &MatchOptions::default())
    }

    #[test]
    fn equal_answers_and_equal_failures_do_not_diverge() {
        let a = answered(json!({"n": 3, "mean": 0.1}), &[("a", json!([1, 2])), ("b", json!(3))]);
        assert_eq!(check(&a, &a.clone()), None);
        let f = failed("b", "ZeroDivisionError: division by zero", &[("a", json!(1))]);
        assert_eq!(check(&f, &f.clone()), None);
    }

    #[test]
    fn each_kind_of_difference_is_named_with_the_first_node_that_differs() {
        let base = answered(json!(["apple", "banana"]), &[("a", json!(1)), ("b", json!(["apple", "banana"]))]);
        let reordered = answered(json!(["banana", "apple"]), &[("a", json!(1)), ("b", json!(["banana", "apple"]))]);
        let order = check(&base, &reordered).unwrap();
        assert_eq!((order.kind, order.first_node.as_deref()), (DivergenceKind::Order, Some("b")));
        assert_eq!(order.primary.answer, Some(json!(["apple", "banana"])));
        assert_eq!(order.other.engine, Engine::CPython);

        let other = answered(json!(["apple"]), &[("a", json!(2)), ("b", json!(["apple"]))]);
        let answer = check(&base, &other).unwrap();
        assert_eq!((answer.kind, answer.first_node.as_deref()), (DivergenceKind::Answer, Some("a")));

        let one = failed("b", "ZeroDivisionError: division by zero", &[("a", json!(1))]);
        let two = failed("b", "ZeroDivisionError: integer division or modulo by zero", &[("a", json!(1))]);
        let text = check(&one, &two).unwrap();
        assert_eq!((text.kind, text.first_node.as_deref()), (DivergenceKind::ErrorText, Some("b")));
        assert_eq!(text.other.error.as_deref(), Some("node b: ZeroDivisionError: integer division or modulo by zero"));

        let outcome = check(&base, &one).unwrap();
        assert_eq!((outcome.kind, outcome.first_node.as_deref()), (DivergenceKind::Outcome, Some("b")));
        assert_eq!((outcome.primary.answer.is_some(), outcome.other.answer), (true, None));
    }

    #[test]
    fn numbers_within_the_tolerance_are_the_same_answer() {
        let a = answered(json!({"mean": 0.30000000000000004}), &[]);
        let b = answered(json!({"mean": 0.3}), &[]);
        assert_eq!(check(&a, &b), None);
    }
}
