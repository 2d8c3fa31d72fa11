//! The one list of key bindings: it drives key handling, the footer hints and
//! the help overlay, so the three never disagree. The user's `[keys]` replace
//! a binding's default keys in the [`Keymap`] of a session (`rebind.rs`);
//! keys are written and shown as `key.rs` says.

mod key;
mod rebind;
mod screen;

use crossterm::event::KeyCode;

pub use key::{Key, KeyParseError};
pub use rebind::{Bound, Keymap, RebindError, RebindProblem, Rebinding};
pub use screen::Screen;

/// Declares [`Action`] with each action's name in the config file.
macro_rules! actions {
    ($($(#[doc = $doc:expr])+ $variant:ident = $name:literal,)+) => {
        /// What a key does.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Action {
            $($(#[doc = $doc])+ $variant,)+
        }

        impl Action {
            /// Every action, in declaration order.
            pub const ALL: &[Action] = &[$(Action::$variant),+];

            /// Its name in the config file's `[keys]` tables.
            pub fn name(self) -> &'static str {
                match self {
                    $(Action::$variant => $name),+
                }
            }
        }
    };
}

actions! {
    /// Leave the app (asks first while a live run's questions are working).
    Quit = "quit",
    /// Leave the app without asking.
    QuitNow = "quit_now",
    /// Answer yes to "quit now?" (batches in flight are left for `--resume`).
    ConfirmQuit = "confirm_quit",
    /// Answer "quit now?" by cancelling the batches in flight at the provider, then quitting.
    CancelBatches = "cancel_batches",
    /// Show or hide the help overlay.
    Help = "help",
    /// The command palette: fuzzy search over what this screen can do and reach.
    Palette = "palette",
    /// Move up.
    Up = "up",
    /// Move down.
    Down = "down",
    /// Previous iteration.
    PrevIteration = "prev_iteration",
    /// Next iteration.
    NextIteration = "next_iteration",
    /// The previous draft of the epoch (`run --consensus`).
    PrevDraft = "prev_draft",
    /// The next draft of the epoch (`run --consensus`).
    NextDraft = "next_draft",
    /// The selected draft's DAG against another draft's (`run --consensus`).
    DraftDiff = "draft_diff",
    /// Left in the focused pane (the graph: the layer before).
    PaneLeft = "pane_left",
    /// Right in the focused pane (the graph: the layer after).
    PaneRight = "pane_right",
    /// Focus the next pane.
    NextPane = "next_pane",
    /// Focus the previous pane.
    PrevPane = "prev_pane",
    /// Select an input of the selected node.
    ToInput = "to_input",
    /// Select a node the selected node feeds.
    ToConsumer = "to_consumer",
    /// Open the selected question.
    Open = "open",
    /// Back to the previous screen.
    Back = "back",
    /// Next detail tab.
    NextTab = "next_tab",
    /// The focused pane fills the screen, or not.
    Zoom = "zoom",
    /// Whole prompts and responses in the conversation, or previews.
    Expand = "expand",
    /// Scroll the detail down.
    ScrollDown = "scroll_down",
    /// Scroll the detail up.
    ScrollUp = "scroll_up",
    /// Iteration diff against the previous iteration.
    Diff = "diff",
    /// Type a text filter.
    Filter = "filter",
    /// Cycle the status filter.
    StatusFilter = "status_filter",
    /// Cycle the change filter of a comparison.
    ChangeFilter = "change_filter",
    /// Cycle the sort order.
    Sort = "sort",
    /// Pause or resume the run.
    Pause = "pause",
    /// Let one stage proceed.
    Step = "step",
    /// Rerun the selected question from scratch.
    Rerun = "rerun",
    /// Rerun from the selected iteration.
    Fork = "fork",
    /// Edit the selected node's code by hand, then check and trial-run it.
    EditNode = "edit_node",
    /// Edit the whole DAG (JSON) by hand, then check and trial-run it.
    EditDag = "edit_dag",
    /// Accept the selected iteration as the question's answer, by hand.
    Accept = "accept",
    /// Write a note on the selected iteration (optionally sent back to the builder).
    Note = "note",
    /// The dataset schema the builder saw, at what the node's findings name.
    Schema = "schema",
    /// Inspect the selected node's inputs and output.
    Inspect = "inspect",
    /// Open or close the selected entry.
    Toggle = "toggle",
    /// Open every entry (bounded).
    ExpandAll = "expand_all",
    /// The next search match.
    SearchNext = "search_next",
    /// The previous search match.
    SearchPrevious = "search_previous",
    /// Write the selected value to a file as JSON.
    Export = "export",
    /// Run the inspected node on its own, with the nodes feeding it.
    RunNode = "run_node",
    /// The critic's scorecard.
    Scorecard = "scorecard",
    /// The findings taxonomy and convergence.
    Taxonomy = "taxonomy",
    /// A published benchmark's own figures and the critic's lift.
    Benchmark = "benchmark",
    /// Show every question again (clear the question-set filter).
    ClearQuestions = "clear_questions",
    /// Label the iteration's answer right or wrong.
    Label = "label",
    /// Play or pause the replay.
    Play = "play",
    /// One event forward.
    Forward = "forward",
    /// One event back.
    Backward = "backward",
    /// Jump to the first event.
    Start = "start",
    /// Jump to the last event.
    End = "end",
    /// Replay faster.
    Faster = "faster",
    /// Replay slower.
    Slower = "slower",
    /// Mark or unmark the selected run (the run browser).
    Mark = "mark",
    /// Compare the two marked runs (the run browser).
    CompareMarked = "compare_marked",
    /// The marked runs as a matrix (the run browser).
    MatrixMarked = "matrix_marked",
    /// Continue the selected interrupted run, live (the run browser).
    Resume = "resume",
    /// Review the selected run's answers, blind (the run browser).
    ReviewRun = "review_run",
    /// The left answer is better (the pairwise review screen).
    PairLeft = "pair_left",
    /// The right answer is better (the pairwise review screen).
    PairRight = "pair_right",
    /// As good as each other (the pairwise review screen).
    PairTie = "pair_tie",
    /// Neither is right (the pairwise review screen).
    PairBothWrong = "pair_both_wrong",
    /// The accuracy–cost frontier in place of the questions, or back (the matrix).
    Frontier = "frontier",
    /// The frontier's next x axis: cost, tokens, wall time (the matrix).
    FrontierAxis = "frontier_axis",
    /// The answer is right (the review screen).
    ReviewRight = "review_right",
    /// The answer is wrong (the review screen).
    ReviewWrong = "review_wrong",
    /// Cannot tell (the review screen).
    ReviewUnsure = "review_unsure",
    /// Pass over the answer for now (the review screen).
    ReviewSkip = "review_skip",
    /// Back to the last answer reviewed (the review screen).
    ReviewUndo = "review_undo",
    /// Show the machines' verdicts and other reviews, once yours is given (the review screen).
    ReviewReveal = "review_reveal",
    /// Type a one-line reason for the next verdict (the review screen).
    ReviewReason = "review_reason",
    /// Type the right answer, as JSON, for the next verdict (the review screen).
    ReviewAnswer = "review_answer",
    /// How far reviewers agree with each other and the machines with people (the agreement screen).
    Agreement = "agreement",
}

/// Declares [`Context`] with each context's section in the config file and its name for people.
macro_rules! contexts {
    ($($(#[doc = $doc:expr])+ $variant:ident = $section:literal, $name:literal;)+) => {
        /// Where a binding applies.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Context {
            $($(#[doc = $doc])+ $variant,)+
        }

        impl Context {
            /// Every context, in declaration order.
            pub const ALL: &[Context] = &[$(Context::$variant),+];

            /// Its table in the config file: `[keys.<section>]`.
            pub fn section(self) -> &'static str {
                match self {
                    $(Context::$variant => $section),+
                }
            }

            /// The actions bound in this context, in help order.
            pub fn actions(self) -> impl Iterator<Item = Action> {
                BINDINGS.iter().filter(move |b| b.context == self).map(|b| b.action)
            }

            /// Where the binding applies, as the help and the guide name it.
            pub fn name(self) -> &'static str {
                match self {
                    $(Context::$variant => $name),+
                }
            }
        }
    };
}

contexts! {
    /// Everywhere.
    Global = "global", "everywhere";
    /// The question table.
    Dashboard = "dashboard", "dashboard";
    /// Screens that scroll and go back: question, diff, comparison detail.
    Detail = "detail", "question, diff, detail screens";
    /// A question's iterations: question and diff screens.
    Iterations = "iterations", "question and diff";
    /// The iteration diff.
    Diff = "diff", "diff";
    /// The question screen.
    Question = "question", "question";
    /// The comparison table.
    Compare = "compare", "comparison of two runs";
    /// The matrix of several runs.
    Matrix = "matrix", "matrix of several runs";
    /// Screens of a run (not a comparison).
    Run = "run", "a run's screens";
    /// The node inspector.
    Inspector = "inspector", "node inspector";
    /// The findings taxonomy.
    Taxonomy = "taxonomy", "findings taxonomy";
    /// A published benchmark's figures.
    Benchmark = "benchmark", "benchmark";
    /// A run's screens in a replay.
    Replay = "replay", "a run's screens, in a replay";
    /// A run's screens in a live run.
    Live = "live", "a run's screens, in a live run";
    /// The question asked before quitting a live run (on no screen: it takes keys first).
    QuitPrompt = "quit_prompt", "quit now? (a live run)";
    /// The run browser.
    Runs = "runs", "run browser";
    /// The review screen.
    Review = "review", "review";
    /// The pairwise review screen.
    PairReview = "pair_review", "pairwise review";
}

/// One binding, as the keymap defines it.
#[derive(Debug, PartialEq)]
pub struct Binding {
    /// The default keys as the footer and the help show them.
    pub label: &'static str,
    /// Keys that trigger it, unless the user rebinds them.
    pub keys: &'static [Key],
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
        Binding { label: $label, keys: &[$(Key::plain($key)),+], action: Action::$action, help: $help, hint: $hint, context: Context::$context }
    };
}

use KeyCode::{BackTab, Char, Down, End, Enter, Esc, Home, Left, PageDown, PageUp, Right, Tab, Up};

/// Every binding, in help and footer order.
pub const BINDINGS: &[Binding] = &[
    bind!("q", [Char('q')], Quit, "quit (Ctrl-C too)", "quit", Global),
    bind!("Q", [Char('Q')], QuitNow, "quit, never ask", "", Global),
    bind!("y", [Char('y'), Char('Y')], ConfirmQuit, "quit; batches in flight are left for --resume", "", QuitPrompt),
    bind!("c", [Char('c')], CancelBatches, "quit; cancel the batches in flight first", "", QuitPrompt),
    bind!("?", [Char('?')], Help, "all keys", "keys", Global),
    Binding {
        label: ":/ctrl-p",
        keys: &[Key::plain(Char(':')), Key::ctrl(Char('p'))],
        action: Action::Palette,
        help: "command palette: actions, questions, nodes, datasets",
        hint: "",
        context: Context::Global,
    },
    bind!("↑/k", [Up, Char('k')], Up, "up (in the focused pane)", "", Global),
    bind!("↓/j", [Down, Char('j')], Down, "down (in the focused pane)", "", Global),
    bind!("enter", [Enter], Open, "open the question", "open", Dashboard),
    bind!("/", [Char('/')], Filter, "filter by text", "filter", Dashboard),
    bind!("f", [Char('f')], StatusFilter, "cycle the status filter", "status", Dashboard),
    bind!("s", [Char('s')], Sort, "cycle the sort order", "sort", Dashboard),
    bind!("c", [Char('c')], Scorecard, "critic scorecard: was the critic right?", "critic", Dashboard),
    bind!("esc", [Esc], ClearQuestions, "clear the findings group, else back to the run browser", "", Dashboard),
    bind!("enter", [Enter], Open, "show the group's questions on the dashboard", "filter", Taxonomy),
    bind!("enter", [Enter], Open, "open the fixed or broken question", "open", Benchmark),
    bind!(
        "f",
        [Char('f')],
        ChangeFilter,
        "the fixed and broken, or those answerable without the data",
        "list",
        Benchmark
    ),
    bind!("enter", [Enter], Open, "A and B side by side", "open", Compare),
    bind!("f", [Char('f')], ChangeFilter, "cycle the change filter", "change", Compare),
    bind!("enter", [Enter], Open, "the baseline and this run side by side", "open", Matrix),
    bind!("←", [Left], PaneLeft, "set the run before against the baseline", "", Matrix),
    bind!("→", [Right], PaneRight, "set the next run against the baseline", "run", Matrix),
    bind!("p", [Char('p')], Frontier, "accuracy against cost (the frontier), or the questions", "frontier", Matrix),
    bind!("x", [Char('x')], FrontierAxis, "the frontier against cost, tokens or wall time", "axis", Matrix),
    bind!("esc", [Esc, Char('b')], Back, "back", "back", Detail),
    bind!("esc", [Esc], Back, "back to the run browser (when opened from it)", "", Compare),
    bind!("esc", [Esc], Back, "back to the run browser (when opened from it)", "", Matrix),
    bind!("enter", [Enter], Open, "open the run in the replay screens", "open", Runs),
    bind!("/", [Char('/')], Filter, "filter by text (path, dataset, models, status)", "filter", Runs),
    bind!("s", [Char('s')], Sort, "cycle the sorted column", "sort", Runs),
    bind!("space", [Char(' ')], Mark, "mark / unmark the run", "mark", Runs),
    bind!("c", [Char('c')], CompareMarked, "compare the two marked runs", "compare", Runs),
    bind!("m", [Char('m')], MatrixMarked, "the marked runs (three or more) as a matrix", "matrix", Runs),
    bind!("R", [Char('R')], Resume, "resume the interrupted run, live", "resume", Runs),
    bind!("v", [Char('v')], ReviewRun, "review the run's answers, blind (as `eval-dag review`)", "review", Runs),
    bind!("r", [Char('r')], ReviewRight, "the answer is right", "right", Review),
    bind!("w", [Char('w')], ReviewWrong, "the answer is wrong", "wrong", Review),
    bind!("u", [Char('u')], ReviewUnsure, "cannot tell", "unsure", Review),
    bind!("m", [Char('m')], ReviewReason, "a one-line reason for your next verdict", "reason", Review),
    bind!("a", [Char('a')], ReviewAnswer, "the right answer (JSON) for your next verdict", "answer", Review),
    bind!("→", [Right], PaneRight, "the next answer", "next", Review),
    bind!("←", [Left], PaneLeft, "the previous answer", "", Review),
    bind!("s", [Char('s')], ReviewSkip, "skip this answer for now", "skip", Review),
    bind!("z", [Char('z')], ReviewUndo, "back to your last review, to give it again", "undo", Review),
    bind!("v", [Char('v')], ReviewReveal, "once you gave yours: the critic, grades, other reviews", "show", Review),
    bind!("A", [Char('A')], Agreement, "once every answer has your verdict: the agreement figures", "", Review),
    bind!("esc", [Esc], Back, "back to the dashboard or the run browser it was opened from", "", Review),
    bind!("1", [Char('1')], PairLeft, "the left answer is better", "left", PairReview),
    bind!("2", [Char('2')], PairRight, "the right answer is better", "right", PairReview),
    bind!("t", [Char('t')], PairTie, "as good as each other", "tie", PairReview),
    bind!("x", [Char('x')], PairBothWrong, "neither is right", "both wrong", PairReview),
    bind!("→", [Right], PaneRight, "the next question", "next", PairReview),
    bind!("←", [Left], PaneLeft, "the previous question", "", PairReview),
    bind!("h", [Char('h')], PrevIteration, "previous iteration", "prev", Iterations),
    bind!("l", [Char('l')], NextIteration, "next iteration", "next", Iterations),
    bind!("<", [Char('<')], PrevDraft, "previous draft (a consensus run)", "", Iterations),
    bind!(">", [Char('>')], NextDraft, "next draft (a consensus run)", "draft", Iterations),
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
    bind!("D", [Char('D')], DraftDiff, "diff with another draft's DAG (a consensus run)", "drafts", Question),
    bind!("p", [Char('p')], Pause, "pause / resume the run", "pause", Live),
    bind!("n", [Char('n')], Step, "step one stage", "step", Live),
    bind!("r", [Char('r')], Rerun, "rerun the question", "rerun", Run),
    bind!("V", [Char('V')], ReviewRun, "review the run's answers, blind (as `eval-dag review`)", "review", Dashboard),
    bind!(
        "A",
        [Char('A')],
        Agreement,
        "agreement: reviewers with each other, the machines with people",
        "agreement",
        Dashboard
    ),
    bind!("T", [Char('T')], Taxonomy, "findings taxonomy, oscillation, convergence", "findings", Dashboard),
    bind!("B", [Char('B')], Benchmark, "benchmark: its own figures, the critic's lift", "benchmark", Dashboard),
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
    bind!(
        "L",
        [Char('L')],
        Label,
        "review the answer right or wrong (kept in reviews/, not the run)",
        "label",
        Iterations
    ),
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

impl Action {
    /// Whether it is about the drafts of a consensus run (its hint shows only in one).
    pub fn is_about_drafts(self) -> bool {
        matches!(self, Self::PrevDraft | Self::NextDraft | Self::DraftDiff)
    }
}

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
                | Screen::Benchmark
                | Screen::Agreement
        ),
        Context::Inspector => screen == Screen::Inspector,
        Context::Taxonomy => screen == Screen::Taxonomy,
        Context::Benchmark => screen == Screen::Benchmark,
        Context::Iterations => matches!(screen, Screen::Question | Screen::Diff),
        Context::Diff => screen == Screen::Diff,
        Context::Question => screen == Screen::Question,
        Context::Compare => screen == Screen::Compare,
        Context::Matrix => screen == Screen::Matrix,
        Context::Run => run,
        Context::Replay => run && replay,
        Context::Live => run && !replay,
        Context::QuitPrompt => false,
        Context::Runs => screen == Screen::Runs,
        Context::Review => screen == Screen::Review,
        Context::PairReview => screen == Screen::PairReview,
    }
}
