//! The words screens share: the question screen's panes and tabs, the
//! dashboard's filters and orders. Each screen's own state is in its module under `screens/`.

use std::collections::BTreeSet;

use crate::domain::QuestionId;
use crate::run::{Outcome, QuestionStatus};

/// A set of questions the dashboard is narrowed to, and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuestionSet {
    /// What the questions have in common, for the header (a findings group).
    pub label: String,
    /// Their ids.
    pub ids: BTreeSet<QuestionId>,
}

impl QuestionSet {
    /// Whether the question `id` is in the set.
    pub fn keeps(&self, id: &str) -> bool {
        self.ids.contains(id)
    }
}

/// The panes of the question screen; Tab and Shift-Tab move the focus, the
/// arrows act in the focused one and `z` lets it fill the screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    /// The DAG: arrows move the selection along the graph.
    Graph,
    /// The selected node's code: arrows scroll it.
    Code,
    /// The detail tabs: arrows scroll them.
    Detail,
}

impl Pane {
    /// Every pane, in focus order.
    pub const ALL: [Pane; 3] = every_variant!(Pane: Graph, Code, Detail);

    /// The pane `step` places after this one in focus order (negative: before), wrapping.
    pub fn cycled(self, step: isize) -> Self {
        let index = Self::ALL.iter().position(|p| *p == self).unwrap_or(0) as isize;
        Self::ALL[(index + step).rem_euclid(Self::ALL.len() as isize) as usize]
    }
}

/// Detail tabs of the question screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    /// The critic's feedback.
    Feedback,
    /// Node outputs of the trial run.
    Outputs,
    /// Every LLM call of the question across iterations and attempts.
    Conversation,
}

impl Tab {
    /// All tabs in order.
    pub const ALL: [Tab; 3] = every_variant!(Tab: Feedback, Outputs, Conversation);

    /// Tab title.
    pub fn title(self) -> &'static str {
        match self {
            Tab::Feedback => "feedback",
            Tab::Outputs => "outputs",
            Tab::Conversation => "conversation",
        }
    }
}

/// Which questions the table shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusFilter {
    /// Everything.
    All,
    /// Working or pending.
    Active,
    /// Failed, exhausted, cancelled or rejected.
    NotPassed,
    /// Passed.
    Passed,
}

impl StatusFilter {
    /// The filter after this one (the key cycles through them).
    pub fn next(self) -> Self {
        match self {
            Self::All => Self::Active,
            Self::Active => Self::NotPassed,
            Self::NotPassed => Self::Passed,
            Self::Passed => Self::All,
        }
    }

    /// Label for the header.
    pub fn label(self) -> &'static str {
        match self {
            Self::All => "all",
            Self::Active => "active",
            Self::NotPassed => "not passed",
            Self::Passed => "passed",
        }
    }

    /// Whether a question of `status` is shown.
    pub fn keeps(self, status: QuestionStatus) -> bool {
        match self {
            Self::All => true,
            Self::Active => status.is_active(),
            Self::NotPassed => !matches!(status, QuestionStatus::Done(Outcome::Passed)),
            Self::Passed => matches!(status, QuestionStatus::Done(Outcome::Passed)),
        }
    }
}

/// Table order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    /// Difficulty rank.
    Rank,
    /// Status, then rank.
    Status,
    /// Most findings first.
    Findings,
}

impl Sort {
    /// Label for the header.
    pub fn label(self) -> &'static str {
        match self {
            Self::Rank => "rank",
            Self::Status => "status",
            Self::Findings => "findings",
        }
    }
}
