//! LLM providers behind one trait: an OpenAI-compatible HTTP client, the
//! Anthropic Messages API, the offline schema planner, and replay of a
//! recorded trace.

mod anthropic;
mod batch;
mod cache;
mod cache_store;
mod client;
mod http;
mod offline;
mod openai;
mod price;
mod repair;
mod replay;
mod reply_format;
mod roles;
mod tokens;

pub use anthropic::{
    ANTHROPIC_API_KEY_ENV, ANTHROPIC_BASE_URL, ANTHROPIC_MODEL, AnthropicClient, AnthropicSettings,
    normalise_anthropic_url,
};
pub use batch::{BatchClient, BatchHub, DEFAULT_WINDOW as DEFAULT_BATCH_WINDOW, LoopGuard, MAX_LINE_TRIES};
pub use cache::{CacheScope, CachedClient};
pub use cache_store::{CacheFileError, CacheStats, ModelStats, ResponseCache};
pub use client::{
    DeltaSink, LlmClient, LlmError, LlmErrorKind, LlmRequest, LlmResponse, StreamUpdate, ignore_stream, serving,
};
pub use offline::{OfflineOptions, OfflinePlanError, OfflinePlanner, TUI_DELAY};
pub use openai::{
    DEFAULT_API_KEY_ENV, DEFAULT_BASE_URL, DEFAULT_MODEL, OpenAiClient, OpenAiSettings, normalise_base_url,
};
pub use price::ModelPrice;
pub use repair::{DEFAULT_REPAIRS, Repairs, Unreadable, describe as describe_unreadable};
pub use replay::ReplayClient;
pub use roles::RoleRouter;
