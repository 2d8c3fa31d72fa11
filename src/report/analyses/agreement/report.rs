//! A run's agreement figures from its reviews: κ for each pair of reviewers,
//! α over all of them, κ of each machine (the critic, each judge, the
//! expected answer or the benchmark's scorer) against the human verdict, and
//! the items reviewers disagree on (the adjudication queue).

use std::collections::BTreeMap;

use super::krippendorff_alpha;
use crate::domain::{GradingMethod, ReviewItem, ReviewKind, ReviewerName};
use crate::report::analyses::reviews::{RunReviews, human_verdicts};
use crate::report::documents::{
    AgreementReport, DetailedResult, EvalResults, KappaFigure, MachineAgreement, PairAgreement, Table,
};

/// Each machine's yes or no on `item` of `result`, by machine name.
fn machine_verdicts(doc: &EvalResults, index: usize, item: &ReviewItem) -> Vec<(String, bool)> {
    let result: &DetailedResult = &doc.detailed_results[index];
    let mut verdicts = Vec::new();
    match item.iteration {
        Some(iteration) => {
            let attempts = doc.question_traces.get(index).into_iter().flat_map(|t| &t.attempts);
            let judged = attempts
                .filter(|a| a.epoch == item.epoch && a.draft == item.draft)
                .flat_map(|a| &a.iterations)
                .filter(|i| i.iteration == iteration)
                .filter_map(|i| i.critic_feedback.as_ref())
                .next_back();
            verdicts.extend(judged.map(|f| ("critic".to_string(), f.is_approved)));
        }
        None if item.epoch == 1 && item.draft == 1 => {
            verdicts.push(("critic".to_string(), result.success));
            if let Some(score) = &result.benchmark {
                verdicts.push(("benchmark scorer".to_string(), score.correct));
            } else if let (Some(_), Some(right)) = (&result.expected_answer, result.correct) {
                verdicts.push(("expected answer".to_string(), right));
            }
            for grade in result.grades.iter().filter(|g| g.error.is_none()) {
                if let GradingMethod::Judge(name) = &grade.method {
                    verdicts.push((format!("judge {name}"), grade.passed));
                }
            }
        }
        None => {}
    }
    verdicts
}

/// The agreement figures of `doc` from `reviews` (`adjudicator`'s review
/// decides an item's human verdict when they gave one).
pub fn agreement_report(
    doc: &EvalResults,
    reviews: &RunReviews,
    adjudicator: Option<&ReviewerName>,
) -> AgreementReport {
    let answers: Vec<&crate::domain::Review> =
        reviews.current.iter().filter(|r| r.kind == ReviewKind::Answer).collect();
    let mut by_item: BTreeMap<&ReviewItem, BTreeMap<&str, Option<bool>>> = BTreeMap::new();
    for review in &answers {
        by_item.entry(&review.item).or_default().insert(review.reviewer.as_str(), review.verdict.right());
    }
    let mut reviewers: Vec<String> = answers.iter().map(|r| r.reviewer.to_string()).collect();
    reviewers.sort();
    reviewers.dedup();
    let mut pairs = Vec::new();
    for (i, a) in reviewers.iter().enumerate() {
        for b in &reviewers[i + 1..] {
            let both: Vec<(Option<bool>, Option<bool>)> =
                by_item.values().filter_map(|given| Some((*given.get(a.as_str())?, *given.get(b.as_str())?))).collect();
            let unsure = both.iter().filter(|(x, y)| x.is_none() || y.is_none()).count() as u64;
            let table = Table::of(both.iter().filter_map(|(x, y)| Some(((*x)?, (*y)?))));
            pairs.push(PairAgreement { reviewers: [a.clone(), b.clone()], unsure, figure: KappaFigure::of(table) });
        }
    }
    let units: Vec<Vec<u8>> =
        by_item.values().map(|given| given.values().flatten().map(|right| u8::from(*right)).collect()).collect();
    let disputed: Vec<ReviewItem> = by_item
        .iter()
        .filter(|(_, given)| {
            let said: Vec<bool> = given.values().flatten().copied().collect();
            said.contains(&true) && said.contains(&false)
        })
        .map(|(item, _)| (*item).clone())
        .collect();
    let human = human_verdicts(&reviews.current, adjudicator);
    let mut machine_pairs: BTreeMap<String, Vec<(ReviewItem, bool, bool)>> = BTreeMap::new();
    for (item, verdict) in &human {
        let Some(right) = verdict.right else { continue };
        let Some(index) = doc.detailed_results.iter().position(|r| r.question_id == item.question_id.as_str()) else {
            continue;
        };
        for (machine, yes) in machine_verdicts(doc, index, item) {
            machine_pairs.entry(machine).or_default().push((item.clone(), yes, right));
        }
    }
    let machines = machine_pairs
        .into_iter()
        .map(|(machine, pairs)| MachineAgreement {
            machine,
            figure: KappaFigure::of(Table::of(pairs.iter().map(|(_, yes, right)| (*yes, *right)))),
            disagreements: pairs.into_iter().filter(|(_, yes, right)| yes != right).map(|(item, ..)| item).collect(),
        })
        .collect();
    AgreementReport {
        reviewers,
        items_reviewed: by_item.len(),
        stale: reviews.stale.len(),
        pairs,
        alpha: krippendorff_alpha(&units),
        machines,
        disputed,
        pairwise: crate::report::analyses::pairwise::pairwise_tallies(&reviews.current),
    }
}
