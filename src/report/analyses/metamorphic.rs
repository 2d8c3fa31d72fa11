//! The run-wide count of metamorphic checks: approved answers that break an
//! invariant, and — where answers were graded — how often a broken invariant
//! came with a wrong answer.

use crate::report::documents::{MetamorphicSummary, SignalAgainstLabels};
use crate::run::RunState;

/// The summary of the checks of every question's answer; none when no
/// answer was checked.
pub fn metamorphic_summary(state: &RunState) -> Option<MetamorphicSummary> {
    let mut summary = MetamorphicSummary { checked: 0, broken: 0, order_dependent: 0, against_labels: None };
    let mut labels = SignalAgainstLabels::default();
    let mut graded = false;
    for q in &state.questions {
        let Some(checks) = q.latest().and_then(|a| a.metamorphic.as_ref()) else { continue };
        let broken = checks.checks.iter().any(|c| c.broken);
        summary.checked += 1;
        summary.broken += usize::from(broken);
        summary.order_dependent += usize::from(checks.order_dependent);
        if let Some(right) = q.correct() {
            labels.add(broken, right);
            graded = true;
        }
    }
    summary.against_labels = graded.then_some(labels);
    (summary.checked > 0).then_some(summary)
}
