//! Two runs compared for the compare screens: the rows of
//! [`crate::report::compare`] (regressions and improvements first), each
//! run's final DAG per question when the inputs record DAGs, and what the
//! user has selected.

use std::collections::HashMap;

use crate::domain::GeneratedDag;
use crate::report::{Change, EvalResults, Lift, Row, rebuild_lift};

/// Every change kind, in table order.
pub const CHANGES: [Change; 7] =
    every_variant!(Change: Regression, Improvement, AnswerChanged, FixedByHand, OnlyInA, OnlyInB, Unchanged);

/// Two runs side by side.
pub struct Comparison {
    /// What A and B are (the paths as given).
    pub names: [String; 2],
    /// How the two runs are called: A and B, or the letters of two runs of a
    /// matrix (A and C).
    pub labels: [String; 2],
    /// Every question, regressions and improvements first.
    pub rows: Vec<Row>,
    /// Final DAG per question id in A and in B, when recorded.
    pub dags: [HashMap<String, GeneratedDag>; 2],
    /// Only rows of this change are shown; none shows all.
    pub filter: Option<Change>,
    /// Selected row, an index into [`Self::visible`].
    pub row: usize,
    /// What the critic's rebuilds changed from A to B, when A allowed fewer
    /// iterations (see [`crate::report::rebuild_lift`]).
    pub lift: Option<Lift>,
}

/// The DAG of each question's last iteration (the approved one when it
/// passed) in a results document's `question_traces`.
fn final_dags(doc: &EvalResults) -> HashMap<String, GeneratedDag> {
    doc.question_traces
        .iter()
        .filter_map(|trace| {
            let dag = trace.iterations.iter().rev().find_map(|it| it.dag.clone())?;
            Some((trace.question_id.clone(), dag))
        })
        .collect()
}

impl Comparison {
    /// Results documents `a` and `b`, named `names`, and their `rows` from
    /// [`crate::report::compare`].
    pub fn new(names: [String; 2], rows: Vec<Row>, a: &EvalResults, b: &EvalResults) -> Self {
        let labels = ["A", "B"].map(String::from);
        let lift = rebuild_lift(a, b);
        Self { names, labels, rows, dags: [final_dags(a), final_dags(b)], filter: None, row: 0, lift }
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
    use crate::report::test_run::run_with_one_pass_and_one_exhausted;
    use crate::report::{IterationTrace, eval_results};

    #[test]
    fn the_filter_visits_only_kinds_that_occur_and_final_dags_come_from_the_traces() {
        let mut a = eval_results(&run_with_one_pass_and_one_exhausted(), "2026-01-01T00:00:00Z");
        let mut b = a.clone();
        let q1 = &mut a.question_traces[0];
        let unbuilt = IterationTrace { iteration: 2, dag: None, ..q1.iterations[0].clone() };
        q1.iterations.push(unbuilt);
        b.detailed_results[0].success = false;
        b.question_traces.clear();
        let mut comparison = Comparison::new(["a".into(), "b".into()], crate::report::compare(&a, &b), &a, &b);
        assert_eq!(comparison.dags[0]["q_01"].nodes[0].node_id, "a", "the last iteration with a DAG");
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
        assert_eq!(comparison.selected().unwrap().question_id, "q_01", "the cursor stays on the only row");
    }
}
