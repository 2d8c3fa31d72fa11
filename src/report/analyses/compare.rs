//! Two runs side by side, question by question: regressions and improvements
//! first.

use serde::Serialize;
use serde_json::Value;

use crate::report::documents::{DetailedResult, EvalResults, ResultStatus};

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
    pub status: ResultStatus,
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

/// What questions of two runs are matched on: the dataset (none in a
/// single-dataset run), the id and the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct QuestionKey<'a> {
    /// The question's dataset, in a run over several.
    pub dataset: Option<&'a str>,
    /// Its id.
    pub id: &'a str,
    /// Its text.
    pub text: &'a str,
}

/// Questions by dataset and text, each with its index and id in the order
/// they were added: what [`QuestionIndex::find`] matches a question against
/// without looking at every other question (a comparison of 10,000
/// questions would otherwise compare every pair).
#[derive(Default)]
pub(super) struct QuestionIndex<'a> {
    by_text: std::collections::HashMap<TextKey<'a>, Vec<(usize, &'a str)>>,
}

/// What questions are first matched on: the dataset (in runs over several) and the text.
type TextKey<'a> = (Option<&'a str>, &'a str);

impl<'a> QuestionIndex<'a> {
    /// Add the question `key` at `index` (indexes added in increasing order).
    pub(super) fn insert(&mut self, index: usize, key: QuestionKey<'a>) {
        self.by_text.entry((key.dataset, key.text)).or_default().push((index, key.id));
    }

    /// Which of the added questions still `open` is the question `key`: on
    /// the same dataset, the one with the same id and text, else the first
    /// with the same text (runs that number their questions differently); a
    /// same id with another text, or the same text on another dataset, is
    /// another question.
    pub(super) fn find(&self, key: QuestionKey, open: impl Fn(usize) -> bool) -> Option<usize> {
        let same_text = self.by_text.get(&(key.dataset, key.text))?;
        let mut candidates = same_text.iter().filter(|(index, _)| open(*index));
        let first = candidates.clone().next()?;
        Some(candidates.find(|(_, id)| *id == key.id).unwrap_or(first).0)
    }
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

/// The key [`QuestionIndex::find`] matches `result` on.
fn key(result: &DetailedResult) -> QuestionKey<'_> {
    QuestionKey { dataset: result.dataset.as_deref(), id: &result.question_id, text: &result.question }
}

/// Each question of `a` with its match in `b` (see [`QuestionIndex::find`]), in A's
/// order, then the questions only in `b`.
pub(super) fn matched<'a>(
    a: &'a EvalResults,
    b: &'a EvalResults,
) -> Vec<(Option<&'a DetailedResult>, Option<&'a DetailedResult>)> {
    let mut index = QuestionIndex::default();
    for (position, b_result) in b.detailed_results.iter().enumerate() {
        index.insert(position, key(b_result));
    }
    let mut taken = vec![false; b.detailed_results.len()];
    let mut pairs = Vec::new();
    for a_result in &a.detailed_results {
        let found = index.find(key(a_result), |i| !taken[i]);
        if let Some(i) = found {
            taken[i] = true;
        }
        pairs.push((Some(a_result), found.map(|i| &b.detailed_results[i])));
    }
    let unmatched = b.detailed_results.iter().zip(&taken).filter(|(_, taken)| !**taken);
    pairs.extend(unmatched.map(|(b_result, _)| (None, Some(b_result))));
    pairs
}

/// Compare results documents `a` and `b` (questions matched by dataset, id and text,
/// see `matching`); rows sorted by change, then A's order.
pub fn compare(a: &EvalResults, b: &EvalResults) -> Vec<Row> {
    let mut rows: Vec<Row> = matched(a, b)
        .into_iter()
        .filter_map(|(a_result, b_result)| {
            let named = a_result.or(b_result)?;
            let (a_side, b_side) = (a_result.map(side), b_result.map(side));
            let change = match (&a_side, &b_side) {
                (Some(a), Some(b)) => change(a, b),
                (Some(_), None) => Change::OnlyInA,
                _ => Change::OnlyInB,
            };
            Some(Row {
                question_id: named.question_id.clone(),
                question: named.question.clone(),
                change,
                a: a_side,
                b: b_side,
            })
        })
        .collect();
    rows.sort_by_key(|r| r.change);
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::analyses::write_results::eval_results;
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
                status: if *success { crate::run::Outcome::Passed } else { crate::run::Outcome::Failed }.into(),
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

    #[test]
    fn the_same_text_on_another_dataset_is_another_question() {
        let mut a = doc(&[("zoo_count", true, Some(json!(2))), ("shop_count", true, Some(json!(3)))]);
        let mut b = doc(&[("count_1", true, Some(json!(3))), ("count_2", true, Some(json!(2)))]);
        for (result, dataset) in a.detailed_results.iter_mut().zip(["zoo", "shop"]) {
            (result.question, result.dataset) = ("How many rows?".into(), Some(dataset.into()));
        }
        for (result, dataset) in b.detailed_results.iter_mut().zip(["shop", "zoo"]) {
            (result.question, result.dataset) = ("How many rows?".into(), Some(dataset.into()));
        }
        let rows = compare(&a, &b);
        let got: Vec<(&str, Option<&str>, Change)> = rows
            .iter()
            .map(|r| (r.question_id.as_str(), r.b.as_ref().map(|b| b.question_id.as_str()), r.change))
            .collect();
        let expected =
            vec![("zoo_count", Some("count_2"), Change::Unchanged), ("shop_count", Some("count_1"), Change::Unchanged)];
        assert_eq!(got, expected);
    }
}
