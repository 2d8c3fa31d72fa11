//! OpenAI-compatible chat completions over HTTP (OpenAI, Ollama, vLLM,
//! llama.cpp server — by base URL), streamed over SSE.
//!
//! Retries: 408, 409, 429, 5xx, connection errors (a connection dropped in the
//! middle of a stream included), timeouts, stalled and cut-off streams are
//! retried with jittered exponential backoff (base × 2^attempt, capped at
//! 30 s) that honours `retry-after-ms` and `retry-after`. Not retried: quota
//! exhaustion (`insufficient_quota`), context-length errors and other 4xx. When
//! a server rejects `response_format`, the call is repeated once without it and
//! the client stops asking for it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use eventsource_stream::{EventStreamError, Eventsource};
use futures::StreamExt;
use futures::future::BoxFuture;
use rand::RngExt;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{DeltaSink, LlmClient, LlmError, LlmErrorKind, LlmRequest, LlmResponse, StreamUpdate, TokenUsage};

/// Default server.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// Default model.
pub const DEFAULT_MODEL: &str = "gpt-4o-mini";
/// Environment variable holding the API key, unless configured otherwise.
pub const DEFAULT_API_KEY_ENV: &str = "OPENAI_API_KEY";
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// A model's price in USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelPrice {
    /// Prompt tokens.
    #[serde(deserialize_with = "non_negative")]
    pub input_per_mtok: f64,
    /// Generated tokens.
    #[serde(deserialize_with = "non_negative")]
    pub output_per_mtok: f64,
    /// Prompt tokens served from the provider's prompt cache; when absent they
    /// cost `input_per_mtok`.
    #[serde(default, deserialize_with = "some_non_negative")]
    pub cached_input_per_mtok: Option<f64>,
}

impl ModelPrice {
    /// The cost of `usage` in USD.
    pub fn cost_usd(&self, usage: TokenUsage) -> f64 {
        let cached = usage.cached_tokens.min(usage.prompt_tokens);
        let cached_rate = self.cached_input_per_mtok.unwrap_or(self.input_per_mtok);
        ((usage.prompt_tokens - cached) as f64 * self.input_per_mtok
            + cached as f64 * cached_rate
            + usage.completion_tokens as f64 * self.output_per_mtok)
            / 1e6
    }
}

fn some_non_negative<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    non_negative(deserializer).map(Some)
}

fn non_negative<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    let value = f64::deserialize(deserializer)?;
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(serde::de::Error::custom(format!("a price must be a number of USD of at least 0, not {value}")))
    }
}

/// A built-in price: input, cached input and output per million tokens.
const fn price(input: f64, cached: f64, output: f64) -> ModelPrice {
    ModelPrice { input_per_mtok: input, output_per_mtok: output, cached_input_per_mtok: Some(cached) }
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
            .finish()
    }
}

impl OpenAiSettings {
    /// Settings for `model` at `base_url` with default limits.
    pub fn new(base_url: impl Into<String>, api_key: Option<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into().trim_end_matches('/').to_string(),
            api_key,
            model: model.into(),
            timeout: Duration::from_secs(180),
            stall_timeout: Duration::from_secs(60),
            max_retries: 4,
            base_delay: Duration::from_millis(500),
            prices: Vec::new(),
        }
    }
}

/// The HTTP client.
pub struct OpenAiClient {
    http: reqwest::Client,
    settings: OpenAiSettings,
    json_mode: AtomicBool,
}

/// One failed attempt: the error and, when retryable, how long to wait first.
struct Failure {
    error: LlmError,
    retry_after: Option<Option<Duration>>,
}

impl Failure {
    fn fatal(kind: LlmErrorKind, message: String) -> Self {
        Self { error: LlmError::new(kind, message), retry_after: None }
    }

    fn retry(kind: LlmErrorKind, message: String, after: Option<Duration>) -> Self {
        Self { error: LlmError::new(kind, message), retry_after: Some(after) }
    }
}

fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return Some(Duration::from_secs_f64((ms / 1000.0).max(0.0)));
    }
    let value = text("retry-after")?;
    if let Ok(seconds) = value.parse::<f64>() {
        return Some(Duration::from_secs_f64(seconds.max(0.0)));
    }
    let when = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    (when.with_timezone(&chrono::Utc) - chrono::Utc::now()).to_std().ok()
}

impl OpenAiClient {
    /// A client for `settings`.
    pub fn new(settings: OpenAiSettings) -> Result<Self, LlmError> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(15))
            .build()
            .map_err(|e| LlmError::new(LlmErrorKind::Connection, format!("cannot build the HTTP client: {e}")))?;
        Ok(Self { http, settings, json_mode: AtomicBool::new(true) })
    }

    fn body(&self, request: &LlmRequest) -> Value {
        let mut body = json!({
            "model": self.settings.model,
            "messages": request.messages,
            "stream": true,
            "stream_options": {"include_usage": true},
        });
        if request.json && self.json_mode.load(Ordering::Relaxed) {
            body["response_format"] = json!({"type": "json_object"});
        }
        body
    }

    async fn attempt(&self, request: &LlmRequest, sink: &DeltaSink) -> Result<(String, TokenUsage), Failure> {
        let url = format!("{}/chat/completions", self.settings.base_url);
        let mut call = self.http.post(&url).timeout(self.settings.timeout).json(&self.body(request));
        if let Some(key) = &self.settings.api_key {
            call = call.bearer_auth(key);
        }
        let response = call.send().await.map_err(|e| {
            if e.is_timeout() {
                let limit = self.settings.timeout;
                Failure::retry(LlmErrorKind::Timeout, format!("no answer from {url} within {limit:?}"), None)
            } else {
                Failure::retry(LlmErrorKind::Connection, format!("cannot reach {url}: {e}"), None)
            }
        })?;
        let status = response.status();
        if !status.is_success() {
            let after = retry_after(response.headers());
            let body = response.text().await.unwrap_or_default();
            return Err(self.classify(status.as_u16(), &body, after, request.json, &url));
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
        let mut events = response.bytes_stream().eventsource();
        let (mut text, mut usage, mut finished) = (String::new(), TokenUsage::default(), false);
        let stall = self.settings.stall_timeout;
        loop {
            let event = match tokio::time::timeout(stall, events.next()).await {
                Err(_) => {
                    let message = format!("the stream from {url} stalled: nothing received for {stall:?}");
                    return Err(Failure::retry(LlmErrorKind::Timeout, message, None));
                }
                Ok(None) => break,
                Ok(Some(event)) => event.map_err(|e| self.stream_failure(e, &url))?,
            };
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
                usage = usage_of(&chunk);
            }
        }
        if !finished {
            return Err(Failure::retry(
                LlmErrorKind::BadResponse,
                "the stream was cut off before the answer ended".into(),
                None,
            ));
        }
        Ok((text, usage))
    }

    fn stream_failure(&self, error: EventStreamError<reqwest::Error>, url: &str) -> Failure {
        match error {
            EventStreamError::Transport(e) if e.is_timeout() => Failure::retry(
                LlmErrorKind::Timeout,
                format!("no complete answer from {url} within {:?}", self.settings.timeout),
                None,
            ),
            EventStreamError::Transport(e) => {
                let cause = std::error::Error::source(&e).map_or_else(|| e.to_string(), |c| format!("{e} ({c})"));
                Failure::retry(
                    LlmErrorKind::Connection,
                    format!("the connection to {url} broke mid-answer: {cause}"),
                    None,
                )
            }
            other => Failure::retry(LlmErrorKind::BadResponse, format!("unreadable stream from {url}: {other}"), None),
        }
    }

    fn classify(&self, status: u16, body: &str, after: Option<Duration>, json: bool, url: &str) -> Failure {
        let lower = body.to_ascii_lowercase();
        let detail = serde_json::from_str::<Value>(body)
            .ok()
            .and_then(|v| v.pointer("/error/message").and_then(Value::as_str).map(str::to_string))
            .unwrap_or_else(|| body.chars().take(200).collect::<String>().replace('\n', " "));
        if status == 400 && json && lower.contains("response_format") && self.json_mode.swap(false, Ordering::Relaxed) {
            return Failure::retry(
                LlmErrorKind::BadRequest,
                "the server rejected response_format".into(),
                Some(Duration::ZERO),
            );
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

    fn backoff(&self, attempt: u32) -> Duration {
        let base = self.settings.base_delay.as_secs_f64() * 2f64.powi(attempt as i32);
        let jitter = rand::rng().random_range(0.5..1.0);
        Duration::from_secs_f64((base * jitter).min(MAX_BACKOFF.as_secs_f64()))
    }
}

fn usage_of(value: &Value) -> TokenUsage {
    TokenUsage {
        prompt_tokens: value.pointer("/usage/prompt_tokens").and_then(Value::as_u64).unwrap_or(0),
        completion_tokens: value.pointer("/usage/completion_tokens").and_then(Value::as_u64).unwrap_or(0),
        cached_tokens: value.pointer("/usage/prompt_tokens_details/cached_tokens").and_then(Value::as_u64).unwrap_or(0),
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
        Box::pin(async move {
            let mut retries = 0u32;
            loop {
                match self.attempt(request, &sink).await {
                    Ok((text, usage)) => return Ok(LlmResponse { text, usage, retries }),
                    Err(Failure { mut error, retry_after: Some(after) }) if retries < self.settings.max_retries => {
                        tracing::warn!("LLM call retried: {}", error.message);
                        error.retries = retries;
                        retries += 1;
                        let wait = after.map_or_else(|| self.backoff(retries - 1), |d| d.min(MAX_BACKOFF));
                        sink(StreamUpdate::Retrying { retry: retries, error: &error, wait });
                        tokio::time::sleep(wait).await;
                    }
                    Err(Failure { mut error, .. }) => {
                        error.retries = retries;
                        return Err(error);
                    }
                }
            }
        })
    }

    fn cost_usd(&self, usage: TokenUsage) -> f64 {
        let model = self.settings.model.as_str();
        let built_in = PRICES.iter().map(|(name, price)| (*name, price));
        let configured = self.settings.prices.iter().map(|(name, price)| (name.as_str(), price));
        // The longest matching name wins; on a tie the configured price (last) does.
        built_in
            .chain(configured)
            .filter(|(name, _)| model == *name || model.starts_with(&format!("{name}-")))
            .max_by_key(|(name, _)| name.len())
            .map_or(0.0, |(_, price)| price.cost_usd(usage))
    }
}
