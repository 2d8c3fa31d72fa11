//! A scriptable OpenAI-compatible server on 127.0.0.1 for tests: every request
//! to `/v1/chat/completions` is recorded and answered by a script function.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// What the mock answers.
pub enum Reply {
    /// A streamed answer in chunks of about 40 characters, with usage.
    Text(String),
    /// A stream that stops before the answer ends.
    CutOff(String),
    /// An HTTP error with headers and body.
    Status(u16, Vec<(&'static str, String)>, String),
    /// An answer after a delay.
    Delayed(Duration, Box<Reply>),
}

/// A request the mock received.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// Its JSON body.
    pub body: Value,
}

impl Recorded {
    /// The text of every message, joined.
    pub fn prompt(&self) -> String {
        self.body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m["content"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

type Script = dyn Fn(&Recorded, usize) -> Reply + Send + Sync;

struct Scripted {
    script: Arc<Script>,
    log: Arc<Mutex<Vec<Recorded>>>,
}

fn sse(text: &str, finish: bool) -> String {
    let mut out = String::new();
    let chars: Vec<char> = text.chars().collect();
    for chunk in chars.chunks(40) {
        let piece: String = chunk.iter().collect();
        let event = json!({"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": null}]});
        out.push_str(&format!("data: {event}\n\n"));
    }
    if finish {
        out.push_str(&format!(
            "data: {}\n\n",
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        ));
        let usage = json!({"choices": [], "usage": {"prompt_tokens": 100 + text.len() / 10, "completion_tokens": text.len() / 4, "total_tokens": 0}});
        out.push_str(&format!("data: {usage}\n\ndata: [DONE]\n\n"));
    }
    out
}

fn template(reply: Reply) -> ResponseTemplate {
    match reply {
        Reply::Text(text) => ResponseTemplate::new(200)
            .insert_header("content-type", "text/event-stream")
            .set_body_string(sse(&text, true)),
        Reply::CutOff(text) => ResponseTemplate::new(200)
            .insert_header("content-type", "text/event-stream")
            .set_body_string(sse(&text, false)),
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

impl Respond for Scripted {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let recorded = Recorded { body: request.body_json().unwrap_or(Value::Null) };
        let index = {
            let mut log = self.log.lock().unwrap();
            log.push(recorded.clone());
            log.len() - 1
        };
        template((self.script)(&recorded, index))
    }
}

/// The running mock.
pub struct MockLlm {
    server: MockServer,
    log: Arc<Mutex<Vec<Recorded>>>,
}

impl MockLlm {
    /// Start a mock answering with `script(request, index of the request)`.
    pub async fn start(script: impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static) -> Self {
        let server = MockServer::start().await;
        let log = Arc::new(Mutex::new(Vec::new()));
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(Scripted { script: Arc::new(script), log: log.clone() })
            .mount(&server)
            .await;
        Self { server, log }
    }

    /// Base URL to give the client (`…/v1`).
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.server.uri())
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.log.lock().unwrap().clone()
    }
}
