//! One file per widget.

pub mod code_view;
pub mod conversation;
pub mod dag_graph;
pub mod fault;
pub mod footer;
pub mod frontier_chart;
pub mod header;
pub mod quit_prompt;
pub mod run_charts;
pub mod text_box;

use crate::tui::theme::{Ink, Theme};
use crate::tui::view::Pane;

/// The border style of the question screen's `pane`: the accent when it has the `focus`.
pub fn pane_border(t: &Theme, focus: Pane, pane: Pane) -> ratatui::style::Style {
    t.fg(if focus == pane { Ink::Accent } else { Ink::Border })
}
