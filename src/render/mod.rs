//! Drawing helpers shared by the TUI and the HTML report, free of any UI
//! toolkit: the DAG layout, node labels that tell siblings apart, syntax
//! highlighting and the critic's verdict on each node.
//!
//! Parts: DAG layout, syntax highlighting, and the critic's verdict on each node
//! (`NodeVerdict`).

mod highlight;
mod labels;
mod layout;
mod verdict;

pub use highlight::{highlight_css, highlight_html, highlight_lines, syntax_set};
pub use labels::short_labels;
pub use layout::{DagLayout, PlacedNode, layout};
pub use verdict::{NodeVerdict, node_verdict};
