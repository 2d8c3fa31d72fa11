//! Two runs compared for the compare screens: the rows of
//! [`crate::report::compare`] (regressions and improvements first), each
//! run's final DAG per question when the inputs record DAGs, and what the
//! user has selected.

use std::collections::HashMap;

use serde_json::Value;

use crate::domain::GeneratedDag;
use crate::report::{Change, Row};

/// Every change kind, in table order.
pub const CHANGES: [Change; 6] = [
    Change::Regression,
    Change::Improvement,
    Change::AnswerChanged,
    Change::OnlyInA,
    Change::OnlyInB,
    Change::Unchanged,
];

/// How a change is named on screen.
pub fn change_label(change: Change) -> &'static str {
    match change {
        Change::Regression => "regression",
        Change::Improvement => "improved",
        Change::AnswerChanged => "answer changed",
        Change::OnlyInA => "only in A",
        Change::OnlyInB => "only in B",
        Change::Unchanged => "same",
    }
}

/// Two runs side by side.
pub struct Comparison {
    /// What A and B are (the paths as given).
    pub names: [String; 2],
    /// Every question, regressions and improvements first.
    pub rows: Vec<Row>,
    /// Final DAG per question id in A and in B, when recorded.
    pub dags: [HashMap<String, GeneratedDag>; 2],
    /// Only rows of this change are shown; none shows all.
    pub filter: Option<Change>,
    /// Selected row, an index into [`Self::visible`].
    pub row: usize,
}

/// The DAG of each question's last iteration (the approved one when it
/// passed) in a results document's `question_traces`.
fn final_dags(doc: &Value) -> HashMap<String, GeneratedDag> {
    let traces = doc.get("question_traces").and_then(Value::as_array).into_iter().flatten();
    traces
        .filter_map(|trace| {
            let id = trace.get("question_id")?.as_str()?.to_string();
            let iterations = trace.get("iterations")?.as_array()?;
            let dag = iterations.iter().rev().find_map(|it| it.get("dag").filter(|d| !d.is_null()))?;
            Some((id, serde_json::from_value(dag.clone()).ok()?))
        })
        .collect()
}

impl Comparison {
    /// Results documents `a` and `b`, named `names`, and their `rows` from
    /// [`crate::report::compare`].
    pub fn new(names: [String; 2], rows: Vec<Row>, a: &Value, b: &Value) -> Self {
        Self { names, rows, dags: [final_dags(a), final_dags(b)], filter: None, row: 0 }
    }

    /// Rows the table shows, in order.
    pub fn visible(&self) -> Vec<&Row> {
        self.rows.iter().filter(|r| self.filter.is_none_or(|f| r.change == f)).collect()
    }

    /// The row under the cursor.
    pub fn selected(&self) -> Option<&Row> {
        self.visible().get(self.row).copied()
    }

    /// Rows with `change`.
    pub fn count(&self, change: Change) -> usize {
        self.rows.iter().filter(|r| r.change == change).count()
    }

    /// Show the next change kind that has rows, then all again.
    pub fn cycle_filter(&mut self) {
        let start = self.filter.and_then(|f| CHANGES.iter().position(|c| *c == f)).map_or(0, |i| i + 1);
        self.filter = CHANGES[start.min(CHANGES.len())..].iter().copied().find(|c| self.count(*c) > 0);
        self.row = 0;
    }

    /// Move the cursor one row.
    pub fn move_selection(&mut self, down: bool) {
        let last = self.visible().len().saturating_sub(1);
        self.row = if down { (self.row + 1).min(last) } else { self.row.saturating_sub(1) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(rows: Value, traces: Value) -> Value {
        json!({"detailed_results": rows, "question_traces": traces})
    }

    #[test]
    fn the_filter_visits_only_kinds_that_occur_and_final_dags_come_from_the_traces() {
        let dag = json!({"nodes": [{"node_id": "n", "function_name": "f", "code": "def f():\n    return 1\n",
            "operation": "o", "inputs": {}, "layer": 0}], "final_answer_node": "n"});
        let a = doc(
            json!([{"question_id": "q1", "success": true, "final_answer": 1},
                   {"question_id": "q2", "success": true, "final_answer": 2}]),
            json!([{"question_id": "q1", "iterations": [{"dag": dag}, {"dag": null}]}]),
        );
        let b = doc(
            json!([{"question_id": "q1", "success": false}, {"question_id": "q2", "success": true, "final_answer": 2}]),
            json!([]),
        );
        let mut comparison = Comparison::new(["a".into(), "b".into()], crate::report::compare(&a, &b), &a, &b);
        assert_eq!(comparison.dags[0]["q1"].nodes[0].node_id, "n");
        assert!(comparison.dags[1].is_empty());
        let mut seen = vec![comparison.filter];
        for _ in 0..3 {
            comparison.cycle_filter();
            seen.push(comparison.filter);
        }
        assert_eq!(seen, vec![None, Some(Change::Regression), Some(Change::Unchanged), None]);
        comparison.cycle_filter();
        assert_eq!(comparison.visible().len(), 1);
        comparison.move_selection(true);
        assert_eq!(comparison.selected().unwrap().question_id, "q1", "the cursor stays on the only row");
    }
}
