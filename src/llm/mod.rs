//! LLM providers behind one trait: an OpenAI-compatible HTTP client, the
//! Anthropic Messages API, the offline schema planner, and replay of a
//! recorded trace.
//!
//! Parts:
//! - The `LlmClient` trait. A request carries the `ReplySchema` of a JSON reply; a
//!   reply its `FinishReason` and whether its tokens were `estimated`.
//! - `openai.rs`: OpenAI-compatible HTTP and SSE with retries, base-URL
//!   normalisation, and optional fields a server refuses stepped down or dropped
//!   for the client's life (settings are per client, so a client per role can
//!   differ). `reply_format.rs`: the `response_format` forms a schema is asked
//!   with, best first, and the one in force.
//! - `anthropic.rs`: Anthropic's Messages API — the `system` field, SSE events, a
//!   schema as a forced tool whose streamed `input_json_delta` is the reply,
//!   `cache_control` on the system block and on the user-message head every call
//!   of a role shares, cache reads and writes mapped onto `TokenUsage`.
//! - `http.rs`: what the HTTP providers share — retry policy and backoff honouring
//!   `retry-after`, failure classification, SSE reading with a stall limit, streams
//!   that end without a finish reason counted and retried (the fix said once when
//!   a server keeps interrupting them).
//! - `tokens.rs`: token counts made locally when a server sends none (OpenAI
//!   models' own tokenizer through `tiktoken-rs`, else four bytes a token).
//!   `price.rs`: `ModelPrice` with cached-read and cache-write rates, looked up by
//!   model name.
//! - `roles.rs`: a model per role. `RoleRouter` holds one client per `LlmRole` and
//!   sends each call to its key's role; `LlmClient::for_role` tells the engine
//!   which client served a call, for the provider and model it records and the
//!   price of its cost.
//! - `cache.rs`: the response cache across runs. `CachedClient` sits in front of
//!   the role router and keys each call by the SHA-256 of its role's `CacheScope`
//!   (provider, base URL, model, temperature, `max_tokens`, JSON mode) and of the
//!   requested output format, messages, epoch, draft and repair — never the wire
//!   body. A hit is answered with `LlmResponse::from_cache` and no usage; only
//!   successful replies are stored. `cache_store.rs`: `ResponseCache`, one SQLite
//!   file through `rusqlite` (bundled) in WAL mode with a busy timeout, shared by
//!   concurrent questions and runs; an unusable file turns it off with one
//!   warning, a path that cannot be created is `CacheFileError`; stats and prune.
//! - `repair.rs`: repair exchanges. `Repairs` asks again, under the same key with
//!   `repair: n` and up to `--repair N`, for a JSON reply that cannot be read: the
//!   model's reply quoted back, what was wrong, the schema (`prompts/repair.j2`).
//!   `Unreadable` says why a reply still cannot be read after them. Used by the
//!   engine for builds and reviews, and by the judges.
//! - `offline/`: the offline planner — the question library and the choice of a
//!   ranked set (`library.rs`); its templates by level (`templates.rs`,
//!   `groups.rs`, `advanced.rs`, and `pairs.rs` for data without measures or dates:
//!   distinct values per group, the longest text, great-circle distances);
//!   arithmetic that matches the DAGs' Python (`calc.rs`); first drafts with
//!   planted mistakes (`drafts.rs`).
//! - `replay.rs`: replay of recorded responses.

mod anthropic;
mod batch;
mod cache;
mod cache_store;
mod call;
mod client;
mod http;
mod offline;
mod openai;
mod price;
mod repair;
mod replay;
mod reply_format;
mod roles;
mod settings;
mod tokens;

pub use anthropic::{ANTHROPIC_API_KEY_ENV, ANTHROPIC_BASE_URL, ANTHROPIC_MODEL, AnthropicClient};
pub use batch::{
    BatchClient, BatchHub, Cancelled, DEFAULT_CANCEL_WAIT as DEFAULT_BATCH_CANCEL_WAIT,
    DEFAULT_WINDOW as DEFAULT_BATCH_WINDOW, LoopGuard, MAX_LINE_TRIES,
};
pub use cache::{CacheScope, CachedClient};
pub use cache_store::{CacheFileError, CacheStats, CachedResponse, ModelStats, ResponseCache};
pub use call::{DeltaSink, LlmError, LlmErrorKind, LlmRequest, LlmResponse, StreamUpdate, ignore_stream};
pub use client::{LlmClient, serving};
pub use offline::{OfflineOptions, OfflinePlanError, OfflinePlanner, TUI_DELAY};
pub use openai::{DEFAULT_API_KEY_ENV, DEFAULT_BASE_URL, DEFAULT_MODEL, OpenAiClient};
pub use price::ModelPrice;
pub use repair::{DEFAULT_REPAIRS, Repairs, Unreadable, describe as describe_unreadable};
pub use replay::ReplayClient;
pub use roles::RoleRouter;
pub use settings::{HttpSettings, normalise_anthropic_url, normalise_base_url};
