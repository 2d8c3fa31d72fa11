//! LLM providers behind one trait: an OpenAI-compatible HTTP client, the
//! offline schema planner, and replay of a recorded trace.

mod client;
mod offline;
mod openai;
mod replay;
mod roles;

pub use crate::domain::{CallKey, ChatMessage, LlmRole, RoleModel, RoleModels, TokenUsage};
pub use client::{
    DeltaSink, LlmClient, LlmError, LlmErrorKind, LlmRequest, LlmResponse, StreamUpdate, ignore_stream, serving,
};
pub use offline::{OfflineOptions, OfflinePlanError, OfflinePlanner, TUI_DELAY};
pub use openai::{
    DEFAULT_API_KEY_ENV, DEFAULT_BASE_URL, DEFAULT_MODEL, ModelPrice, OpenAiClient, OpenAiSettings, normalise_base_url,
};
pub use replay::ReplayClient;
pub use roles::RoleRouter;
