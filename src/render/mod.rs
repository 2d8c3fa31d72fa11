//! Drawing helpers shared by the TUI and the HTML report, free of any UI
//! toolkit: the DAG layout, syntax highlighting and the critic's verdict on
//! each node.

mod highlight;
mod layout;
mod verdict;

pub use highlight::{highlight_css, highlight_html, highlight_lines, html_escape, syntax_set};
pub use layout::{DagLayout, PlacedNode, layout};
pub use verdict::{NodeVerdict, node_verdict};
