//! The view of the report's findings taxonomy for `templates/taxonomy.html.j2`:
//! findings per group as a stacked bar chart (resolved later or not), the
//! groups as a table, every oscillation. Inline SVG, no script.

use serde::Serialize;

use super::bar_chart::{Bar, BarChart, bar_chart};
use crate::domain::QuestionId;
use crate::report::documents::FindingsTaxonomy;

/// Groups the chart shows at most (the table lists all).
const CHARTED: usize = 15;
/// Question links a table row shows at most.
const LINKED: usize = 6;

/// Findings per group, resolved part first.
fn groups_chart(taxonomy: &FindingsTaxonomy) -> BarChart {
    let groups = &taxonomy.groups[..taxonomy.groups.len().min(CHARTED)];
    let most = groups.iter().map(|g| g.count).max().unwrap_or(0) as u64;
    let bars: Vec<Bar> = groups
        .iter()
        .map(|group| Bar {
            label: group.label(),
            segments: vec![(group.resolved as u64, "good"), (group.count.saturating_sub(group.resolved) as u64, "bad")],
            note: format!(
                "{} ({} resolved){}",
                group.count,
                group.resolved,
                if group.oscillations > 0 { " ↺" } else { "" }
            ),
        })
        .collect();
    bar_chart("taxonomy", "findings by group", 300, 300, most, bars)
}

/// The first questions of a group, linked, and how many more there are.
#[derive(Debug, Serialize)]
struct QuestionLinks<'a> {
    ids: &'a [QuestionId],
    more: usize,
}

/// One group of findings.
#[derive(Debug, Serialize)]
struct GroupRow<'a> {
    label: String,
    count: usize,
    question_count: usize,
    questions: QuestionLinks<'a>,
    resolved: usize,
    iterations_caused: usize,
    tokens: u64,
    oscillations: usize,
}

/// A finding back after it was resolved, or code back to an earlier iteration's.
#[derive(Debug, Serialize)]
struct OscillationRow<'a> {
    question_id: &'a str,
    attempt: u32,
    iteration: u32,
    text: String,
}

/// The findings taxonomy section.
#[derive(Debug, Serialize)]
pub struct TaxonomyView<'a> {
    total_findings: usize,
    chart: BarChart,
    groups: Vec<GroupRow<'a>>,
    oscillations: Vec<OscillationRow<'a>>,
}

/// The findings taxonomy section of `taxonomy`.
pub fn taxonomy_view(taxonomy: &FindingsTaxonomy) -> TaxonomyView<'_> {
    let groups = taxonomy
        .groups
        .iter()
        .map(|g| GroupRow {
            label: g.label(),
            count: g.count,
            question_count: g.questions.len(),
            questions: QuestionLinks {
                ids: &g.questions[..g.questions.len().min(LINKED)],
                more: g.questions.len().saturating_sub(LINKED),
            },
            resolved: g.resolved,
            iterations_caused: g.iterations_caused,
            tokens: g.tokens,
            oscillations: g.oscillations,
        })
        .collect();
    let oscillations = taxonomy
        .oscillations
        .iter()
        .map(|o| OscillationRow {
            question_id: &o.question_id,
            attempt: o.attempt,
            iteration: o.iteration,
            text: o.describe(),
        })
        .collect();
    TaxonomyView { total_findings: taxonomy.total_findings, chart: groups_chart(taxonomy), groups, oscillations }
}

#[cfg(test)]
mod tests {
    use crate::report::test_run::run_with_oscillation;
    use crate::report::views::report_html;

    #[test]
    fn the_report_charts_the_groups_the_oscillations_and_the_convergence() {
        let at = chrono::DateTime::parse_from_rfc3339("2026-11-25T04:05:12Z").unwrap();
        let html = report_html(&run_with_oscillation(), &at);
        let section = &html[html.find("id=\"findings-taxonomy\"").unwrap()..];
        let section = &section[..section.find("</section>").unwrap()];
        assert!(section.contains("<svg class=\"chart taxonomy\""), "{section}");
        let chart = &section[section.find("<svg").unwrap()..section.find("</svg>").unwrap()];
        assert_eq!(chart.matches("<rect class=\"good\"").count(), 4, "one bar per group");
        assert!(chart.contains("trial_run · runtime_error · KeyError</text>"), "{chart}");
        assert!(chart.contains("2 (2 resolved) ↺"), "the KeyError group oscillated: {chart}");
        assert!(chart.contains("2 (0 resolved)</text>"), "the unknown field was never resolved: {chart}");
        assert!(section.contains("<a href=\"#q_a\">q_a</a> attempt 1 iteration 3: back again: [trial run] rates runtime_error (resolved in iteration 2)"), "{section}");
        assert!(section.contains("iteration 3: node rates reverted to iteration 1&#x27;s code"), "{section}");
        let convergence = &html[html.find("id=\"convergence\"").unwrap()..];
        let convergence = &convergence[..convergence.find("</section>").unwrap()];
        assert!(
            convergence.contains("3 finished attempts") && convergence.contains("Mean 3.0, median 3.0"),
            "{convergence}"
        );
        let chart = &convergence[convergence.find("<svg").unwrap()..convergence.find("</svg>").unwrap()];
        assert_eq!(chart.matches("<rect").count(), 5, "iterations 1 to 4, then never: {chart}");
        assert!(
            convergence.contains("<tr><td>all</td><td>0</td><td>1</td><td>0</td><td>1</td><td>1</td>"),
            "{convergence}"
        );
        assert!(!section.contains("<script") && !convergence.contains("<script"), "charts without script");
    }
}
