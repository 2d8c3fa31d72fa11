//! Scriptable OpenAI-compatible servers on 127.0.0.1 for tests: every request
//! to `/v1/chat/completions` is recorded and answered by a script function.
//! [`MockLlm`] is built on wiremock; [`RawLlm`] writes HTTP by hand over a
//! tokio `TcpListener`, so that it can cut a connection in the middle of an
//! SSE event or stall a stream, which wiremock cannot.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// What the mock answers.
pub enum Reply {
    /// A streamed answer in chunks of about 40 characters, with usage.
    Text(String),
    /// A streamed answer without usage (as some local servers send).
    NoUsage(String),
    /// Like `Text`, with usage reporting this many prompt tokens as cached
    /// (`prompt_tokens_details.cached_tokens`).
    Cached(String, u64),
    /// A stream that stops before the answer ends.
    CutOff(String),
    /// A stream ended by `[DONE]` without a finish reason (llama-cpp-python's
    /// server interrupting it for another request).
    Interrupted(String),
    /// A streamed answer cut at the token limit (`finish_reason: length`), with usage.
    Length(String),
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
    /// Its `authorization` header.
    pub authorization: Option<String>,
}

impl Recorded {
    /// The text of every message, joined; the same prompt reads the same
    /// whether it was sent to an OpenAI-compatible server or Anthropic's API
    /// (`system` field first, content given as a string or as text blocks).
    pub fn prompt(&self) -> String {
        let text = |content: &Value| match content {
            Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).collect(),
            other => other.as_str().unwrap_or_default().to_string(),
        };
        let system = Some(text(&self.body["system"])).filter(|s| !s.is_empty());
        let messages = self.body["messages"].as_array().into_iter().flatten().map(|m| text(&m["content"]));
        system.into_iter().chain(messages).collect::<Vec<_>>().join("\n")
    }
}

type Script = dyn Fn(&Recorded, usize) -> Reply + Send + Sync;

struct Scripted {
    script: Arc<Script>,
    log: Arc<Mutex<Vec<Recorded>>>,
}

/// The usage the mock reports for an answer `text` (prompt tokens, completion tokens).
pub fn mock_usage(text: &str) -> (u64, u64) {
    (100 + text.len() as u64 / 10, text.len() as u64 / 4)
}

fn sse(text: &str, finish: Option<&str>, cached: Option<u64>) -> String {
    let mut out = sse_text(text, finish);
    if finish.is_some() {
        let (prompt, completion) = mock_usage(text);
        let mut usage = json!({"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": 0});
        if let Some(cached) = cached {
            usage["prompt_tokens_details"] = json!({"cached_tokens": cached});
        }
        let usage = json!({"choices": [], "usage": usage});
        out.push_str(&format!("data: {usage}\n\ndata: [DONE]\n\n"));
    }
    out
}

/// The answer's events (and its finish reason, when given), without usage or `[DONE]`.
fn sse_text(text: &str, finish: Option<&str>) -> String {
    let mut out = String::new();
    let chars: Vec<char> = text.chars().collect();
    for chunk in chars.chunks(40) {
        let piece: String = chunk.iter().collect();
        let event = json!({"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": null}]});
        out.push_str(&format!("data: {event}\n\n"));
    }
    if let Some(reason) = finish {
        out.push_str(&format!(
            "data: {}\n\n",
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
        ));
    }
    out
}

fn template(reply: Reply) -> ResponseTemplate {
    match reply {
        Reply::Text(text) => ResponseTemplate::new(200)
            .insert_header("content-type", "text/event-stream")
            .set_body_string(sse(&text, Some("stop"), None)),
        Reply::NoUsage(text) => ResponseTemplate::new(200)
            .insert_header("content-type", "text/event-stream")
            .set_body_string(format!("{}data: [DONE]\n\n", sse_text(&text, Some("stop")))),
        Reply::Cached(text, cached) => ResponseTemplate::new(200)
            .insert_header("content-type", "text/event-stream")
            .set_body_string(sse(&text, Some("stop"), Some(cached))),
        Reply::CutOff(text) => ResponseTemplate::new(200)
            .insert_header("content-type", "text/event-stream")
            .set_body_string(sse(&text, None, None)),
        Reply::Interrupted(text) => ResponseTemplate::new(200)
            .insert_header("content-type", "text/event-stream")
            .set_body_string(format!("{}data: [DONE]\n\n", sse_text(&text, None))),
        Reply::Length(text) => ResponseTemplate::new(200)
            .insert_header("content-type", "text/event-stream")
            .set_body_string(sse(&text, Some("length"), None)),
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
        let authorization = request.headers.get("authorization").and_then(|v| v.to_str().ok()).map(str::to_string);
        let recorded = Recorded { body: request.body_json().unwrap_or(Value::Null), authorization };
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

    /// The server's root URL, without `/v1`.
    pub fn root_url(&self) -> String {
        self.server.uri()
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.log.lock().unwrap().clone()
    }
}

/// The replies of a one-question run on `sample-data/fraud` that passes the
/// first time: the question, a one-node DAG reading the row count (50,000),
/// an approving review.
pub fn row_count_reply(request: &Recorded) -> String {
    let prompt = request.prompt();
    if prompt.contains("evaluation questions") {
        return json!({"questions": [{"id": "q_01", "question": "How many transactions does the dataset hold?",
            "difficulty_rank": 1, "difficulty_level": "easy", "reasoning": "one lookup",
            "relevant_data_keys": ["overview"], "expected_answer": 50_000}]})
        .to_string();
    }
    if prompt.contains("review one layer") {
        return json!({"is_valid": true, "issues": [], "reasoning": "reads the count"}).to_string();
    }
    json!({"question_id": "q_01", "description": "read the row count", "final_answer_node": "count", "edges": [],
        "nodes": [{"node_id": "count", "operation": "read the row count", "function_name": "count",
            "inputs": {"overview": "dataset.overview"}, "expected_output_type": "int", "layer": 0,
            "code": "def count(overview):\n    return overview['row_count']\n"}]})
    .to_string()
}

/// The replies of a run on `sample-data/fraud` with `questions` questions,
/// each answered by a three-layer DAG (row count → doubled → halved). With
/// `reject_odd`, the reviewer rejects layer 1 of every odd-numbered question's
/// first DAG, so those questions are rebuilt once.
pub fn layered_reply(request: &Recorded, questions: usize, reject_odd: bool) -> String {
    let prompt = request.prompt();
    if prompt.contains("evaluation questions") {
        let list: Vec<Value> = (1..=questions)
            .map(|n| {
                json!({"id": format!("q_{n:02}"), "question": format!("Question number {n}: how many rows?"),
                    "difficulty_rank": n, "difficulty_level": "easy", "reasoning": "one lookup",
                    "relevant_data_keys": ["overview"]})
            })
            .collect();
        return json!({ "questions": list }).to_string();
    }
    let number: usize = prompt
        .split("Question q_")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|digits| digits.parse().ok())
        .unwrap_or(0);
    if prompt.contains("review one layer") {
        let first_dag = !prompt.contains("(revised)");
        if reject_odd && number % 2 == 1 && first_dag && prompt.contains("Layer 1 to review") {
            return json!({"is_valid": false, "issues": [{"node_id": "doubled", "message": "doubles without a reason"}],
                "reasoning": "the doubling is not asked for"})
            .to_string();
        }
        return json!({"is_valid": true, "issues": [], "reasoning": "fine"}).to_string();
    }
    let revised = if prompt.contains("was rejected") { " (revised)" } else { "" };
    let node = |id: &str, layer: usize, input: (&str, String), code: &str| {
        json!({"node_id": id, "operation": id, "function_name": id, "inputs": {input.0: input.1},
            "expected_output_type": "int", "layer": layer, "code": code})
    };
    json!({"question_id": format!("q_{number:02}"), "description": format!("count, double, halve{revised}"),
        "nodes": [
            node("count", 0, ("overview", "dataset.overview".into()),
                 "def count(overview):\n    return overview['row_count']\n"),
            node("doubled", 1, ("n", "prev_node.count.output".into()), "def doubled(n):\n    return n * 2\n"),
            node("halved", 2, ("m", "prev_node.doubled.output".into()), "def halved(m):\n    return m // 2\n")],
        "edges": [{"source": "count", "target": "doubled"}, {"source": "doubled", "target": "halved"}],
        "final_answer_node": "halved"})
    .to_string()
}

/// What [`RawLlm`] does with a request.
pub enum Raw {
    /// A complete streamed answer, with usage.
    Answer(String),
    /// Headers and the answer's first event, then half of the next `data:`
    /// line, then the connection is closed.
    DropMidEvent(String),
    /// Headers, then nothing while the connection stays open.
    Stall,
}

type RawScript = dyn Fn(&Recorded, usize) -> Raw + Send + Sync;

/// A hand-written HTTP/1.1 server answering chat completions by a script.
pub struct RawLlm {
    address: std::net::SocketAddr,
    log: Arc<Mutex<Vec<Recorded>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for RawLlm {
    fn drop(&mut self) {
        // The accept loop owns every connection task: aborting it closes them all.
        self.task.abort();
    }
}

/// Read one request (headers and a `content-length` body); `None` when the client went away.
async fn read_request(socket: &mut TcpStream) -> Option<Recorded> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let header_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = socket.read(&mut chunk).await.ok().filter(|n| *n > 0)?;
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..header_end]).to_string();
    let header = |name: &str| {
        head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim().eq_ignore_ascii_case(name).then(|| value.trim().to_string())
        })
    };
    let length: usize = header("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
    while buffer.len() < header_end + length {
        let n = socket.read(&mut chunk).await.ok().filter(|n| *n > 0)?;
        buffer.extend_from_slice(&chunk[..n]);
    }
    let body = serde_json::from_slice(&buffer[header_end..header_end + length]).unwrap_or(Value::Null);
    Some(Recorded { body, authorization: header("authorization") })
}

/// One HTTP chunk of `data`.
fn http_chunk(data: &str) -> String {
    format!("{:x}\r\n{data}\r\n", data.len())
}

const STREAM_HEAD: &str =
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";

async fn answer(mut socket: TcpStream, reply: Raw) {
    match reply {
        Raw::Answer(text) => {
            let body = format!("{}0\r\n\r\n", http_chunk(&sse(&text, Some("stop"), None)));
            let _ = socket.write_all(format!("{STREAM_HEAD}{body}").as_bytes()).await;
            let _ = socket.shutdown().await;
        }
        Raw::DropMidEvent(text) => {
            let events = sse(&text, Some("stop"), None);
            // The first event whole, then the second cut in the middle of its `data:` line.
            let second = events.find("\n\ndata: ").map_or(events.len() / 2, |at| at + 2);
            let cut = second + (events.len() - second).min(30);
            let _ = socket.write_all(format!("{STREAM_HEAD}{}", http_chunk(&events[..cut])).as_bytes()).await;
            let _ = socket.flush().await;
            drop(socket);
        }
        Raw::Stall => {
            let _ = socket.write_all(STREAM_HEAD.as_bytes()).await;
            let _ = socket.flush().await;
            tokio::time::sleep(Duration::from_secs(3600)).await;
        }
    }
}

impl RawLlm {
    /// Start a server answering with `script(request, index of the request)`.
    pub async fn start(script: impl Fn(&Recorded, usize) -> Raw + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1");
        let address = listener.local_addr().expect("local address");
        let log = Arc::new(Mutex::new(Vec::new()));
        let script: Arc<RawScript> = Arc::new(script);
        let task = tokio::spawn({
            let log = log.clone();
            async move {
                let mut connections = JoinSet::new();
                while let Ok((mut socket, _)) = listener.accept().await {
                    while connections.try_join_next().is_some() {}
                    let (log, script) = (log.clone(), script.clone());
                    connections.spawn(async move {
                        let Some(recorded) = read_request(&mut socket).await else { return };
                        let index = {
                            let mut log = log.lock().unwrap();
                            log.push(recorded.clone());
                            log.len() - 1
                        };
                        answer(socket, script(&recorded, index)).await;
                    });
                }
            }
        });
        Self { address, log, task }
    }

    /// Base URL to give the client (`…/v1`).
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.address)
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.log.lock().unwrap().clone()
    }
}
