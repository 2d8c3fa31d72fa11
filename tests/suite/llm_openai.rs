//! The OpenAI-compatible client against local mock servers over 127.0.0.1:
//! streaming, usage, retries and their limits, error classification, the
//! response_format fallback, connections cut mid-event and stalled streams
//! (also through the whole binary), configured prices.

use crate::common;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::mock_llm::{MockLlm, Raw, RawLlm, Reply, row_count_reply};
use eval_dag::domain::{CallKey, ChatMessage, LlmRole, ReplySchema, StructuredOutput, TokenUsage};
use eval_dag::llm::{HttpSettings, LlmClient, LlmErrorKind, LlmRequest, ModelPrice, OpenAiClient, StreamUpdate};
use eval_dag::run::{EngineEvent, Outcome};
use eval_dag::trace::Trace;

/// A question-generation request saying `prompt`, asking for a JSON object
/// (of [`AnswerReply`]'s schema) when `json`.
pub(crate) fn request_saying(prompt: &str, json: bool) -> LlmRequest {
    LlmRequest {
        key: CallKey::run_wide(LlmRole::QuestionGeneration),
        messages: vec![ChatMessage::user(prompt)],
        schema: json.then(|| ReplySchema::of::<AnswerReply>("answer")),
    }
}

/// The shape the requests of [`request_saying`] ask for.
#[derive(schemars::JsonSchema)]
#[allow(dead_code, reason = "a reply's shape, for its schema")]
pub(crate) struct AnswerReply {
    /// Any answer.
    answer: String,
}

fn request(json: bool) -> LlmRequest {
    request_saying("hello, reply as JSON", json)
}

/// Quick-retrying settings of `model` at `base_url`, JSON mode on (`structured = "json"`).
pub(crate) fn settings(base_url: String, model: &str) -> HttpSettings {
    let mut settings = HttpSettings::openai(base_url, Some("test-key".into()), model);
    settings.base_delay = Duration::from_millis(5);
    settings.max_retries = 2;
    settings.timeout = Duration::from_secs(2);
    settings.structured = StructuredOutput::Json;
    settings
}

fn client(base_url: String) -> OpenAiClient {
    OpenAiClient::new(settings(base_url, "gpt-4o-mini")).unwrap()
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
        Arc::new(move |update: StreamUpdate<'_>| {
            if let StreamUpdate::Text(d) = update {
                deltas.lock().unwrap().push(d.to_string());
            }
        })
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
    let reply = client(mock.base_url()).complete(&request(false), eval_dag::llm::ignore_stream()).await.unwrap();
    assert!(started.elapsed() >= Duration::from_millis(300), "waited {:?}", started.elapsed());
    assert_eq!((reply.text.as_str(), reply.retries), ("ok", 1));
}

#[tokio::test]
async fn server_errors_are_retried_then_reported_with_their_kind() {
    let mock = MockLlm::start(|_, i| if i == 0 { status(500, "boom") } else { Reply::Text("fine".into()) }).await;
    let reply = client(mock.base_url()).complete(&request(false), eval_dag::llm::ignore_stream()).await.unwrap();
    assert_eq!(reply.text, "fine");

    let mock = MockLlm::start(|_, _| status(503, "down")).await;
    let err = client(mock.base_url()).complete(&request(false), eval_dag::llm::ignore_stream()).await.unwrap_err();
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
        let err = client(mock.base_url()).complete(&request(false), eval_dag::llm::ignore_stream()).await.unwrap_err();
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
    assert_eq!(client.complete(&request(true), eval_dag::llm::ignore_stream()).await.unwrap().text, "{}");
    assert_eq!(client.complete(&request(true), eval_dag::llm::ignore_stream()).await.unwrap().text, "{}");
    let asked: Vec<bool> = mock.requests().iter().map(|r| r.body.get("response_format").is_some()).collect();
    assert_eq!(asked, vec![true, false, false]);
}

#[tokio::test]
async fn cut_off_streams_are_retried_and_reported_when_they_persist() {
    let mock =
        MockLlm::start(|_, i| if i == 0 { Reply::CutOff("partial".into()) } else { Reply::Text("whole".into()) }).await;
    assert_eq!(
        client(mock.base_url()).complete(&request(false), eval_dag::llm::ignore_stream()).await.unwrap().text,
        "whole"
    );
    let mock = MockLlm::start(|_, _| Reply::CutOff("partial".into())).await;
    let err = client(mock.base_url()).complete(&request(false), eval_dag::llm::ignore_stream()).await.unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::BadResponse);
    assert!(err.message.contains("cut off"));
}

#[tokio::test]
async fn timeouts_and_refused_connections_are_classified() {
    let mock =
        MockLlm::start(|_, _| Reply::Delayed(Duration::from_secs(5), Box::new(Reply::Text("late".into())))).await;
    let mut settings = HttpSettings::openai(mock.base_url(), None, "m");
    settings.timeout = Duration::from_millis(200);
    settings.max_retries = 0;
    let err = OpenAiClient::new(settings)
        .unwrap()
        .complete(&request(false), eval_dag::llm::ignore_stream())
        .await
        .unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::Timeout);

    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let err = client(format!("http://127.0.0.1:{port}/v1"))
        .complete(&request(false), eval_dag::llm::ignore_stream())
        .await
        .unwrap_err();
    assert_eq!((err.kind, err.retries), (LlmErrorKind::Connection, 2));
}

#[tokio::test]
async fn a_connection_dropped_mid_event_is_retried_as_a_connection_error() {
    let text = "y".repeat(100);
    let mock = RawLlm::start({
        let text = text.clone();
        move |_, i| if i == 0 { Raw::DropMidEvent(text.clone()) } else { Raw::Answer(text.clone()) }
    })
    .await;
    // What a viewer of the stream sees: text so far, reset when a retry is announced.
    let shown = Arc::new(Mutex::new((String::new(), Vec::<String>::new())));
    let sink = {
        let shown = shown.clone();
        Arc::new(move |update: StreamUpdate<'_>| {
            let mut shown = shown.lock().unwrap();
            match update {
                StreamUpdate::Text(d) => shown.0.push_str(d),
                StreamUpdate::Retrying { retry, error, .. } => {
                    assert!(!shown.0.is_empty(), "part of the first answer arrived before the drop");
                    shown.0.clear();
                    shown.1.push(format!("{retry}: {:?}", error.kind));
                }
            }
        })
    };
    let reply = client(mock.base_url()).complete(&request(false), sink).await.unwrap();
    assert_eq!((reply.text.as_str(), reply.retries), (text.as_str(), 1));
    let (streamed, retries) = shown.lock().unwrap().clone();
    assert_eq!(streamed, text, "after the retry announcement only the retry's text was streamed");
    assert_eq!(retries, ["1: Connection"]);
    assert_eq!(mock.requests().len(), 2);

    let mock = RawLlm::start(|_, _| Raw::DropMidEvent("z".repeat(100))).await;
    let err = client(mock.base_url()).complete(&request(false), eval_dag::llm::ignore_stream()).await.unwrap_err();
    assert_eq!((err.kind, err.retries), (LlmErrorKind::Connection, 2), "{}", err.message);
    assert!(err.message.contains("broke mid-answer") && !err.message.contains('\n'), "{}", err.message);
    assert_eq!(mock.requests().len(), 3, "one call and two retries");
}

#[tokio::test]
async fn a_stalled_stream_times_out_with_a_clear_error_then_is_retried() {
    let mock = RawLlm::start(|_, i| if i == 0 { Raw::Stall } else { Raw::Answer("after the stall".into()) }).await;
    let mut settings = HttpSettings::openai(mock.base_url(), None, "m");
    (settings.stall_timeout, settings.base_delay, settings.max_retries) =
        (Duration::from_millis(300), Duration::from_millis(5), 1);
    let client = OpenAiClient::new(settings).unwrap();
    let started = Instant::now();
    let reply = client.complete(&request(false), eval_dag::llm::ignore_stream()).await.unwrap();
    assert_eq!((reply.text.as_str(), reply.retries), ("after the stall", 1));
    assert!(started.elapsed() >= Duration::from_millis(300), "{:?}", started.elapsed());

    let mock = RawLlm::start(|_, _| Raw::Stall).await;
    let mut settings = HttpSettings::openai(mock.base_url(), None, "m");
    (settings.stall_timeout, settings.base_delay, settings.max_retries) =
        (Duration::from_millis(300), Duration::from_millis(5), 1);
    let started = Instant::now();
    let err = OpenAiClient::new(settings)
        .unwrap()
        .complete(&request(false), eval_dag::llm::ignore_stream())
        .await
        .unwrap_err();
    let elapsed = started.elapsed();
    assert_eq!((err.kind, err.retries), (LlmErrorKind::Timeout, 1));
    assert!(err.message.contains("stalled: nothing received for 300ms"), "{}", err.message);
    assert!(elapsed >= Duration::from_millis(600) && elapsed < Duration::from_secs(5), "{elapsed:?}");
}

#[tokio::test]
async fn configured_prices_override_and_extend_the_built_in_ones() {
    let usage =
        TokenUsage { prompt_tokens: 1_000_000, completion_tokens: 2_000_000, cached_tokens: 0, ..Default::default() };
    let priced = |model: &str, prices: Vec<(String, ModelPrice)>| {
        let mut settings = HttpSettings::openai("http://127.0.0.1:9/v1", None, model);
        settings.prices = prices;
        OpenAiClient::new(settings).unwrap().cost_usd(usage)
    };
    let price = ModelPrice::new;
    assert!((priced("gpt-4o-mini", vec![]) - (0.15 + 2.0 * 0.60)).abs() < 1e-9, "built-in list price");
    let cheaper = vec![("gpt-4o-mini".to_string(), price(1.0, 2.0))];
    assert!((priced("gpt-4o-mini", cheaper.clone()) - 5.0).abs() < 1e-9, "the configured price wins");
    assert!((priced("gpt-4o-mini-2024-07-18", cheaper) - 5.0).abs() < 1e-9, "and covers dated versions");
    assert_eq!(priced("local-model", vec![]), 0.0, "unknown models cost nothing");
    assert!((priced("local-model", vec![("local-model".into(), price(0.5, 0.25))]) - 1.0).abs() < 1e-9);
    let general = vec![("gpt-4o".to_string(), price(9.0, 9.0))];
    assert!((priced("gpt-4o-mini", general) - (0.15 + 2.0 * 0.60)).abs() < 1e-9, "the longer built-in name still wins");
}

#[test]
fn cached_prompt_tokens_cost_the_cached_rate_or_else_the_input_rate() {
    let usage =
        TokenUsage { prompt_tokens: 1_000_000, completion_tokens: 0, cached_tokens: 400_000, ..Default::default() };
    let uncached = ModelPrice::new(2.0, 8.0);
    assert!((uncached.cost_usd(usage) - 2.0).abs() < 1e-12, "without a cached rate they cost the input rate");
    let cached = ModelPrice { cached_input_per_mtok: Some(0.5), ..uncached };
    assert!((cached.cost_usd(usage) - (0.6 * 2.0 + 0.4 * 0.5)).abs() < 1e-12);
    let mut settings = HttpSettings::openai("http://127.0.0.1:9/v1", None, "gpt-4.1-mini");
    settings.prices = vec![];
    let built_in = OpenAiClient::new(settings).unwrap().cost_usd(usage);
    assert!((built_in - (0.6 * 0.40 + 0.4 * 0.10)).abs() < 1e-12, "built-in prices know the cached rate: {built_in}");
}

/// `eval-dag run` of the one-question fraud run against `base_url`, with
/// `config` as its config file; the trace's events and the exit code. A hang
/// fails the test.
async fn run_binary(base_url: &str, config: &str) -> (Option<i32>, String, Vec<EngineEvent>) {
    run_binary_with(base_url, config, &[]).await
}

/// [`run_binary`] with more `flags`.
pub(crate) async fn run_binary_with(
    base_url: &str,
    config: &str,
    flags: &[&str],
) -> (Option<i32>, String, Vec<EngineEvent>) {
    let home = tempfile::tempdir().unwrap();
    let config_path = home.path().join("config.toml");
    std::fs::write(&config_path, config).unwrap();
    let out = home.path().join("run");
    let mut command = common::eval_dag(home.path());
    command
        .arg("run")
        .arg(common::root().join("sample-data/fraud"))
        .args(["--headless", "--llm", "openai", "--base-url", base_url, "--config"])
        .arg(&config_path)
        .arg("--out")
        .arg(&out)
        .args(flags)
        .env("OPENAI_API_KEY", "test-key");
    let output = tokio::time::timeout(Duration::from_secs(120), tokio::process::Command::from(command).output())
        .await
        .expect("the run ended")
        .unwrap();
    let events = Trace::read(&out.join("trace.jsonl")).unwrap().records.into_iter().map(|r| r.event).collect();
    (output.status.code(), String::from_utf8_lossy(&output.stderr).to_string(), events)
}

/// `(error, retries)` of every finished LLM call.
pub(crate) fn finished_calls(events: &[EngineEvent]) -> Vec<(Option<String>, u32)> {
    events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::LlmCallFinished { error, retries, .. } => Some((error.clone(), *retries)),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_whose_every_first_stream_drops_mid_event_retries_and_passes() {
    let seen = Mutex::new(HashSet::new());
    let mock = RawLlm::start(move |request, _| {
        let reply = row_count_reply(request);
        if seen.lock().unwrap().insert(request.prompt()) { Raw::DropMidEvent(reply) } else { Raw::Answer(reply) }
    })
    .await;
    let (code, stderr, events) = run_binary(&mock.base_url(), "[llm]\nretries = 1\n").await;
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(finished_calls(&events), vec![(None, 1); 3], "questions, build and review each retried once");
    let answer = events.iter().find_map(|e| match e {
        EngineEvent::QuestionFinished { outcome, final_answer, .. } => Some((*outcome, final_answer.clone())),
        _ => None,
    });
    assert_eq!(answer, Some((Outcome::Passed, Some(serde_json::json!(50_000)))));
    assert_eq!(mock.requests().len(), 6);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_whose_streams_keep_dropping_or_stalling_records_the_failure() {
    let config = "[llm]\nretries = 1\nstall_timeout_secs = 0.3\n";
    for (reply, wanted) in [(Raw::DropMidEvent as fn(String) -> Raw, "broke mid-answer"), (|_| Raw::Stall, "stalled")] {
        let mock = RawLlm::start(move |request, _| reply(row_count_reply(request))).await;
        let (code, stderr, events) = run_binary(&mock.base_url(), config).await;
        assert_eq!(code, Some(1), "{stderr}");
        let calls = finished_calls(&events);
        assert_eq!(calls.len(), 1, "{calls:?}");
        let (error, retries) = &calls[0];
        assert!(error.as_deref().is_some_and(|e| e.contains(wanted)), "{error:?}");
        assert_eq!(*retries, 1);
        let failure = events.iter().find_map(|e| match e {
            EngineEvent::RunFailed { error } => Some(error.clone()),
            _ => None,
        });
        assert!(failure.is_some_and(|f| f.starts_with("question generation failed") && f.contains(wanted)));
        assert!(stderr.contains("run failed: question generation failed"), "{stderr}");
        assert_eq!(mock.requests().len(), 2);
    }
}
