//! The report's critic scorecard: verdicts set against the graded answers of
//! the iterations they judged, as a chart and tables.

use std::fmt::Write;

use super::chart::{Bar, bar_chart};
use crate::render::html_escape;
use crate::report::scorecard::{CriticScorecard, FateCounts, GradedBy, VerdictFate};
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

/// A horizontal bar chart of the verdict fates (inline SVG, no script).
fn chart(total: &FateCounts) -> String {
    let bars: Vec<Bar> = bars(total)
        .into_iter()
        .map(|(label, count, class)| Bar {
            label: label.into(),
            segments: vec![(count as u64, class)],
            note: count.to_string(),
        })
        .collect();
    let most = bars.iter().map(|b| b.segments[0].0).max().unwrap_or(0);
    bar_chart("scorecard", "critic verdicts", 250, 300, most, &bars)
}

fn table(title: &str, rows: &[(String, &FateCounts)]) -> String {
    let mut out = format!(
        "<table><tr><th>{}</th><th>approved a right answer</th><th>approved a wrong answer</th><th>rejected a wrong answer</th><th>rejected a right answer</th><th>rejected the answer approved later</th><th>rejected, no answer</th><th>agreement</th></tr>",
        html_escape(title)
    );
    for (name, c) in rows {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            html_escape(name),
            c.correct_approvals,
            c.wrong_approvals,
            c.correct_rejections,
            c.wrong_rejections,
            c.answer_neutral_rejections,
            c.rejections_without_answer,
            percent(c.agreement())
        );
    }
    out.push_str("</table>");
    out
}

/// The scorecard section.
pub fn scorecard_html(card: &CriticScorecard) -> String {
    let total = &card.total;
    let mut out = format!(
        "<section class=\"scorecard\" id=\"critic-scorecard\"><h2>Critic scorecard</h2><p>Every verdict of the critic set against the answer the judged iteration's trial run reached, graded with the run's matching rules. Agreement with the expected answers: <b>{}</b> of {} graded verdicts{}. Wrong rejections cost {} more iterations and {} tokens.</p>",
        percent(total.agreement()),
        total.graded(),
        card.graded_by_note().map(|note| format!(" ({note})")).unwrap_or_default(),
        card.wrong_rejection_iterations,
        card.wrong_rejection_tokens
    );
    out.push_str(&chart(total));
    let levels: Vec<_> = card.by_difficulty.iter().map(|(k, v)| (k.clone(), v)).collect();
    out.push_str(&table("difficulty", &levels));
    let sources: Vec<_> = card.by_source.iter().map(|(k, v)| (k.replace('_', " "), v)).collect();
    out.push_str(&table("rejections by finding source", &sources));
    let rules: Vec<_> = card.by_rule.iter().map(|(k, v)| (k.clone(), v)).collect();
    out.push_str(&table("rejections by rule", &rules));
    let misjudged: Vec<String> = card
        .iterations
        .iter()
        .filter_map(|it| {
            let what = match it.fate {
                VerdictFate::WrongApproval => "approved a wrong answer",
                VerdictFate::WrongRejection => "rejected a right answer",
                VerdictFate::NeutralRejection => "rejected the answer it approved later",
                _ => return None,
            };
            let mark = it.graded_by.and_then(GradedBy::mark).map(|m| format!(" <i>({m})</i>")).unwrap_or_default();
            Some(format!(
                "<li><a href=\"#{id}\">{id}</a> attempt {} iteration {}: {what}{mark}</li>",
                it.attempt,
                it.iteration,
                id = html_escape(&it.question_id)
            ))
        })
        .collect();
    if !misjudged.is_empty() {
        let _ = write!(out, "<p>Misjudged iterations:</p><ul>{}</ul>", misjudged.join(""));
    }
    out.push_str("</section>");
    out
}
