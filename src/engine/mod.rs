//! The runtime of a run: question generation, parallel critic loops under
//! bounded concurrency, the gate that pauses, steps and cancels them, and the
//! emitter that records and publishes events; and re-criticism of a recorded
//! run (its DAGs judged anew, never rebuilt). It speaks the protocol of
//! [`crate::run`] and never imports the UI.
//!
//! It holds the runtime only:
//! - the orchestrator: critic loops under bounded concurrency;
//! - question generation (`questions.rs`): every well-formed question of the list
//!   is kept and the generator asked again, at most twice, for the malformed ones,
//!   told which it has; the run fails only with none;
//! - the critic loop and the layer review;
//! - re-criticism (`recritic.rs`): every recorded iteration's DAG judged anew
//!   (checks, trial run, layer review), never rebuilt;
//! - work by hand (`by_hand.rs`): a user's DAG checked and trial-run as an attempt
//!   with no LLM call, an iteration accepted as the answer; `node_run.rs` runs one
//!   node on its own with what feeds it;
//! - differential checks (`differential.rs`): an approved DAG run again on the
//!   other engine and the two results compared;
//! - the gate (pause, step, cancel);
//! - the emitter: the trace first, then the engine's state, then the channel.

mod baselines;
mod by_hand;
pub mod consensus;
mod context;
mod critic;
pub mod differential;
mod emitter;
mod gate;
mod loop_slot;
pub mod metamorphic;
mod node_run;
mod orchestrator;
mod questions;
mod recritic;
mod review;

pub use context::{EngineParts, NamedDataset};
pub use orchestrator::{EngineHandle, RunOptions, question_list, start};
pub use questions::{GenerationError, QuestionsReplyError, parse_questions};
pub use recritic::start_recritic;
