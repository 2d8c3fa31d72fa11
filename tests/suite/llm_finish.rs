//! How replies end and what they cost when the server says nothing: finish
//! reasons recorded per call, streams that end without one (a server
//! interrupting them) retried like cut connections and, when it keeps
//! happening, the fix named once; replies cut at the token limit kept as
//! such; token counts made locally (and marked estimated) when a server sends
//! no usage — for the OpenAI-compatible client, Anthropic's, and a whole run.

use crate::common;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::mock_anthropic::{MockAnthropic, Reply as AnthropicReply};
use common::mock_llm::{MockLlm, Reply, row_count_reply};
use eval_dag::domain::FinishReason;
use eval_dag::llm::{
    AnthropicClient, HttpSettings, LlmClient, LlmError, LlmErrorKind, LlmResponse, OpenAiClient, StreamUpdate,
    ignore_stream,
};
use eval_dag::run::EngineEvent;

use super::llm_openai::{request_saying, run_binary_with, settings};

/// Every retry message a call reports.
fn retry_messages() -> (Arc<Mutex<Vec<String>>>, eval_dag::llm::DeltaSink) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = {
        let seen = seen.clone();
        Arc::new(move |update: StreamUpdate<'_>| {
            if let StreamUpdate::Retrying { error, .. } = update {
                seen.lock().unwrap().push(error.message.clone());
            }
        })
    };
    (seen, sink)
}

#[tokio::test]
async fn an_interrupted_stream_is_retried_and_the_whole_reply_kept_with_its_reason() {
    let mock = MockLlm::start(|_, index| {
        if index == 0 { Reply::Interrupted("{\"questions\": [".into()) } else { Reply::Text("{}".into()) }
    })
    .await;
    let client = OpenAiClient::new(settings(mock.base_url(), "gpt-4o-mini")).unwrap();
    let (seen, sink) = retry_messages();
    let reply = client.complete(&request_saying("hi", false), sink).await.unwrap();
    assert_eq!((reply.text.as_str(), reply.retries), ("{}", 1), "the fragment is not taken as the reply");
    assert_eq!(reply.finish_reason, Some(FinishReason::Stop));
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    assert!(seen[0].contains("ended without a finish reason"), "{seen:?}");
    assert!(!seen[0].contains("--concurrency 1"), "one interruption is not yet a pattern: {seen:?}");
}

#[tokio::test]
async fn a_server_that_keeps_interrupting_is_told_once_with_the_fix() {
    let mock = MockLlm::start(|_, _| Reply::Interrupted("{\"a\": ".into())).await;
    let mut settings = settings(mock.base_url(), "llama");
    settings.max_retries = 4;
    let client = OpenAiClient::new(settings).unwrap();
    let (seen, sink) = retry_messages();
    let error = client.complete(&request_saying("hi", false), sink).await.unwrap_err();
    assert_eq!((error.kind, error.retries), (LlmErrorKind::BadResponse, 4));
    assert!(error.message.contains("without a finish reason"), "{}", error.message);
    let seen = seen.lock().unwrap().clone();
    let told: Vec<usize> = (0..seen.len()).filter(|i| seen[*i].contains("--concurrency 1")).collect();
    assert_eq!(told, vec![2], "said once, at the third interruption: {seen:?}");
    assert!(seen[2].contains("--interrupt_requests false"), "{}", seen[2]);
    assert_eq!(mock.requests().len(), 5);
}

#[tokio::test]
async fn a_reply_cut_at_the_token_limit_is_kept_as_cut_off() {
    let mock = MockLlm::start(|_, _| Reply::Length("{\"questions\": [{\"id\"".into())).await;
    let client = OpenAiClient::new(settings(mock.base_url(), "gpt-4o-mini")).unwrap();
    let reply = client.complete(&request_saying("hi", false), ignore_stream()).await.unwrap();
    assert_eq!((reply.retries, reply.finish_reason), (0, Some(FinishReason::Length)));
    assert!(!reply.estimated && reply.usage.completion_tokens > 0, "the server's usage is kept");
}

#[tokio::test]
async fn without_usage_tokens_are_counted_locally_and_priced() {
    let mock = MockLlm::start(|_, _| Reply::NoUsage("hello world".into())).await;
    let count = |model: &'static str| {
        let client = OpenAiClient::new(settings(mock.base_url(), model)).unwrap();
        async move {
            let reply = client.complete(&request_saying("hi", false), ignore_stream()).await.unwrap();
            assert!(reply.estimated, "{model}");
            (reply.usage, client.cost_usd(reply.usage))
        }
    };
    // gpt-4o-mini has a known tokenizer: "hello world" is 2 tokens, "hi" 1, plus 3 + 3 for the chat format.
    let (usage, cost) = count("gpt-4o-mini").await;
    assert_eq!((usage.prompt_tokens, usage.completion_tokens), (7, 2));
    assert!(cost > 0.0, "a known price applies to counted tokens");
    // Another model: one token per four bytes, rounded up ("hello world" is 11 bytes, "hi" 2).
    let (usage, cost) = count("smollm2-135m-instruct").await;
    assert_eq!((usage.prompt_tokens, usage.completion_tokens, cost), (7, 3, 0.0));
}

fn anthropic(base_url: &str) -> AnthropicClient {
    let mut settings = HttpSettings::anthropic(base_url, Some("k".into()), "ANTHROPIC_API_KEY", "claude-3-5-haiku");
    settings.base_delay = Duration::from_millis(5);
    settings.max_retries = 2;
    AnthropicClient::new(settings).unwrap()
}

#[tokio::test]
async fn anthropic_replies_record_their_reason_retry_when_unfinished_and_count_missing_usage() {
    let mock = MockAnthropic::start(|request, index| match (request.prompt().as_str(), index) {
        ("unfinished", 0) => AnthropicReply::Unfinished("part".into()),
        ("cut", _) => AnthropicReply::MaxTokens("{\"a\":".into()),
        ("quiet", _) => AnthropicReply::NoUsage("hello world".into()),
        _ => AnthropicReply::Text("whole".into()),
    })
    .await;
    let client = anthropic(&mock.base_url());
    let reply = ask(&client, "unfinished").await.unwrap();
    assert_eq!((reply.text.as_str(), reply.retries, reply.finish_reason), ("whole", 1, Some(FinishReason::Stop)));
    let reply = ask(&client, "cut").await.unwrap();
    assert_eq!((reply.retries, reply.finish_reason, reply.estimated), (0, Some(FinishReason::Length), false));
    let reply = ask(&client, "quiet").await.unwrap();
    assert!(reply.estimated);
    assert_eq!(reply.usage.completion_tokens, 3, "no tokenizer known for Claude: 11 bytes at 4 a token");
    assert!(client.cost_usd(reply.usage) > 0.0, "the model's price applies");
}

/// `client`'s reply to `prompt`.
async fn ask(client: &AnthropicClient, prompt: &str) -> Result<LlmResponse, LlmError> {
    client.complete(&request_saying(prompt, false), ignore_stream()).await
}

/// `(finish_reason, estimated, tokens, retries)` of every finished call.
fn finished(events: &[EngineEvent]) -> Vec<(Option<FinishReason>, bool, u64, u32)> {
    events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::LlmCallFinished { finish_reason, estimated, usage, retries, .. } => {
                Some((finish_reason.clone(), *estimated, usage.total(), *retries))
            }
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_against_an_interrupting_server_without_usage_records_whole_replies_and_estimated_tokens() {
    let seen = Mutex::new(HashSet::new());
    let mock = MockLlm::start(move |request, _| {
        let reply = row_count_reply(request);
        if seen.lock().unwrap().insert(request.prompt()) {
            Reply::Interrupted(reply[..reply.len() / 2].to_string())
        } else {
            Reply::NoUsage(reply)
        }
    })
    .await;
    let (code, stderr, events) = run_binary_with(&mock.base_url(), "[llm]\nretries = 1\n", &[]).await;
    assert_eq!(code, Some(0), "{stderr}");
    let calls = finished(&events);
    assert_eq!(calls.len(), 3, "questions, build, review: {calls:?}");
    for (reason, estimated, tokens, retries) in calls {
        assert_eq!((reason, estimated, retries), (Some(FinishReason::Stop), true, 1));
        assert!(tokens > 0, "never 0 tokens for a real call");
    }
    assert!(stderr.contains(" tokens (estimated)"), "the summary marks counted tokens: {stderr}");
}
