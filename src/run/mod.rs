//! The run protocol — the leaf everything else speaks: the events the engine
//! emits and the commands it takes ([`EngineEvent`], [`Command`]), and the one
//! reducer ([`RunState::apply`]) that folds events into the state every
//! screen, the trace reader, the results file and the report are drawn from.
//! It depends only on the domain types and never on the runtime or the UI.

pub mod conversation;
mod events;
mod llm_call;
mod players;
mod question_state;
mod state;

pub use events::{CALL_CANCELLED, Command, DatasetRef, EngineEvent, HandEdit, Outcome, RunSettings, RunSummary, Stage};
pub use llm_call::{LlmCall, PromptMessage};
pub use players::Players;
pub use question_state::{AnswerLabel, Attempt, Iteration, NodeRun, QuestionState, QuestionStatus, StageRecord};
pub use state::{BatchEnd, BatchState, FeedEntry, FeedKind, Questions, RunState};
