//! The engines' parts of the full results document (`run --differential`):
//! the run-wide summary and a divergence each way round.

use eval_dag::report::EvalResults;
use serde_json::json;

/// The engines' check over a run, every kind counted somewhere.
pub(super) fn differential() -> eval_dag::report::DifferentialSummary {
    eval_dag::report::DifferentialSummary {
        checked: 2,
        diverged: 1,
        kinds: eval_dag::report::DivergenceCounts { outcome: 1, ..Default::default() },
    }
}

/// A divergence where CPython failed and RustPython answered.
pub(super) fn divergence() -> eval_dag::domain::EngineDivergence {
    use eval_dag::domain::{DivergenceKind, Engine, EngineDivergence, EngineOutcome};
    EngineDivergence {
        kind: DivergenceKind::Outcome,
        primary: EngineOutcome { engine: Engine::RustPython, answer: Some(json!(["a", "b"])), error: None },
        other: EngineOutcome {
            engine: Engine::CPython,
            answer: None,
            error: Some("node total: TypeError: unhashable type".into()),
        },
        first_node: Some("total".into()),
    }
}

/// A second question whose engines parted the other way round: between the
/// two, every field of a divergence is written.
pub(super) fn with_reversed_divergence(document: &mut EvalResults) {
    let mut reversed = document.detailed_results[0].clone();
    reversed.question_id = "q_02".into();
    if let Some(divergence) = reversed.divergence.as_mut() {
        std::mem::swap(&mut divergence.primary, &mut divergence.other);
    }
    document.detailed_results.push(reversed);
}
