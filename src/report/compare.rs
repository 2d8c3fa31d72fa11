//! Two runs side by side, question by question: regressions and improvements
//! first.

use serde::Serialize;
use serde_json::Value;

use super::results_doc::{DetailedResult, EvalResults};

/// How a question changed from run A to run B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// Passed in A, not in B.
    Regression,
    /// Not passed in A, passed in B.
    Improvement,
    /// Passed in both with different answers.
    AnswerChanged,
    /// Fixed by hand in one run only: the difference is not the model's.
    FixedByHand,
    /// Only in A.
    OnlyInA,
    /// Only in B.
    OnlyInB,
    /// Same status and answer.
    Unchanged,
}

impl Change {
    /// How the change is named to people.
    pub fn label(self) -> &'static str {
        match self {
            Change::Regression => "regression",
            Change::Improvement => "improved",
            Change::AnswerChanged => "answer changed",
            Change::FixedByHand => "fixed by hand",
            Change::OnlyInA => "only in A",
            Change::OnlyInB => "only in B",
            Change::Unchanged => "same",
        }
    }
}

/// One side of a compared question.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Side {
    /// Status label.
    pub status: String,
    /// Whether it has an answer that passed (the model's, or one fixed by hand).
    pub success: bool,
    /// Whether the user fixed it by hand.
    pub fixed_by_hand: bool,
    /// The answer.
    pub answer: Value,
    /// Iterations used.
    pub iterations: u64,
    /// Tokens spent.
    pub tokens: u64,
}

/// One question in both runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// Question id.
    pub question_id: String,
    /// Question text.
    pub question: String,
    /// What changed.
    pub change: Change,
    /// Run A's side.
    pub a: Option<Side>,
    /// Run B's side.
    pub b: Option<Side>,
}

fn side(result: &DetailedResult) -> Side {
    Side {
        status: result.status.clone(),
        success: result.success,
        fixed_by_hand: result.fixed_by_hand,
        answer: result.final_answer.clone().unwrap_or(Value::Null),
        iterations: result.iterations as u64,
        tokens: result.tokens.total,
    }
}

fn results(doc: &EvalResults) -> Vec<(String, String, Side)> {
    doc.detailed_results.iter().map(|r| (r.question_id.clone(), r.question.clone(), side(r))).collect()
}

/// Compare results documents `a` and `b`; rows sorted by change, then A's order.
pub fn compare(a: &EvalResults, b: &EvalResults) -> Vec<Row> {
    let a_rows = results(a);
    let mut b_rows = results(b);
    let mut rows = Vec::new();
    for (id, question, a_side) in a_rows {
        let b_side = b_rows.iter().position(|(b_id, _, _)| *b_id == id).map(|i| b_rows.remove(i).2);
        let change = match &b_side {
            None => Change::OnlyInA,
            Some(b) if a_side.fixed_by_hand != b.fixed_by_hand => Change::FixedByHand,
            Some(b) if a_side.success && !b.success => Change::Regression,
            Some(b) if !a_side.success && b.success => Change::Improvement,
            Some(b) if a_side.success && a_side.answer != b.answer => Change::AnswerChanged,
            Some(_) => Change::Unchanged,
        };
        rows.push(Row { question_id: id, question, change, a: Some(a_side), b: b_side });
    }
    for (id, question, b_side) in b_rows {
        rows.push(Row { question_id: id, question, change: Change::OnlyInB, a: None, b: Some(b_side) });
    }
    rows.sort_by_key(|r| r.change);
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::eval_results;
    use crate::report::test_run::run_with_one_pass_and_one_exhausted;
    use serde_json::json;

    /// A results document whose questions are `rows`: id, success, answer.
    fn doc(rows: &[(&str, bool, Option<Value>)]) -> EvalResults {
        let mut doc = eval_results(&run_with_one_pass_and_one_exhausted(), "2026-01-01T00:00:00Z");
        let template = doc.detailed_results[0].clone();
        doc.detailed_results = rows
            .iter()
            .map(|(id, success, answer)| DetailedResult {
                question_id: id.to_string(),
                success: *success,
                status: if *success { "passed" } else { "failed" }.to_string(),
                final_answer: answer.clone(),
                ..template.clone()
            })
            .collect();
        doc
    }

    #[test]
    fn regressions_come_first_and_every_change_is_classified() {
        let a = doc(&[
            ("q1", true, Some(json!(1))),
            ("q2", false, None),
            ("q3", true, Some(json!("x"))),
            ("q4", true, Some(json!(2))),
            ("q5", true, Some(json!(2))),
        ]);
        let b = doc(&[
            ("q1", true, Some(json!(1))),
            ("q2", true, Some(json!(3))),
            ("q3", true, Some(json!("y"))),
            ("q4", false, None),
            ("q6", true, None),
        ]);
        let rows = compare(&a, &b);
        let got: Vec<(&str, Change)> = rows.iter().map(|r| (r.question_id.as_str(), r.change)).collect();
        assert_eq!(
            got,
            vec![
                ("q4", Change::Regression),
                ("q2", Change::Improvement),
                ("q3", Change::AnswerChanged),
                ("q5", Change::OnlyInA),
                ("q6", Change::OnlyInB),
                ("q1", Change::Unchanged),
            ]
        );
    }
}
