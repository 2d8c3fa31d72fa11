//! Several runs compared for the matrix screen: the matrix of
//! [`crate::report::compare_runs`], the results documents behind it (a pair
//! of them opens in the side-by-side detail), and the cell under the cursor —
//! a question (row) and the run set against the baseline (column).

use super::comparison::Comparison;
use crate::report::{EvalResults, Matrix, MatrixRow, compare};

/// Several runs, question by question.
pub struct RunsMatrix {
    /// The matrix: each run's totals and every question across the runs.
    pub matrix: Matrix,
    /// Each run's results, in run order.
    pub docs: Vec<EvalResults>,
    /// Selected question, an index into the matrix's questions.
    pub row: usize,
    /// The run set against the baseline (1 or more; the baseline is 0).
    pub column: usize,
    /// The frontier's x axis when the frontier shows in place of the questions.
    pub chart: Option<crate::report::Axis>,
}

impl RunsMatrix {
    /// The `matrix` of the runs `docs` (in the same order).
    pub fn new(matrix: Matrix, docs: Vec<EvalResults>) -> Self {
        Self { matrix, docs, row: 0, column: 1, chart: None }
    }

    /// The question under the cursor.
    pub fn selected(&self) -> Option<&MatrixRow> {
        self.matrix.questions.get(self.row)
    }

    /// Move the cursor one question.
    pub fn move_selection(&mut self, down: bool) {
        let last = self.matrix.questions.len().saturating_sub(1);
        self.row = if down { (self.row + 1).min(last) } else { self.row.saturating_sub(1) };
    }

    /// Set the next (or previous) run against the baseline.
    pub fn move_column(&mut self, right: bool) {
        let last = self.matrix.runs.len().saturating_sub(1).max(1);
        self.column = if right { (self.column + 1).min(last) } else { self.column.saturating_sub(1).max(1) };
    }

    /// The baseline and the selected run side by side, at the selected
    /// question; none when neither has it.
    pub fn pair(&self) -> Option<Comparison> {
        let row = self.selected()?;
        let (base, other) = (&self.docs[0], self.docs.get(self.column)?);
        let [in_base, in_other] = [0, self.column].map(|run| row.runs.get(run).and_then(Option::as_ref));
        let id = in_base.or(in_other)?.side.question_id.as_str();
        let names = [0, self.column].map(|run| self.matrix.runs[run].name.clone());
        let labels = [0, self.column].map(|run| self.matrix.runs[run].label.clone());
        let mut comparison = Comparison::new(names, compare(base, other), base, other);
        comparison.labels = labels;
        comparison.row =
            comparison.rows.iter().position(|r| r.question_id == id && r.question == row.question).unwrap_or(0);
        Some(comparison)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::test_run::run_with_one_pass_and_one_exhausted;
    use crate::report::{compare_runs, eval_results};

    #[test]
    fn the_column_stays_on_a_later_run_and_a_pair_opens_at_the_question() {
        let a = eval_results(&run_with_one_pass_and_one_exhausted(), "2026-01-01T00:00:00Z");
        let mut c = a.clone();
        c.detailed_results.remove(0);
        let names: Vec<String> = ["a", "b", "c"].map(String::from).into();
        let docs = vec![a.clone(), a, c];
        let mut view = RunsMatrix::new(compare_runs(&names, &docs, 1.0), docs);
        view.move_column(false);
        assert_eq!(view.column, 1, "the baseline is never set against itself");
        view.move_column(true);
        view.move_column(true);
        assert_eq!(view.column, 2);
        let missing = view.matrix.questions.iter().position(|q| q.runs[2].is_none()).unwrap();
        view.row = missing;
        let pair = view.pair().unwrap();
        assert_eq!(
            (pair.names.clone(), pair.labels.clone()),
            (["a", "c"].map(String::from), ["A", "C"].map(String::from))
        );
        assert_eq!(pair.selected().unwrap().question_id, view.selected().unwrap().question_id);
        assert!(pair.selected().unwrap().b.is_none(), "C lacks it");
    }
}
