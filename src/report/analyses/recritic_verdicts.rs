//! How far two critics agree on the same iterations: the original critic of a
//! run and a re-criticism of it (`eval-dag recritic`), verdict by verdict.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::domain::{AttemptAt, IterationAt};
use crate::report::documents::{CriticScorecard, JudgedIteration};

/// One iteration whose verdict the second critic turned around.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flip {
    /// The iteration.
    pub at: IterationAt,
    /// Whether the first critic approved it (so the second rejected it).
    pub was_approved: bool,
}

/// Verdict agreement between two critics.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct VerdictOverlap {
    /// Iterations both critics judged.
    pub compared: usize,
    /// Of those, the ones with the same verdict.
    pub agreeing: usize,
    /// The others, in run order.
    pub flips: Vec<Flip>,
    /// Iterations the first critic judged and the second did not (its
    /// re-criticism failed or was stopped).
    pub unjudged: Vec<IterationAt>,
}

impl VerdictOverlap {
    /// Flips from approved to rejected.
    pub fn newly_rejected(&self) -> impl Iterator<Item = &Flip> {
        self.flips.iter().filter(|f| f.was_approved)
    }

    /// Flips from rejected to approved.
    pub fn newly_approved(&self) -> impl Iterator<Item = &Flip> {
        self.flips.iter().filter(|f| !f.was_approved)
    }
}

fn place(it: &JudgedIteration) -> IterationAt {
    AttemptAt::new(it.question_id.as_str(), it.attempt).iteration(it.iteration)
}

/// Set the `second` critic's verdicts against the `first`'s, iteration by iteration.
pub fn verdict_overlap(first: &CriticScorecard, second: &CriticScorecard) -> VerdictOverlap {
    let mut agreement = VerdictOverlap::default();
    let verdicts: HashMap<IterationAt, bool> = second.iterations.iter().map(|j| (place(j), j.approved)).collect();
    for it in &first.iterations {
        match verdicts.get(&place(it)) {
            None => agreement.unjudged.push(place(it)),
            Some(&approved) => {
                agreement.compared += 1;
                if approved == it.approved {
                    agreement.agreeing += 1;
                } else {
                    agreement.flips.push(Flip { at: place(it), was_approved: it.approved });
                }
            }
        }
    }
    agreement
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::documents::{AnswerGrade, VerdictFate};

    fn judged(question_id: &str, iteration: u32, approved: bool) -> JudgedIteration {
        JudgedIteration {
            question_id: question_id.into(),
            attempt: 1,
            iteration,
            approved,
            answer: None,
            grade: AnswerGrade::DidNotRun,
            labelled: false,
            graded_by: None,
            fate: if approved { VerdictFate::UngradedApproval } else { VerdictFate::RejectedWithoutAnswer },
            sources: vec![],
            rules: vec![],
            tokens: 0,
        }
    }

    fn card(iterations: Vec<JudgedIteration>) -> CriticScorecard {
        CriticScorecard { iterations, ..CriticScorecard::default() }
    }

    #[test]
    fn flips_are_listed_both_ways_and_missing_verdicts_apart() {
        let first = card(vec![judged("a", 1, false), judged("a", 2, true), judged("b", 1, true), judged("c", 1, true)]);
        let second = card(vec![judged("a", 1, true), judged("a", 2, true), judged("b", 1, false)]);
        let agreement = verdict_overlap(&first, &second);
        assert_eq!((agreement.agreeing, agreement.compared), (1, 3));
        let at = |q: &str, i| AttemptAt::new(q, 1).iteration(i);
        assert_eq!(agreement.newly_approved().map(|f| f.at.clone()).collect::<Vec<_>>(), [at("a", 1)]);
        assert_eq!(agreement.newly_rejected().map(|f| f.at.clone()).collect::<Vec<_>>(), [at("b", 1)]);
        assert_eq!(agreement.unjudged, [at("c", 1)]);
    }
}
