//! A judge's noise floor: the same answer judged R times (`grade
//! --repeat-judges R`) — how often the judge disagrees with itself, and the
//! majority verdict that speaks for the R judgements.

use serde::Serialize;

use crate::domain::{Grade, GradingMethod};

/// How often one judge disagreed with itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JudgeNoise {
    /// The judge (its grades' method).
    pub method: GradingMethod,
    /// Answers it judged at least twice without an error.
    pub answers: usize,
    /// Of those, answers whose verdicts were not all the same.
    pub split: usize,
    /// Pairs of judgements of the same answer.
    pub pairs: usize,
    /// Of those, pairs whose verdicts differ.
    pub differing_pairs: usize,
}

impl JudgeNoise {
    /// One line for people.
    pub fn describe(&self) -> String {
        let share = |part: usize, whole: usize| {
            if whole == 0 { "—".to_string() } else { format!("{:.0}%", part as f64 * 100.0 / whole as f64) }
        };
        format!(
            "{}: disagreed with itself on {} of {} answers ({}); {} of {} pairs of judgements differ ({})",
            self.method,
            self.split,
            self.answers,
            share(self.split, self.answers),
            self.differing_pairs,
            self.pairs,
            share(self.differing_pairs, self.pairs)
        )
    }
}

/// The grades that speak for `repeats` (each repeat's grades of one answer,
/// in the same order): per method, the majority verdict (more than half
/// passed; a tie fails), as the first grade that gave it.
pub fn majority(repeats: &[Vec<Grade>]) -> Vec<Grade> {
    let Some(first) = repeats.first() else { return Vec::new() };
    (0..first.len())
        .map(|index| {
            let grades: Vec<&Grade> = repeats.iter().filter_map(|r| r.get(index)).collect();
            let passed = grades.iter().filter(|g| g.passed).count() * 2 > grades.len();
            grades.iter().find(|g| g.passed == passed).map_or_else(|| first[index].clone(), |g| (*g).clone())
        })
        .collect()
}

/// The noise of every judge over `answers` (per answer, each repeat's
/// grades in the same order). Ground truth and a person's label never vary
/// and are left out; an errored judgement is not a verdict.
pub fn judge_noise(answers: &[Vec<Vec<Grade>>]) -> Vec<JudgeNoise> {
    let mut noise: Vec<JudgeNoise> = Vec::new();
    for repeats in answers {
        let Some(first) = repeats.first() else { continue };
        for (index, grade) in first.iter().enumerate() {
            if grade.method.is_deterministic() {
                continue;
            }
            let verdicts: Vec<bool> =
                repeats.iter().filter_map(|r| r.get(index)).filter(|g| g.error.is_none()).map(|g| g.passed).collect();
            let position = noise.iter().position(|n| n.method == grade.method).unwrap_or_else(|| {
                noise.push(JudgeNoise {
                    method: grade.method.clone(),
                    answers: 0,
                    split: 0,
                    pairs: 0,
                    differing_pairs: 0,
                });
                noise.len() - 1
            });
            if verdicts.len() < 2 {
                continue;
            }
            let passed = verdicts.iter().filter(|v| **v).count();
            let entry = &mut noise[position];
            entry.answers += 1;
            entry.split += usize::from(passed != 0 && passed != verdicts.len());
            entry.pairs += verdicts.len() * (verdicts.len() - 1) / 2;
            entry.differing_pairs += passed * (verdicts.len() - passed);
        }
    }
    noise
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grade(method: &str, passed: bool) -> Grade {
        Grade::scored(
            GradingMethod::from_name(method),
            if passed { 1.0 } else { 0.0 },
            0.5,
            format!("{method} {passed}"),
        )
    }

    #[test]
    fn the_majority_speaks_and_a_tie_fails() {
        let repeats = vec![
            vec![grade("ground_truth", true), grade("rubric", true)],
            vec![grade("ground_truth", true), grade("rubric", false)],
            vec![grade("ground_truth", true), grade("rubric", false)],
        ];
        let got: Vec<(String, bool)> =
            majority(&repeats).into_iter().map(|g| (g.method.to_string(), g.passed)).collect();
        assert_eq!(got, [("ground_truth".to_string(), true), ("rubric".to_string(), false)]);
        let tie = vec![vec![grade("rubric", true)], vec![grade("rubric", false)]];
        assert!(!majority(&tie)[0].passed);
        assert!(majority(&[]).is_empty());
    }

    #[test]
    fn noise_counts_split_answers_and_differing_pairs() {
        let answer = |verdicts: &[bool]| -> Vec<Vec<Grade>> {
            verdicts.iter().map(|v| vec![grade("ground_truth", true), grade("rubric", *v)]).collect()
        };
        let mut errored = answer(&[true, true, false]);
        errored[2][1] = Grade::failed(GradingMethod::Judge("rubric".into()), 0.5, "the server said no".into());
        let noise = judge_noise(&[answer(&[true, true, false]), answer(&[true, true, true]), errored]);
        assert_eq!(
            noise,
            [JudgeNoise {
                method: GradingMethod::Judge("rubric".into()),
                answers: 3,
                split: 1,
                pairs: 7,
                differing_pairs: 2
            }],
            "three answers; one split 2:1 (2 of 3 pairs differ); the errored judgement is no verdict"
        );
        assert_eq!(
            noise[0].describe(),
            "rubric: disagreed with itself on 1 of 3 answers (33%); 2 of 7 pairs of judgements differ (29%)"
        );
    }
}
