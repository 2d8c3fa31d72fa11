//! Several runs question by question (`eval-dag compare A B C …`): the first
//! run is the baseline and every later run is set against it by the two-run
//! rule ([`super::compare::compare()`]). Questions are matched by id and text; what a run
//! could not line up is counted. Questions a run regresses on come first, then
//! those the runs disagree on, then those some run lacks.

use indexmap::IndexMap;
use serde::Serialize;

use super::compare::{Change, QuestionIndex, QuestionKey, Side, change, side};
use super::lift::rebuild_lift;
use super::significance::{Significance, paired_test};
use crate::report::documents::{EvalResults, Lift};

/// What the runs make of one question, in list order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerSpread {
    /// A later run regresses against the baseline.
    Regression,
    /// The runs that have it differ in status or answer.
    Disagree,
    /// Some run lacks it (named "missing"); the runs that have it agree.
    Partial,
    /// Every run has it, with the same status and answer.
    Agree,
}

impl AnswerSpread {
    /// How it is named to people.
    pub fn label(self) -> &'static str {
        match self {
            AnswerSpread::Regression => "regression",
            AnswerSpread::Disagree => "disagree",
            AnswerSpread::Partial => "missing",
            AnswerSpread::Agree => "same",
        }
    }
}

/// One run's entry for one question.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    /// The question's id in this run (the row's id unless matched by text),
    /// status, answer, iterations and tokens.
    #[serde(flatten)]
    pub side: Side,
    /// Whether the answer was graded right; none when ungraded.
    pub correct: Option<bool>,
    /// The change from the baseline's entry; none in the baseline and where
    /// the baseline lacks the question.
    pub change: Option<Change>,
}

/// One question across the runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MatrixRow {
    /// Its dataset, in runs over several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dataset: Option<String>,
    /// Its id in the first run that has it.
    pub question_id: String,
    /// Its text.
    pub question: String,
    /// What the runs make of it.
    pub agreement: AnswerSpread,
    /// One entry per run, in run order; none where the run lacks the question.
    pub runs: Vec<Option<Entry>>,
}

/// One run's totals, and how its questions line up with the baseline's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    /// Its letter: A for the baseline, then B, C, …
    pub label: String,
    /// The run as given (a path).
    pub name: String,
    /// Questions in the run.
    pub questions: usize,
    /// Share of questions the model passed (0–1).
    pub pass_rate: f64,
    /// Share of graded answers that were right; none when none was graded.
    pub accuracy: Option<f64>,
    /// The critic scorecard's share of graded rejections that rejected a
    /// right answer; none when no rejected answer was graded.
    pub critic_wrong_rejection_rate: Option<f64>,
    /// Mean iterations per question.
    pub mean_iterations: f64,
    /// Tokens spent.
    pub tokens: u64,
    /// Estimated cost in US dollars.
    pub cost_usd: f64,
    /// Cost (the cache's hits at list price) per right answer, USD; none
    /// without a right answer.
    pub cost_per_right: Option<f64>,
    /// Questions that passed in the baseline and not in this run.
    pub regressions: usize,
    /// Questions of this run the baseline does not have.
    pub not_in_baseline: usize,
    /// Questions of the baseline this run does not have.
    pub baseline_missing: usize,
    /// Whether this run differs from the baseline beyond chance, over the
    /// questions both have; none for the baseline and without shared questions.
    pub significance: Option<Significance>,
    /// What the critic's rebuilds changed against the baseline, when the
    /// baseline allowed fewer iterations (see [`super::lift::rebuild_lift`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lift: Option<Lift>,
    /// The run's own baselines (`run --baselines`): what each scores beside
    /// its loop. Not to be confused with the baseline run of the comparison.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baselines: Option<IndexMap<crate::domain::Baseline, crate::report::documents::BaselineTally>>,
}

impl RunSummary {
    /// What could not be lined up with the baseline, for people; none when
    /// everything was.
    pub fn misalignment(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.not_in_baseline > 0 {
            parts.push(format!("{} not in the baseline", crate::text::plural(self.not_in_baseline, "question")));
        }
        if self.baseline_missing > 0 {
            parts.push(format!("{} missing", crate::text::plural(self.baseline_missing, "baseline question")));
        }
        (!parts.is_empty()).then(|| format!("run {}: {}", self.label, parts.join(", ")))
    }
}

/// Several runs, question by question.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Matrix {
    /// Each run's totals, the baseline first.
    pub runs: Vec<RunSummary>,
    /// Every question, regressions first, then disagreements, then questions
    /// some run lacks.
    pub questions: Vec<MatrixRow>,
    /// Accuracy against cost, tokens and wall time over the questions every
    /// run has; none for one run.
    pub frontier: Option<super::frontier::Frontier>,
}

impl Matrix {
    /// Whether any later run is worse than the baseline beyond chance (a
    /// question that regresses alone is reported, not called a regression).
    pub fn regressed(&self) -> bool {
        self.runs.iter().any(|r| r.significance.as_ref().is_some_and(Significance::worse))
    }

    /// Questions of `agreement`.
    pub fn count(&self, agreement: AnswerSpread) -> usize {
        self.questions.iter().filter(|q| q.agreement == agreement).count()
    }
}

/// The letter of the run at `index`: A, B, … Z, then R27, R28, …
fn run_label(index: usize) -> String {
    match u8::try_from(index).ok().filter(|i| *i < 26) {
        Some(i) => char::from(b'A' + i).to_string(),
        None => format!("R{}", index + 1),
    }
}

fn summary(index: usize, name: &str, doc: &EvalResults) -> RunSummary {
    let results = &doc.detailed_results;
    let iterations: usize = results.iter().map(|r| r.iterations).sum();
    RunSummary {
        label: run_label(index),
        name: name.to_string(),
        questions: results.len(),
        pass_rate: doc.summary.pass_rate,
        accuracy: doc.summary.grading.accuracy,
        critic_wrong_rejection_rate: doc.critic_scorecard.total.wrong_rejection_rate(),
        mean_iterations: if results.is_empty() { 0.0 } else { iterations as f64 / results.len() as f64 },
        tokens: doc.summary.tokens.total,
        cost_usd: doc.summary.cost_usd,
        cost_per_right: super::frontier::run_cost_per_right(doc),
        regressions: 0,
        not_in_baseline: 0,
        baseline_missing: 0,
        significance: None,
        lift: None,
        baselines: doc.summary.baselines.clone(),
    }
}

fn agreement(entries: &[Option<Entry>]) -> AnswerSpread {
    let present: Vec<&Entry> = entries.iter().flatten().collect();
    if present.iter().any(|e| e.change == Some(Change::Regression)) {
        AnswerSpread::Regression
    } else if present.windows(2).any(|pair| change(&pair[0].side, &pair[1].side) != Change::Unchanged) {
        AnswerSpread::Disagree
    } else if present.len() < entries.len() {
        AnswerSpread::Partial
    } else {
        AnswerSpread::Agree
    }
}

/// Compare the runs `docs`, named `names` (the first is the baseline); a
/// later run differs from the baseline when its paired test's p value is at
/// most `level`.
pub fn compare_runs(names: &[String], docs: &[EvalResults], level: f64) -> Matrix {
    let mut rows: Vec<MatrixRow> = Vec::new();
    // Where each row's question sits in each run's results.
    let mut positions: Vec<Vec<Option<usize>>> = Vec::new();
    let mut runs = Vec::new();
    // Every row by its first run's question, which the row's id and text are.
    let mut index_of_rows = QuestionIndex::default();
    for (index, (name, doc)) in names.iter().zip(docs).enumerate() {
        let mut run = summary(index, name, doc);
        for (position, result) in doc.detailed_results.iter().enumerate() {
            let this =
                QuestionKey { dataset: result.dataset.as_deref(), id: &result.question_id, text: &result.question };
            let found = index_of_rows.find(this, |i| rows[i].runs[index].is_none());
            let row = found.unwrap_or_else(|| {
                index_of_rows.insert(rows.len(), this);
                run.not_in_baseline += usize::from(index > 0);
                rows.push(MatrixRow {
                    dataset: result.dataset.clone(),
                    question_id: result.question_id.clone(),
                    question: result.question.clone(),
                    agreement: AnswerSpread::Agree,
                    runs: vec![None; docs.len()],
                });
                positions.push(vec![None; docs.len()]);
                rows.len() - 1
            });
            let side = side(result);
            let change = rows[row].runs[0].as_ref().filter(|_| index > 0).map(|base| change(&base.side, &side));
            run.regressions += usize::from(change == Some(Change::Regression));
            rows[row].runs[index] = Some(Entry { side, correct: result.correct, change });
            positions[row][index] = Some(position);
        }
        if index > 0 {
            run.baseline_missing = rows.iter().filter(|r| r.runs[0].is_some() && r.runs[index].is_none()).count();
            let pairs: Vec<_> = positions
                .iter()
                .filter_map(|p| Some((&docs[0].detailed_results[p[0]?], &doc.detailed_results[p[index]?])))
                .collect();
            run.significance = paired_test(&pairs, level);
            run.lift = rebuild_lift(&docs[0], doc);
        }
        runs.push(run);
    }
    for row in &mut rows {
        row.agreement = agreement(&row.runs);
    }
    let shared: Vec<Vec<usize>> = positions.iter().filter_map(|p| p.iter().copied().collect()).collect();
    let labels: Vec<String> = runs.iter().map(|r: &RunSummary| r.label.clone()).collect();
    let frontier = super::frontier::frontier(&labels, names, docs, &shared);
    rows.sort_by_key(|r| r.agreement);
    Matrix { runs, questions: rows, frontier }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::analyses::write_results::eval_results;
    use crate::report::test_run::run_with_one_pass_and_one_exhausted;
    use serde_json::{Value, json};

    /// A results document whose questions are `rows`: id, text, success, answer.
    fn doc(rows: &[(&str, &str, bool, Value)]) -> EvalResults {
        let mut doc = eval_results(&run_with_one_pass_and_one_exhausted(), "2026-01-01T00:00:00Z");
        let template = doc.detailed_results[0].clone();
        doc.detailed_results = rows
            .iter()
            .map(|(id, text, success, answer)| crate::report::documents::DetailedResult {
                question_id: id.to_string(),
                question: text.to_string(),
                success: *success,
                status: if *success { crate::run::Outcome::Passed } else { crate::run::Outcome::Failed }.into(),
                final_answer: Some(answer.clone()),
                iterations: if *success { 1 } else { 3 },
                ..template.clone()
            })
            .collect();
        doc
    }

    #[test]
    fn rows_line_up_by_id_and_text_and_the_baseline_decides_regressions() {
        let a = doc(&[("q1", "one", true, json!(1)), ("q2", "two", true, json!(2)), ("q3", "three", true, json!(3))]);
        let b =
            doc(&[("q1", "one", true, json!(1)), ("q2", "two", false, json!(null)), ("q3", "three", true, json!(3))]);
        // C numbers "one" otherwise, asks something else under q2, and lacks "three".
        let c = doc(&[("x1", "one", true, json!(1)), ("q2", "deux", true, json!(2)), ("q4", "four", true, json!(4))]);
        let names: Vec<String> = ["a", "b", "c"].map(String::from).into();
        let matrix = compare_runs(&names, &[a, b, c], 1.0);
        let got: Vec<(&str, AnswerSpread, Vec<bool>)> = matrix
            .questions
            .iter()
            .map(|q| (q.question_id.as_str(), q.agreement, q.runs.iter().map(Option::is_some).collect()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("q2", AnswerSpread::Regression, vec![true, true, false]),
                ("q3", AnswerSpread::Partial, vec![true, true, false]),
                ("q2", AnswerSpread::Partial, vec![false, false, true]),
                ("q4", AnswerSpread::Partial, vec![false, false, true]),
                ("q1", AnswerSpread::Agree, vec![true, true, true]),
            ]
        );
        let one = matrix.questions.last().unwrap();
        assert_eq!(one.runs[2].as_ref().unwrap().side.question_id, "x1", "matched by its text");
        assert_eq!(one.runs[2].as_ref().unwrap().change, Some(Change::Unchanged));
        assert_eq!(matrix.questions[2].runs[2].as_ref().unwrap().change, None, "nothing to compare with");
        assert!(matrix.regressed());
        let [a, b, c] = &matrix.runs[..] else { panic!("three runs") };
        assert_eq!((a.label.as_str(), b.regressions, c.regressions), ("A", 1, 0));
        assert_eq!((b.misalignment(), a.misalignment()), (None, None));
        assert_eq!(
            c.misalignment().as_deref(),
            Some("run C: 2 questions not in the baseline, 2 baseline questions missing")
        );
        assert_eq!((b.mean_iterations, b.questions), (5.0 / 3.0, 3));
    }

    #[test]
    fn runs_that_differ_without_a_regression_disagree_and_labels_go_past_z() {
        let a = doc(&[("q1", "one", false, json!(null))]);
        let b = doc(&[("q1", "one", true, json!(1))]);
        let c = doc(&[("q1", "one", true, json!(2))]);
        let names: Vec<String> = ["a", "b", "c"].map(String::from).into();
        let matrix = compare_runs(&names, &[a, b, c], 1.0);
        assert_eq!(matrix.questions[0].agreement, AnswerSpread::Disagree);
        assert!(!matrix.regressed());
        assert_eq!((run_label(25), run_label(26)), ("Z".to_string(), "R27".to_string()));
    }

    #[test]
    fn a_run_allowed_more_iterations_than_the_baseline_carries_the_critics_lift() {
        let scored = |iterations: u32, right: &[bool]| {
            let mut d = doc(&[("q1", "one", true, json!(1)), ("q2", "two", true, json!(2))]);
            d.summary.settings.get_or_insert_with(Default::default).max_iterations = iterations;
            for (result, correct) in d.detailed_results.iter_mut().zip(right) {
                let score = json!({"scorer": "dabstep", "sub_answers": [], "correct": correct});
                result.benchmark = Some(serde_json::from_value(score).unwrap());
            }
            d
        };
        let names: Vec<String> = ["a", "b", "c"].map(String::from).into();
        let docs = [scored(1, &[false, true]), scored(3, &[true, true]), scored(1, &[true, true])];
        let matrix = compare_runs(&names, &docs, 1.0);
        let lifts: Vec<Option<i64>> = matrix.runs.iter().map(|r| r.lift.as_ref().map(|l| l.extra_right)).collect();
        assert_eq!(lifts, [None, Some(1), None], "C allowed no more iterations than A: no lift");
        let json = serde_json::to_value(&matrix).unwrap();
        assert!(json["runs"][0].get("lift").is_none() && json["runs"][1]["lift"]["overall"]["fixed"] == json!(1));
    }
}
