//! Drawing helpers shared by the TUI and the HTML report, free of any UI
//! toolkit: the DAG layout and syntax highlighting.

mod highlight;
mod layout;

pub use highlight::{highlight_css, highlight_html, highlight_lines, html_escape, syntax_set};
pub use layout::{DagLayout, PlacedNode, layout};
