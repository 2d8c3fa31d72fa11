//! The run-wide figures of consensus runs: how far drafts agreed, and — where
//! answers were graded — how well disagreement predicts a wrong answer.

use crate::report::documents::{ConsensusSummary, SignalAgainstLabels};
use crate::run::RunState;

/// The consensus summary of `state`; none when the run built one DAG per question.
pub fn consensus_summary(state: &RunState) -> Option<ConsensusSummary> {
    let k = state.settings.as_ref()?.drafts();
    if k < 2 {
        return None;
    }
    let mut summary = ConsensusSummary { k, questions: 0, mean_agreement: 0.0, unanimous: 0, against_labels: None };
    let mut labels = SignalAgainstLabels::default();
    let mut graded = false;
    for q in &state.questions {
        let Some(consensus) = q.latest().and_then(|a| q.consensus.get(&a.epoch)) else { continue };
        let unanimous = consensus.agreement >= 1.0;
        summary.questions += 1;
        summary.mean_agreement += consensus.agreement;
        summary.unanimous += usize::from(unanimous);
        if let Some(right) = q.correct() {
            labels.add(!unanimous, right);
            graded = true;
        }
    }
    if summary.questions > 0 {
        summary.mean_agreement /= summary.questions as f64;
    }
    summary.against_labels = graded.then_some(labels);
    Some(summary)
}
