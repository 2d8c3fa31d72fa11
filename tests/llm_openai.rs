//! The OpenAI-compatible client against a local mock server over 127.0.0.1:
//! streaming, usage, retries and their limits, error classification, the
//! response_format fallback.

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::mock_llm::{MockLlm, Reply};
use eval_dag::llm::{CallKey, ChatMessage, LlmClient, LlmErrorKind, LlmRequest, LlmRole, OpenAiClient, OpenAiSettings};

fn request(json: bool) -> LlmRequest {
    LlmRequest {
        key: CallKey { question_id: None, role: LlmRole::QuestionGeneration, attempt: 1, iteration: 0, layer: None },
        messages: vec![ChatMessage::user("hello")],
        json,
    }
}

fn client(base_url: String) -> OpenAiClient {
    let mut settings = OpenAiSettings::new(base_url, Some("test-key".into()), "gpt-4o-mini");
    settings.base_delay = Duration::from_millis(5);
    settings.max_retries = 2;
    settings.timeout = Duration::from_secs(2);
    OpenAiClient::new(settings).unwrap()
}

fn status(code: u16, body: &str) -> Reply {
    Reply::Status(code, vec![], body.to_string())
}

#[tokio::test]
async fn a_streamed_reply_is_assembled_forwarded_and_priced() {
    let text = "x".repeat(150);
    let mock = MockLlm::start({
        let text = text.clone();
        move |_, _| Reply::Text(text.clone())
    })
    .await;
    let client = client(mock.base_url());
    let deltas = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = {
        let deltas = deltas.clone();
        Arc::new(move |d: &str| deltas.lock().unwrap().push(d.to_string()))
    };
    let reply = client.complete(&request(true), sink).await.unwrap();
    assert_eq!(reply.text, text);
    assert_eq!(deltas.lock().unwrap().len(), 4, "150 characters arrive in 4 chunks");
    assert_eq!(deltas.lock().unwrap().concat(), text);
    assert_eq!((reply.usage.prompt_tokens, reply.usage.completion_tokens), (115, 37));
    assert!(client.cost_usd(reply.usage) > 0.0);
    let body = &mock.requests()[0].body;
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"]["include_usage"], true);
    assert_eq!(body["response_format"]["type"], "json_object");
}

#[tokio::test]
async fn rate_limits_honour_retry_after_ms_then_succeed() {
    let mock = MockLlm::start(|_, i| {
        if i == 0 {
            Reply::Status(429, vec![("retry-after-ms", "300".into())], "{}".into())
        } else {
            Reply::Text("ok".into())
        }
    })
    .await;
    let started = Instant::now();
    let reply = client(mock.base_url()).complete(&request(false), Arc::new(|_: &str| {})).await.unwrap();
    assert!(started.elapsed() >= Duration::from_millis(300), "waited {:?}", started.elapsed());
    assert_eq!((reply.text.as_str(), reply.retries), ("ok", 1));
}

#[tokio::test]
async fn server_errors_are_retried_then_reported_with_their_kind() {
    let mock = MockLlm::start(|_, i| if i == 0 { status(500, "boom") } else { Reply::Text("fine".into()) }).await;
    let reply = client(mock.base_url()).complete(&request(false), Arc::new(|_: &str| {})).await.unwrap();
    assert_eq!(reply.text, "fine");

    let mock = MockLlm::start(|_, _| status(503, "down")).await;
    let err = client(mock.base_url()).complete(&request(false), Arc::new(|_: &str| {})).await.unwrap_err();
    assert_eq!((err.kind, err.retries), (LlmErrorKind::Server, 2));
    assert_eq!(mock.requests().len(), 3, "one call and two retries");
}

#[tokio::test]
async fn quota_bad_requests_and_context_length_are_not_retried() {
    let cases = [
        (
            429,
            r#"{"error": {"code": "insufficient_quota", "message": "You exceeded your current quota"}}"#,
            LlmErrorKind::QuotaExhausted,
        ),
        (400, r#"{"error": {"message": "Unknown parameter"}}"#, LlmErrorKind::BadRequest),
        (
            400,
            r#"{"error": {"code": "context_length_exceeded", "message": "This model's maximum context length is 8192 tokens"}}"#,
            LlmErrorKind::ContextLength,
        ),
        (401, r#"{"error": {"message": "Incorrect API key"}}"#, LlmErrorKind::BadRequest),
    ];
    for (code, body, kind) in cases {
        let mock = MockLlm::start(move |_, _| status(code, body)).await;
        let err = client(mock.base_url()).complete(&request(false), Arc::new(|_: &str| {})).await.unwrap_err();
        assert_eq!(err.kind, kind, "{body}");
        assert_eq!(mock.requests().len(), 1, "{body} was not retried");
        assert!(!err.message.contains('\n'));
    }
}

#[tokio::test]
async fn a_rejected_response_format_is_dropped_for_good() {
    let mock = MockLlm::start(|r, _| {
        if r.body.get("response_format").is_some() {
            status(400, r#"{"error": {"message": "response_format is not supported"}}"#)
        } else {
            Reply::Text("{}".into())
        }
    })
    .await;
    let client = client(mock.base_url());
    assert_eq!(client.complete(&request(true), Arc::new(|_: &str| {})).await.unwrap().text, "{}");
    assert_eq!(client.complete(&request(true), Arc::new(|_: &str| {})).await.unwrap().text, "{}");
    let asked: Vec<bool> = mock.requests().iter().map(|r| r.body.get("response_format").is_some()).collect();
    assert_eq!(asked, vec![true, false, false]);
}

#[tokio::test]
async fn cut_off_streams_are_retried_and_reported_when_they_persist() {
    let mock =
        MockLlm::start(|_, i| if i == 0 { Reply::CutOff("partial".into()) } else { Reply::Text("whole".into()) }).await;
    assert_eq!(client(mock.base_url()).complete(&request(false), Arc::new(|_: &str| {})).await.unwrap().text, "whole");
    let mock = MockLlm::start(|_, _| Reply::CutOff("partial".into())).await;
    let err = client(mock.base_url()).complete(&request(false), Arc::new(|_: &str| {})).await.unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::BadResponse);
    assert!(err.message.contains("cut off"));
}

#[tokio::test]
async fn timeouts_and_refused_connections_are_classified() {
    let mock =
        MockLlm::start(|_, _| Reply::Delayed(Duration::from_secs(5), Box::new(Reply::Text("late".into())))).await;
    let mut settings = OpenAiSettings::new(mock.base_url(), None, "m");
    settings.timeout = Duration::from_millis(200);
    settings.max_retries = 0;
    let err = OpenAiClient::new(settings).unwrap().complete(&request(false), Arc::new(|_: &str| {})).await.unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::Timeout);

    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let err = client(format!("http://127.0.0.1:{port}/v1"))
        .complete(&request(false), Arc::new(|_: &str| {}))
        .await
        .unwrap_err();
    assert_eq!((err.kind, err.retries), (LlmErrorKind::Connection, 2));
}
