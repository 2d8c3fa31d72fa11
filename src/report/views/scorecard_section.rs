//! The view of the report's critic scorecard for `templates/scorecard.html.j2`:
//! verdicts set against the graded answers of the iterations they judged, as
//! a chart and tables.

use serde::Serialize;

use super::bar_chart::{Bar, BarChart, bar_chart};
use crate::report::documents::{
    CriticScorecard, FateCounts, GradedBy, LabelFreeSignal, SignalAgainstLabels, VerdictFate,
};
use crate::text::percent;

/// Bars of the chart: label, count, CSS class.
fn bars(total: &FateCounts) -> [(&'static str, usize, &'static str); 6] {
    [
        ("approved a right answer", total.correct_approvals, "good"),
        ("approved a wrong answer", total.wrong_approvals, "bad"),
        ("rejected a wrong answer", total.correct_rejections, "good"),
        ("rejected a right answer", total.wrong_rejections, "bad"),
        ("rejected the answer approved later", total.answer_neutral_rejections, "bad"),
        ("rejected, no answer", total.rejections_without_answer, "none"),
    ]
}

/// A horizontal bar chart of the verdict fates.
fn chart(total: &FateCounts) -> BarChart {
    let bars: Vec<Bar> = bars(total)
        .into_iter()
        .map(|(label, count, class)| Bar {
            label: label.into(),
            segments: vec![(count as u64, class)],
            note: count.to_string(),
        })
        .collect();
    let most = bars.iter().map(|b| b.segments[0].0).max().unwrap_or(0);
    bar_chart("scorecard", "critic verdicts", 250, 300, most, bars)
}

/// One row of a table: a name and its counts.
#[derive(Debug, Serialize)]
struct FateRow<'a> {
    name: String,
    #[serde(flatten)]
    counts: &'a FateCounts,
    agreement: String,
}

/// A table of counts by difficulty, source or rule.
#[derive(Debug, Serialize)]
struct FateTable<'a> {
    title: &'static str,
    rows: Vec<FateRow<'a>>,
}

fn table<'a>(title: &'static str, rows: impl Iterator<Item = (String, &'a FateCounts)>) -> FateTable<'a> {
    let rows = rows.map(|(name, counts)| FateRow { name, counts, agreement: percent(counts.agreement()) }).collect();
    FateTable { title, rows }
}

/// An iteration the critic misjudged.
#[derive(Debug, Serialize)]
struct Misjudged<'a> {
    question_id: &'a str,
    attempt: u32,
    iteration: u32,
    what: &'static str,
    mark: Option<&'static str>,
}

/// A label-free flag set against the graded answers.
#[derive(Debug, Serialize)]
struct SignalRow {
    signal: &'static str,
    #[serde(flatten)]
    counts: SignalAgainstLabels,
    flagged_wrong_rate: String,
    unflagged_wrong_rate: String,
}

/// The scorecard section.
#[derive(Debug, Serialize)]
pub struct ScorecardView<'a> {
    /// The run's label-free flags against the grades (consensus, metamorphic checks).
    signals: Vec<SignalRow>,
    agreement: String,
    graded: usize,
    graded_by: Option<String>,
    wrong_rejection_iterations: usize,
    wrong_rejection_tokens: u64,
    chart: BarChart,
    tables: [FateTable<'a>; 3],
    misjudged: Vec<Misjudged<'a>>,
}

/// The scorecard section of `card`, with the run's label-free `signals` set against the same grades.
pub fn scorecard_view(
    card: &CriticScorecard,
    signals: Vec<(LabelFreeSignal, SignalAgainstLabels)>,
) -> ScorecardView<'_> {
    let signals = signals
        .into_iter()
        .map(|(signal, counts)| SignalRow {
            signal: signal.label(),
            counts,
            flagged_wrong_rate: percent(counts.flagged_wrong_rate()),
            unflagged_wrong_rate: percent(counts.unflagged_wrong_rate()),
        })
        .collect();
    let total = &card.total;
    let misjudged = card
        .iterations
        .iter()
        .filter_map(|it| {
            let what = match it.fate {
                VerdictFate::WrongApproval => "approved a wrong answer",
                VerdictFate::WrongRejection => "rejected a right answer",
                VerdictFate::NeutralRejection => "rejected the answer it approved later",
                _ => return None,
            };
            Some(Misjudged {
                question_id: &it.question_id,
                attempt: it.attempt,
                iteration: it.iteration,
                what,
                mark: it.graded_by.and_then(GradedBy::mark),
            })
        })
        .collect();
    ScorecardView {
        signals,
        agreement: percent(total.agreement()),
        graded: total.graded(),
        graded_by: card.graded_by_note(),
        wrong_rejection_iterations: card.wrong_rejection_iterations,
        wrong_rejection_tokens: card.wrong_rejection_tokens,
        chart: chart(total),
        tables: [
            table("difficulty", card.by_difficulty.iter().map(|(k, v)| (k.clone(), v))),
            table("rejections by finding source", card.by_source.iter().map(|(k, v)| (k.replace('_', " "), v))),
            table("rejections by rule", card.by_rule.iter().map(|(k, v)| (k.clone(), v))),
        ],
        misjudged,
    }
}
