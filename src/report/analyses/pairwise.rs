//! Pairwise reviews: two runs' final answers to the same question side by
//! side, each side drawn at random per item. Which questions two runs share
//! (same id and text), and per other run what reviewers preferred — this
//! run's answer, the other's, a tie or both wrong — with the share of wins
//! over decided items, its Wilson interval, and the sign test (exact
//! binomial, two-sided) of wins against losses.

use std::collections::BTreeMap;

use crate::domain::{Review, ReviewKind, Verdict};
use crate::report::documents::{EvalResults, PairwiseTally};

/// The questions two runs share: each as its index in `this` and in `other`,
/// in `this` run's order; a question is shared when both have its id with the same text.
pub fn shared_questions(this: &EvalResults, other: &EvalResults) -> Vec<(usize, usize)> {
    let by_id: BTreeMap<&str, usize> =
        other.detailed_results.iter().enumerate().map(|(i, r)| (r.question_id.as_str(), i)).collect();
    this.detailed_results
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let j = *by_id.get(r.question_id.as_str())?;
            (other.detailed_results[j].question == r.question).then_some((i, j))
        })
        .collect()
}

/// Each other run's [`PairwiseTally`] from the pairwise reviews among `reviews`.
pub fn pairwise_tallies(reviews: &[Review]) -> Vec<PairwiseTally> {
    let mut counts: BTreeMap<&str, [u64; 4]> = BTreeMap::new();
    for review in reviews.iter().filter(|r| r.kind == ReviewKind::Pairwise) {
        let Some(pair) = &review.pair else { continue };
        let this_left = pair.left == "this";
        let slot = match (review.verdict, this_left) {
            (Verdict::Left, true) | (Verdict::RightSide, false) => 0,
            (Verdict::Left, false) | (Verdict::RightSide, true) => 1,
            (Verdict::Tie, _) => 2,
            (Verdict::BothWrong, _) => 3,
            _ => continue,
        };
        counts.entry(pair.other_run.as_str()).or_default()[slot] += 1;
    }
    counts
        .into_iter()
        .map(|(other_run, [wins, losses, ties, both_wrong])| {
            let decided = wins + losses;
            PairwiseTally {
                other_run: other_run.to_string(),
                reviews: wins + losses + ties + both_wrong,
                wins,
                losses,
                ties,
                both_wrong,
                win_rate: (decided > 0).then(|| wins as f64 / decided as f64),
                interval: super::frontier::wilson(wins as f64, decided as usize),
                sign_test_p: super::significance::mcnemar_exact(wins as usize, losses as usize),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{PairShown, REVIEW_VERSION, ReviewItem};

    fn pairwise(question: &str, verdict: Verdict, left: &str, other: &str) -> Review {
        Review {
            version: REVIEW_VERSION,
            reviewer: "ana".parse().unwrap(),
            at: String::new(),
            item: ReviewItem::final_answer(question.into()),
            kind: ReviewKind::Pairwise,
            verdict,
            reason: None,
            correct_answer: None,
            shown_sha256: String::new(),
            pair: Some(PairShown { other_run: other.into(), other_results_sha256: String::new(), left: left.into() }),
        }
    }

    #[test]
    fn sides_count_for_the_run_that_was_there_and_the_figures_follow() {
        // 9 wins (left or right), 1 loss, a tie and both wrong against B; one loss against C.
        let mut reviews: Vec<Review> = (0..9)
            .map(|i| {
                let (verdict, left) = if i % 2 == 0 { (Verdict::Left, "this") } else { (Verdict::RightSide, "other") };
                pairwise(&format!("q{i}"), verdict, left, "B")
            })
            .collect();
        reviews.push(pairwise("q9", Verdict::Left, "other", "B"));
        reviews.push(pairwise("q10", Verdict::Tie, "this", "B"));
        reviews.push(pairwise("q11", Verdict::BothWrong, "other", "B"));
        reviews.push(pairwise("q0", Verdict::RightSide, "this", "C"));
        let tallies = pairwise_tallies(&reviews);
        let b = &tallies[0];
        assert_eq!((b.other_run.as_str(), b.reviews, b.wins, b.losses, b.ties, b.both_wrong), ("B", 12, 9, 1, 1, 1));
        assert_eq!(b.win_rate, Some(0.9));
        // 9 of 10 one way: two-sided exact binomial p = 22/1024.
        assert!((b.sign_test_p - 22.0 / 1024.0).abs() < 1e-12, "{}", b.sign_test_p);
        let [low, high] = b.interval.unwrap();
        assert!((low - 0.5958).abs() < 5e-4 && (high - 0.9821).abs() < 5e-4, "Wilson 9/10: {low} {high}");
        let c = &tallies[1];
        assert_eq!((c.wins, c.losses, c.win_rate, c.sign_test_p), (0, 1, Some(0.0), 1.0));
    }
}
