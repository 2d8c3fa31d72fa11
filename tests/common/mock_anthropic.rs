//! A scriptable Anthropic Messages API on 127.0.0.1 for tests: every request
//! to `/v1/messages` is recorded and answered by a script function that picks
//! the answer (the scripted replies of [`super::mock_llm`], so only the wire
//! protocol differs) and how it is delivered.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::mock_llm::{Recorded, mock_usage};

/// Token counts a reply reports (`message_start` and `message_delta` usage).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    /// `input_tokens`: prompt tokens neither read from nor written to the cache.
    pub input: u64,
    /// `cache_read_input_tokens`.
    pub cache_read: u64,
    /// `cache_creation_input_tokens`.
    pub cache_creation: u64,
    /// `output_tokens`.
    pub output: u64,
}

impl Usage {
    /// What the mock reports for `text` without caching ([`mock_usage`]).
    pub fn of(text: &str) -> Self {
        let (input, output) = mock_usage(text);
        Self { input, cache_read: 0, cache_creation: 0, output }
    }
}

/// What the mock answers.
pub enum Reply {
    /// A whole streamed answer, usage by [`Usage::of`].
    Text(String),
    /// A whole streamed answer with this usage.
    WithUsage(String, Usage),
    /// The answer's first events, then the stream ends without `message_stop`.
    CutOff(String),
    /// A whole answer whose `message_delta` names no `stop_reason`.
    Unfinished(String),
    /// A whole answer cut at the token limit (`stop_reason: max_tokens`).
    MaxTokens(String),
    /// A whole answer whose events carry no usage (as some proxies send).
    NoUsage(String),
    /// A forced tool's input (the JSON text), streamed as `input_json_delta`.
    Tool(String),
    /// The answer's first events, then an `error` event (`overloaded_error`).
    ErrorEvent(String),
    /// An HTTP error with headers and body.
    Status(u16, Vec<(&'static str, String)>, String),
    /// An answer after a delay.
    Delayed(Duration, Box<Reply>),
}

/// A request the mock received.
#[derive(Debug, Clone)]
pub struct Received {
    /// Its body (and `prompt()`, as the scripts read it).
    pub request: Recorded,
    /// Its `x-api-key` header.
    pub api_key: Option<String>,
    /// Its `anthropic-version` header.
    pub version: Option<String>,
    /// When it arrived.
    pub at: Instant,
}

fn event(name: &str, data: Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// `message_start`, a `ping`, the text block's start and its deltas (about 40 characters each).
fn opening(text: &str, usage: Usage) -> String {
    let start = json!({"type": "message_start", "message": {"id": "msg_mock", "type": "message", "role": "assistant",
        "model": "mock", "content": [], "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": usage.input, "cache_read_input_tokens": usage.cache_read,
            "cache_creation_input_tokens": usage.cache_creation, "output_tokens": 1}}});
    let mut out = event("message_start", start);
    out.push_str(&event("ping", json!({"type": "ping"})));
    let block = json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}});
    out.push_str(&event("content_block_start", block));
    let chars: Vec<char> = text.chars().collect();
    for chunk in chars.chunks(40) {
        let piece: String = chunk.iter().collect();
        let delta = json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}});
        out.push_str(&event("content_block_delta", delta));
    }
    out
}

fn whole(text: &str, usage: Usage) -> String {
    ended(text, usage, Some("end_turn"))
}

/// A whole answer that stops for `stop_reason`.
fn ended(text: &str, usage: Usage, stop_reason: Option<&str>) -> String {
    let mut out = opening(text, usage);
    out.push_str(&event("content_block_stop", json!({"type": "content_block_stop", "index": 0})));
    let delta = json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
        "usage": {"output_tokens": usage.output}});
    out.push_str(&event("message_delta", delta));
    out.push_str(&event("message_stop", json!({"type": "message_stop"})));
    out
}

/// The first events of `text`'s stream: up to its second delta.
fn partial(text: &str) -> String {
    let events = opening(text, Usage::of(text));
    let deltas: Vec<_> = events.match_indices("event: content_block_delta").map(|(at, _)| at).collect();
    deltas.get(2).map_or(events.clone(), |at| events[..*at].to_string())
}

fn stream(body: String) -> ResponseTemplate {
    ResponseTemplate::new(200).insert_header("content-type", "text/event-stream").set_body_string(body)
}

fn template(reply: Reply) -> ResponseTemplate {
    match reply {
        Reply::Text(text) => stream(whole(&text, Usage::of(&text))),
        Reply::WithUsage(text, usage) => stream(whole(&text, usage)),
        Reply::CutOff(text) => stream(partial(&text)),
        Reply::Tool(input) => {
            let whole = ended(&input, Usage::of(&input), Some("tool_use"));
            let block = json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "tool_use", "id": "toolu_mock", "name": "reply", "input": {}}});
            let text_block =
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}});
            let tool = whole
                .replace(&format!("data: {text_block}"), &format!("data: {block}"))
                .replace(r#""type":"text_delta","text":"#, r#""type":"input_json_delta","partial_json":"#);
            stream(tool)
        }
        Reply::Unfinished(text) => stream(ended(&text, Usage::of(&text), None)),
        Reply::MaxTokens(text) => stream(ended(&text, Usage::of(&text), Some("max_tokens"))),
        Reply::NoUsage(text) => {
            let events = whole(&text, Usage::of(&text));
            let without: Vec<String> = events
                .split("\n\n")
                .filter(|e| !e.is_empty())
                .map(|e| match e.split_once("\ndata: ") {
                    Some((name, data)) => {
                        let mut data: Value = serde_json::from_str(data).unwrap();
                        if let Some(message) = data.get_mut("message").and_then(Value::as_object_mut) {
                            message.remove("usage");
                        }
                        data.as_object_mut().unwrap().remove("usage");
                        format!("{name}\ndata: {data}\n\n")
                    }
                    None => format!("{e}\n\n"),
                })
                .collect();
            stream(without.concat())
        }
        Reply::ErrorEvent(text) => {
            let error = json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
            stream(format!("{}{}", partial(&text), event("error", error)))
        }
        Reply::Status(code, headers, body) => {
            let mut t = ResponseTemplate::new(code).set_body_string(body);
            for (k, v) in headers {
                t = t.insert_header(k, v.as_str());
            }
            t
        }
        Reply::Delayed(delay, inner) => template(*inner).set_delay(delay),
    }
}

type Script = dyn Fn(&Recorded, usize) -> Reply + Send + Sync;

struct Scripted {
    script: Arc<Script>,
    log: Arc<Mutex<Vec<Received>>>,
}

impl Respond for Scripted {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let header = |name: &str| request.headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
        let recorded = Recorded { body: request.body_json().unwrap_or(Value::Null), authorization: None };
        let received = Received {
            request: recorded.clone(),
            api_key: header("x-api-key"),
            version: header("anthropic-version"),
            at: Instant::now(),
        };
        let index = {
            let mut log = self.log.lock().unwrap();
            log.push(received);
            log.len() - 1
        };
        template((self.script)(&recorded, index))
    }
}

/// The running mock.
pub struct MockAnthropic {
    server: MockServer,
    log: Arc<Mutex<Vec<Received>>>,
}

impl MockAnthropic {
    /// Start a mock answering with `script(request, index of the request)`.
    pub async fn start(script: impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static) -> Self {
        let server = MockServer::start().await;
        let log = Arc::new(Mutex::new(Vec::new()));
        Mock::given(method("POST"))
            .and(path("/v1/messages"))
            .respond_with(Scripted { script: Arc::new(script), log: log.clone() })
            .mount(&server)
            .await;
        Self { server, log }
    }

    /// The server's root URL (the client adds `/v1/messages`).
    pub fn base_url(&self) -> String {
        self.server.uri()
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<Received> {
        self.log.lock().unwrap().clone()
    }
}
