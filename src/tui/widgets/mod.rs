//! One file per widget.

pub mod code_view;
pub mod conversation;
pub mod dag_graph;
pub mod fault;
pub mod footer;
pub mod header;
pub mod quit_prompt;
pub mod text_box;

use crate::tui::app::App;
use crate::tui::theme::Ink;
use crate::tui::view::Pane;

/// The border style of the question screen's `pane`: the accent when it has the focus.
pub fn pane_border(app: &App, pane: Pane) -> ratatui::style::Style {
    app.theme.fg(if app.question.focus == pane { Ink::Accent } else { Ink::Border })
}
