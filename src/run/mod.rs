//! The run protocol — the leaf everything else speaks: the events the engine
//! emits and the commands it takes ([`EngineEvent`], [`Command`]), and the one
//! reducer ([`RunState::apply`]) that folds events into the state every
//! screen, the trace reader, the results file and the report are drawn from.
//! It depends only on the domain types and never on the runtime or the UI.
//!
//! It is the protocol leaf:
//! - `EngineEvent`: each event about a question names its `AttemptAt` or
//!   `IterationAt`; a carried-out `Command` is recorded as itself.
//! - `Command`, and `RunSettings` (`settings.rs`).
//! - The one reducer, `RunState::apply` (`state/reduce.rs`, by event family: the
//!   run, LLM calls, iterations, outcomes, commands). It also keeps the questions
//!   per status and the longest id, so a frame counts them without a pass over
//!   10,000 questions.
//! - The per-question state: the attempt that speaks for it (the majority epoch's
//!   majority draft), worked out once after each change, not on every read.
//! - `llm_call.rs`: one LLM call as seen so far. Each prompt message keeps the head
//!   it shares with the last call of its role as one shared text, and its own tail.
//! - The conversation list of a question.
//! - `players.rs`: `Players`, who played which role for people — the roles grouped
//!   by provider, model and server, named by the fields that differ (the run's
//!   first line and the TUI header).

pub mod conversation;
mod events;
mod llm_call;
mod players;
mod question_state;
mod settings;
mod state;

pub use events::{CALL_CANCELLED, Command, EngineEvent, HandEdit, Outcome, RunSummary, Stage};
pub use llm_call::{LlmCall, PromptMessage};
pub use players::Players;
pub use question_state::{AnswerLabel, Attempt, Iteration, NodeRun, QuestionState, QuestionStatus, StageRecord};
pub use settings::{DatasetRef, RunSettings};
pub use state::{BatchEnd, BatchState, FeedEntry, FeedKind, Questions, RunState, TimeBucket, Timeline};
