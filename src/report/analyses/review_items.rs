//! Which answers a review queue holds, and in which order: every question's
//! final answer (and, asked for, the answers of iterations the critic
//! rejected), or a seeded sample of them — stratified by level, dataset or
//! status when asked, in proportion to each stratum's size (largest
//! remainders) — first the items where the machines disagree when asked:
//! critic against a judge, consensus drafts apart, a broken metamorphic
//! check, an answer the `no_data` baseline also gets.

use std::collections::BTreeMap;

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use crate::domain::{Baseline, GradingMethod, ReviewItem, ReviewOrder, ReviewSelection, Stratum};
use crate::report::documents::{DetailedResult, EvalResults};

/// The items of `doc` that `selection` asks for, each with its question's index in `doc`.
pub fn review_items(doc: &EvalResults, selection: &ReviewSelection) -> Vec<(ReviewItem, usize)> {
    let mut items: Vec<(ReviewItem, usize)> = Vec::new();
    for (index, result) in doc.detailed_results.iter().enumerate() {
        items.push((ReviewItem::final_answer(result.question_id.as_str().into()), index));
        if selection.include_rejected {
            items.extend(rejected_items(doc, index).into_iter().map(|item| (item, index)));
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(selection.seed);
    if let Some(n) = selection.sample.filter(|n| *n < items.len()) {
        items = match selection.stratify {
            Some(stratum) => stratified(items, n, |index| stratum_of(&doc.detailed_results[index], stratum), &mut rng),
            None => {
                items.shuffle(&mut rng);
                items.truncate(n);
                items
            }
        };
    }
    if selection.order == ReviewOrder::Disagreement {
        items.sort_by_key(|(_, index)| std::cmp::Reverse(disagreements(&doc.detailed_results[*index])));
    }
    items
}

/// The iterations of question `index` whose DAG the critic rejected and whose trial run answered.
fn rejected_items(doc: &EvalResults, index: usize) -> Vec<ReviewItem> {
    let Some(trace) = doc.question_traces.get(index) else { return Vec::new() };
    let mut items = Vec::new();
    for attempt in &trace.attempts {
        for iteration in &attempt.iterations {
            let rejected = iteration.critic_feedback.as_ref().is_some_and(|f| !f.is_approved);
            let answered = iteration.trial_run.as_ref().is_some_and(|run| run.final_answer.is_some());
            let item = ReviewItem {
                question_id: trace.question_id.as_str().into(),
                epoch: attempt.epoch,
                draft: attempt.draft,
                iteration: Some(iteration.iteration),
            };
            if rejected && answered && !items.contains(&item) {
                items.push(item);
            }
        }
    }
    items
}

/// The stratum of `result`.
fn stratum_of(result: &DetailedResult, stratum: Stratum) -> String {
    match stratum {
        Stratum::Level => result.difficulty_level.as_str().to_string(),
        Stratum::Dataset => result.dataset.clone().unwrap_or_default(),
        Stratum::Status => result.status.label().to_string(),
    }
}

/// `n` of `items` drawn with `rng`, each stratum (`of` an item's question)
/// in proportion to its size: floors first, then the largest remainders
/// (the first strata by name among equals); in a seeded order.
fn stratified(
    items: Vec<(ReviewItem, usize)>,
    n: usize,
    of: impl Fn(usize) -> String,
    rng: &mut ChaCha8Rng,
) -> Vec<(ReviewItem, usize)> {
    let total = items.len();
    let mut strata: BTreeMap<String, Vec<(ReviewItem, usize)>> = BTreeMap::new();
    for item in items {
        strata.entry(of(item.1)).or_default().push(item);
    }
    let mut quotas: Vec<(usize, usize, String)> = strata
        .iter()
        .map(|(name, members)| (members.len() * n / total, members.len() * n % total, name.clone()))
        .collect();
    let mut left = n - quotas.iter().map(|q| q.0).sum::<usize>();
    let mut by_remainder: Vec<usize> = (0..quotas.len()).collect();
    by_remainder.sort_by_key(|&i| std::cmp::Reverse(quotas[i].1));
    for i in by_remainder {
        if left == 0 {
            break;
        }
        quotas[i].0 += 1;
        left -= 1;
    }
    let mut drawn = Vec::new();
    for (quota, _, name) in quotas {
        let mut members = strata.remove(&name).unwrap_or_default();
        members.shuffle(rng);
        drawn.extend(members.into_iter().take(quota));
    }
    drawn.shuffle(rng);
    drawn
}

/// How many machines disagree over `result`: the critic against a judge, its
/// consensus drafts apart, a broken metamorphic check, and its answer also
/// got without the data (the `no_data` baseline).
pub fn disagreements(result: &DetailedResult) -> usize {
    let approved = result.status.label() == "passed";
    let judge_against_critic =
        result.grades.iter().any(|grade| matches!(grade.method, GradingMethod::Judge(_)) && grade.passed != approved);
    let drafts_apart = result.consensus.as_ref().is_some_and(|c| c.agreement < 1.0);
    let broken = result.metamorphic.as_ref().is_some_and(|m| m.checks.iter().any(|c| c.broken && !c.informational));
    let without_data =
        result.baselines.get(&Baseline::NoData).is_some_and(|b| b.answer.is_some() && b.answer == result.final_answer);
    [judge_against_critic, drafts_apart, broken, without_data].into_iter().filter(|d| *d).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Grade;

    fn doc(trace: &str) -> EvalResults {
        crate::report::analyses::load_results::load_results(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(trace),
        )
        .unwrap()
    }

    fn offline() -> EvalResults {
        doc("sample-data/traces/fraud-offline.trace.jsonl")
    }

    fn ids(items: &[(ReviewItem, usize)]) -> Vec<String> {
        items
            .iter()
            .map(|(item, _)| {
                format!("{}{}", item.question_id, item.iteration.map_or(String::new(), |i| format!("#{i}")))
            })
            .collect()
    }

    #[test]
    fn every_final_answer_in_the_runs_order_and_rejected_iterations_when_asked() {
        let doc = offline();
        let all: Vec<String> = (1..=10).map(|n| format!("q_{n:02}")).collect();
        assert_eq!(ids(&review_items(&doc, &ReviewSelection::default())), all);
        let with_rejected = ReviewSelection { include_rejected: true, ..ReviewSelection::default() };
        let items = review_items(&doc, &with_rejected);
        // q_08's first DAG ran (47.722) and was rejected; q_06's ran without an answer; q_01's and q_03's never ran.
        let mut expected = all.clone();
        expected.insert(8, "q_08#1".into());
        assert_eq!(ids(&items), expected);
        let (item, _) = &items[8];
        assert_eq!(
            crate::report::analyses::reviews::shown(&doc, item).and_then(|s| s.answer.cloned()),
            Some(serde_json::json!(47.722))
        );
    }

    #[test]
    fn a_stratified_sample_keeps_each_levels_share_and_its_seed() {
        let doc = offline();
        let level = |items: &[(ReviewItem, usize)], name: &str| {
            items.iter().filter(|(_, i)| doc.detailed_results[*i].difficulty_level.as_str() == name).count()
        };
        // 3 easy, 4 medium, 3 hard: 5 of 10 are 1.5, 2 and 1.5 — floors 1, 2, 1, the one left to the first largest remainder.
        for seed in 0..20 {
            let selection =
                ReviewSelection { sample: Some(5), seed, stratify: Some(Stratum::Level), ..Default::default() };
            let items = review_items(&doc, &selection);
            assert_eq!(items.len(), 5);
            assert_eq!(
                [level(&items, "easy"), level(&items, "medium"), level(&items, "hard")],
                [2, 2, 1],
                "seed {seed}"
            );
            assert_eq!(ids(&items), ids(&review_items(&doc, &selection)), "the same seed draws the same");
        }
        let draw = |seed| {
            ids(&review_items(
                &doc,
                &ReviewSelection { sample: Some(5), seed, stratify: Some(Stratum::Level), ..Default::default() },
            ))
        };
        assert!((1..20).any(|seed| draw(seed) != draw(0)), "another seed draws others");
        let all = ReviewSelection { sample: Some(10), stratify: Some(Stratum::Status), ..Default::default() };
        assert_eq!(review_items(&doc, &all).len(), 10, "a sample as large as the run is the run");
    }

    #[test]
    fn the_answers_the_machines_disagree_on_come_first() {
        let mut doc = offline();
        assert!(doc.detailed_results.iter().all(|r| disagreements(r) == 0));
        let failing_judge =
            Grade::scored(GradingMethod::Judge("addresses_question".into()), 0.0, 1.0, "off topic".into());
        doc.detailed_results[6].grades.push(failing_judge);
        let answer = doc.detailed_results[3].final_answer.clone();
        let no_data = crate::report::documents::BaselineAnswer { answer, correct: None, score: None };
        doc.detailed_results[3].baselines.insert(Baseline::NoData, no_data);
        let passing_judge = Grade::scored(GradingMethod::Judge("well_formed_value".into()), 1.0, 1.0, String::new());
        doc.detailed_results[8].grades.push(passing_judge);
        assert_eq!(disagreements(&doc.detailed_results[6]), 1, "the critic approved what a judge failed");
        assert_eq!(disagreements(&doc.detailed_results[8]), 0, "a judge agreeing with the critic");
        let ordered = review_items(&doc, &ReviewSelection { order: ReviewOrder::Disagreement, ..Default::default() });
        assert_eq!(ids(&ordered)[..3], ["q_04", "q_07", "q_01"], "disagreements first, the run's order among equals");
    }
}
