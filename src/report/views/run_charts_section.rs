//! The report's charts of the run as a whole: pass rate and accuracy per
//! difficulty, and the tokens and time each question took, in rank order.
//! Inline SVG through the shared [`bar_chart`], no script
//! (`templates/run_charts.html.j2`; the difficulty chart is in the summary).

use serde::Serialize;

use super::bar_chart::{Bar, BarChart, bar_chart};
use crate::domain::DifficultyLevel;
use crate::report::analyses::write_results::graded_tally;
use crate::run::{Outcome, QuestionState, QuestionStatus, RunState};
use crate::text::duration;
use crate::text::thousands;

/// A percentage bar: `part` of `whole` (0–100, rounded), and its note.
fn share(label: String, part: usize, whole: usize, class: &'static str, none: &str) -> Bar {
    if whole == 0 {
        return Bar { label, segments: Vec::new(), note: none.into() };
    }
    let percent = (100 * part + whole / 2) / whole;
    Bar { label, segments: vec![(percent as u64, class)], note: format!("{percent}% ({part}/{whole})") }
}

/// Pass rate and accuracy (graded questions) of each difficulty, two bars each.
pub fn difficulty_chart(state: &RunState) -> BarChart {
    let mut bars = Vec::new();
    for level in DifficultyLevel::ALL {
        let of: Vec<&QuestionState> = state.questions.iter().filter(|q| q.question.difficulty_level == level).collect();
        let passed = of.iter().filter(|q| q.status == QuestionStatus::Done(Outcome::Passed)).count();
        bars.push(share(format!("{} · pass rate", level.as_str()), passed, of.len(), "good", "— (no questions)"));
        let (graded, right) = graded_tally(of.iter().copied());
        bars.push(share(format!("{} · accuracy", level.as_str()), right, graded, "accuracy", "— (none graded)"));
    }
    bar_chart("difficulty", "pass rate and accuracy by difficulty", 150, 300, 100, bars)
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

/// Above this many questions the per-question charts show how the questions
/// spread over ranges of tokens and time instead of one bar each.
const BARS_PER_QUESTION_UP_TO: usize = 100;
/// Ranges of a distribution chart.
const RANGES: u64 = 12;

/// The per-question section: what its charts show, and the two charts.
#[derive(Debug, Serialize)]
pub struct RunCharts {
    intro: &'static str,
    tokens: BarChart,
    time: BarChart,
}

/// Tokens and time per question side by side: one bar per question in rank
/// order, or — above [`BARS_PER_QUESTION_UP_TO`] questions — how many
/// questions fall in each range, stacked by outcome.
pub fn questions_charts(state: &RunState) -> RunCharts {
    let mut questions: Vec<&QuestionState> = state.questions.iter().collect();
    questions.sort_by_key(|q| q.question.difficulty_rank);
    let tokens: Vec<(Option<u64>, &QuestionState)> = questions.iter().map(|q| (Some(q.usage.total()), *q)).collect();
    let times: Vec<(Option<u64>, &QuestionState)> =
        questions.iter().map(|q| (time_taken(q, state.now_ms), *q)).collect();
    let (intro, tokens, time) = if questions.len() <= BARS_PER_QUESTION_UP_TO {
        (
            "Questions in rank order (easiest first).",
            per_question("tokens", "tokens per question", &tokens, thousands),
            per_question("time", "time per question", &times, duration),
        )
    } else {
        (
            "How many questions took how much, in equal ranges (one bar per range).",
            distribution("tokens", "questions by tokens spent", &tokens, thousands),
            distribution("time", "questions by time taken", &times, time_label),
        )
    };
    RunCharts { intro, tokens, time }
}

/// One bar per question: its value (none when unknown) in the question's colour.
fn per_question(
    class: &str,
    title: &str,
    values: &[(Option<u64>, &QuestionState)],
    show: fn(u64) -> String,
) -> BarChart {
    let bars: Vec<Bar> = values
        .iter()
        .map(|(value, q)| Bar {
            label: format!("{} · {}", q.question.id, q.question.difficulty_level.as_str()),
            segments: value.map(|v| vec![(v, status_class(q))]).unwrap_or_default(),
            note: value.map_or("—".into(), show),
        })
        .collect();
    let most = values.iter().filter_map(|v| v.0).max().unwrap_or(0);
    bar_chart(class, title, 140, 240, most, bars)
}

/// Up to [`RANGES`] equal ranges from the smallest value to the largest, each
/// a bar of how many questions fall in it, stacked passed / failed / other;
/// questions without a value (not started) get a row of their own.
fn distribution(
    class: &str,
    title: &str,
    values: &[(Option<u64>, &QuestionState)],
    show: fn(u64) -> String,
) -> BarChart {
    let known = || values.iter().filter_map(|v| v.0);
    let (low, high) = (known().min().unwrap_or(0), known().max().unwrap_or(0));
    let width = ((high - low) / RANGES + 1).max(1);
    let ranges = ((high - low) / width + 1) as usize;
    let mut counts = vec![[0u64; 3]; ranges];
    for (value, q) in values {
        if let Some(value) = value {
            let slot = ["good", "bad", "none"].iter().position(|c| *c == status_class(q)).unwrap_or(2);
            counts[((value - low) / width) as usize][slot] += 1;
        }
    }
    let mut bars: Vec<Bar> = counts
        .iter()
        .enumerate()
        .map(|(i, [good, bad, none])| {
            let from = low + i as u64 * width;
            let label = match width {
                1 => show(from),
                _ => format!("{}–{}", show(from), show(from + width - 1)),
            };
            Bar {
                label,
                segments: vec![(*good, "good"), (*bad, "bad"), (*none, "none")],
                note: thousands(good + bad + none),
            }
        })
        .collect();
    let unknown = values.iter().filter(|v| v.0.is_none()).count() as u64;
    if unknown > 0 {
        bars.push(Bar { label: "not started".into(), segments: Vec::new(), note: thousands(unknown) });
    }
    let tallest = counts.iter().map(|c| c.iter().sum::<u64>()).max().unwrap_or(0);
    bar_chart(class, title, 170, 240, tallest, bars)
}

/// Milliseconds as a range label: to the millisecond under ten seconds.
fn time_label(ms: u64) -> String {
    if ms < 10_000 { format!("{} ms", thousands(ms)) } else { duration(ms) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::test_run::run_of;

    #[test]
    fn ranges_span_the_values_seen_and_unstarted_questions_get_a_row() {
        let state = run_of(3);
        let q: Vec<&QuestionState> = state.questions.iter().collect();
        let same = distribution("t", "t", &[(Some(5), q[0]), (Some(5), q[1]), (None, q[2])], thousands);
        assert_eq!(same.labels(), ["5", "not started"], "{same:?}");
        let few = distribution("t", "t", &[(Some(1_000), q[0]), (Some(1_003), q[1])], time_label);
        assert_eq!(few.labels(), ["1,000 ms", "1,001 ms", "1,002 ms", "1,003 ms"], "{few:?}");
        let wide = distribution("t", "t", &[(Some(0), q[0]), (Some(60_000), q[1]), (Some(30_000), q[2])], time_label);
        let labels = wide.labels();
        assert_eq!((labels.len(), labels[0].as_str(), labels[11].as_str()), (12, "0 ms–5,000 ms", "55.0s–1m00s"));
    }
}
