//! The figures a row of the list shows, from a results summary or folded
//! from a trace.

/// The figures of a run; `None` where unknown.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Figures {
    /// The published benchmark it scored, when its results say.
    pub benchmark: Option<String>,
    /// Questions in the run.
    pub questions: Option<usize>,
    /// Questions passed over questions.
    pub pass_rate: Option<f64>,
    /// Graded answers right over graded answers.
    pub accuracy: Option<f64>,
    /// The benchmark's own accuracy by question.
    pub benchmark_accuracy: Option<f64>,
    /// Tokens over all calls.
    pub tokens: Option<u64>,
    /// Estimated cost, USD.
    pub cost_usd: Option<f64>,
    /// Cost (the response cache's hits at list price) per graded right answer, USD.
    pub cost_per_right: Option<f64>,
    /// Wall time, milliseconds.
    pub wall_ms: Option<u64>,
}
