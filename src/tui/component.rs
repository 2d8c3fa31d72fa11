//! The contract between the app and its screens: a screen is a
//! [`Component`] that reads what it needs through a read-only [`Ctx`] (the
//! run, the theme, the keys, the clock, the screens below it) and answers an
//! action with what it [`Handled`]: the [`Effect`]s the app carries out —
//! open a screen with the data it needs, go back, send a command to the
//! engine, say something, ask for an edit, move the selection of the screen
//! below, leave the app with what the user picked in the run browser. No
//! screen reaches the app itself. A screen's view of the run is worked out
//! in [`Component::refresh`] when the run changed ([`Ctx::run_changed`]) and
//! only read while drawing. An [`Overlay`] (the help, the text box, the
//! command palette) is drawn over the screen and takes keys first; a screen
//! adds its own entries to the palette.

use std::any::Any;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;

use super::baselines::{BaselinesCache, RunBaselines};
use super::choice::Choice;
use super::comparison::Comparison;
use super::editing::AfterEdit;
use super::keymap::{Action, Keymap, Screen};
use super::palette_entry::PaletteEntry;
use super::replay::Replay;
use super::selection::Selection;
use super::text_box::Closed;
use super::theme::Theme;
use super::view::QuestionSet;
use crate::dataset::Dataset;
use crate::domain::QuestionId;
use crate::run::{Command, RunState};

/// The run's dataset as loaded for the inspector, or why it could not be.
pub type LoadedDataset = Result<Arc<Dataset>, String>;

/// What a screen, an overlay or a widget may read: the app's state, never to change.
pub struct Ctx<'a> {
    /// The run as of now.
    pub state: &'a RunState,
    /// Colours.
    pub theme: &'a Theme,
    /// The keys: the defaults with the user's rebindings.
    pub keys: &'a Keymap,
    /// The screen on top (the one whose keys apply).
    pub screen: Screen,
    /// Replay controls, when replaying.
    pub replay: Option<&'a Replay>,
    /// The status line's message.
    pub message: Option<&'a str>,
    /// Animation frame of spinners.
    pub spinner: usize,
    /// The moment the loop last woke.
    pub now: Instant,
    /// A derived run's directory, where new work is recorded.
    pub recording: Option<&'a Path>,
    /// The command that continues a live run later.
    pub resume: Option<&'a str>,
    /// A fault met while drawing, until a frame draws.
    pub fault: Option<&'a str>,
    /// Whether the app waits for the user to confirm quitting.
    pub confirm_quit: bool,
    /// Questions queued or under way in a live run.
    pub work_in_progress: usize,
    /// The run's one dataset, once the inspector loaded it (or why it could not).
    pub dataset: Option<&'a LoadedDataset>,
    /// Whether the inspector may read a dataset outside the run's benchmark folder.
    pub allow_outside_datasets: bool,
    /// `(question, attempt)`: select this attempt (or a later one) when it appears.
    pub awaiting_attempt: Option<&'a (QuestionId, u32)>,
    /// Whether the run changed since the screen refreshed last (always, for a new screen).
    pub run_changed: bool,
    /// The screens below (while one handles an action) or all of them (while drawing).
    pub(super) stack: &'a [Box<dyn Component>],
    /// The run's baselines, worked out once per revision of the run.
    pub(super) baselines_cache: &'a BaselinesCache,
    /// Counts the changes of the run.
    pub(super) revision: u64,
    /// Who reviews the run and what people said of it, when it has a directory.
    pub people: Option<&'a super::people::People>,
}

impl Ctx<'_> {
    /// The key bound to `action` on the screen on top, as shown.
    pub fn key_label(&self, action: Action) -> Option<&str> {
        self.keys.label(action, self.screen, self.replay.is_some())
    }

    /// The action `key` is bound to on the screen on top.
    pub fn action_for(&self, key: KeyEvent) -> Option<Action> {
        self.keys.action_for(key, self.screen, self.replay.is_some())
    }

    /// The screen of type `T` nearest the top of the stack.
    pub fn find<T: Component>(&self) -> Option<&T> {
        self.stack.iter().rev().find_map(|screen| (screen.as_ref() as &dyn Any).downcast_ref::<T>())
    }

    /// The run's baselines (`run --baselines`), graded once per change of the run for every screen.
    pub fn baselines(&self) -> Option<Arc<RunBaselines>> {
        self.baselines_cache.get(self.state, self.revision)
    }

    /// The two runs compared nearest the top of the stack.
    pub fn comparison(&self) -> Option<&Comparison> {
        self.stack.iter().rev().find_map(|screen| screen.comparison())
    }
}

/// Something a screen asks the app to do.
pub enum Effect {
    /// Show this screen on top (back returns here).
    Open(Box<dyn Component>),
    /// Do what this action does on the screen on top, as its key would (the palette).
    Perform(Action),
    /// Back to the screen below.
    Back,
    /// Back to the first screen (the dashboard, or a comparison's table).
    Home,
    /// Say this on the status line.
    Message(String),
    /// Send this command to the engine (a replay turns into a derived run
    /// first), saying `what` it does.
    Send {
        /// The command.
        command: Command,
        /// What it does, for the status line.
        what: String,
    },
    /// Open the editor on the selected node (`whole`: the whole DAG), the
    /// saved text to become `then`.
    Edit {
        /// Whether the whole DAG is edited.
        whole: bool,
        /// What the saved text becomes.
        then: AfterEdit,
    },
    /// The question screen below selects this.
    Select(Selection),
    /// The comparison table below moves its selection down (or up).
    MoveComparison {
        /// Down, else up.
        down: bool,
    },
    /// The dashboard shows only these questions.
    Narrow(QuestionSet),
    /// Keep the run's one dataset, loaded, for the next time it is needed.
    KeepDataset(LoadedDataset),
    /// What a closed text box asks for.
    Closed(Closed),
    /// Leave the app for what the user picked (the run browser's host opens it).
    Leave(Choice),
}

/// What a screen did with an action.
pub enum Handled {
    /// Not its action: the app's global handling gets it (quit, help, back,
    /// run control, work by hand, replay).
    Ignored,
    /// Taken; the app carries out these effects in order.
    Done(Vec<Effect>),
}

impl Handled {
    /// Taken, with nothing more to do.
    pub fn done() -> Self {
        Self::Done(Vec::new())
    }

    /// Taken; the app carries out `effect`.
    pub fn with(effect: Effect) -> Self {
        Self::Done(vec![effect])
    }

    /// Taken; `screen` opens on top.
    pub fn open(screen: Box<dyn Component>) -> Self {
        Self::with(Effect::Open(screen))
    }

    /// Taken; the status line says `text`.
    pub fn message(text: impl Into<String>) -> Self {
        Self::with(Effect::Message(text.into()))
    }
}

/// A screen: its state, its actions and its drawing.
///
/// While a screen handles an action it is off the stack; the screens below
/// it are in [`Ctx`], to read.
pub trait Component: Any {
    /// Which screen this is: the keymap's contexts and the messages name it.
    fn screen(&self) -> Screen;

    /// Carry out `action` (already mapped from a key by the keymap for this screen).
    fn handle(&mut self, action: Action, ctx: &Ctx) -> Handled;

    /// Draw into `area` (the body between the header and the footer), from
    /// the state [`Self::refresh`] worked out.
    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx);

    /// Whether the screen takes raw keys now (a text being typed).
    fn typing(&self) -> bool {
        false
    }

    /// A key while [`Self::typing`].
    fn type_key(&mut self, _code: KeyCode, _ctx: &Ctx) -> Handled {
        Handled::done()
    }

    /// Take what came in from threads of its own since the last call (on the
    /// loop's tick); whether anything did.
    fn poll(&mut self) -> bool {
        false
    }

    /// Bring the screen's view up to date after a change: clamp selections;
    /// when [`Ctx::run_changed`], work out again what it shows of the run.
    /// The stack is empty meanwhile.
    fn refresh(&mut self, _ctx: &Ctx) {}

    /// The question selection this screen owns, if it owns one.
    fn selection(&self) -> Option<&Selection> {
        None
    }

    /// Select what `selection` says (a screen opened over this one moved it).
    fn follow(&mut self, _selection: &Selection) {}

    /// The two runs this screen compares, if it compares two.
    fn comparison(&self) -> Option<&Comparison> {
        None
    }

    /// The two runs this screen compares, to move their selection.
    fn comparison_mut(&mut self) -> Option<&mut Comparison> {
        None
    }

    /// What the command palette lists for this screen beyond its actions,
    /// the run's questions and datasets (the question screen: its DAG's nodes).
    fn palette_entries(&self, _ctx: &Ctx) -> Vec<PaletteEntry> {
        Vec::new()
    }
}

/// What an overlay did with a key.
pub enum OverlayKey {
    /// Taken; the overlay stays.
    Kept,
    /// Taken; the overlay closes and the app carries out these effects.
    Closed(Vec<Effect>),
    /// Not the overlay's: the key goes on to the screen's keymap (the overlay stays).
    Passed,
}

/// Something drawn over the screen that takes keys first while shown (the
/// help, the text box).
pub trait Overlay: Any {
    /// A key while shown.
    fn key(&mut self, key: KeyEvent, ctx: &Ctx) -> OverlayKey;

    /// Draw over `area` (the body between the header and the footer).
    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx);
}
