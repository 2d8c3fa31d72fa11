//! Two runs side by side, question by question: regressions and improvements
//! first.

use serde::Serialize;
use serde_json::Value;

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
    /// Only in A.
    OnlyInA,
    /// Only in B.
    OnlyInB,
    /// Same status and answer.
    Unchanged,
}

/// One side of a compared question.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Side {
    /// Status label.
    pub status: String,
    /// Whether it passed.
    pub success: bool,
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

fn side(result: &Value) -> Side {
    Side {
        status: result.get("status").and_then(Value::as_str).unwrap_or("unknown").to_string(),
        success: result.get("success").and_then(Value::as_bool).unwrap_or(false),
        answer: result.get("final_answer").cloned().unwrap_or(Value::Null),
        iterations: result.get("iterations").and_then(Value::as_u64).unwrap_or(0),
        tokens: result.pointer("/tokens/total").and_then(Value::as_u64).unwrap_or(0),
    }
}

fn results(doc: &Value) -> Vec<(String, String, Side)> {
    doc.get("detailed_results")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|r| {
            let id = r.get("question_id").and_then(Value::as_str).unwrap_or_default().to_string();
            let text = r.get("question").and_then(Value::as_str).unwrap_or_default().to_string();
            (id, text, side(r))
        })
        .collect()
}

/// Compare results documents `a` and `b`; rows sorted by change, then A's order.
pub fn compare(a: &Value, b: &Value) -> Vec<Row> {
    let a_rows = results(a);
    let mut b_rows = results(b);
    let mut rows = Vec::new();
    for (id, question, a_side) in a_rows {
        let b_side = b_rows.iter().position(|(b_id, _, _)| *b_id == id).map(|i| b_rows.remove(i).2);
        let change = match &b_side {
            None => Change::OnlyInA,
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
    use serde_json::json;

    fn doc(rows: Value) -> Value {
        json!({"detailed_results": rows})
    }

    #[test]
    fn regressions_come_first_and_every_change_is_classified() {
        let a = doc(json!([
            {"question_id": "q1", "success": true, "final_answer": 1, "status": "passed"},
            {"question_id": "q2", "success": false, "status": "exhausted"},
            {"question_id": "q3", "success": true, "final_answer": "x", "status": "passed"},
            {"question_id": "q4", "success": true, "final_answer": 2, "status": "passed"},
            {"question_id": "q5", "success": true, "final_answer": 2, "status": "passed"}]));
        let b = doc(json!([
            {"question_id": "q1", "success": true, "final_answer": 1, "status": "passed"},
            {"question_id": "q2", "success": true, "final_answer": 3, "status": "passed"},
            {"question_id": "q3", "success": true, "final_answer": "y", "status": "passed"},
            {"question_id": "q4", "success": false, "status": "failed"},
            {"question_id": "q6", "success": true, "status": "passed"}]));
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
