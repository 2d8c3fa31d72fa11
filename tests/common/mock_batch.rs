//! A scriptable server on 127.0.0.1 speaking OpenAI's Batch API (files,
//! batches, polling, output and error files) and Anthropic's Message Batches
//! (`/v1/messages/batches`, `results_url`): each line of a batch is answered
//! by the same script [`super::mock_llm::MockLlm`] takes, so a batched run
//! and a live run of the same script can be compared. Every submitted line's
//! `custom_id` is counted, and every cancel (`…/{id}/cancel`): a cancelled
//! batch ends `cancelled` at its next poll with the first half of its lines
//! answered (Anthropic: the rest `canceled`).
#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::mock_llm::{Recorded, Reply, mock_usage};

/// How the server treats batches.
#[derive(Debug, Clone, Default)]
pub struct Behaviour {
    /// Polls a batch answers `in_progress` (with `retry-after: 0.05`) before it ends.
    pub polls: u32,
    /// While set, batches from this one on (0-based) stay `in_progress`.
    pub hold_from: Option<usize>,
    /// The first batch expires with only the first half of its lines processed.
    pub expire_first: bool,
    /// Every batch fails validation at this line (1-based).
    pub refuse_line: Option<usize>,
    /// How long a batch stays `in_progress` after it was created.
    pub latency: Duration,
    /// A cancel is accepted and changes nothing: the batch runs on (a
    /// provider that takes its time to cancel).
    pub slow_cancel: bool,
}

struct Batch {
    created: Instant,
    lines: Vec<Value>,
    polls: u32,
    status: &'static str,
    results: Option<(String, String)>,
    cancelled: bool,
}

#[derive(Default)]
struct Store {
    files: HashMap<String, String>,
    batches: Vec<Batch>,
    submitted: Vec<String>,
    requests: usize,
    http_requests: usize,
    live_calls: usize,
    cancels: usize,
}

type Script = dyn Fn(&Recorded, usize) -> Reply + Send + Sync;

struct Server {
    script: Arc<Script>,
    behaviour: Behaviour,
    hold: Arc<AtomicBool>,
    store: Arc<Mutex<Store>>,
    anthropic: bool,
    uri: String,
}

/// The running mock.
pub struct MockBatch {
    server: MockServer,
    hold: Arc<AtomicBool>,
    store: Arc<Mutex<Store>>,
}

impl MockBatch {
    /// An OpenAI batch server answering each line with `script`.
    pub async fn openai(
        behaviour: Behaviour,
        script: impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static,
    ) -> Self {
        Self::start(behaviour, Arc::new(script), false).await
    }

    /// An Anthropic batch server answering each request with `script`.
    pub async fn anthropic(
        behaviour: Behaviour,
        script: impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static,
    ) -> Self {
        Self::start(behaviour, Arc::new(script), true).await
    }

    async fn start(behaviour: Behaviour, script: Arc<Script>, anthropic: bool) -> Self {
        let server = MockServer::start().await;
        let hold = Arc::new(AtomicBool::new(behaviour.hold_from.is_some()));
        let store = Arc::new(Mutex::new(Store::default()));
        let uri = server.uri();
        let responder = Server { script, behaviour, hold: hold.clone(), store: store.clone(), anthropic, uri };
        Mock::given(any()).respond_with(responder).mount(&server).await;
        Self { server, hold, store }
    }

    /// Base URL to give the OpenAI client (`…/v1`).
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.server.uri())
    }

    /// The server's root URL (the Anthropic client's base URL).
    pub fn root_url(&self) -> String {
        self.server.uri()
    }

    /// Let held batches end.
    pub fn release(&self) {
        self.hold.store(false, Ordering::SeqCst);
    }

    /// The `custom_id` of every line submitted so far, in order.
    pub fn submitted(&self) -> Vec<String> {
        self.store.lock().unwrap().submitted.clone()
    }

    /// The size of each batch submitted so far.
    pub fn batch_sizes(&self) -> Vec<usize> {
        self.store.lock().unwrap().batches.iter().map(|b| b.lines.len()).collect()
    }

    /// Every HTTP request the server received.
    pub fn http_requests(&self) -> usize {
        self.store.lock().unwrap().http_requests
    }

    /// The cancels the server received.
    pub fn cancels(&self) -> usize {
        self.store.lock().unwrap().cancels
    }

    /// Requests sent to the live endpoints (there should be none).
    pub fn live_calls(&self) -> usize {
        self.store.lock().unwrap().live_calls
    }
}

/// The reply body a batch line gets for `reply`: its status and body.
fn line_reply(reply: Reply, anthropic: bool) -> (u16, Value) {
    let (text, finish) = match reply {
        Reply::Text(text) | Reply::NoUsage(text) | Reply::Cached(text, _) => (text, "stop"),
        Reply::Length(text) => (text, "length"),
        Reply::CutOff(_) | Reply::Interrupted(_) => {
            return (500, json!({"error": {"message": "the answer was cut off", "type": "server_error"}}));
        }
        Reply::Status(code, _, body) => {
            return (code, serde_json::from_str(&body).unwrap_or(json!({"error": {"message": body}})));
        }
        Reply::Delayed(_, inner) => return line_reply(*inner, anthropic),
    };
    let (prompt, completion) = mock_usage(&text);
    if anthropic {
        let stop = if finish == "stop" { "end_turn" } else { "max_tokens" };
        return (
            200,
            json!({"type": "message", "role": "assistant", "content": [{"type": "text", "text": text}],
            "stop_reason": stop, "usage": {"input_tokens": prompt, "output_tokens": completion}}),
        );
    }
    (
        200,
        json!({"object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
        "finish_reason": finish}], "usage": {"prompt_tokens": prompt, "completion_tokens": completion}}),
    )
}

impl Server {
    fn respond_to(&self, request: &Request) -> ResponseTemplate {
        self.store.lock().unwrap().http_requests += 1;
        let path = request.url.path().to_string();
        let method = request.method.as_str().to_string();
        let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
        match (method.as_str(), parts.as_slice()) {
            ("GET", ["v1", "batches"]) | ("GET", ["v1", "messages", "batches"]) => json_reply(json!({"data": []})),
            ("POST", ["v1", "files"]) => self.upload(request),
            ("POST", ["v1", "batches"]) => {
                let body: Value = request.body_json().unwrap_or(Value::Null);
                let file = body["input_file_id"].as_str().unwrap_or_default().to_string();
                let content = self.store.lock().unwrap().files.get(&file).cloned().unwrap_or_default();
                let lines = content.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
                json_reply(json!({"id": self.create(lines), "status": "validating"}))
            }
            ("POST", ["v1", "messages", "batches"]) => {
                let body: Value = request.body_json().unwrap_or(Value::Null);
                let lines = body["requests"].as_array().cloned().unwrap_or_default();
                json_reply(json!({"id": self.create(lines), "processing_status": "in_progress"}))
            }
            ("GET", ["v1", "batches", id]) | ("GET", ["v1", "messages", "batches", id]) => self.poll(id),
            ("POST", ["v1", "batches", id, "cancel"]) | ("POST", ["v1", "messages", "batches", id, "cancel"]) => {
                self.cancel(id)
            }
            ("GET", ["v1", "files", id, "content"]) | ("GET", ["results", id]) => {
                let content = self.store.lock().unwrap().files.get(*id).cloned();
                content.map_or(ResponseTemplate::new(404), |c| ResponseTemplate::new(200).set_body_string(c))
            }
            _ => {
                self.store.lock().unwrap().live_calls += 1;
                ResponseTemplate::new(404).set_body_string("not a batch endpoint")
            }
        }
    }

    fn upload(&self, request: &Request) -> ResponseTemplate {
        let body = String::from_utf8_lossy(&request.body).to_string();
        let start = body.find("filename=").and_then(|at| body[at..].find("\r\n\r\n").map(|end| at + end + 4));
        let Some(start) = start else { return ResponseTemplate::new(400).set_body_string("no file part") };
        let end = body[start..].find("\r\n--").map_or(body.len(), |end| start + end);
        let mut store = self.store.lock().unwrap();
        let id = format!("file-in-{}", store.files.len());
        store.files.insert(id.clone(), body[start..end].to_string());
        json_reply(json!({"id": id, "purpose": "batch"}))
    }

    fn create(&self, lines: Vec<Value>) -> String {
        let mut store = self.store.lock().unwrap();
        for line in &lines {
            store.submitted.push(line["custom_id"].as_str().unwrap_or_default().to_string());
        }
        let batch =
            Batch { created: Instant::now(), lines, polls: 0, status: "in_progress", results: None, cancelled: false };
        store.batches.push(batch);
        format!("batch_{}", store.batches.len() - 1)
    }

    fn cancel(&self, id: &str) -> ResponseTemplate {
        let index: usize = id.trim_start_matches("batch_").parse().unwrap_or(usize::MAX);
        let mut store = self.store.lock().unwrap();
        store.cancels += 1;
        let Some(batch) = store.batches.get_mut(index) else { return ResponseTemplate::new(404) };
        batch.cancelled = batch.results.is_none() && !self.behaviour.slow_cancel;
        match self.anthropic {
            true => json_reply(json!({"id": id, "processing_status": "canceling"})),
            false => json_reply(json!({"id": id, "status": "cancelling"})),
        }
    }

    fn poll(&self, id: &str) -> ResponseTemplate {
        let index: usize = id.trim_start_matches("batch_").parse().unwrap_or(usize::MAX);
        let mut store = self.store.lock().unwrap();
        let Some(batch) = store.batches.get_mut(index) else { return ResponseTemplate::new(404) };
        let held = !batch.cancelled
            && self.hold.load(Ordering::SeqCst)
            && self.behaviour.hold_from.is_some_and(|from| index >= from);
        batch.polls += 1;
        if let Some(line) = self.behaviour.refuse_line {
            return json_reply(json!({"id": id, "status": "failed", "errors": {"data": [
                {"code": "invalid_request", "line": line, "message": "the model field is missing"}]}}));
        }
        let waits = batch.polls <= self.behaviour.polls || batch.created.elapsed() < self.behaviour.latency;
        if held || (waits && !batch.cancelled) {
            let running = if self.anthropic {
                json!({"processing_status": "in_progress"})
            } else {
                json!({"status": "in_progress"})
            };
            return json_reply(running).insert_header("retry-after", "0.05");
        }
        if batch.results.is_none() {
            let lines = batch.lines.clone();
            let cancelled = batch.cancelled;
            let expire = self.behaviour.expire_first && index == 0;
            drop(store);
            let results = self.answer(&lines, expire, cancelled);
            store = self.store.lock().unwrap();
            let (output, errors) = (format!("out-{index}"), format!("err-{index}"));
            store.files.insert(output.clone(), results.0);
            store.files.insert(errors.clone(), results.1);
            let batch = &mut store.batches[index];
            batch.status = match (cancelled, expire) {
                (true, _) => "cancelled",
                (false, true) => "expired",
                (false, false) => "completed",
            };
            batch.results = Some((output, errors));
        }
        let batch = &store.batches[index];
        let (output, errors) = batch.results.clone().unwrap();
        if self.anthropic {
            let rest = batch.lines.len() - batch.lines.len() / 2;
            let (expired, canceled) = match batch.status {
                "expired" => (rest, 0),
                "cancelled" => (0, rest),
                _ => (0, 0),
            };
            return json_reply(json!({"id": id, "processing_status": "ended",
                "request_counts": {"expired": expired, "canceled": canceled},
                "results_url": format!("{}/results/{output}", self.uri)}));
        }
        json_reply(json!({"id": id, "status": batch.status, "output_file_id": output, "error_file_id": errors}))
    }

    /// The output and error files of `lines` (Anthropic: one results file,
    /// the second empty); of an expired batch, its first half answered and the
    /// rest expired; of a cancelled one, its first half answered (OpenAI
    /// leaves the rest out, Anthropic writes them `canceled`).
    fn answer(&self, lines: &[Value], expire: bool, cancelled: bool) -> (String, String) {
        let (mut output, mut errors) = (String::new(), String::new());
        for (n, line) in lines.iter().enumerate() {
            let id = line["custom_id"].as_str().unwrap_or_default();
            if cancelled && n >= lines.len() / 2 {
                if self.anthropic {
                    errors.push_str(&format!("{}\n", json!({"custom_id": id, "result": {"type": "canceled"}})));
                }
                continue;
            }
            if expire && n >= lines.len() / 2 {
                let expired = if self.anthropic {
                    json!({"custom_id": id, "result": {"type": "expired"}})
                } else {
                    json!({"custom_id": id, "response": null, "error": {"code": "batch_expired", "message": "expired"}})
                };
                errors.push_str(&format!("{expired}\n"));
                continue;
            }
            let body = if self.anthropic { line["params"].clone() } else { line["body"].clone() };
            let index = {
                let mut store = self.store.lock().unwrap();
                store.requests += 1;
                store.requests - 1
            };
            let (status, reply) =
                line_reply((self.script)(&Recorded { body, authorization: None }, index), self.anthropic);
            let written = match (self.anthropic, status) {
                (true, 200) => json!({"custom_id": id, "result": {"type": "succeeded", "message": reply}}),
                (true, _) => {
                    let kind = if status == 429 { "rate_limit_error" } else { "api_error" };
                    json!({"custom_id": id, "result": {"type": "errored", "error": {"type": "error", "error": {"type": kind, "message": "failed"}}}})
                }
                (false, _) => {
                    json!({"custom_id": id, "response": {"status_code": status, "body": reply}, "error": null})
                }
            };
            match status {
                200 => output.push_str(&format!("{written}\n")),
                _ if self.anthropic => output.push_str(&format!("{written}\n")),
                _ => errors.push_str(&format!("{written}\n")),
            }
        }
        if self.anthropic {
            output.push_str(&errors);
            errors.clear();
        }
        (output, errors)
    }
}

fn json_reply(value: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).insert_header("content-type", "application/json").set_body_string(value.to_string())
}

impl Respond for Server {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        self.respond_to(request)
    }
}
