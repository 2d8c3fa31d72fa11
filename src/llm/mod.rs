//! LLM providers behind one trait.

mod types;

pub use types::{CallKey, ChatMessage, LlmRole, TokenUsage};
