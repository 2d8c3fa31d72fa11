//! Local OpenAI-compatible servers (Ollama, vLLM, llama.cpp) and JSON mode,
//! against mocks on 127.0.0.1 that reproduce each quirk: base URLs with or
//! without `/v1`, refused `response_format` and `stream_options`, streams
//! without usage (counted locally), model names with tags; and JSON mode through the binary.

use crate::common;

use common::mock_llm::{MockLlm, Reply, row_count_reply};
use eval_dag::domain::{StructuredOutput, TokenUsage};
use eval_dag::llm::{
    LlmClient, LlmErrorKind, ModelPrice, OpenAiClient, StreamUpdate, ignore_stream, normalise_base_url,
};
use eval_dag::run::EngineEvent;

use super::llm_openai::{finished_calls, request_saying, run_binary_with, settings};

fn status(code: u16, body: &str) -> Reply {
    Reply::Status(code, vec![], body.to_string())
}

fn has(request: &common::mock_llm::Recorded, field: &str) -> bool {
    request.body.get(field).is_some()
}

#[tokio::test]
async fn a_base_url_with_or_without_v1_and_a_slash_reaches_v1_chat_completions() {
    let mock = MockLlm::start(|_, _| Reply::Text("ok".into())).await;
    let root = mock.root_url();
    for base in [
        root.clone(),
        format!("{root}/"),
        format!("{root}/v1"),
        format!("{root}/v1/"),
        format!("{root}/v1/chat/completions"),
    ] {
        let client = OpenAiClient::new(settings(base.clone(), "llama3.1:8b")).unwrap();
        let reply = client.complete(&request_saying("hi", false), ignore_stream()).await;
        assert_eq!(reply.map(|r| r.text), Ok("ok".to_string()), "{base}");
    }
    assert_eq!(mock.requests().len(), 5);
    assert_eq!(normalise_base_url("https://example.com/openai/"), "https://example.com/openai", "another path is kept");
    assert_eq!(normalise_base_url("http://[::1]:8000"), "http://[::1]:8000/v1");
}

#[tokio::test]
async fn json_mode_is_asked_only_when_configured_for_json_replies_whose_prompt_says_json() {
    let mock = MockLlm::start(|_, _| Reply::Text("{}".into())).await;
    let mut off = settings(mock.base_url(), "gpt-4o-mini");
    off.structured = StructuredOutput::Off;
    let off = OpenAiClient::new(off).unwrap();
    let on = OpenAiClient::new(settings(mock.base_url(), "gpt-4o-mini")).unwrap();
    for (client, prompt, json) in [
        (&off, "reply as JSON", true),
        (&on, "reply as JSON", false),
        (&on, "no object word", true),
        (&on, "reply as json", true),
    ] {
        client.complete(&request_saying(prompt, json), ignore_stream()).await.unwrap();
    }
    let asked: Vec<bool> = mock.requests().iter().map(|r| has(r, "response_format")).collect();
    assert_eq!(asked, vec![false, false, false, true], "OpenAI refuses json_object unless a message says JSON");
}

#[tokio::test]
async fn a_400_naming_json_mode_is_asked_again_without_it_once_even_with_no_retries_left() {
    let mock = MockLlm::start(|r, _| {
        if has(r, "response_format") {
            status(400, r#"{"error": {"message": "Invalid request: response_format"}}"#)
        } else {
            Reply::Text("{}".into())
        }
    })
    .await;
    let mut no_retries = settings(mock.base_url(), "qwen2.5-coder:7b-instruct-q4_K_M");
    no_retries.max_retries = 0;
    let client = OpenAiClient::new(no_retries).unwrap();
    let updates = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = {
        let updates = updates.clone();
        std::sync::Arc::new(move |update: StreamUpdate<'_>| {
            if let StreamUpdate::Retrying { retry, error, wait } = update {
                updates.lock().unwrap().push((retry, error.message.clone(), wait));
            }
        })
    };
    let reply = client.complete(&request_saying("reply as JSON", true), sink).await.unwrap();
    assert_eq!((reply.text.as_str(), reply.retries), ("{}", 1));
    let updates = updates.lock().unwrap().clone();
    assert_eq!(updates.len(), 1, "the repeat is reported like a retry: {updates:?}");
    assert!(updates[0].1.contains("response_format") && updates[0].1.contains("rest of the run"), "{updates:?}");
    assert!(updates[0].2.is_zero(), "asked again at once");
    client.complete(&request_saying("reply as JSON", true), ignore_stream()).await.unwrap();
    let asked: Vec<bool> = mock.requests().iter().map(|r| has(r, "response_format")).collect();
    assert_eq!(asked, vec![true, false, false]);
}

#[tokio::test]
async fn a_400_that_is_not_about_json_mode_is_not_repeated() {
    let context = r#"{"error": {"code": "context_length_exceeded", "message": "maximum context length is 8192"}}"#;
    let mock = MockLlm::start(move |_, _| status(400, context)).await;
    let client = OpenAiClient::new(settings(mock.base_url(), "gpt-4o-mini")).unwrap();
    let err = client.complete(&request_saying("reply as JSON", true), ignore_stream()).await.unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::ContextLength);
    assert_eq!(mock.requests().len(), 1);
    let mock = MockLlm::start(|_, _| status(400, r#"{"error": {"message": "bad temperature"}}"#)).await;
    let mut off = settings(mock.base_url(), "gpt-4o-mini");
    off.structured = StructuredOutput::Off;
    let err =
        OpenAiClient::new(off).unwrap().complete(&request_saying("JSON", true), ignore_stream()).await.unwrap_err();
    assert_eq!((err.kind, mock.requests().len()), (LlmErrorKind::BadRequest, 1));
    // In JSON mode, a 400 that names something else (llama.cpp's "Invalid request") keeps response_format.
    let mock = MockLlm::start(|_, _| status(400, r#"{"error": {"message": "Invalid request"}}"#)).await;
    let client = OpenAiClient::new(settings(mock.base_url(), "gpt-4o-mini")).unwrap();
    for _ in 0..2 {
        let err = client.complete(&request_saying("JSON", true), ignore_stream()).await.unwrap_err();
        assert_eq!(err.kind, LlmErrorKind::BadRequest);
    }
    assert!(mock.requests().iter().all(|r| has(r, "response_format")), "not a reason to drop it");
}

#[tokio::test]
async fn calls_refused_at_the_same_time_each_ask_again_without_json_mode() {
    let mock = MockLlm::start(|r, _| {
        if has(r, "response_format") {
            Reply::Delayed(std::time::Duration::from_millis(200), Box::new(status(400, "response_format unsupported")))
        } else {
            Reply::Text("{}".into())
        }
    })
    .await;
    let client = OpenAiClient::new(settings(mock.base_url(), "gpt-4o-mini")).unwrap();
    let (a, b) = (request_saying("JSON a", true), request_saying("JSON b", true));
    let (a, b) = tokio::join!(client.complete(&a, ignore_stream()), client.complete(&b, ignore_stream()));
    assert_eq!((a.unwrap().text, b.unwrap().text), ("{}".to_string(), "{}".to_string()));
    let asked: Vec<bool> = mock.requests().iter().map(|r| has(r, "response_format")).collect();
    assert_eq!(asked, vec![true, true, false, false]);
}

#[tokio::test]
async fn a_refused_stream_options_is_dropped_for_good_and_usage_then_is_counted_locally() {
    let mock = MockLlm::start(|r, _| {
        if has(r, "stream_options") {
            status(400, r#"{"object": "error", "message": "Unrecognized field: stream_options"}"#)
        } else {
            Reply::NoUsage("hello".into())
        }
    })
    .await;
    let client = OpenAiClient::new(settings(mock.base_url(), "llama3.1:8b")).unwrap();
    for _ in 0..2 {
        let reply = client.complete(&request_saying("hi", false), ignore_stream()).await.unwrap();
        assert_eq!(reply.text.as_str(), "hello");
        assert!(reply.estimated && reply.usage.completion_tokens == 2, "{:?}", reply.usage);
        assert_eq!(client.cost_usd(reply.usage), 0.0, "no price for this model");
    }
    let asked: Vec<bool> = mock.requests().iter().map(|r| has(r, "stream_options")).collect();
    assert_eq!(asked, vec![true, false, false]);
}

#[tokio::test]
async fn a_stream_without_usage_is_an_answer_with_estimated_tokens() {
    let mock = MockLlm::start(|_, _| Reply::NoUsage("x".repeat(90))).await;
    let client = OpenAiClient::new(settings(mock.base_url(), "llama3.1:8b")).unwrap();
    let reply = client.complete(&request_saying("hi", false), ignore_stream()).await.unwrap();
    let counted = TokenUsage { prompt_tokens: 3 + 1 + 3, completion_tokens: 23, ..TokenUsage::default() };
    assert_eq!((reply.text.len(), reply.usage, reply.retries, reply.estimated), (90, counted, 0, true));
    assert!(has(&mock.requests()[0], "stream_options"), "usage is still asked for");
}

#[tokio::test]
async fn model_names_with_tags_pass_unchanged_and_are_priced_by_name_or_tag() {
    let mock = MockLlm::start(|_, _| Reply::Text("ok".into())).await;
    let usage =
        TokenUsage { prompt_tokens: 1_000_000, completion_tokens: 1_000_000, cached_tokens: 0, ..Default::default() };
    let price = |input: f64| ModelPrice::new(input, 0.0);
    for model in ["llama3.1:8b", "qwen2.5-coder:7b-instruct-q4_K_M", "hf.co/org/model-GGUF:Q4_K_M"] {
        let client = OpenAiClient::new(settings(mock.base_url(), model)).unwrap();
        assert_eq!(client.model(), model);
        client.complete(&request_saying("hi", false), ignore_stream()).await.unwrap();
        assert_eq!(client.cost_usd(usage), 0.0, "{model} has no price");
    }
    let sent: Vec<String> = mock.requests().iter().map(|r| r.body["model"].as_str().unwrap().to_string()).collect();
    assert_eq!(sent, ["llama3.1:8b", "qwen2.5-coder:7b-instruct-q4_K_M", "hf.co/org/model-GGUF:Q4_K_M"]);
    let mut priced = settings(mock.base_url(), "llama3.1:8b");
    priced.prices =
        vec![("llama3.1".into(), price(1.0)), ("llama3.1:8b".into(), price(2.0)), ("llama3".into(), price(9.0))];
    assert_eq!(OpenAiClient::new(priced.clone()).unwrap().cost_usd(usage), 2.0, "the exact tag wins");
    priced.model = "llama3.1:70b".into();
    assert_eq!(
        OpenAiClient::new(priced).unwrap().cost_usd(usage),
        1.0,
        "a name covers its tags; llama3 is another model"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_in_json_mode_against_a_server_refusing_it_once_passes_without_it() {
    for (config, flags) in [("[llm]\njson_mode = true\n", &[][..]), ("", &["--json-mode"][..])] {
        let mock = MockLlm::start(|r, _| {
            if has(r, "response_format") {
                status(400, r#"{"error": {"message": "'response_format' is not supported by this server"}}"#)
            } else {
                Reply::Text(row_count_reply(r))
            }
        })
        .await;
        let (code, stderr, events) = run_binary_with(&mock.base_url(), config, flags).await;
        assert_eq!(code, Some(0), "{stderr}");
        let asked: Vec<bool> = mock.requests().iter().map(|r| has(r, "response_format")).collect();
        assert_eq!(asked, vec![true, false, false, false], "questions (refused, then again), build, review");
        assert_eq!(finished_calls(&events), vec![(None, 1), (None, 0), (None, 0)]);
        let notice = events.iter().find_map(|e| match e {
            EngineEvent::LlmCallRetrying { error, wait_ms, .. } => Some((error.clone(), *wait_ms)),
            _ => None,
        });
        assert!(notice.as_ref().is_some_and(|(e, wait)| e.contains("response_format") && *wait == 0), "{notice:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_in_json_mode_asks_it_of_every_call_whose_reply_is_an_object() {
    let mock = MockLlm::start(|r, _| Reply::Text(row_count_reply(r))).await;
    let (code, stderr, _) = run_binary_with(&mock.base_url(), "[llm]\njson_mode = true\n", &[]).await;
    assert_eq!(code, Some(0), "{stderr}");
    let asked: Vec<bool> = mock.requests().iter().map(|r| has(r, "response_format")).collect();
    assert_eq!(asked, vec![true; 3], "question generation, DAG build and layer review prompts all say JSON");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_with_structured_outputs_off_never_sends_response_format() {
    let mock = MockLlm::start(|r, _| Reply::NoUsage(row_count_reply(r))).await;
    let flags = ["--model", "llama3.1:8b", "--structured", "off"];
    let (code, stderr, events) = run_binary_with(&mock.base_url(), "", &flags).await;
    assert_eq!(code, Some(0), "{stderr}");
    assert!(mock.requests().iter().all(|r| !has(r, "response_format") && r.body["model"] == "llama3.1:8b"));
    let usage: Vec<(bool, bool, f64)> = events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::LlmCallFinished { usage, cost_usd, estimated, .. } => {
                Some((*estimated, usage.prompt_tokens > 0 && usage.completion_tokens > 0, *cost_usd))
            }
            _ => None,
        })
        .collect();
    assert_eq!(usage, vec![(true, true, 0.0); 3], "no usage reported: tokens counted locally, no price for the model");
}
