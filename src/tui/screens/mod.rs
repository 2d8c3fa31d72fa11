//! The screens, one module each: a screen is a [`Component`] that owns its
//! state, handles its own actions and draws itself. The app keeps them on a
//! stack: a screen opens another by handing it back from
//! [`Component::handle`], and going back pops it. A screen is registered
//! here: its module and its [`Screen`] (which the keymap's contexts name).

pub mod benchmark;
pub mod compare;
pub mod compare_detail;
pub mod dashboard;
pub mod diff;
pub mod help;
pub mod inspector;
pub mod matrix;
pub mod question;
pub mod schema;
pub mod scorecard;
pub mod taxonomy;

use std::any::Any;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Span;
use ratatui::widgets::Cell;

use crate::tui::app::App;
use crate::tui::keymap::Action;
use crate::tui::text::{clean, preview};
use crate::tui::theme::{Ink, Theme};

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
}

impl Screen {
    /// Every screen.
    pub const ALL: [Screen; 11] = [
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
        Screen::Benchmark,
    ];

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
        }
    }
}

/// Logical lines one page key scrolls.
pub const SCROLL_STEP: usize = 5;

/// The keys of a pane that only scrolls: ↑/↓ a line, the page keys
/// [`SCROLL_STEP`] lines; any other action is not its own.
pub fn scroll_pane(scroll: &mut crate::tui::scroll::Scroll, action: Action) -> Handled {
    match action {
        Action::Up => scroll.up(1),
        Action::Down => scroll.down(1),
        Action::ScrollUp => scroll.up(SCROLL_STEP),
        Action::ScrollDown => scroll.down(SCROLL_STEP),
        _ => return Handled::Ignored,
    }
    Handled::Done
}

/// What a screen did with an action.
pub enum Handled {
    /// Not its action: the app's global handling gets it (quit, help, back,
    /// run control, work by hand, replay).
    Ignored,
    /// Done; the screen stays.
    Done,
    /// Show this screen on top (back returns here).
    Open(Box<dyn Component>),
    /// Back to the screen below.
    Back,
    /// Back to the first screen (the dashboard, or a comparison's table).
    Home,
}

/// A screen: its state, its actions and its drawing.
///
/// While a screen handles an action it is off the stack (so it may change
/// the app); the screens below it are there, and [`App::find`] reaches them.
pub trait Component: Any {
    /// Which screen this is: the keymap's contexts and the messages name it.
    fn screen(&self) -> Screen;

    /// Carry out `action` (already mapped from a key by the keymap for this screen).
    fn handle(&mut self, action: Action, app: &mut App) -> Handled;

    /// Draw into `area` (the body between the header and the footer).
    fn draw(&self, frame: &mut Frame, area: Rect, app: &App);

    /// Whether the screen takes raw keys now (a text being typed).
    fn typing(&self) -> bool {
        false
    }

    /// A key while [`Self::typing`].
    fn type_key(&mut self, _code: KeyCode, _app: &mut App) {}

    /// Bring derived state up to date after a change (clamp selections).
    /// The stack is empty meanwhile.
    fn refresh(&mut self, _app: &mut App) {}
}

/// The first cells of a row comparing runs on one question: its id, a `tag`
/// (what changed, how the runs agree) in `tag_style`, and — given a width —
/// the question itself.
fn question_cells(
    t: &Theme,
    id: &str,
    (tag, tag_style): (&'static str, Style),
    question: &str,
    question_width: Option<usize>,
) -> Vec<Cell<'static>> {
    let mut cells = vec![
        Cell::from(Span::styled(clean(id).into_owned(), t.fg(Ink::Accent))),
        Cell::from(Span::styled(tag, tag_style)),
    ];
    if let Some(width) = question_width {
        let text = serde_json::Value::String(question.to_string());
        cells.push(Cell::from(Span::styled(preview(&text, width), t.fg(Ink::Text))));
    }
    cells
}

/// What an overlay did with a key.
pub enum OverlayKey {
    /// Taken; the overlay stays.
    Kept,
    /// Taken; the overlay closes.
    Closed,
    /// Not the overlay's: the key goes on to the screen's keymap (the overlay stays).
    Passed,
}

/// Something drawn over the screen that takes keys first while shown (the
/// help, the text box).
pub trait Overlay: Any {
    /// A key while shown.
    fn key(&mut self, key: KeyEvent, app: &mut App) -> OverlayKey;

    /// Draw over `area` (the body between the header and the footer).
    fn draw(&self, frame: &mut Frame, area: Rect, app: &App);
}
