//! The runtime of a run: question generation, parallel critic loops under
//! bounded concurrency, the gate that pauses, steps and cancels them, and the
//! emitter that records and publishes events; and re-criticism of a recorded
//! run (its DAGs judged anew, never rebuilt). It speaks the protocol of
//! [`crate::run`] and never imports the UI.

mod baselines;
mod by_hand;
pub mod consensus;
mod context;
mod critic;
mod emitter;
mod gate;
pub mod metamorphic;
mod node_run;
mod orchestrator;
mod questions;
mod recritic;
mod review;

pub use context::{EngineParts, NamedDataset};
pub use orchestrator::{EngineHandle, RunOptions, start};
pub use questions::{GenerationError, QuestionsReplyError, parse_questions, question_list};
pub use recritic::start_recritic;
