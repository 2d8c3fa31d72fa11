//! The view of the report's "People's reviews" section for
//! `templates/reviews.html.j2`: κ for each pair of reviewers, α over all of
//! them, each machine against the human verdict (n, percent agreement, κ and
//! its interval, the 2×2 table), and the adjudication list — the items
//! reviewers dispute, with each reviewer's verdict and reason. Drawn only
//! when the run (or a run it comes from) has reviews; reasons, answers and
//! questions are people's and models' text, escaped by the page's templates.

use serde::Serialize;

use crate::domain::ReviewItem;
use crate::report::analyses::agreement::{agreement_report, alpha_text};
use crate::report::analyses::reviews::{RunReviews, shown};
use crate::report::documents::{EvalResults, KappaFigure};
use crate::text::{percent, preview};

/// How wide an answer is shown.
const ANSWER_CHARS: usize = 60;

/// One κ, as the tables show it.
#[derive(Debug, Serialize)]
struct KappaRow {
    /// Who against whom.
    who: String,
    n: u64,
    agree: String,
    kappa: String,
    interval: String,
    /// The 2×2 table: yes·yes, yes·no, no·yes, no·no.
    table: [u64; 4],
    /// Unsure left out (reviewer pairs), or items where they differ (machines).
    note: String,
}

impl KappaRow {
    fn of(who: String, figure: &KappaFigure, note: String) -> Self {
        let t = figure.table;
        Self {
            who,
            n: figure.n,
            agree: percent(figure.percent_agreement),
            kappa: match (figure.kappa, &figure.undefined) {
                (Some(k), _) => format!("{k:.2}"),
                (None, Some(why)) => format!("undefined: {why}"),
                (None, None) => "undefined".into(),
            },
            // `+ 0.0` turns a bound of −0 into 0.
            interval: figure.interval.map_or("—".into(), |[low, high]| format!("{:.2}–{:.2}", low + 0.0, high + 0.0)),
            table: [t.yes_yes, t.yes_no, t.no_yes, t.no_no],
            note,
        }
    }
}

/// One disputed item: what was shown and what each reviewer said.
#[derive(Debug, Serialize)]
struct Disputed {
    id: String,
    question: String,
    answer: String,
    verdicts: Vec<String>,
}

/// The section.
#[derive(Debug, Serialize)]
pub struct ReviewsView {
    summary: String,
    alpha: String,
    pairs: Vec<KappaRow>,
    machines: Vec<KappaRow>,
    disputed: Vec<Disputed>,
}

/// The disputed `item` of `doc`, with every review of it that counts.
fn disputed(doc: &EvalResults, reviews: &RunReviews, item: &ReviewItem) -> Disputed {
    let question = doc.detailed_results.iter().find(|r| r.question_id == item.question_id.as_str());
    let verdicts = reviews
        .current
        .iter()
        .filter(|r| &r.item == item && r.kind == crate::domain::ReviewKind::Answer)
        .map(|r| {
            let reason = r.reason.as_deref().map(|why| format!(" — {why}")).unwrap_or_default();
            format!("{}: {}{reason}", r.reviewer, r.verdict.name())
        })
        .collect();
    Disputed {
        id: item.question_id.to_string(),
        question: question.map(|q| q.question.clone()).unwrap_or_default(),
        answer: shown(doc, item).and_then(|s| s.answer.map(|a| preview(a, ANSWER_CHARS))).unwrap_or_else(|| "—".into()),
        verdicts,
    }
}

/// The section for `doc` and its `reviews`; none without a review that counts.
pub fn reviews_view(doc: &EvalResults, reviews: &RunReviews) -> Option<ReviewsView> {
    let report = agreement_report(doc, reviews, None);
    if report.reviewers.is_empty() {
        return None;
    }
    let summary = format!(
        "{} ({}) reviewed {}; {} of answers that changed since are not counted.",
        crate::text::plural(report.reviewers.len(), "reviewer"),
        report.reviewers.join(", "),
        crate::text::plural(report.items_reviewed, "item"),
        crate::text::plural(report.stale, "stale review")
    );
    let pairs = report.pairs.iter().map(|p| {
        let who = format!("{} vs {}", p.reviewers[0], p.reviewers[1]);
        KappaRow::of(who, &p.figure, format!("{} unsure left out", p.unsure))
    });
    let machines = report.machines.iter().map(|m| {
        let ids: Vec<String> = m.disagreements.iter().map(|i| i.question_id.to_string()).collect();
        let note = if ids.is_empty() { String::new() } else { format!("differs on {}", ids.join(", ")) };
        KappaRow::of(format!("{} vs people", m.machine), &m.figure, note)
    });
    Some(ReviewsView {
        summary,
        alpha: alpha_text(&report),
        pairs: pairs.collect(),
        machines: machines.collect(),
        disputed: report.disputed.iter().map(|item| disputed(doc, reviews, item)).collect(),
    })
}
