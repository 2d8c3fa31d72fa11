//! The kinds of screen the keymap's contexts name: the keymap owns the
//! list, and each screen says which kind it is.

/// Which screen is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    /// All questions.
    Dashboard,
    /// One question's iterations.
    Question,
    /// Iteration N−1 vs N.
    Diff,
    /// Two runs, question by question.
    Compare,
    /// One question of two runs side by side.
    CompareDetail,
    /// Several runs: questions × runs.
    Matrix,
    /// The dataset schema the builder saw.
    Schema,
    /// One node's inputs and output.
    Inspector,
    /// Whether the critic was right, over the run.
    Scorecard,
    /// The run's findings by group, its oscillations and convergence.
    Taxonomy,
    /// A published benchmark's own figures and the critic's lift.
    Benchmark,
    /// Every run under some directories.
    Runs,
    /// A reviewer's answers to judge, one at a time.
    Review,
    /// Two runs' answers side by side, for a reviewer to prefer one.
    PairReview,
    /// How far reviewers agree with each other and the machines with people.
    Agreement,
}

impl Screen {
    /// Every screen.
    pub const ALL: [Screen; 15] = every_variant!(
        Screen: Dashboard,
        Question,
        Diff,
        Compare,
        CompareDetail,
        Matrix,
        Schema,
        Inspector,
        Scorecard,
        Taxonomy,
        Benchmark,
        Runs,
        Review,
        PairReview,
        Agreement,
    );

    /// The screen as messages name it.
    pub fn name(self) -> &'static str {
        match self {
            Screen::Dashboard => "dashboard",
            Screen::Question => "question",
            Screen::Diff => "diff",
            Screen::Compare => "comparison",
            Screen::CompareDetail => "comparison detail",
            Screen::Matrix => "matrix",
            Screen::Schema => "schema",
            Screen::Inspector => "node inspector",
            Screen::Scorecard => "scorecard",
            Screen::Taxonomy => "findings taxonomy",
            Screen::Benchmark => "benchmark",
            Screen::Runs => "run browser",
            Screen::Review => "review",
            Screen::PairReview => "pairwise review",
            Screen::Agreement => "agreement",
        }
    }
}
