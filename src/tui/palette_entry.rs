//! What the command palette lists: one [`PaletteEntry`] per thing that can be
//! done or reached from the screen on top, each with the [`PaletteTarget`]
//! `enter` carries out. Screens contribute their own through
//! `Component::palette_entries` (the question screen its DAG's nodes, the run
//! browser its runs); the palette adds the screen's actions (from
//! the keymap), the run's questions and its datasets.

use crate::domain::QuestionId;
use crate::tui::choice::Choice;
use crate::tui::keymap::Action;
use crate::tui::selection::Selection;
use crate::tui::view::QuestionSet;

/// What kind of thing an entry is, shown in its first column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// An action of the screen, with its keys.
    Action,
    /// A question of the run.
    Question,
    /// A node of the DAG on screen.
    Node,
    /// A dataset of the run.
    Dataset,
    /// A run the run browser lists.
    Run,
}

impl EntryKind {
    /// The kind as the palette names it.
    pub fn label(self) -> &'static str {
        match self {
            EntryKind::Action => "action",
            EntryKind::Question => "question",
            EntryKind::Node => "node",
            EntryKind::Dataset => "dataset",
            EntryKind::Run => "run",
        }
    }
}

/// What `enter` on an entry does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaletteTarget {
    /// Perform the action, exactly as pressing its key would.
    Action(Action),
    /// Open the question screen on this question (from the first screen).
    Question(QuestionId),
    /// Select this node on the open question (`Effect::Select`).
    Select(Selection),
    /// Show only these questions on the dashboard (a dataset's).
    Narrow(QuestionSet),
    /// Leave the browser for this run (`Effect::Leave`).
    Leave(Choice),
}

/// One line of the palette.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaletteEntry {
    /// What kind of thing it is.
    pub kind: EntryKind,
    /// What the fuzzy search matches and the line shows first (an id, an action's help).
    pub label: String,
    /// More words, matched too and shown dimmer (a question's text, a node's operation).
    pub detail: String,
    /// The keys that do the same, for an action: the palette teaches them.
    pub keys: Option<String>,
    /// What `enter` does.
    pub target: PaletteTarget,
}
