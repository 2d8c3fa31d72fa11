//! One file per screen; each is a pure function of the app state.

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

use ratatui::style::Style;
use ratatui::text::Span;
use ratatui::widgets::Cell;

use crate::tui::text::{clean, preview};
use crate::tui::theme::{Ink, Theme};

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
