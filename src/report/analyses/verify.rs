//! `replay --verify`: re-execute every approved DAG of a trace — and every
//! DAG written by hand — in today's sandbox and report drift — changed answers or node outputs, DAGs that now
//! fail, and a dataset whose content changed.

use serde::Serialize;
use serde_json::Value;
use similar::TextDiff;

use crate::dag::DagExecutor;
use crate::domain::{ExecutionResult, GeneratedDag, NodeId, Question, QuestionId};
use crate::grade::Grader;
use crate::run::{Attempt, RunState};

/// One difference between a recorded execution and today's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Drift {
    /// Question id.
    pub question_id: QuestionId,
    /// Attempt number.
    pub attempt: u32,
    /// What drifted.
    pub what: Drifted,
    /// Unified diff (recorded → today) or a message.
    pub detail: String,
}

/// What drifted; written `final_answer`, `node_output:<id>`, `now_fails`,
/// `now_succeeds` or `grade` (in `replay --verify`'s lines and its JSON).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Drifted {
    /// The final answer changed.
    FinalAnswer,
    /// The output of this node changed (or it has none today).
    NodeOutput(NodeId),
    /// The DAG ran and now fails.
    NowFails,
    /// The DAG failed and now runs.
    NowSucceeds,
    /// The answer was right and is now wrong, or the other way round.
    Grade,
}

impl std::fmt::Display for Drifted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::FinalAnswer => f.write_str("final_answer"),
            Self::NodeOutput(node) => write!(f, "node_output:{node}"),
            Self::NowFails => f.write_str("now_fails"),
            Self::NowSucceeds => f.write_str("now_succeeds"),
            Self::Grade => f.write_str("grade"),
        }
    }
}

impl Serialize for Drifted {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// The outcome of verifying a trace.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct VerifyReport {
    /// DAGs re-executed.
    pub checked: usize,
    /// Whether the dataset's content hash differs from the recorded one.
    pub dataset_changed: bool,
    /// Every drift found.
    pub drifts: Vec<Drift>,
}

impl VerifyReport {
    /// Whether anything drifted.
    pub fn has_drift(&self) -> bool {
        self.dataset_changed || !self.drifts.is_empty()
    }
}

/// Unified diff of two JSON values, pretty-printed.
pub fn json_diff(recorded: &Value, today: &Value) -> String {
    let a = serde_json::to_string_pretty(recorded).unwrap_or_default();
    let b = serde_json::to_string_pretty(today).unwrap_or_default();
    TextDiff::from_lines(&a, &b).unified_diff().context_radius(2).header("recorded", "today").to_string()
}

fn compare(question_id: &QuestionId, attempt: u32, recorded: &ExecutionResult, today: &ExecutionResult) -> Vec<Drift> {
    let drift = |what: Drifted, detail: String| Drift { question_id: question_id.clone(), attempt, what, detail };
    match (recorded.success, today.success) {
        (true, false) => {
            return vec![drift(Drifted::NowFails, today.error.clone().unwrap_or_else(|| "execution failed".into()))];
        }
        (false, true) => return vec![drift(Drifted::NowSucceeds, "the recorded execution failed".into())],
        (false, false) => return Vec::new(),
        (true, true) => {}
    }
    let mut drifts = Vec::new();
    if recorded.final_answer != today.final_answer {
        let null = Value::Null;
        let (a, b) = (recorded.final_answer.as_ref().unwrap_or(&null), today.final_answer.as_ref().unwrap_or(&null));
        drifts.push(drift(Drifted::FinalAnswer, json_diff(a, b)));
    }
    for (node, before) in &recorded.node_outputs {
        match today.node_outputs.get(node) {
            Some(after) if after == before => {}
            Some(after) => drifts.push(drift(Drifted::NodeOutput(node.clone()), json_diff(before, after))),
            None => drifts.push(drift(Drifted::NodeOutput(node.clone()), "no output today".into())),
        }
    }
    drifts
}

/// A ground-truth verdict that flipped between the recorded answer and today's.
fn regrade(
    question: &Question,
    attempt: u32,
    grader: &Grader,
    recorded: &ExecutionResult,
    today: &ExecutionResult,
) -> Option<Drift> {
    let before = grader.ground_truth(question, recorded.final_answer.as_ref())?;
    let after = grader.ground_truth(question, today.final_answer.as_ref())?;
    let word = |passed: bool| if passed { "right" } else { "wrong" };
    (before.passed != after.passed).then(|| Drift {
        question_id: question.id.clone(),
        attempt,
        what: Drifted::Grade,
        detail: format!("{} → {}: {}", word(before.passed), word(after.passed), after.error.unwrap_or(after.reason)),
    })
}

/// The DAG an attempt ran and what it gave: the approved DAG's execution;
/// for an attempt by hand, its DAG's execution once accepted, else its trial run.
fn recorded_run(attempt: &Attempt) -> Option<(&GeneratedDag, &ExecutionResult)> {
    if attempt.by_hand {
        let it = attempt.iterations.last()?;
        return Some((it.dag.as_ref()?, attempt.execution.as_ref().or(it.trial.as_ref())?));
    }
    let approved = attempt.iterations.iter().rev().find(|i| i.feedback.as_ref().is_some_and(|f| f.is_approved))?;
    Some((approved.dag.as_ref()?, attempt.execution.as_ref()?))
}

/// Re-execute every approved DAG in `state` (and every DAG written by hand) with its question's executor (seed `seed`),
/// re-grading changed answers against their expected answers with `grader`.
pub async fn verify<'e>(
    state: &RunState,
    executor_of: impl Fn(&crate::domain::Question) -> &'e dyn DagExecutor,
    grader: &Grader,
    seed: u64,
    dataset_changed: bool,
) -> VerifyReport {
    let mut report = VerifyReport { dataset_changed, ..VerifyReport::default() };
    for q in &state.questions {
        for attempt in q.attempts() {
            let Some((dag, recorded)) = recorded_run(attempt) else { continue };
            let today = executor_of(&q.question).execute(dag, seed).await;
            report.checked += 1;
            report.drifts.extend(compare(&q.question.id, attempt.number, recorded, &today));
            report.drifts.extend(regrade(&q.question, attempt.number, grader, recorded, &today));
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(answer: Value, nodes: &[(&str, Value)]) -> ExecutionResult {
        ExecutionResult {
            success: true,
            final_answer: Some(answer),
            node_outputs: nodes.iter().map(|(k, v)| ((*k).into(), v.clone())).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn identical_results_do_not_drift() {
        let r = result(json!(3), &[("a", json!([1, 2]))]);
        assert!(compare(&"q".into(), 1, &r, &r.clone()).is_empty());
    }

    #[test]
    fn changed_answers_and_outputs_drift_with_a_readable_diff() {
        let before = result(json!({"x": 1}), &[("a", json!([1, 2])), ("b", json!("s"))]);
        let after = result(json!({"x": 2}), &[("a", json!([1, 3]))]);
        let drifts = compare(&"q".into(), 1, &before, &after);
        let what: Vec<String> = drifts.iter().map(|d| d.what.to_string()).collect();
        assert_eq!(what, vec!["final_answer", "node_output:a", "node_output:b"]);
        let written = serde_json::to_value(&drifts[1]).unwrap();
        assert_eq!(written["what"], "node_output:a", "written as before the enum");
        assert!(
            drifts[0].detail.contains("-  \"x\": 1") && drifts[0].detail.contains("+  \"x\": 2"),
            "{}",
            drifts[0].detail
        );
        let failing = ExecutionResult { success: false, error: Some("boom".into()), ..Default::default() };
        assert_eq!(compare(&"q".into(), 1, &before, &failing)[0].what, Drifted::NowFails);
    }
}
