//! The pairwise review screen without a terminal: two runs' answers side by
//! side with the runs' names hidden, the four verdicts written at once with
//! the side this run was on, and the tally counting each for the run that
//! was there; runs that share no question are said.

use std::path::Path;

use eval_dag::domain::Verdict;
use eval_dag::report::{RunReviews, agreement_report, load_results, read_reviews};
use eval_dag::tui::{App, OtherRun, PairQueue, Theme};

use crate::common;
use common::press;
use common::tui::screen;

/// The offline sample (10 questions) against a copy whose answers are all
/// changed, reviewed by `ana` under `dir`.
fn pair_app(dir: &Path) -> App {
    let sample = common::root().join("sample-data/traces/fraud-offline.trace.jsonl");
    let doc = load_results(&sample).unwrap();
    let mut other = doc.clone();
    for result in &mut other.detailed_results {
        result.final_answer = Some(serde_json::json!("the other run's answer"));
    }
    let other = OtherRun { name: "runs/other-secret-name".into(), doc: other, results_sha256: "abc".into() };
    let queue = PairQueue::new(dir.to_path_buf(), doc, other, &RunReviews::default(), "ana".parse().unwrap(), 7);
    App::pair_reviewing(queue, Theme::dark())
}

#[test]
fn two_runs_side_by_side_blind_and_each_verdict_counts_for_the_run_on_that_side() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = pair_app(dir.path());
    let text = screen(&app, 120, 32);
    assert!(text.contains("question 1 of 10") && text.contains(" left ") && text.contains(" right "), "{text}");
    assert!(text.contains("the other run's answer") && text.contains("0 / 10"), "{text}");
    assert!(!text.contains("other-secret-name") && !text.contains("fraud"), "the runs' names stay hidden: {text}");
    press(&mut app, "12tx1");
    let text = screen(&app, 120, 32);
    assert!(text.contains("5 / 10") && text.contains("question 6 of 10"), "{text}");
    // The lines written, read back as the run's reviews, and tallied.
    let doc = load_results(&common::root().join("sample-data/traces/fraud-offline.trace.jsonl")).unwrap();
    let reviews = read_reviews(dir.path(), &doc);
    assert_eq!(reviews.current.len(), 5, "{:?}", reviews.unreadable);
    let verdicts: Vec<Verdict> = reviews.current.iter().map(|r| r.verdict).collect();
    assert!(verdicts.contains(&Verdict::Tie) && verdicts.contains(&Verdict::BothWrong), "{verdicts:?}");
    let mut wins = 0;
    let mut losses = 0;
    for review in reviews.current.iter().filter(|r| matches!(r.verdict, Verdict::Left | Verdict::RightSide)) {
        let pair = review.pair.as_ref().unwrap();
        assert_eq!((pair.other_run.as_str(), pair.other_results_sha256.as_str()), ("runs/other-secret-name", "abc"));
        let this_better = (review.verdict == Verdict::Left) == (pair.left == "this");
        if this_better { wins += 1 } else { losses += 1 }
    }
    assert!(wins + losses == 3 && reviews.current.iter().map(|r| &r.pair.as_ref().unwrap().left).any(|l| l == "other"));
    let tally = &agreement_report(&doc, &reviews, None).pairwise[0];
    assert_eq!((tally.wins, tally.losses, tally.ties, tally.both_wrong), (wins, losses, 1, 1));
}

#[test]
fn a_queue_comes_back_where_the_reviewer_left_off_and_every_size_draws() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = pair_app(dir.path());
    press(&mut app, "tt");
    let doc = load_results(&common::root().join("sample-data/traces/fraud-offline.trace.jsonl")).unwrap();
    let reviews = read_reviews(dir.path(), &doc);
    let other = OtherRun { name: "runs/other-secret-name".into(), doc: doc.clone(), results_sha256: "abc".into() };
    let queue = PairQueue::new(dir.path().to_path_buf(), doc, other, &reviews, "ana".parse().unwrap(), 7);
    assert_eq!((queue.position, queue.mine.len()), (2, 2), "back at the first question not yet reviewed");
    let app = App::pair_reviewing(queue, Theme::dark());
    for (width, height) in [(40, 12), (80, 24), (200, 60)] {
        let text = screen(&app, width, height);
        assert!(text.lines().count() <= height as usize, "{width}×{height}");
    }
}
