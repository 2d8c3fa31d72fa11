//! The one list of key bindings: it drives key handling, the footer hints and
//! the help overlay, so the three never disagree.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::view::Screen;

/// What a key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Leave the app (asks first while a live run's questions are working).
    Quit,
    /// Leave the app without asking.
    QuitNow,
    /// Show or hide the help overlay.
    Help,
    /// Move up.
    Up,
    /// Move down.
    Down,
    /// Previous iteration.
    PrevIteration,
    /// Next iteration.
    NextIteration,
    /// Left in the focused pane (the graph: the layer before).
    PaneLeft,
    /// Right in the focused pane (the graph: the layer after).
    PaneRight,
    /// Focus the next pane.
    NextPane,
    /// Focus the previous pane.
    PrevPane,
    /// Select an input of the selected node.
    ToInput,
    /// Select a node the selected node feeds.
    ToConsumer,
    /// Open the selected question.
    Open,
    /// Back to the previous screen.
    Back,
    /// Next detail tab.
    NextTab,
    /// The focused pane fills the screen, or not.
    Zoom,
    /// Whole prompts and responses in the conversation, or previews.
    Expand,
    /// Scroll the detail down.
    ScrollDown,
    /// Scroll the detail up.
    ScrollUp,
    /// Iteration diff against the previous iteration.
    Diff,
    /// Type a text filter.
    Filter,
    /// Cycle the status filter.
    StatusFilter,
    /// Cycle the change filter of a comparison.
    ChangeFilter,
    /// Cycle the sort order.
    Sort,
    /// Pause or resume the run.
    Pause,
    /// Let one stage proceed.
    Step,
    /// Rerun the selected question from scratch.
    Rerun,
    /// Rerun from the selected iteration.
    Fork,
    /// Edit the selected node's code by hand, then check and trial-run it.
    EditNode,
    /// Edit the whole DAG (JSON) by hand, then check and trial-run it.
    EditDag,
    /// Accept the selected iteration as the question's answer, by hand.
    Accept,
    /// Write a note on the selected iteration (optionally sent back to the builder).
    Note,
    /// The dataset schema the builder saw, at what the node's findings name.
    Schema,
    /// Inspect the selected node's inputs and output.
    Inspect,
    /// Open or close the selected entry.
    Toggle,
    /// Open every entry (bounded).
    ExpandAll,
    /// The next search match.
    SearchNext,
    /// The previous search match.
    SearchPrevious,
    /// Write the selected value to a file as JSON.
    Export,
    /// Run the inspected node on its own, with the nodes feeding it.
    RunNode,
    /// The critic's scorecard.
    Scorecard,
    /// The findings taxonomy and convergence.
    Taxonomy,
    /// Show every question again (clear the question-set filter).
    ClearQuestions,
    /// Label the iteration's answer right or wrong.
    Label,
    /// Play or pause the replay.
    Play,
    /// One event forward.
    Forward,
    /// One event back.
    Backward,
    /// Jump to the first event.
    Start,
    /// Jump to the last event.
    End,
    /// Replay faster.
    Faster,
    /// Replay slower.
    Slower,
}

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// Everywhere.
    Global,
    /// The question table.
    Dashboard,
    /// Screens that scroll and go back: question, diff, comparison detail.
    Detail,
    /// A question's iterations: question and diff screens.
    Iterations,
    /// The iteration diff.
    Diff,
    /// The question screen.
    Question,
    /// The comparison table.
    Compare,
    /// The matrix of several runs.
    Matrix,
    /// Screens of a run (not a comparison).
    Run,
    /// The node inspector.
    Inspector,
    /// The findings taxonomy.
    Taxonomy,
    /// A run's screens in a replay.
    Replay,
    /// A run's screens in a live run.
    Live,
}

impl Context {
    /// Where the binding applies, as the help and the README name it.
    pub fn name(self) -> &'static str {
        match self {
            Context::Global => "everywhere",
            Context::Dashboard => "dashboard",
            Context::Detail => "question, diff, detail screens",
            Context::Iterations => "question and diff",
            Context::Diff => "diff",
            Context::Question => "question",
            Context::Compare => "comparison of two runs",
            Context::Matrix => "matrix of several runs",
            Context::Run => "a run's screens",
            Context::Inspector => "node inspector",
            Context::Taxonomy => "findings taxonomy",
            Context::Replay => "a run's screens, in a replay",
            Context::Live => "a run's screens, in a live run",
        }
    }
}

/// One binding.
pub struct Binding {
    /// Key names as shown to users.
    pub label: &'static str,
    /// Keys that trigger it.
    pub keys: &'static [KeyCode],
    /// What it does.
    pub action: Action,
    /// Help text.
    pub help: &'static str,
    /// Short footer hint; empty keeps the binding out of the footer.
    pub hint: &'static str,
    /// Where it applies.
    pub context: Context,
}

macro_rules! bind {
    ($label:expr, [$($key:expr),+], $action:ident, $help:expr, $hint:expr, $context:ident) => {
        Binding { label: $label, keys: &[$($key),+], action: Action::$action, help: $help, hint: $hint, context: Context::$context }
    };
}

use KeyCode::{BackTab, Char, Down, End, Enter, Esc, Home, Left, PageDown, PageUp, Right, Tab, Up};

/// Every binding, in help and footer order.
pub const BINDINGS: &[Binding] = &[
    bind!("q", [Char('q')], Quit, "quit (Ctrl-C too)", "quit", Global),
    bind!("Q", [Char('Q')], QuitNow, "quit, never ask", "", Global),
    bind!("?", [Char('?')], Help, "all keys", "keys", Global),
    bind!("↑/k", [Up, Char('k')], Up, "up (in the focused pane)", "", Global),
    bind!("↓/j", [Down, Char('j')], Down, "down (in the focused pane)", "", Global),
    bind!("enter", [Enter], Open, "open the question", "open", Dashboard),
    bind!("/", [Char('/')], Filter, "filter by text", "filter", Dashboard),
    bind!("f", [Char('f')], StatusFilter, "cycle the status filter", "status", Dashboard),
    bind!("s", [Char('s')], Sort, "cycle the sort order", "sort", Dashboard),
    bind!("c", [Char('c')], Scorecard, "critic scorecard: was the critic right?", "critic", Dashboard),
    bind!("esc", [Esc], ClearQuestions, "show every question again (after a findings group)", "", Dashboard),
    bind!("enter", [Enter], Open, "show the group's questions on the dashboard", "filter", Taxonomy),
    bind!("enter", [Enter], Open, "A and B side by side", "open", Compare),
    bind!("f", [Char('f')], ChangeFilter, "cycle the change filter", "change", Compare),
    bind!("enter", [Enter], Open, "the baseline and this run side by side", "open", Matrix),
    bind!("←", [Left], PaneLeft, "set the run before against the baseline", "", Matrix),
    bind!("→", [Right], PaneRight, "set the next run against the baseline", "run", Matrix),
    bind!("esc", [Esc, Char('b')], Back, "back", "back", Detail),
    bind!("h", [Char('h')], PrevIteration, "previous iteration", "prev", Iterations),
    bind!("l", [Char('l')], NextIteration, "next iteration", "next", Iterations),
    bind!("←", [Left], PrevIteration, "previous iteration", "", Diff),
    bind!("→", [Right], NextIteration, "next iteration", "", Diff),
    bind!("←", [Left], PaneLeft, "graph: the layer before", "", Question),
    bind!("→", [Right], PaneRight, "graph: the layer after", "", Question),
    bind!("tab", [Tab], NextPane, "focus the next pane (graph, code, detail)", "focus", Question),
    bind!("shift-tab", [BackTab], PrevPane, "focus the previous pane", "", Question),
    bind!("[", [Char('[')], ToInput, "select an input of the node", "", Question),
    bind!("]", [Char(']')], ToConsumer, "select a node it feeds", "", Question),
    bind!("t", [Char('t')], NextTab, "next detail tab", "tabs", Question),
    bind!("z", [Char('z')], Zoom, "zoom the focused pane", "zoom", Question),
    bind!("e", [Char('e')], Expand, "whole prompts / previews", "expand", Question),
    bind!("pgdn/J", [PageDown, Char('J')], ScrollDown, "scroll down", "", Detail),
    bind!("pgup/K", [PageUp, Char('K')], ScrollUp, "scroll up", "", Detail),
    bind!("d", [Char('d')], Diff, "diff with previous iteration", "diff", Question),
    bind!("p", [Char('p')], Pause, "pause / resume the run", "pause", Live),
    bind!("n", [Char('n')], Step, "step one stage", "step", Live),
    bind!("r", [Char('r')], Rerun, "rerun the question", "rerun", Run),
    bind!("T", [Char('T')], Taxonomy, "findings taxonomy, oscillation, convergence", "findings", Dashboard),
    bind!("F", [Char('F')], Fork, "fork from this iteration", "fork", Iterations),
    bind!("E", [Char('E')], EditNode, "edit the node's code ($EDITOR)", "edit", Question),
    bind!("W", [Char('W')], EditDag, "edit the whole DAG as JSON", "", Question),
    bind!("A", [Char('A')], Accept, "accept as the answer by hand", "accept", Iterations),
    bind!("i", [Char('i')], Inspect, "inspect the node: inputs and output", "inspect", Question),
    bind!("enter/space", [Enter, Char(' ')], Toggle, "open / close the entry", "open", Inspector),
    bind!("←", [Left], PaneLeft, "close, or go to the parent", "", Inspector),
    bind!("→", [Right], PaneRight, "open, or step in", "", Inspector),
    bind!("/", [Char('/')], Filter, "search keys and values", "search", Inspector),
    bind!("n", [Char('n')], SearchNext, "next match", "next", Inspector),
    bind!("N", [Char('N')], SearchPrevious, "previous match", "", Inspector),
    bind!("*", [Char('*')], ExpandAll, "open everything (bounded)", "", Inspector),
    bind!("w", [Char('w')], Export, "write the value as JSON to a file", "write", Inspector),
    bind!("E", [Char('E')], EditNode, "edit the code, then run just this node", "edit", Inspector),
    bind!("R", [Char('R')], RunNode, "run just this node (and what feeds it)", "run", Inspector),
    bind!("L", [Char('L')], Label, "label the answer right or wrong", "label", Iterations),
    bind!("S", [Char('S')], Schema, "dataset schema, at the finding's field", "schema", Question),
    bind!("N", [Char('N')], Note, "write a note, send it back", "note", Iterations),
    bind!("space", [Char(' ')], Play, "play / pause the replay", "play", Replay),
    bind!(".", [Char('.')], Forward, "next event", "next event", Replay),
    bind!(",", [Char(',')], Backward, "previous event", "prev event", Replay),
    bind!("home/g", [Home, Char('g')], Start, "first event", "", Replay),
    bind!("end/G", [End, Char('G')], End, "last event", "", Replay),
    bind!("+", [Char('+')], Faster, "replay faster", "", Replay),
    bind!("-", [Char('-')], Slower, "replay slower", "", Replay),
];

/// Whether a binding of `context` applies on `screen` (of a replay when `replay`).
pub fn applies(context: Context, screen: Screen, replay: bool) -> bool {
    let run = matches!(screen, Screen::Dashboard | Screen::Question | Screen::Diff);
    match context {
        Context::Global => true,
        Context::Dashboard => screen == Screen::Dashboard,
        Context::Detail => matches!(
            screen,
            Screen::Question
                | Screen::Diff
                | Screen::CompareDetail
                | Screen::Schema
                | Screen::Inspector
                | Screen::Scorecard
                | Screen::Taxonomy
        ),
        Context::Inspector => screen == Screen::Inspector,
        Context::Taxonomy => screen == Screen::Taxonomy,
        Context::Iterations => matches!(screen, Screen::Question | Screen::Diff),
        Context::Diff => screen == Screen::Diff,
        Context::Question => screen == Screen::Question,
        Context::Compare => screen == Screen::Compare,
        Context::Matrix => screen == Screen::Matrix,
        Context::Run => run,
        Context::Replay => run && replay,
        Context::Live => run && !replay,
    }
}

/// The action of `key` on `screen`, if any.
pub fn action_for(key: KeyEvent, screen: Screen, replay: bool) -> Option<Action> {
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == Char('c') {
        return Some(Action::Quit);
    }
    BINDINGS.iter().find(|b| applies(b.context, screen, replay) && b.keys.contains(&key.code)).map(|b| b.action)
}

/// The bindings that apply on `screen`, in help order.
pub fn active(screen: Screen, replay: bool) -> impl Iterator<Item = &'static Binding> {
    BINDINGS.iter().filter(move |b| applies(b.context, screen, replay))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_key_means_two_things_on_one_screen() {
        let screens = [
            Screen::Dashboard,
            Screen::Question,
            Screen::Diff,
            Screen::Compare,
            Screen::CompareDetail,
            Screen::Matrix,
            Screen::Schema,
            Screen::Inspector,
            Screen::Scorecard,
            Screen::Taxonomy,
        ];
        for screen in screens {
            for replay in [false, true] {
                let mut seen = std::collections::HashSet::new();
                for binding in active(screen, replay) {
                    for key in binding.keys {
                        assert!(seen.insert(*key), "{key:?} is bound twice on {screen:?} (replay {replay})");
                    }
                }
            }
        }
    }
}
