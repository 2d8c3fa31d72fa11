//! OpenAI-compatible chat completions over HTTP (OpenAI, Ollama, vLLM,
//! llama.cpp server — by base URL), streamed over SSE.
//!
//! Retries: 408, 409, 429, 5xx, connection errors (a connection dropped in the
//! middle of a stream included), timeouts, stalled and cut-off streams, and
//! streams that end (`[DONE]`) without a `finish_reason` (unfinished: a server
//! interrupted them) are retried with jittered exponential backoff (base × 2^attempt, capped at
//! 30 s) that honours `retry-after-ms` and `retry-after`. Not retried: quota
//! exhaustion (`insufficient_quota`), context-length errors and other 4xx.
//!
//! Optional request fields some servers refuse: `response_format` (structured
//! outputs, for calls whose reply must be a JSON object: see `reply_format.rs`
//! for its forms) and `stream_options` (asking for usage in the stream). A 400
//! (or 422, or a 500 that is a validation error, as llama-cpp-python's server
//! sends) whose body names the field repeats the call at once with the next
//! form down, or without the field, and the client keeps to that for the rest
//! of the run; a 400 naming something else changes nothing. Such a repeat
//! counts as a retry (so the trace and the feed show it) but not against
//! `max_retries`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::http::{
    Failure, Interruptions, Next, RetryPolicy, SseReader, cut_off, error_detail, http_client, retry_after, send_failure,
};
use super::price::{self, ModelPrice};
use super::reply_format::{ReplyFormat, ReplyFormats};
use super::settings::HttpSettings;
use super::tokens::count_locally;
use super::{DeltaSink, LlmClient, LlmError, LlmErrorKind, LlmRequest, LlmResponse, StreamUpdate};
use crate::domain::{FinishReason, TokenUsage};
use crate::domain::{Provider, ProviderKind};

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

/// List prices from <https://openai.com/api/pricing> (2025), and context windows
/// from the models' pages (<https://platform.openai.com/docs/models>); unknown models cost 0.
const PRICES: &[(&str, ModelPrice)] = &[
    ("gpt-4o-mini", price(0.15, 0.075, 0.60).within(128_000)),
    ("gpt-4o", price(2.50, 1.25, 10.00).within(128_000)),
    ("gpt-4.1-mini", price(0.40, 0.10, 1.60).within(1_047_576)),
    ("gpt-4.1-nano", price(0.10, 0.025, 0.40).within(1_047_576)),
    ("gpt-4.1", price(2.00, 0.50, 8.00).within(1_047_576)),
];

/// Which optional fields one request carried.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Sent {
    /// The form of `response_format`, when one was sent.
    pub response_format: Option<ReplyFormat>,
    /// Whether `stream_options` was sent.
    pub stream_options: bool,
}

/// The HTTP client. What a server refused (a `response_format` form,
/// `stream_options`) is remembered for the client's life, which is the run's.
pub struct OpenAiClient {
    pub(super) http: reqwest::Client,
    pub(super) settings: HttpSettings,
    pub(super) formats: ReplyFormats,
    stream_options: AtomicBool,
    usage_missing_told: AtomicBool,
    interruptions: Interruptions,
}

impl OpenAiClient {
    /// A client for `settings`.
    pub fn new(settings: HttpSettings) -> Result<Self, LlmError> {
        let http = http_client()?;
        let formats = ReplyFormats::new(settings.structured);
        Ok(Self {
            http,
            settings,
            formats,
            stream_options: AtomicBool::new(true),
            usage_missing_told: AtomicBool::new(false),
            interruptions: Interruptions::default(),
        })
    }

    /// The request body and which optional fields it carries.
    pub(super) fn body(&self, request: &LlmRequest) -> (Value, Sent) {
        let mut body = json!({
            "model": self.settings.model,
            "messages": request.messages,
            "stream": true,
        });
        let says_json = request.messages.iter().any(|m| m.content.to_ascii_lowercase().contains("json"));
        let format = self.formats.current();
        let response_format = request.schema.as_ref().and_then(|schema| format.field(schema, says_json));
        let sent = Sent {
            response_format: response_format.is_some().then_some(format),
            stream_options: self.stream_options.load(Ordering::Relaxed),
        };
        if sent.stream_options {
            body["stream_options"] = json!({"include_usage": true});
        }
        if let Some(field) = response_format {
            body["response_format"] = field;
        }
        if let Some(temperature) = self.settings.temperature {
            body["temperature"] = json!(temperature);
        }
        if let Some(max_tokens) = self.settings.max_tokens {
            body["max_tokens"] = json!(max_tokens);
        }
        (body, sent)
    }

    async fn attempt(&self, request: &LlmRequest, sink: &DeltaSink) -> Result<LlmResponse, Failure> {
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
            let usage = value.get("usage").filter(|u| !u.is_null()).map(|_| usage_of(&value));
            return Ok(self.reply(request, text, usage, finish_reason_of(&value), &url));
        }
        let mut events = SseReader::new(response, &url, self.settings.stall_timeout, self.settings.timeout);
        let (mut text, mut usage, mut finish_reason, mut done) = (String::new(), None, None, false);
        while let Some(event) = events.next().await? {
            if event.data.trim() == "[DONE]" {
                done = true;
                break;
            }
            let Ok(chunk) = serde_json::from_str::<Value>(&event.data) else { continue };
            if let Some(delta) = chunk.pointer("/choices/0/delta/content").and_then(Value::as_str) {
                sink(StreamUpdate::Text(delta));
                text.push_str(delta);
            }
            finish_reason = finish_reason_of(&chunk).or(finish_reason);
            if chunk.get("usage").is_some_and(|u| !u.is_null()) {
                usage = Some(usage_of(&chunk));
            }
        }
        match (finish_reason, done) {
            (Some(reason), _) => Ok(self.reply(request, text, usage, Some(reason), &url)),
            (None, true) => Err(self.interruptions.unfinished(&url)),
            (None, false) => Err(cut_off()),
        }
    }

    /// The reply of a finished attempt; without usage from the server, its
    /// tokens are counted here (said once per run in the log).
    pub(super) fn reply(
        &self,
        request: &LlmRequest,
        text: String,
        usage: Option<TokenUsage>,
        finish_reason: Option<FinishReason>,
        url: &str,
    ) -> LlmResponse {
        let (usage, estimated) = match usage {
            Some(usage) => (usage, false),
            None => {
                if !self.usage_missing_told.swap(true, Ordering::Relaxed) {
                    tracing::warn!("{url} reports no token usage: its calls' tokens are counted locally (estimated)");
                }
                (count_locally(&self.settings.model, &request.messages, &text), true)
            }
        };
        LlmResponse { text, usage, finish_reason, estimated, ..LlmResponse::default() }
    }

    /// Ask again at once without what a 400 (or 422: `status`) from `url` named among what was
    /// `sent` (the next `response_format` form down, or no `stream_options`),
    /// for the rest of the run; `None` when the body names neither.
    fn without_named(&self, status: u16, lower_body: &str, sent: Sent, url: &str, detail: &str) -> Option<Failure> {
        let message = if sent.stream_options && lower_body.contains("stream_options") {
            self.stream_options.store(false, Ordering::Relaxed);
            format!(
                "{status} from {url} with stream_options ({detail}): asking again without it, \
                 and no stream_options for the rest of the run"
            )
        } else {
            let refused = sent.response_format.filter(|_| lower_body.contains("response_format"))?;
            let now = self.formats.step_down(refused);
            format!(
                "{status} from {url} with {} ({detail}): asking again with {}, and so for the rest of the run",
                refused.describe(),
                now.describe()
            )
        };
        Some(Failure { error: LlmError::new(LlmErrorKind::BadRequest, message), next: Next::Without })
    }

    pub(super) fn classify(&self, status: u16, body: &str, after: Option<Duration>, sent: Sent, url: &str) -> Failure {
        let lower = body.to_ascii_lowercase();
        let detail = error_detail(body);
        // A refusal is a 400 or 422, or a 500 that is a validation error (llama-cpp-python's
        // server answers a request it cannot validate with one).
        let refused = matches!(status, 400 | 422) || (status == 500 && lower.contains("validation error"));
        if let Some(failure) = refused.then(|| self.without_named(status, &lower, sent, url, &detail)).flatten() {
            return failure;
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
}

/// The first choice's `finish_reason`, when set.
pub(super) fn finish_reason_of(value: &Value) -> Option<FinishReason> {
    value.pointer("/choices/0/finish_reason").and_then(Value::as_str).map(|r| FinishReason::from(r.to_string()))
}

/// The token usage of a chat completion (or of a stream's last chunk).
pub(super) fn usage_of(value: &Value) -> TokenUsage {
    TokenUsage {
        prompt_tokens: value.pointer("/usage/prompt_tokens").and_then(Value::as_u64).unwrap_or(0),
        completion_tokens: value.pointer("/usage/completion_tokens").and_then(Value::as_u64).unwrap_or(0),
        cached_tokens: value.pointer("/usage/prompt_tokens_details/cached_tokens").and_then(Value::as_u64).unwrap_or(0),
        cache_write_tokens: 0,
    }
}

impl LlmClient for OpenAiClient {
    fn provider(&self) -> Provider {
        ProviderKind::Openai.into()
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

    fn batch_cost_usd(&self, usage: TokenUsage) -> Option<f64> {
        Some(price::batch_cost_usd(&self.settings.model, PRICES, &self.settings.prices, usage))
    }

    fn context_tokens(&self) -> Option<u64> {
        price::context_tokens(&self.settings.model, PRICES, &self.settings.prices)
    }
}
