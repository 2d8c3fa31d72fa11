//! One file per widget.

pub mod code_view;
pub mod conversation;
pub mod dag_graph;
pub mod fault;
pub mod footer;
pub mod header;
pub mod quit_prompt;
