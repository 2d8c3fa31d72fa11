//! The one list of key bindings: it drives key handling, the footer hints and
//! the help overlay, so the three never disagree.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What a key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Leave the app.
    Quit,
    /// Show or hide the help overlay.
    Help,
    /// Move up.
    Up,
    /// Move down.
    Down,
    /// Previous iteration.
    Left,
    /// Next iteration.
    Right,
    /// Open the selected question.
    Open,
    /// Back to the previous screen.
    Back,
    /// Next detail tab.
    NextTab,
    /// Iteration diff against the previous iteration.
    Diff,
    /// Type a text filter.
    Filter,
    /// Cycle the status filter.
    StatusFilter,
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
    /// A question's detail.
    Question,
    /// Replays only.
    Replay,
    /// Live runs only.
    Live,
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
    /// Where it applies.
    pub context: Context,
    /// Whether the footer shows it.
    pub in_footer: bool,
}

macro_rules! bind {
    ($label:expr, [$($key:expr),+], $action:ident, $help:expr, $context:ident, $footer:expr) => {
        Binding { label: $label, keys: &[$($key),+], action: Action::$action, help: $help, context: Context::$context, in_footer: $footer }
    };
}

use KeyCode::{Char, Down, End, Enter, Esc, Home, Left, Right, Tab, Up};

/// Every binding, in help order.
pub const BINDINGS: &[Binding] = &[
    bind!("q", [Char('q')], Quit, "quit (Ctrl-C too)", Global, true),
    bind!("?", [Char('?')], Help, "help", Global, true),
    bind!("↑/k", [Up, Char('k')], Up, "move up", Global, false),
    bind!("↓/j", [Down, Char('j')], Down, "move down", Global, false),
    bind!("enter", [Enter], Open, "open question", Dashboard, true),
    bind!("/", [Char('/')], Filter, "filter by text", Dashboard, true),
    bind!("f", [Char('f')], StatusFilter, "filter by status", Dashboard, true),
    bind!("s", [Char('s')], Sort, "sort", Dashboard, true),
    bind!("esc", [Esc, Char('b')], Back, "back", Question, true),
    bind!("←/h", [Left, Char('h')], Left, "previous iteration", Question, true),
    bind!("→/l", [Right, Char('l')], Right, "next iteration", Question, true),
    bind!("tab", [Tab], NextTab, "next detail tab", Question, true),
    bind!("d", [Char('d')], Diff, "diff with previous iteration", Question, true),
    bind!("p", [Char('p')], Pause, "pause / resume the run", Live, true),
    bind!("n", [Char('n')], Step, "step one stage", Live, true),
    bind!("r", [Char('r')], Rerun, "rerun question", Global, true),
    bind!("F", [Char('F')], Fork, "fork from iteration", Question, true),
    bind!("space", [Char(' ')], Play, "play / pause replay", Replay, true),
    bind!(".", [Char('.')], Forward, "next event", Replay, true),
    bind!(",", [Char(',')], Backward, "previous event", Replay, true),
    bind!("home/g", [Home, Char('g')], Start, "first event", Replay, false),
    bind!("end/G", [End, Char('G')], End, "last event", Replay, false),
    bind!("+", [Char('+')], Faster, "faster", Replay, false),
    bind!("-", [Char('-')], Slower, "slower", Replay, false),
];

/// Whether a binding of `context` applies on a screen (`question` or not) in a replay or live run.
pub fn applies(context: Context, question: bool, replay: bool) -> bool {
    match context {
        Context::Global => true,
        Context::Dashboard => !question,
        Context::Question => question,
        Context::Replay => replay,
        Context::Live => !replay,
    }
}

/// The action of `key`, if any.
pub fn action_for(key: KeyEvent, question: bool, replay: bool) -> Option<Action> {
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == Char('c') {
        return Some(Action::Quit);
    }
    BINDINGS.iter().find(|b| applies(b.context, question, replay) && b.keys.contains(&key.code)).map(|b| b.action)
}

/// The footer's hints for the current screen.
pub fn footer(question: bool, replay: bool) -> Vec<(&'static str, &'static str)> {
    BINDINGS.iter().filter(|b| b.in_footer && applies(b.context, question, replay)).map(|b| (b.label, b.help)).collect()
}
