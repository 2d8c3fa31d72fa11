//! The runtime of a run: question generation, parallel critic loops under
//! bounded concurrency, the gate that pauses, steps and cancels them, and the
//! emitter that records and publishes events. It speaks the protocol of
//! [`crate::run`] and never imports the UI.

mod by_hand;
mod context;
mod critic;
mod emitter;
mod gate;
mod node_run;
mod orchestrator;
mod questions;
mod review;

pub use context::EngineParts;
pub use orchestrator::{EngineHandle, RunOptions, start};
pub use questions::{QuestionsReplyError, parse_questions};
