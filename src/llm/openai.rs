//! OpenAI-compatible chat completions over HTTP (OpenAI, Ollama, vLLM,
//! llama.cpp server — by base URL), streamed over SSE.
//!
//! Retries: 408, 409, 429, 5xx, connection errors (a connection dropped in the
//! middle of a stream included), timeouts, stalled and cut-off streams are
//! retried with jittered exponential backoff (base × 2^attempt, capped at
//! 30 s) that honours `retry-after-ms` and `retry-after`. Not retried: quota
//! exhaustion (`insufficient_quota`), context-length errors and other 4xx.
//!
//! Optional request fields some servers refuse: `response_format` (JSON mode,
//! only when configured, and only for calls whose reply must be a JSON object)
//! and `stream_options` (asking for usage in the stream). A 400 naming the field
//! — or, for JSON mode, any 400 — repeats the call at once without it, and the
//! client stops sending it for the rest of the run. Such a repeat counts as a
//! retry (so the trace and the feed show it) but not against `max_retries`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::http::{
    Failure, Next, RetryPolicy, SseReader, cut_off, error_detail, http_client, retry_after, send_failure,
};
use super::price::{self, ModelPrice};
use super::{DeltaSink, LlmClient, LlmError, LlmErrorKind, LlmRequest, LlmResponse, StreamUpdate, TokenUsage};

/// Default server.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// Default model.
pub const DEFAULT_MODEL: &str = "gpt-4o-mini";
/// Environment variable holding the API key, unless configured otherwise.
pub const DEFAULT_API_KEY_ENV: &str = "OPENAI_API_KEY";

/// A built-in price: input, cached input and output per million tokens.
const fn price(input: f64, cached: f64, output: f64) -> ModelPrice {
    ModelPrice::new(input, output).cached(cached)
}

/// List prices from https://openai.com/api/pricing (2025); unknown models cost 0.
const PRICES: &[(&str, ModelPrice)] = &[
    ("gpt-4o-mini", price(0.15, 0.075, 0.60)),
    ("gpt-4o", price(2.50, 1.25, 10.00)),
    ("gpt-4.1-mini", price(0.40, 0.10, 1.60)),
    ("gpt-4.1-nano", price(0.10, 0.025, 0.40)),
    ("gpt-4.1", price(2.00, 0.50, 8.00)),
];

/// Connection settings (their `Debug` form hides the key).
#[derive(Clone, PartialEq)]
pub struct OpenAiSettings {
    /// Base URL ending before `/chat/completions`.
    pub base_url: String,
    /// Bearer key, if the server needs one.
    pub api_key: Option<String>,
    /// Model name.
    pub model: String,
    /// Limit per attempt, from sending the request to the end of the answer.
    pub timeout: Duration,
    /// Longest silence within a streamed answer before the attempt is given up.
    pub stall_timeout: Duration,
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// First backoff delay.
    pub base_delay: Duration,
    /// Prices by model name (or name prefix), over the built-in ones.
    pub prices: Vec<(String, ModelPrice)>,
    /// Ask for `response_format: {"type": "json_object"}` on calls whose reply
    /// must be a JSON object.
    pub json_mode: bool,
    /// Sampling temperature, when not the server's default.
    pub temperature: Option<f32>,
    /// Longest reply in tokens (`max_tokens`), when not the server's default.
    pub max_tokens: Option<u32>,
}

impl std::fmt::Debug for OpenAiSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiSettings")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("model", &self.model)
            .field("timeout", &self.timeout)
            .field("stall_timeout", &self.stall_timeout)
            .field("max_retries", &self.max_retries)
            .field("base_delay", &self.base_delay)
            .field("prices", &self.prices)
            .field("json_mode", &self.json_mode)
            .field("temperature", &self.temperature)
            .field("max_tokens", &self.max_tokens)
            .finish()
    }
}

impl OpenAiSettings {
    /// Settings for `model` at `base_url` (see [`normalise_base_url`]) with
    /// default limits and JSON mode off.
    pub fn new(base_url: impl Into<String>, api_key: Option<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: normalise_base_url(&base_url.into()),
            api_key,
            model: model.into(),
            timeout: Duration::from_secs(180),
            stall_timeout: Duration::from_secs(60),
            max_retries: 4,
            base_delay: Duration::from_millis(500),
            prices: Vec::new(),
            json_mode: false,
            temperature: None,
            max_tokens: None,
        }
    }
}

/// The base URL requests go under (`{base}/chat/completions`): trailing slashes
/// and a trailing `/chat/completions` are dropped, and a bare host (no path, as
/// Ollama's `http://localhost:11434` is often given) gets `/v1`. A URL with
/// another path is kept as written.
pub fn normalise_base_url(raw: &str) -> String {
    let mut base = raw.trim().trim_end_matches('/');
    if let Some(stripped) = base.strip_suffix("/chat/completions") {
        base = stripped.trim_end_matches('/');
    }
    let bare_host = reqwest::Url::parse(base).is_ok_and(|url| url.has_host() && url.path() == "/");
    if bare_host { format!("{base}/v1") } else { base.to_string() }
}

/// A request field some OpenAI-compatible servers refuse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Optional {
    /// `response_format` (JSON mode).
    ResponseFormat,
    /// `stream_options` (usage at the end of a stream).
    StreamOptions,
}

impl Optional {
    fn field(self) -> &'static str {
        match self {
            Self::ResponseFormat => "response_format",
            Self::StreamOptions => "stream_options",
        }
    }
}

/// Which optional fields one request carried.
#[derive(Debug, Clone, Copy, Default)]
struct Sent {
    response_format: bool,
    stream_options: bool,
}

/// The HTTP client. What a server refused (JSON mode, `stream_options`) is
/// remembered for the client's life, which is the run's.
pub struct OpenAiClient {
    http: reqwest::Client,
    settings: OpenAiSettings,
    json_mode: AtomicBool,
    stream_options: AtomicBool,
    usage_missing_told: AtomicBool,
}

impl OpenAiClient {
    /// A client for `settings`.
    pub fn new(settings: OpenAiSettings) -> Result<Self, LlmError> {
        let http = http_client()?;
        let json_mode = AtomicBool::new(settings.json_mode);
        Ok(Self {
            http,
            settings,
            json_mode,
            stream_options: AtomicBool::new(true),
            usage_missing_told: AtomicBool::new(false),
        })
    }

    /// The request body and which optional fields it carries. JSON mode needs
    /// the word "JSON" in the messages (OpenAI refuses it otherwise), so a
    /// prompt without it is sent without `response_format`.
    fn body(&self, request: &LlmRequest) -> (Value, Sent) {
        let mut body = json!({
            "model": self.settings.model,
            "messages": request.messages,
            "stream": true,
        });
        let says_json = request.messages.iter().any(|m| m.content.to_ascii_lowercase().contains("json"));
        let sent = Sent {
            response_format: request.json && says_json && self.json_mode.load(Ordering::Relaxed),
            stream_options: self.stream_options.load(Ordering::Relaxed),
        };
        if sent.stream_options {
            body["stream_options"] = json!({"include_usage": true});
        }
        if sent.response_format {
            body["response_format"] = json!({"type": "json_object"});
        }
        if let Some(temperature) = self.settings.temperature {
            body["temperature"] = json!(temperature);
        }
        if let Some(max_tokens) = self.settings.max_tokens {
            body["max_tokens"] = json!(max_tokens);
        }
        (body, sent)
    }

    async fn attempt(&self, request: &LlmRequest, sink: &DeltaSink) -> Result<(String, TokenUsage), Failure> {
        let url = format!("{}/chat/completions", self.settings.base_url);
        let (body, sent) = self.body(request);
        let mut call = self.http.post(&url).timeout(self.settings.timeout).json(&body);
        if let Some(key) = &self.settings.api_key {
            call = call.bearer_auth(key);
        }
        let response = call.send().await.map_err(|e| send_failure(&e, &url, self.settings.timeout))?;
        let status = response.status();
        if !status.is_success() {
            let after = retry_after(response.headers());
            let body = response.text().await.unwrap_or_default();
            return Err(self.classify(status.as_u16(), &body, after, sent, &url));
        }
        let is_json = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        if is_json {
            let value: Value = response
                .json()
                .await
                .map_err(|e| Failure::retry(LlmErrorKind::BadResponse, format!("unreadable answer: {e}"), None))?;
            let text =
                value.pointer("/choices/0/message/content").and_then(Value::as_str).unwrap_or_default().to_string();
            sink(StreamUpdate::Text(&text));
            return Ok((text, usage_of(&value)));
        }
        let mut events = SseReader::new(response, &url, self.settings.stall_timeout, self.settings.timeout);
        let (mut text, mut usage, mut finished) = (String::new(), None, false);
        while let Some(event) = events.next().await? {
            if event.data.trim() == "[DONE]" {
                finished = true;
                break;
            }
            let Ok(chunk) = serde_json::from_str::<Value>(&event.data) else { continue };
            if let Some(delta) = chunk.pointer("/choices/0/delta/content").and_then(Value::as_str) {
                sink(StreamUpdate::Text(delta));
                text.push_str(delta);
            }
            if chunk.pointer("/choices/0/finish_reason").is_some_and(|r| !r.is_null()) {
                finished = true;
            }
            if chunk.get("usage").is_some_and(|u| !u.is_null()) {
                usage = Some(usage_of(&chunk));
            }
        }
        if !finished {
            return Err(cut_off());
        }
        Ok((text, usage.unwrap_or_else(|| self.no_usage(&url))))
    }

    /// A stream that ended without usage counts 0 tokens; said once per run.
    fn no_usage(&self, url: &str) -> TokenUsage {
        if !self.usage_missing_told.swap(true, Ordering::Relaxed) {
            tracing::warn!("{url} reports no token usage in its streams: its calls count 0 tokens");
        }
        TokenUsage::default()
    }

    /// The optional field a 400 names, among those `sent`.
    fn named(lower_body: &str, sent: Sent) -> Option<Optional> {
        [(Optional::StreamOptions, sent.stream_options), (Optional::ResponseFormat, sent.response_format)]
            .into_iter()
            .find(|(field, was_sent)| *was_sent && lower_body.contains(field.field()))
            .map(|(field, _)| field)
    }

    /// Stop sending `field` and ask again at once without it.
    fn without(&self, field: Optional, url: &str, detail: &str) -> Failure {
        match field {
            Optional::ResponseFormat => self.json_mode.store(false, Ordering::Relaxed),
            Optional::StreamOptions => self.stream_options.store(false, Ordering::Relaxed),
        }
        let name = field.field();
        let message = format!(
            "400 from {url} with {name} ({detail}): asking again without it, and no {name} for the rest of the run"
        );
        Failure { error: LlmError::new(LlmErrorKind::BadRequest, message), next: Next::Without }
    }

    fn classify(&self, status: u16, body: &str, after: Option<Duration>, sent: Sent, url: &str) -> Failure {
        let lower = body.to_ascii_lowercase();
        let detail = error_detail(body);
        if let Some(field) = Self::named(&lower, sent).filter(|_| status == 400) {
            return self.without(field, url, &detail);
        }
        if lower.contains("insufficient_quota") {
            return Failure::fatal(
                LlmErrorKind::QuotaExhausted,
                format!("{status} from {url}: the account's quota is used up ({detail})"),
            );
        }
        if lower.contains("context_length_exceeded") || lower.contains("maximum context length") {
            return Failure::fatal(
                LlmErrorKind::ContextLength,
                format!("the prompt is longer than the model's context ({detail})"),
            );
        }
        match status {
            // A server without JSON mode may refuse it without naming it (llama.cpp, older vLLM).
            400 if sent.response_format => self.without(Optional::ResponseFormat, url, &detail),
            429 => Failure::retry(LlmErrorKind::RateLimited, format!("rate limited by {url} ({detail})"), after),
            408 => Failure::retry(LlmErrorKind::Timeout, format!("408 from {url}"), after),
            409 => Failure::retry(LlmErrorKind::Server, format!("409 from {url} ({detail})"), after),
            500..=599 => Failure::retry(LlmErrorKind::Server, format!("{status} from {url} ({detail})"), after),
            401 | 403 => Failure::fatal(
                LlmErrorKind::BadRequest,
                format!("{status} from {url}: check OPENAI_API_KEY ({detail})"),
            ),
            _ => Failure::fatal(LlmErrorKind::BadRequest, format!("{status} from {url}: {detail}")),
        }
    }
}

fn usage_of(value: &Value) -> TokenUsage {
    TokenUsage {
        prompt_tokens: value.pointer("/usage/prompt_tokens").and_then(Value::as_u64).unwrap_or(0),
        completion_tokens: value.pointer("/usage/completion_tokens").and_then(Value::as_u64).unwrap_or(0),
        cached_tokens: value.pointer("/usage/prompt_tokens_details/cached_tokens").and_then(Value::as_u64).unwrap_or(0),
        cache_write_tokens: 0,
    }
}

impl LlmClient for OpenAiClient {
    fn provider(&self) -> &str {
        "openai"
    }

    fn model(&self) -> &str {
        &self.settings.model
    }

    fn complete<'a>(
        &'a self,
        request: &'a LlmRequest,
        sink: DeltaSink,
    ) -> BoxFuture<'a, Result<LlmResponse, LlmError>> {
        let policy = RetryPolicy { max_retries: self.settings.max_retries, base_delay: self.settings.base_delay };
        Box::pin(async move { policy.run(&sink, || self.attempt(request, &sink)).await })
    }

    fn cost_usd(&self, usage: TokenUsage) -> f64 {
        price::cost_usd(&self.settings.model, PRICES, &self.settings.prices, usage)
    }
}
