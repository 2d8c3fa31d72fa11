//! eval-dag: LLMs turn a dataset into ranked questions, build a Python DAG per
//! question under a critic loop, and run approved DAGs in a sandbox.
//!
//! The library holds every part; `main.rs` only parses the command line and
//! dispatches to [`commands`].

pub mod benchmark;
pub mod cli;
pub mod commands;
pub mod config;
pub mod dag;
pub mod dataset;
pub mod domain;
pub mod engine;
pub mod export;
pub mod grade;
pub mod llm;
pub mod logging;
pub mod prompts;
pub mod render;
pub mod report;
pub mod run;
pub mod sandbox;
pub mod templating;
pub mod text;
pub mod trace;
pub mod tui;
