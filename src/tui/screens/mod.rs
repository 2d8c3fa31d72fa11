//! The screens, one module each: a screen is a `tui::component::Component`
//! that owns its state, handles its own actions and draws itself. The app
//! keeps them on a stack: a screen opens another with the data it needs by
//! handing back `Effect::Open`, and going back pops it. A screen is
//! registered here (its module) and in the keymap (its `Screen`, which the
//! keymap's contexts name). No screen imports the app.
//!
//! To add a screen:
//! 1. A module here (`<name>.rs`, or `<name>/` with `mod.rs` for the state and
//!    actions and `draw.rs` for the drawing, as a method): a struct with the
//!    screen's state and `impl Component` for it. Work out what it shows in
//!    `refresh` when the run changed; `draw` only reads it. Text from models or
//!    datasets goes through `tui::text` (`clean`, `fit`, `preview`); a scrolled
//!    pane gets a `tui::scroll::Scroll`.
//! 2. Its `Screen` variant in `tui/keymap/screen.rs` and its keys in the keymap
//!    (the one source of the footer, the help, `[keys]` and the guide's keys table).
//! 3. The screen that opens it hands back `Effect::Open` for the key that opens it.
//!    Its actions show in the command palette by themselves (from the keymap);
//!    what else it can reach it lists in `Component::palette_entries`.
//! 4. Snapshot tests beside it (`insta` over `tui::frame_text` at
//!    `SNAPSHOT_SIZES`, the `.snap` files in `snapshots/` next to the module);
//!    `tests/suite/tui_sizes.rs` draws it at every size.

pub mod agreement;
pub mod benchmark;
pub mod compare;
pub mod compare_detail;
pub mod dashboard;
pub mod diff;
pub mod help;
pub mod inspector;
pub mod matrix;
pub mod pair_review;
pub mod question;
pub mod review;
pub mod runs;
pub mod schema;
pub mod scorecard;
pub mod taxonomy;

use ratatui::style::Style;
use ratatui::text::Span;
use ratatui::widgets::Cell;

use crate::tui::component::Handled;
use crate::tui::keymap::Action;
use crate::tui::text::{clean, preview};
use crate::tui::theme::{Ink, Theme};

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
    Handled::done()
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
