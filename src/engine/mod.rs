//! The background runtime: question generation, parallel critic loops, the
//! event stream and commands. Never imports ratatui.

mod context;
pub mod conversation;
mod critic;
mod emitter;
mod events;
mod gate;
mod orchestrator;
mod question_state;
mod questions;
mod review;
mod state;

pub use context::DagExecutor;
pub use events::{Command, ControlAction, EngineEvent, Outcome, RunSettings, RunSummary, Stage};
pub use orchestrator::{EngineHandle, EngineParts, RunOptions, start, summarise};
pub use questions::parse_questions;
pub use state::{
    Attempt, FeedEntry, FeedKind, Iteration, LlmCall, QuestionState, QuestionStatus, Questions, RunState, StageRecord,
    plural,
};

/// A one-line preview of a JSON value, at most `max` characters.
pub fn preview(value: &serde_json::Value, max: usize) -> String {
    let text = match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let text = text.replace('\n', " ");
    if text.chars().count() <= max {
        return text;
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}
