//! The report's charts of the run as a whole: pass rate and accuracy per
//! difficulty, and the tokens and time each question took, in rank order.
//! Inline SVG through the shared [`bar_chart`], no script.

use super::chart::{Bar, bar_chart};
use super::thousands;
use crate::domain::DifficultyLevel;
use crate::report::graded_tally;
use crate::run::{Outcome, QuestionState, QuestionStatus, RunState};
use crate::text::duration;

/// A percentage bar: `part` of `whole` (0–100, rounded), and its note.
fn share(label: String, part: usize, whole: usize, class: &'static str, none: &str) -> Bar {
    if whole == 0 {
        return Bar { label, segments: Vec::new(), note: none.into() };
    }
    let percent = (100 * part + whole / 2) / whole;
    Bar { label, segments: vec![(percent as u64, class)], note: format!("{percent}% ({part}/{whole})") }
}

/// Pass rate and accuracy (graded questions) of each difficulty, two bars each.
pub fn difficulty_chart(state: &RunState) -> String {
    let mut bars = Vec::new();
    for level in DifficultyLevel::ALL {
        let of: Vec<&QuestionState> = state.questions.iter().filter(|q| q.question.difficulty_level == level).collect();
        let passed = of.iter().filter(|q| q.status == QuestionStatus::Done(Outcome::Passed)).count();
        bars.push(share(format!("{} · pass rate", level.as_str()), passed, of.len(), "good", "— (no questions)"));
        let (graded, right) = graded_tally(of.iter().copied());
        bars.push(share(format!("{} · accuracy", level.as_str()), right, graded, "accuracy", "— (none graded)"));
    }
    format!(
        "<figure><figcaption>Pass rate (green) and accuracy of the graded answers (blue) by difficulty</figcaption>{}</figure>",
        bar_chart("difficulty", "pass rate and accuracy by difficulty", 150, 300, 100, &bars)
    )
}

/// The colour of a question's bar: green passed, red failed or exhausted, grey otherwise.
fn status_class(question: &QuestionState) -> &'static str {
    match question.status {
        QuestionStatus::Done(Outcome::Passed) => "good",
        QuestionStatus::Done(Outcome::Failed | Outcome::Exhausted) => "bad",
        _ => "none",
    }
}

/// Milliseconds from a question's start to its end (or to the last event, unfinished).
fn time_taken(question: &QuestionState, now_ms: u64) -> Option<u64> {
    let started = question.started_ms?;
    Some(question.finished_ms.unwrap_or(now_ms).saturating_sub(started))
}

/// Tokens and time per question, in rank order, side by side.
pub fn questions_charts(state: &RunState) -> String {
    let mut questions: Vec<&QuestionState> = state.questions.iter().collect();
    questions.sort_by_key(|q| q.question.difficulty_rank);
    let label = |q: &QuestionState| format!("{} · {}", q.question.id, q.question.difficulty_level.as_str());
    let tokens: Vec<Bar> = questions
        .iter()
        .map(|q| Bar {
            label: label(q),
            segments: vec![(q.usage.total(), status_class(q))],
            note: thousands(q.usage.total()),
        })
        .collect();
    let times: Vec<(Option<u64>, &QuestionState)> =
        questions.iter().map(|q| (time_taken(q, state.now_ms), *q)).collect();
    let time_bars: Vec<Bar> = times
        .iter()
        .map(|(ms, q)| Bar {
            label: label(q),
            segments: ms.map(|ms| vec![(ms, status_class(q))]).unwrap_or_default(),
            note: ms.map_or("—".into(), duration),
        })
        .collect();
    let most_tokens = questions.iter().map(|q| q.usage.total()).max().unwrap_or(0);
    let most_ms = times.iter().filter_map(|t| t.0).max().unwrap_or(0);
    format!(
        "<section class=\"run-charts\" id=\"per-question\"><h2>Per question</h2><p>Questions in rank order (easiest first). Green: passed; red: failed or exhausted; grey: anything else.</p><div class=\"charts\"><figure><figcaption>Tokens</figcaption>{}</figure><figure><figcaption>Time</figcaption>{}</figure></div></section>",
        bar_chart("tokens", "tokens per question", 140, 240, most_tokens, &tokens),
        bar_chart("time", "time per question", 140, 240, most_ms, &time_bars)
    )
}
