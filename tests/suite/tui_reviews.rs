//! People's reviews from a run's own screens, without a terminal: `V` on the
//! dashboard opens the review screen over the run shown (esc comes back), `L`
//! in a replay writes a review with no derived run, and the agreement screen
//! (from the dashboard, and from the review screen once every answer has a
//! verdict) shows what `agreement` prints.

use crate::common;

use eval_dag::tui::{App, People, Screen};

use common::press;
use common::tui::{SAMPLE, replay_app, screen};

/// A replay of the sample reviewed by `name`, its reviews kept in `dir`.
fn reviewed_replay(dir: &std::path::Path, name: &str) -> App {
    replay_app(SAMPLE).with_people(People::new(dir.to_path_buf(), Ok(name.parse().unwrap())))
}

/// The lines of `name`'s review file in `dir`, as JSON.
fn reviews(dir: &std::path::Path, name: &str) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join(format!("reviews/{name}.jsonl"))).unwrap_or_default();
    text.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

#[test]
fn shift_v_on_the_dashboard_reviews_the_run_and_esc_comes_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = reviewed_replay(dir.path(), "ann");
    assert!(screen(&app, 160, 48).contains("review"), "the footer names the key");
    press(&mut app, "V");
    assert_eq!(app.screen(), Screen::Review);
    let text = screen(&app, 120, 40);
    assert!(text.contains("reviewer ann") && text.contains("0 / "), "{text}");
    assert!(!text.contains("approved"), "blind until the verdict: {text}");
    press(&mut app, "r");
    let written = reviews(dir.path(), "ann");
    assert_eq!(written.len(), 1, "one verdict, one line");
    assert_eq!(written[0]["verdict"], "right");
    press(&mut app, "\x1b");
    assert_eq!(app.screen(), Screen::Dashboard, "esc returns to the dashboard");
    assert!(!app.quitting());
}

#[test]
fn l_in_a_replay_needs_no_derived_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = reviewed_replay(dir.path(), "bo");
    press(&mut app, "j\nLhow I checked\n");
    assert!(app.recording().is_none(), "no derived run started");
    assert!(app.replay().is_some(), "still the replay");
    let written = reviews(dir.path(), "bo");
    assert_eq!(written.len(), 1, "{:?}", app.message());
    assert_eq!((written[0]["verdict"].as_str(), written[0]["reason"].as_str()), (Some("right"), Some("how I checked")));
}

#[test]
fn without_a_reviewer_v_and_l_say_why_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let people = People::new(dir.path().to_path_buf(), Err("no reviewer: give one".into()));
    let mut app = replay_app(SAMPLE).with_people(people);
    press(&mut app, "V");
    assert_eq!(app.screen(), Screen::Dashboard);
    assert!(app.message().unwrap().contains("no reviewer"), "{:?}", app.message());
    press(&mut app, "j\nLwhy\n");
    assert!(app.message().unwrap().contains("no reviewer"), "{:?}", app.message());
    assert!(!dir.path().join("reviews").exists());
    let mut bare = replay_app(SAMPLE);
    press(&mut bare, "V");
    assert!(bare.message().unwrap().contains("no run directory"), "{:?}", bare.message());
}

#[test]
fn the_agreement_screen_from_the_dashboard_and_after_the_last_review() {
    let dir = tempfile::tempdir().unwrap();
    let mut ann = reviewed_replay(dir.path(), "ann");
    press(&mut ann, "A");
    assert_eq!(ann.screen(), Screen::Agreement);
    assert!(screen(&ann, 120, 40).contains("no reviews of this run yet"), "{}", screen(&ann, 120, 40));
    press(&mut ann, "\x1bV");
    press(&mut ann, "A");
    assert_eq!(ann.screen(), Screen::Review, "not before every answer has a verdict");
    assert!(ann.message().unwrap().contains("left: the agreement figures once you are through"), "{:?}", ann.message());
    // The sample's two answers: ann says right then wrong, bo right twice.
    press(&mut ann, "rw");
    let mut bo = reviewed_replay(dir.path(), "bo");
    press(&mut bo, "Vrr");
    let text = screen(&bo, 160, 48);
    assert!(text.contains("every answer has your verdict: A shows the agreement figures"), "{text}");
    press(&mut bo, "A");
    assert_eq!(bo.screen(), Screen::Agreement);
    let text = screen(&bo, 160, 48);
    assert!(text.contains("2 reviewers (ann, bo)"), "{text}");
    assert!(text.contains("ann vs bo: κ"), "{text}");
    assert!(text.contains("α (nominal)"), "{text}");
    assert!(text.contains("critic vs people"), "{text}");
    assert!(text.contains("disputed (right against wrong)"), "{text}");
    press(&mut bo, "\x1b");
    assert_eq!(bo.screen(), Screen::Review);
    // Back on the dashboard, the reviews read again: the critic's scorecard sets people against it.
    press(&mut bo, "\x1bc");
    let text = screen(&bo, 160, 48);
    assert!(text.contains("critic vs people: κ") && text.contains("reviewed by 2 people"), "{text}");
}
