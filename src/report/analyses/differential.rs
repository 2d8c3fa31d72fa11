//! The run-wide count of differential checks (`run --differential`): approved
//! DAGs whose final execution also ran on the other engine, and how many of
//! them came out differently, by kind.

use crate::report::documents::DifferentialSummary;
use crate::run::RunState;

/// The summary of the run's differential checks; none when the run did not
/// ask for them.
pub fn differential_summary(state: &RunState) -> Option<DifferentialSummary> {
    if !state.settings.as_ref().is_some_and(|settings| settings.differential) {
        return None;
    }
    let mut summary = DifferentialSummary::default();
    for attempt in state.questions.iter().filter_map(|q| q.latest()) {
        let approved = attempt.iterations.last().and_then(|i| i.feedback.as_ref()).is_some_and(|f| f.is_approved);
        if !approved || attempt.execution.is_none() {
            continue;
        }
        summary.checked += 1;
        if let Some(divergence) = &attempt.divergence {
            summary.diverged += 1;
            summary.kinds.add(divergence.kind);
        }
    }
    Some(summary)
}
