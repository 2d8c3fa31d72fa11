//! The review screen without a terminal: snapshots at both sizes, blind
//! until the reviewer's verdict (nothing of the critic, the grades or other
//! reviewers on screen before), verdicts written at once with their reason
//! and right answer, a right answer that is not JSON refused, undo, skip.

use std::path::Path;

use eval_dag::domain::{REVIEW_VERSION, Review, ReviewItem, ReviewKind, Verdict};
use eval_dag::report::{RunReviews, load_results, shown};
use eval_dag::tui::{App, ReviewQueue, Theme};
use serde_json::Value;

use crate::common;
use common::press;
use common::tui::{SAMPLE, screen};

/// The sample run on the review screen of `ana`, with `bo`'s review of its
/// first question already given; reviews written under `dir`.
fn review_app(dir: &Path) -> App {
    let doc = load_results(&common::root().join(SAMPLE)).unwrap();
    let first = ReviewItem::final_answer(doc.detailed_results[0].question_id.as_str().into());
    let bo = Review {
        version: REVIEW_VERSION,
        reviewer: "bo".parse().unwrap(),
        at: "2026-12-05T00:00:00Z".into(),
        shown_sha256: shown(&doc, &first).unwrap().sha256(),
        item: first,
        kind: ReviewKind::Answer,
        verdict: Verdict::Wrong,
        reason: Some("bo's own <reason>".into()),
        correct_answer: None,
        pair: None,
    };
    let reviews = RunReviews { current: vec![bo], ..RunReviews::default() };
    let queue = ReviewQueue::new(dir.to_path_buf(), doc, &reviews, "ana".parse().unwrap(), &Default::default());
    App::reviewing(queue, Theme::dark())
}

fn written(dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join("reviews/ana.jsonl")).unwrap_or_default();
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn a_run_without_answers_is_said_and_every_key_is_harmless() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = load_results(&common::root().join(SAMPLE)).unwrap();
    doc.detailed_results.clear();
    let queue = ReviewQueue::new(
        dir.path().to_path_buf(),
        doc,
        &RunReviews::default(),
        "ana".parse().unwrap(),
        &Default::default(),
    );
    let mut app = App::reviewing(queue, Theme::dark());
    press(&mut app, "rwusz←→vma1\n");
    let text = screen(&app, 80, 24);
    assert!(text.contains("no answer to review in this run") && text.contains("0 / 0"), "{text}");
    assert!(!text.contains("answer 1 of 0"), "{text}");
    assert!(written(dir.path()).is_empty(), "nothing written");
}

#[test]
fn the_review_screen_at_both_sizes() {
    let dir = tempfile::tempdir().unwrap();
    for (width, height) in [(80u16, 24u16), (160, 48)] {
        let app = review_app(dir.path());
        let text = screen(&app, width, height).replace(&dir.path().display().to_string(), "RUN");
        insta::assert_snapshot!(format!("review_{width}x{height}"), text);
    }
}

#[test]
fn blind_until_the_verdict_then_one_key_shows_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = review_app(dir.path());
    let before = screen(&app, 160, 48);
    assert!(before.contains("0 / 2") && before.contains("stay hidden until you give yours"), "{before}");
    for hidden in ["passed", "approved", "bo", "ground_truth", "iterations"] {
        assert!(!before.contains(hidden), "{hidden:?} shows before the verdict:\n{before}");
    }
    press(&mut app, "v");
    assert!(screen(&app, 160, 48).contains("give your verdict first (r/w/u)"), "v before a verdict shows nothing");
    press(&mut app, "mit matches the data\n");
    press(&mut app, "a{bad\n");
    assert!(screen(&app, 160, 48).contains("not JSON"), "a right answer that is not JSON is refused");
    press(&mut app, "\x1b");
    press(&mut app, "a50000\n");
    press(&mut app, "w");
    let lines = written(dir.path());
    assert_eq!(lines.len(), 1, "written at once");
    assert_eq!((lines[0]["verdict"].as_str(), lines[0]["reviewer"].as_str()), (Some("wrong"), Some("ana")));
    assert_eq!(
        (lines[0]["reason"].as_str(), lines[0]["correct_answer"].as_i64()),
        (Some("it matches the data"), Some(50000))
    );
    assert!(screen(&app, 160, 48).contains("1 / 2"), "on to the next answer");

    press(&mut app, "←");
    let after = screen(&app, 160, 48);
    assert!(after.contains("your verdict  wrong — it matches the data") && !after.contains("bo:"), "{after}");
    press(&mut app, "v");
    let shown_text = screen(&app, 160, 48);
    assert!(shown_text.contains("critic") && shown_text.contains("bo: wrong — bo's own <reason>"), "{shown_text}");
    press(&mut app, "→");
    assert!(!screen(&app, 160, 48).contains("bo:"), "hidden again on the next answer");

    press(&mut app, "s");
    assert!(screen(&app, 160, 48).contains("1 / 2 · 1 skipped"));
    press(&mut app, "z");
    assert!(screen(&app, 160, 48).contains("back to your last review"));
    press(&mut app, "r");
    let lines = written(dir.path());
    assert_eq!(
        lines.iter().map(|l| l["verdict"].as_str().unwrap()).collect::<Vec<_>>(),
        ["wrong", "right"],
        "append-only"
    );
    for (width, height) in [(20u16, 6u16), (40, 10), (200, 60)] {
        let _ = screen(&app, width, height);
    }
}
