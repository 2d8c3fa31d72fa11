//! The report's findings taxonomy and convergence: findings per group as a
//! stacked bar chart (resolved later or not), the groups as a table, every
//! oscillation, and iterations to approval as a histogram with a table per
//! difficulty. Inline SVG, no script.

use std::fmt::Write;

use super::chart::{Bar, bar_chart};
use crate::render::html_escape;
use crate::report::convergence::{ApprovalHistogram, Convergence};
use crate::report::taxonomy::FindingsTaxonomy;

/// Groups the chart shows at most (the table lists all).
const CHARTED: usize = 15;
/// Question links a table row shows at most.
const LINKED: usize = 6;

/// Findings per group, resolved part first (inline SVG).
fn groups_chart(taxonomy: &FindingsTaxonomy) -> String {
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
    bar_chart("taxonomy", "findings by group", 300, 300, most, &bars)
}

fn question_links(ids: &[String]) -> String {
    let mut links: Vec<String> =
        ids.iter().take(LINKED).map(|id| format!("<a href=\"#{id}\">{id}</a>", id = html_escape(id))).collect();
    if ids.len() > LINKED {
        links.push(format!("… {} more", ids.len() - LINKED));
    }
    links.join(" ")
}

/// The findings taxonomy section.
pub fn taxonomy_html(taxonomy: &FindingsTaxonomy) -> String {
    let mut out = format!(
        "<section class=\"taxonomy\" id=\"findings-taxonomy\"><h2>Findings taxonomy</h2><p>{} findings in {} groups (source · rule · exception); {} oscillations: a finding back after it was resolved, or a node's code back to an earlier iteration's. Green: resolved later; red: not.</p>",
        taxonomy.total_findings,
        taxonomy.groups.len(),
        taxonomy.oscillations.len()
    );
    if taxonomy.groups.is_empty() {
        out.push_str("<p>No findings.</p></section>");
        return out;
    }
    out.push_str(&groups_chart(taxonomy));
    out.push_str("<table><tr><th>group</th><th>findings</th><th>questions</th><th>resolved</th><th>iterations caused</th><th>tokens</th><th>oscillations</th></tr>");
    for g in &taxonomy.groups {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{} {}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            html_escape(&g.label()),
            g.count,
            g.questions.len(),
            question_links(&g.questions),
            g.resolved,
            g.iterations_caused,
            g.tokens,
            g.oscillations
        );
    }
    out.push_str("</table>");
    if !taxonomy.oscillations.is_empty() {
        out.push_str("<p>Oscillations:</p><ul class=\"oscillations\">");
        for o in &taxonomy.oscillations {
            let _ = write!(
                out,
                "<li><a href=\"#{id}\">{id}</a> attempt {} iteration {}: {}</li>",
                o.attempt,
                o.iteration,
                html_escape(&o.describe()),
                id = html_escape(&o.question_id)
            );
        }
        out.push_str("</ul>");
    }
    out.push_str("</section>");
    out
}

/// Iterations to approval as columns: 1, 2, …, then never (inline SVG).
fn histogram_chart(histogram: &ApprovalHistogram) -> String {
    let columns: Vec<(String, usize, &str)> = histogram
        .approved_at
        .iter()
        .enumerate()
        .map(|(i, &n)| ((i + 1).to_string(), n, "good"))
        .chain([("never".to_string(), histogram.never_approved, "bad")])
        .collect();
    let most = columns.iter().map(|c| c.1).max().unwrap_or(0).max(1);
    let (column, height, top) = (48, 120, 16);
    let mut svg = format!(
        "<svg class=\"chart convergence\" role=\"img\" aria-label=\"iterations to approval\" width=\"{}\" height=\"{}\">",
        columns.len() * column + 4,
        height + top + 20
    );
    for (i, (label, count, class)) in columns.iter().enumerate() {
        let x = i * column + 4;
        let bar = height * count / most;
        let y = top + height - bar;
        let _ = write!(
            svg,
            "<rect class=\"{class}\" x=\"{x}\" y=\"{y}\" width=\"{}\" height=\"{bar}\"></rect><text x=\"{x}\" y=\"{}\">{count}</text><text x=\"{x}\" y=\"{}\">{label}</text>",
            column - 10,
            y.saturating_sub(3).max(12),
            top + height + 16
        );
    }
    svg.push_str("</svg>");
    svg
}

fn number(value: Option<f64>) -> String {
    value.map_or("—".into(), |v| format!("{v:.1}"))
}

/// The convergence section.
pub fn convergence_html(convergence: &Convergence) -> String {
    let run = &convergence.run;
    let mut out = format!(
        "<section class=\"convergence\" id=\"convergence\"><h2>Convergence</h2><p>Iterations until the critic first approved each of the model's {} finished attempts (never: every iteration rejected). Mean {}, median {}.</p>",
        run.attempts(),
        number(run.mean),
        number(run.median)
    );
    out.push_str(&histogram_chart(run));
    out.push_str("<table><tr><th>difficulty</th>");
    for i in 1..=run.approved_at.len() {
        let _ = write!(out, "<th>{i}</th>");
    }
    out.push_str("<th>never</th><th>mean</th><th>median</th></tr>");
    let rows = convergence.by_difficulty.iter().map(|(level, h)| (level.as_str(), h)).chain([("all", run)]);
    for (level, h) in rows {
        let _ = write!(out, "<tr><td>{}</td>", html_escape(level));
        for n in &h.approved_at {
            let _ = write!(out, "<td>{n}</td>");
        }
        let _ =
            write!(out, "<td>{}</td><td>{}</td><td>{}</td></tr>", h.never_approved, number(h.mean), number(h.median));
    }
    out.push_str("</table></section>");
    out
}

#[cfg(test)]
mod tests {
    use crate::report::report_html;
    use crate::report::test_run::run_with_oscillation;

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
        assert!(section.contains("iteration 3: node rates reverted to iteration 1&#39;s code"), "{section}");
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
