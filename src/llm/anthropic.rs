//! Anthropic's Messages API (`POST {base}/v1/messages`), streamed over SSE.
//!
//! The system prompt goes in the `system` field; `max_tokens` is required.
//! Prompt caching: the system block carries `cache_control` (ephemeral), and
//! so does the static head of the user message — the lines it shares with
//! every earlier prompt of the same role in the run (the templates put their
//! static part first), which settles on the template's static part after a
//! few calls. Usage maps to [`TokenUsage`] so every figure reads the same
//! across providers: prompt tokens = input + cache reads + cache writes.
//!
//! Structured outputs: a call whose reply has a schema, with `structured =
//! "schema"`, forces a tool whose `input_schema` is that schema (`tool_choice`
//! names it); the tool's input, streamed as `input_json_delta`, is the reply.
//! A 400 naming the tools drops them for the rest of the run (the API has no
//! JSON mode, so `json` asks for nothing more than `off`: the prompt alone).
//!
//! Retries (policy shared with the OpenAI-compatible client): 408, 429, 5xx
//! (529 overloaded included) honouring `retry-after`, connection errors,
//! timeouts, stalled streams, streams cut before `message_stop` or ended
//! without a `stop_reason` (unfinished), and retryable `error` events mid-stream (`overloaded_error`, `api_error`,
//! `rate_limit_error`). 400, 401, 403 and 404 fail at once.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::http::{
    Failure, Interruptions, Next, RetryPolicy, SseReader, cut_off, error_detail, http_client, retry_after, send_failure,
};
use super::price::{self, ModelPrice};
use super::settings::{ANTHROPIC_DEFAULT_MAX_TOKENS, HttpSettings};
use super::tokens::count_locally;
use super::{DeltaSink, LlmClient, LlmError, LlmErrorKind, LlmRequest, LlmResponse, StreamUpdate};
use crate::domain::{FinishReason, LlmRole, MessageRole, StructuredOutput, TokenUsage};
use crate::domain::{Provider, ProviderKind};

/// Default server.
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";
/// Default model.
pub const ANTHROPIC_MODEL: &str = "claude-sonnet-4-20250514";
/// Environment variable holding the API key, unless configured otherwise.
pub const ANTHROPIC_API_KEY_ENV: &str = "ANTHROPIC_API_KEY";
/// The API version every request names.
const API_VERSION: &str = "2023-06-01";

/// A built-in price: input, 5-minute cache write, cache read and output per million tokens.
const fn price(input: f64, write: f64, read: f64, output: f64) -> ModelPrice {
    ModelPrice { cache_write_per_mtok: Some(write), ..ModelPrice::new(input, output).cached(read) }
}

/// List prices from <https://docs.anthropic.com/en/docs/about-claude/pricing>
/// ("Model pricing"); other models cost 0 unless `[prices]` names them.
const PRICES: &[(&str, ModelPrice)] = &[
    ("claude-opus-4-1", price(15.0, 18.75, 1.50, 75.0).within(200_000)),
    ("claude-opus-4-0", price(15.0, 18.75, 1.50, 75.0).within(200_000)),
    ("claude-opus-4-20250514", price(15.0, 18.75, 1.50, 75.0).within(200_000)),
    ("claude-sonnet-4-0", price(3.0, 3.75, 0.30, 15.0).within(200_000)),
    ("claude-sonnet-4-20250514", price(3.0, 3.75, 0.30, 15.0).within(200_000)),
    ("claude-3-7-sonnet", price(3.0, 3.75, 0.30, 15.0).within(200_000)),
    ("claude-3-5-haiku", price(0.80, 1.0, 0.08, 4.0).within(200_000)),
    ("claude-3-haiku", price(0.25, 0.30, 0.03, 1.25).within(200_000)),
];

/// Token counts as the API reports them; later events update what they name.
#[derive(Debug, Default)]
pub(super) struct Usage {
    input: u64,
    cache_read: u64,
    cache_creation: u64,
    output: u64,
    /// Whether any event carried a count.
    reported: bool,
}

impl Usage {
    /// Take the counts `usage` names.
    pub(super) fn update(&mut self, usage: &Value) {
        let field = |name: &str| usage.get(name).and_then(Value::as_u64);
        self.reported |= ["input_tokens", "output_tokens"].into_iter().any(|name| field(name).is_some());
        self.input = field("input_tokens").unwrap_or(self.input);
        self.cache_read = field("cache_read_input_tokens").unwrap_or(self.cache_read);
        self.cache_creation = field("cache_creation_input_tokens").unwrap_or(self.cache_creation);
        self.output = field("output_tokens").unwrap_or(self.output);
    }

    fn tokens(&self) -> TokenUsage {
        TokenUsage {
            prompt_tokens: self.input + self.cache_read + self.cache_creation,
            completion_tokens: self.output,
            cached_tokens: self.cache_read,
            cache_write_tokens: self.cache_creation,
        }
    }
}

/// Bytes of `text` within the whole lines it shares with `head` (all of it
/// when they are equal).
fn shared_lines(head: &str, text: &str) -> usize {
    let common = head.bytes().zip(text.bytes()).take_while(|(a, b)| a == b).count();
    if common == head.len() && common == text.len() {
        return common;
    }
    text.as_bytes()[..common].iter().rposition(|b| *b == b'\n').map_or(0, |at| at + 1)
}

const EPHEMERAL: &str = "ephemeral";

/// The client. It remembers, per role, the head every user message of that
/// role shared so far (the cached part of the next one).
pub struct AnthropicClient {
    pub(super) http: reqwest::Client,
    pub(super) settings: HttpSettings,
    heads: Mutex<HashMap<LlmRole, String>>,
    interruptions: Interruptions,
    /// Schemas are still sent as forced tools (until a 400 refuses them).
    tools: AtomicBool,
}

impl AnthropicClient {
    /// The reply limit every request names (the API requires one).
    pub(super) fn max_tokens(&self) -> u32 {
        self.settings.max_tokens.unwrap_or(ANTHROPIC_DEFAULT_MAX_TOKENS)
    }

    /// A client for `settings`.
    pub fn new(settings: HttpSettings) -> Result<Self, LlmError> {
        Ok(Self {
            http: http_client()?,
            heads: Mutex::new(HashMap::new()),
            interruptions: Interruptions::default(),
            tools: AtomicBool::new(settings.structured == StructuredOutput::Schema),
            settings,
        })
    }

    /// Bytes of `text` (a user message for `role`) to mark as its static head:
    /// the whole lines it shares with the head so far, which shrinks to them.
    /// 0 on the role's first call.
    fn static_head(&self, role: LlmRole, text: &str) -> usize {
        let mut heads = self.heads.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match heads.get_mut(&role) {
            Some(head) => {
                let shared = shared_lines(head, text);
                head.truncate(shared);
                shared
            }
            None => {
                heads.insert(role, text.to_string());
                0
            }
        }
    }

    /// The request body: system text in `system`, the first user message split
    /// into its cached static head and the rest.
    pub(super) fn body(&self, request: &LlmRequest) -> Value {
        let system: Vec<&str> =
            request.messages.iter().filter(|m| m.role == MessageRole::System).map(|m| m.content.as_str()).collect();
        let mut head_marked = false;
        let messages: Vec<Value> = request
            .messages
            .iter()
            .filter(|m| m.role != MessageRole::System)
            .map(|m| {
                if m.role != MessageRole::User || head_marked {
                    return json!({"role": m.role, "content": m.content});
                }
                head_marked = true;
                let text = m.content.as_str();
                let content = match self.static_head(request.key.role, text) {
                    0 => json!(text),
                    head if head >= text.len() => {
                        json!([{"type": "text", "text": text, "cache_control": {"type": EPHEMERAL}}])
                    }
                    head => json!([
                        {"type": "text", "text": &text[..head], "cache_control": {"type": EPHEMERAL}},
                        {"type": "text", "text": &text[head..]},
                    ]),
                };
                json!({"role": "user", "content": content})
            })
            .collect();
        let mut body = json!({
            "model": self.settings.model,
            "max_tokens": self.max_tokens(),
            "stream": true,
            "messages": messages,
        });
        if let Some(temperature) = self.settings.temperature {
            body["temperature"] = json!(temperature);
        }
        if !system.is_empty() {
            body["system"] =
                json!([{"type": "text", "text": system.join("\n\n"), "cache_control": {"type": EPHEMERAL}}]);
        }
        body
    }

    /// `body` with the forced tool of `request`'s schema, while tools are sent.
    pub(super) fn with_tool(&self, request: &LlmRequest, body: &Value) -> (Value, bool) {
        let mut body = body.clone();
        let Some(schema) = request.schema.as_ref().filter(|_| self.tools.load(Ordering::Relaxed)) else {
            return (body, false);
        };
        body["tools"] =
            json!([{"name": schema.name(), "description": "Give the reply.", "input_schema": schema.schema()}]);
        body["tool_choice"] = json!({"type": "tool", "name": schema.name()});
        (body, true)
    }

    /// Send `body` once (every attempt of a call sends the same body, with
    /// its forced tool while tools are sent).
    async fn attempt(&self, request: &LlmRequest, body: &Value, sink: &DeltaSink) -> Result<LlmResponse, Failure> {
        let url = format!("{}/v1/messages", self.settings.base_url);
        let (body, tool_sent) = self.with_tool(request, body);
        let call = self.http.post(&url).timeout(self.settings.timeout).json(&body);
        let response = self.signed(call).send().await.map_err(|e| send_failure(&e, &url, self.settings.timeout))?;
        let status = response.status();
        if !status.is_success() {
            let after = retry_after(response.headers());
            let body = response.text().await.unwrap_or_default();
            return Err(self.classify(status.as_u16(), &body, after, &url, tool_sent));
        }
        let mut events = SseReader::new(response, &url, self.settings.stall_timeout, self.settings.timeout);
        let (mut text, mut usage, mut stop_reason) = (String::new(), Usage::default(), None);
        while let Some(event) = events.next().await? {
            let Ok(data) = serde_json::from_str::<Value>(&event.data) else { continue };
            match data.get("type").and_then(Value::as_str).unwrap_or(event.event.as_str()) {
                "message_start" => usage.update(&data["message"]["usage"]),
                "content_block_delta" => {
                    let delta = match data["delta"]["type"].as_str() {
                        Some("text_delta") => data["delta"]["text"].as_str(),
                        Some("input_json_delta") => data["delta"]["partial_json"].as_str(),
                        _ => None,
                    };
                    if let Some(delta) = delta {
                        sink(StreamUpdate::Text(delta));
                        text.push_str(delta);
                    }
                }
                "message_delta" => {
                    usage.update(&data["usage"]);
                    if let Some(reason) = data["delta"]["stop_reason"].as_str() {
                        stop_reason = Some(FinishReason::from(reason.to_string()));
                    }
                }
                "message_stop" => {
                    return match stop_reason {
                        Some(reason) => Ok(self.reply(request, text, &usage, reason)),
                        None => Err(self.interruptions.unfinished(&url)),
                    };
                }
                "error" => return Err(stream_error(&data, &url)),
                _ => {}
            }
        }
        Err(cut_off())
    }

    /// `request` with the API version and the key.
    pub(super) fn signed(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        let request = request.header("anthropic-version", API_VERSION);
        match &self.settings.api_key {
            Some(key) => request.header("x-api-key", key),
            None => request,
        }
    }

    /// The reply of a finished attempt; without usage from the server, its
    /// tokens are counted here.
    pub(super) fn reply(&self, request: &LlmRequest, text: String, usage: &Usage, reason: FinishReason) -> LlmResponse {
        if reason == FinishReason::Length {
            tracing::warn!(
                "an answer of {} stopped at max_tokens = {}: raise [llm] max_tokens",
                self.settings.model,
                self.max_tokens()
            );
        }
        let (usage, estimated) = if usage.reported {
            (usage.tokens(), false)
        } else {
            (count_locally(&self.settings.model, &request.messages, &text), true)
        };
        LlmResponse { text, usage, finish_reason: Some(reason), estimated, ..LlmResponse::default() }
    }

    pub(super) fn classify(
        &self,
        status: u16,
        body: &str,
        after: Option<Duration>,
        url: &str,
        tool_sent: bool,
    ) -> Failure {
        let detail = error_detail(body);
        let key_env = self.settings.api_key_env.as_deref().unwrap_or(ANTHROPIC_API_KEY_ENV);
        if status == 400 && tool_sent && body.contains("tool") {
            self.tools.store(false, Ordering::Relaxed);
            let message = format!(
                "400 from {url} with the reply's schema as a forced tool ({detail}): asking again without it, \
                 and so for the rest of the run"
            );
            return Failure { error: LlmError::new(LlmErrorKind::BadRequest, message), next: Next::Without };
        }
        match status {
            429 => Failure::retry(LlmErrorKind::RateLimited, format!("rate limited by {url} ({detail})"), after),
            408 => Failure::retry(LlmErrorKind::Timeout, format!("408 from {url}"), after),
            529 => Failure::retry(LlmErrorKind::Server, format!("529 from {url}: overloaded ({detail})"), after),
            500..=599 => Failure::retry(LlmErrorKind::Server, format!("{status} from {url} ({detail})"), after),
            401 => Failure::fatal(
                LlmErrorKind::BadRequest,
                format!("401 from {url}: the API key was refused; check {key_env} ({detail})"),
            ),
            403 => Failure::fatal(
                LlmErrorKind::BadRequest,
                format!("403 from {url}: the key in {key_env} may not do this ({detail})"),
            ),
            404 => Failure::fatal(
                LlmErrorKind::BadRequest,
                format!("404 from {url}: check the model name and base URL ({detail})"),
            ),
            _ if body.contains("prompt is too long") => Failure::fatal(
                LlmErrorKind::ContextLength,
                format!("the prompt is longer than the model's context ({detail})"),
            ),
            _ => Failure::fatal(LlmErrorKind::BadRequest, format!("{status} from {url}: {detail}")),
        }
    }
}

/// An `error` event mid-stream: overload, server and rate-limit errors are retried.
fn stream_error(data: &Value, url: &str) -> Failure {
    let kind = data.pointer("/error/type").and_then(Value::as_str).unwrap_or("error");
    let message = data.pointer("/error/message").and_then(Value::as_str).unwrap_or("no message");
    let text = format!("{kind} from {url} mid-answer: {message}");
    match kind {
        "invalid_request_error" | "authentication_error" | "permission_error" | "not_found_error" => {
            Failure::fatal(LlmErrorKind::BadRequest, text)
        }
        "rate_limit_error" => Failure::retry(LlmErrorKind::RateLimited, text, None),
        _ => Failure::retry(LlmErrorKind::Server, text, None),
    }
}

impl LlmClient for AnthropicClient {
    fn provider(&self) -> Provider {
        ProviderKind::Anthropic.into()
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
        Box::pin(async move {
            let body = self.body(request);
            policy.run(&sink, || self.attempt(request, &body, &sink)).await
        })
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

#[cfg(test)]
mod tests {
    use super::super::settings::normalise_anthropic_url;
    use super::*;
    use crate::domain::{CallKey, ChatMessage};

    #[test]
    fn base_urls_are_accepted_with_or_without_v1() {
        for raw in [
            "https://api.anthropic.com",
            "https://api.anthropic.com/",
            "https://api.anthropic.com/v1",
            " https://api.anthropic.com/v1/messages/ ",
        ] {
            assert_eq!(normalise_anthropic_url(raw), "https://api.anthropic.com", "{raw}");
        }
        assert_eq!(normalise_anthropic_url("http://proxy:8080/anthropic/v1"), "http://proxy:8080/anthropic");
    }

    fn review(text: &str) -> LlmRequest {
        let key = CallKey { iteration: 1, ..CallKey::run_wide(LlmRole::LayerReview) };
        LlmRequest { key, messages: vec![ChatMessage::system("sys"), ChatMessage::user(text)], schema: None }
    }

    #[test]
    fn the_user_head_shared_by_a_role_is_marked_for_caching() {
        let client = AnthropicClient::new(HttpSettings::anthropic(ANTHROPIC_BASE_URL, None, "K", "m")).unwrap();
        let first = client.body(&review("schema\nformat\nQuestion 1\nlayer 0\n"));
        assert_eq!(first["system"][0]["cache_control"]["type"], "ephemeral");
        assert_eq!(first["messages"][0]["content"], "schema\nformat\nQuestion 1\nlayer 0\n", "nothing shared yet");
        assert_eq!(first["messages"].as_array().unwrap().len(), 1, "the system text is not a message");
        let second = client.body(&review("schema\nformat\nQuestion 1\nlayer 1\n"));
        let blocks = &second["messages"][0]["content"];
        assert_eq!(blocks[0]["text"], "schema\nformat\nQuestion 1\n");
        assert_eq!(blocks[0]["cache_control"]["type"], "ephemeral");
        assert_eq!((blocks[1]["text"].as_str(), blocks[1].get("cache_control")), (Some("layer 1\n"), None));
        let third = client.body(&review("schema\nformat\nQuestion 2\nlayer 0\n"));
        assert_eq!(
            third["messages"][0]["content"][0]["text"], "schema\nformat\n",
            "the head shrinks to what all share"
        );
        let fourth = client.body(&review("schema\nformat\nQuestion 3 é\n"));
        assert_eq!(fourth["messages"][0]["content"][0]["text"], "schema\nformat\n", "and stays there");
    }

    #[test]
    fn cache_writes_cost_their_own_rate() {
        let usage = TokenUsage {
            prompt_tokens: 1_000_000,
            completion_tokens: 0,
            cached_tokens: 200_000,
            cache_write_tokens: 300_000,
        };
        let plain = ModelPrice::new(2.0, 8.0);
        assert!((plain.cost_usd(usage) - (0.7 * 2.0 + 0.3 * 2.5)).abs() < 1e-12, "no rates: writes at 1.25 × input");
        let sonnet = price::cost_usd("claude-sonnet-4-20250514", PRICES, &[], usage);
        assert!((sonnet - (0.5 * 3.0 + 0.2 * 0.30 + 0.3 * 3.75)).abs() < 1e-12, "{sonnet}");
    }
}
