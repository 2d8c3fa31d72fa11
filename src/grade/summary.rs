//! Accuracy of many graded answers, per method, overall and per difficulty.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::domain::DifficultyLevel;
use crate::domain::Grade;

/// How one method graded a set of answers.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Accuracy {
    /// Answers the method graded (errors excluded).
    pub graded: usize,
    /// Graded answers that passed.
    pub passed: usize,
    /// Answers the method failed to grade.
    pub errors: usize,
    /// `passed / graded`; none when nothing was graded.
    pub accuracy: Option<f64>,
    /// Mean score of graded answers; none when nothing was graded.
    pub mean_score: Option<f64>,
}

impl Accuracy {
    /// `right/graded (NN%)`, with failed gradings when there were any.
    pub fn describe(&self) -> String {
        let mut text = match self.accuracy {
            Some(rate) => format!("{}/{} ({:.0}%)", self.passed, self.graded, 100.0 * rate),
            None => "nothing graded".to_string(),
        };
        if self.errors > 0 {
            text.push_str(&format!(", {} not graded", self.errors));
        }
        text
    }
}

/// Accuracy per method, overall and per difficulty level.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GradeSummary {
    /// Method name → accuracy over every question.
    pub overall: BTreeMap<String, Accuracy>,
    /// Difficulty → method name → accuracy.
    pub by_difficulty: BTreeMap<DifficultyLevel, BTreeMap<String, Accuracy>>,
}

/// Running totals of one method.
#[derive(Default)]
struct Totals {
    graded: usize,
    passed: usize,
    errors: usize,
    score_sum: f64,
}

impl Totals {
    fn add(&mut self, grade: &Grade) {
        match grade.score {
            Some(score) if grade.error.is_none() => {
                self.graded += 1;
                self.passed += usize::from(grade.passed);
                self.score_sum += score;
            }
            _ => self.errors += 1,
        }
    }

    fn accuracy(&self) -> Accuracy {
        let of = |x: f64| (self.graded > 0).then(|| x / self.graded as f64);
        Accuracy {
            graded: self.graded,
            passed: self.passed,
            errors: self.errors,
            accuracy: of(self.passed as f64),
            mean_score: of(self.score_sum),
        }
    }
}

/// Summarise the grades of many questions, each given with its difficulty.
pub fn summarise<'a>(questions: impl IntoIterator<Item = (DifficultyLevel, &'a [Grade])>) -> GradeSummary {
    let mut overall: BTreeMap<String, Totals> = BTreeMap::new();
    let mut by_level: BTreeMap<DifficultyLevel, BTreeMap<String, Totals>> = BTreeMap::new();
    for (level, grades) in questions {
        for grade in grades {
            overall.entry(grade.method.to_string()).or_default().add(grade);
            by_level.entry(level).or_default().entry(grade.method.to_string()).or_default().add(grade);
        }
    }
    let finish = |totals: BTreeMap<String, Totals>| {
        totals.into_iter().map(|(method, t)| (method, t.accuracy())).collect::<BTreeMap<_, _>>()
    };
    GradeSummary {
        overall: finish(overall),
        by_difficulty: by_level.into_iter().map(|(level, totals)| (level, finish(totals))).collect(),
    }
}
