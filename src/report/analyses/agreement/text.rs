//! The agreement figures in words, one line each: what `agreement` prints
//! and the TUI's agreement screen shows.

use crate::report::documents::{AgreementReport, KappaFigure};

/// κ with its interval and what it rests on, in one phrase.
pub fn kappa_text(figure: &KappaFigure) -> String {
    let agree = crate::text::percent(figure.percent_agreement);
    match (figure.kappa, figure.interval, &figure.undefined) {
        (Some(k), Some([low, high]), _) => {
            format!("κ {k:.2} [{low:.2}–{high:.2}] over {} items (agree {agree})", figure.n)
        }
        (Some(k), None, _) => format!("κ {k:.2} over {} items (agree {agree})", figure.n),
        (None, _, Some(why)) => format!("κ undefined ({why}) over {} items", figure.n),
        (None, _, None) => format!("κ undefined over {} items", figure.n),
    }
}

/// α with its interval and what it rests on, in one phrase.
pub fn alpha_text(report: &AgreementReport) -> String {
    let alpha = &report.alpha;
    match (alpha.alpha, alpha.interval) {
        (Some(a), Some([low, high])) => {
            format!("α (nominal): {a:.2} [{low:.2}–{high:.2}] over {} items, {} values", alpha.units, alpha.values)
        }
        (Some(a), None) => format!("α (nominal): {a:.2} over {} items", alpha.units),
        (None, _) => format!("α (nominal): undefined over {} items reviewed twice or more", alpha.units),
    }
}

/// The figures of one run, a line each: first who reviewed how much, then
/// each pair of reviewers, α, each machine against people, the disputed
/// items and the pairwise tallies.
pub fn agreement_lines(report: &AgreementReport) -> Vec<String> {
    let mut lines = vec![format!(
        "{} ({}), {} reviewed, {}",
        crate::text::plural(report.reviewers.len(), "reviewer"),
        report.reviewers.join(", "),
        crate::text::plural(report.items_reviewed, "item"),
        crate::text::plural(report.stale, "stale review")
    )];
    for pair in &report.pairs {
        lines.push(format!(
            "{} vs {}: {}; {} unsure left out",
            pair.reviewers[0],
            pair.reviewers[1],
            kappa_text(&pair.figure),
            pair.unsure
        ));
    }
    lines.push(alpha_text(report));
    for machine in &report.machines {
        let listed: Vec<String> = machine.disagreements.iter().take(10).map(|i| i.question_id.to_string()).collect();
        let differ = if listed.is_empty() { String::new() } else { format!("; differs on {}", listed.join(", ")) };
        lines.push(format!("{} vs people: {}{differ}", machine.machine, kappa_text(&machine.figure)));
    }
    if !report.disputed.is_empty() {
        let ids: Vec<String> = report.disputed.iter().take(20).map(|i| i.question_id.to_string()).collect();
        lines.push(format!("disputed (right against wrong): {}: {}", report.disputed.len(), ids.join(", ")));
    }
    for tally in &report.pairwise {
        let rate = match (tally.win_rate, tally.interval) {
            (Some(rate), Some([low, high])) => {
                format!("wins {:.0}% [{:.0}–{:.0}%]", 100.0 * rate, 100.0 * low, 100.0 * high)
            }
            _ => "no decided item".to_string(),
        };
        lines.push(format!(
            "side by side with {:?}: {} won, {} lost, {} tied, {} both wrong; {rate}; sign test p = {:.3}",
            tally.other_run, tally.wins, tally.losses, tally.ties, tally.both_wrong, tally.sign_test_p
        ));
    }
    lines
}
