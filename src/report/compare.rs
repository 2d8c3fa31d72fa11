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
    /// The question's id in this run (another run may number it otherwise).
    pub question_id: String,
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

/// One side of `result`.
pub(super) fn side(result: &DetailedResult) -> Side {
    Side {
        question_id: result.question_id.clone(),
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

/// Which of `candidates` (id, text) is the question `id` with `text`: the one
/// with the same id and text, else the first with the same text (runs that
/// number their questions differently); a same id with another text is
/// another question.
pub(super) fn matching<'a>(
    candidates: impl IntoIterator<Item = (&'a str, &'a str)>,
    id: &str,
    text: &str,
) -> Option<usize> {
    let candidates: Vec<(&str, &str)> = candidates.into_iter().collect();
    candidates
        .iter()
        .position(|(c_id, c_text)| *c_id == id && *c_text == text)
        .or_else(|| candidates.iter().position(|(_, c_text)| *c_text == text))
}

/// How a question changed from `a` to `b` (the rule of every pair of runs).
pub(super) fn change(a: &Side, b: &Side) -> Change {
    if a.fixed_by_hand != b.fixed_by_hand {
        Change::FixedByHand
    } else if a.success && !b.success {
        Change::Regression
    } else if !a.success && b.success {
        Change::Improvement
    } else if a.success && a.answer != b.answer {
        Change::AnswerChanged
    } else {
        Change::Unchanged
    }
}

/// Compare results documents `a` and `b` (questions matched by id and text,
/// see [`matching`]); rows sorted by change, then A's order.
pub fn compare(a: &EvalResults, b: &EvalResults) -> Vec<Row> {
    let a_rows = results(a);
    let mut b_rows = results(b);
    let mut rows = Vec::new();
    for (id, question, a_side) in a_rows {
        let found = matching(b_rows.iter().map(|(i, q, _)| (i.as_str(), q.as_str())), &id, &question);
        let b_side = found.map(|i| b_rows.remove(i).2);
        let change = b_side.as_ref().map_or(Change::OnlyInA, |b| change(&a_side, b));
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
                question: format!("question {id}"),
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

    #[test]
    fn questions_match_by_id_and_text_then_by_text_alone() {
        let a = doc(&[("q1", true, Some(json!(1))), ("q2", true, Some(json!(2)))]);
        let mut b = doc(&[("x9", true, Some(json!(1))), ("q2", true, Some(json!(2)))]);
        b.detailed_results[0].question = "question q1".into();
        b.detailed_results[1].question = "another question".into();
        let rows = compare(&a, &b);
        let got: Vec<(&str, Change)> = rows.iter().map(|r| (r.question_id.as_str(), r.change)).collect();
        assert_eq!(
            got,
            vec![("q2", Change::OnlyInA), ("q2", Change::OnlyInB), ("q1", Change::Unchanged)],
            "q1 is x9 by its text; q2 of B asks something else"
        );
    }
}
