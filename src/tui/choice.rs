//! What the user picked in the run browser: the one type the browser's screen,
//! the command palette and the command hosting the browser share.

/// What the user picked in the run browser, for the command hosting it to
/// open on the same terminal before the browser comes back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// The run directory, in the replay screens.
    Open(std::path::PathBuf),
    /// Two run directories side by side.
    Compare([std::path::PathBuf; 2]),
    /// Three run directories or more, as a matrix.
    Matrix(Vec<std::path::PathBuf>),
    /// The interrupted run directory, continued live (as `run --resume`).
    Resume(std::path::PathBuf),
    /// The run directory's answers, in the review screen (as `review`).
    Review(std::path::PathBuf),
}
