//! Structured outputs against mock servers on 127.0.0.1: each reply's JSON
//! Schema as the OpenAI-compatible `response_format` (strict only where the
//! schema allows it) and as Anthropic's forced tool (its `input_json_delta`
//! stream read as the reply); the step-down chain a refusing server walks
//! once for the whole run; and whole runs asking every role's schema.

use crate::common;

use std::sync::{Arc, Mutex};

use common::mock_anthropic::{MockAnthropic, Reply as AnthropicReply};
use common::mock_llm::{MockLlm, Recorded, Reply, row_count_reply};
use eval_dag::domain::GeneratedDag;
use eval_dag::domain::{FinishReason, ReplySchema, StructuredOutput};
use eval_dag::llm::{
    AnthropicClient, HttpSettings, LlmClient, LlmErrorKind, OpenAiClient, StreamUpdate, ignore_stream,
};
use serde_json::{Value, json};

use super::llm_openai::{request_saying, run_binary_with, settings};

/// The `response_format` a request carried, `Null` when none.
fn format(request: &Recorded) -> Value {
    request.body.get("response_format").cloned().unwrap_or(Value::Null)
}

/// Settings that ask for schemas (the default).
fn schema_settings(base_url: String) -> eval_dag::llm::HttpSettings {
    let mut settings = settings(base_url, "gpt-4o-mini");
    settings.structured = StructuredOutput::Schema;
    settings
}

#[tokio::test]
async fn a_closed_schema_is_sent_strict_and_the_dag_schema_is_not() {
    let mock = MockLlm::start(|_, _| Reply::Text("{}".into())).await;
    let client = OpenAiClient::new(schema_settings(mock.base_url())).unwrap();
    client.complete(&request_saying("reply as JSON", true), ignore_stream()).await.unwrap();
    let mut dag_request = request_saying("reply as JSON", true);
    dag_request.schema = Some(ReplySchema::of::<GeneratedDag>("dag"));
    client.complete(&dag_request, ignore_stream()).await.unwrap();
    client.complete(&request_saying("free text", false), ignore_stream()).await.unwrap();
    let sent: Vec<Value> = mock.requests().iter().map(format).collect();
    assert_eq!(sent[0]["type"], "json_schema");
    assert_eq!((&sent[0]["json_schema"]["name"], &sent[0]["json_schema"]["strict"]), (&json!("answer"), &json!(true)));
    let strict = &sent[0]["json_schema"]["schema"];
    assert_eq!((&strict["required"], &strict["additionalProperties"]), (&json!(["answer"]), &json!(false)));
    assert_eq!((&sent[1]["json_schema"]["name"], &sent[1]["json_schema"]["strict"]), (&json!("dag"), &json!(false)));
    let node = &sent[1]["json_schema"]["schema"]["$defs"]["DagNodeSpec"];
    assert_eq!(node["properties"]["inputs"]["additionalProperties"]["type"], "string", "inputs is a map");
    assert!(node["required"].as_array().unwrap().contains(&json!("code")));
    assert_eq!(sent[2], Value::Null, "a free-text reply asks for no format");
}

/// Every retry message of a call.
fn retries() -> (Arc<Mutex<Vec<String>>>, eval_dag::llm::DeltaSink) {
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

/// The form of a `response_format`: its type, `+schema` when a schema sits beside `json_object`.
fn form(value: &Value) -> String {
    match (value["type"].as_str(), value.get("schema")) {
        (None, _) => "none".into(),
        (Some(kind), Some(_)) => format!("{kind}+schema"),
        (Some(kind), None) => kind.into(),
    }
}

#[tokio::test]
async fn a_server_refusing_each_form_is_walked_down_once_and_remembered() {
    // llama-cpp-python's server answers an unknown response_format type with a 422 naming the field.
    let refusal = r#"{"detail": [{"type": "literal_error", "loc": ["body", "response_format", "type"],
        "msg": "Input should be 'text' or 'json_object'"}]}"#;
    let mock = MockLlm::start(move |request, _| match form(&format(request)).as_str() {
        "json_schema" => Reply::Status(422, vec![], refusal.into()),
        "json_object+schema" => Reply::Text("{\"answer\": \"x\"}".into()),
        _ => Reply::Text("unexpected".into()),
    })
    .await;
    let client = OpenAiClient::new(schema_settings(mock.base_url())).unwrap();
    let (seen, sink) = retries();
    let reply = client.complete(&request_saying("reply as JSON", true), sink).await.unwrap();
    assert_eq!((reply.text.as_str(), reply.retries), ("{\"answer\": \"x\"}", 1));
    client.complete(&request_saying("reply as JSON", true), ignore_stream()).await.unwrap();
    let forms: Vec<String> = mock.requests().iter().map(|r| form(&format(r))).collect();
    assert_eq!(forms, ["json_schema", "json_object+schema", "json_object+schema"], "remembered for the run");
    let schema = &mock.requests()[1].body["response_format"]["schema"];
    assert_eq!(schema["properties"]["answer"]["type"], "string", "the schema llama.cpp turns into a grammar");
    let seen = seen.lock().unwrap().clone();
    assert!(seen[0].contains("asking again with a json_object response_format with its schema"), "{seen:?}");

    let mock = MockLlm::start(|request, _| match format(request) {
        Value::Null => Reply::Text("{}".into()),
        _ => Reply::Status(400, vec![], r#"{"error": {"message": "response_format is not supported"}}"#.into()),
    })
    .await;
    let client = OpenAiClient::new(schema_settings(mock.base_url())).unwrap();
    let reply = client.complete(&request_saying("reply as JSON", true), ignore_stream()).await.unwrap();
    assert_eq!(reply.retries, 3, "schema, schema beside json_object, json_object, then none");
    client.complete(&request_saying("reply as JSON", true), ignore_stream()).await.unwrap();
    let forms: Vec<String> = mock.requests().iter().map(|r| form(&format(r))).collect();
    assert_eq!(forms, ["json_schema", "json_object+schema", "json_object", "none", "none"]);
}

#[tokio::test]
async fn a_500_validation_error_naming_the_field_is_a_refusal_too() {
    // What llama-cpp-python 0.3.36's server answered a json_schema response_format with.
    let refusal = "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), \
        'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}";
    let mock = MockLlm::start(move |request, _| match form(&format(request)).as_str() {
        "json_schema" => Reply::Status(500, vec![], refusal.into()),
        _ => Reply::Text("{}".into()),
    })
    .await;
    let client = OpenAiClient::new(schema_settings(mock.base_url())).unwrap();
    let reply = client.complete(&request_saying("reply as JSON", true), ignore_stream()).await.unwrap();
    assert_eq!(reply.retries, 1);
    let forms: Vec<String> = mock.requests().iter().map(|r| form(&format(r))).collect();
    assert_eq!(forms, ["json_schema", "json_object+schema"]);
    let mock = MockLlm::start(|_, _| Reply::Status(500, vec![], "response_format handler crashed".into())).await;
    let client = OpenAiClient::new(schema_settings(mock.base_url())).unwrap();
    let error = client.complete(&request_saying("reply as JSON", true), ignore_stream()).await.unwrap_err();
    assert_eq!(error.kind, LlmErrorKind::Server, "another 500 is a server error, retried");
    let forms: Vec<String> = mock.requests().iter().map(|r| form(&format(r))).collect();
    assert_eq!(forms, ["json_schema"; 3]);
}

#[tokio::test]
async fn a_400_about_something_else_keeps_the_schema() {
    let mock =
        MockLlm::start(|_, _| Reply::Status(400, vec![], r#"{"error": {"message": "bad temperature"}}"#.into())).await;
    let client = OpenAiClient::new(schema_settings(mock.base_url())).unwrap();
    for _ in 0..2 {
        let error = client.complete(&request_saying("reply as JSON", true), ignore_stream()).await.unwrap_err();
        assert_eq!(error.kind, LlmErrorKind::BadRequest);
    }
    let forms: Vec<String> = mock.requests().iter().map(|r| form(&format(r))).collect();
    assert_eq!(forms, ["json_schema", "json_schema"]);
}

fn anthropic(base_url: &str) -> AnthropicClient {
    let mut settings = HttpSettings::anthropic(base_url, Some("k".into()), "ANTHROPIC_API_KEY", "claude-3-5-haiku");
    settings.base_delay = std::time::Duration::from_millis(5);
    AnthropicClient::new(settings).unwrap()
}

#[tokio::test]
async fn anthropic_asks_a_forced_tool_and_reads_its_streamed_input_as_the_reply() {
    let mock = MockAnthropic::start(|_, _| AnthropicReply::Tool("{\"answer\": \"forty two\"}".into())).await;
    let client = anthropic(&mock.base_url());
    let reply = client.complete(&request_saying("reply as JSON", true), ignore_stream()).await.unwrap();
    assert_eq!(reply.text, "{\"answer\": \"forty two\"}");
    assert_eq!(reply.finish_reason, Some(FinishReason::ToolCalls));
    let body = &mock.requests()[0].request.body;
    assert_eq!(body["tool_choice"], json!({"type": "tool", "name": "answer"}));
    assert_eq!(body["tools"][0]["name"], "answer");
    assert_eq!(body["tools"][0]["input_schema"]["properties"]["answer"]["type"], "string");
    client.complete(&request_saying("free text", false), ignore_stream()).await.unwrap();
    assert_eq!(mock.requests()[1].request.body.get("tools"), None, "a free-text reply forces no tool");
}

#[tokio::test]
async fn anthropic_drops_the_tool_for_the_run_after_a_400_naming_it() {
    let mock = MockAnthropic::start(|request, _| match request.body.get("tools") {
        Some(_) => AnthropicReply::Status(
            400,
            vec![],
            r#"{"type": "error", "error": {"type": "invalid_request_error", "message": "tools: not supported"}}"#
                .into(),
        ),
        None => AnthropicReply::Text("{}".into()),
    })
    .await;
    let client = anthropic(&mock.base_url());
    for _ in 0..2 {
        assert_eq!(client.complete(&request_saying("JSON", true), ignore_stream()).await.unwrap().text, "{}");
    }
    let tools: Vec<bool> = mock.requests().iter().map(|r| r.request.body.get("tools").is_some()).collect();
    assert_eq!(tools, [true, false, false]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_asks_each_role_for_its_schema_by_default() {
    let mock = MockLlm::start(|r, _| Reply::Text(row_count_reply(r))).await;
    let (code, stderr, _) = run_binary_with(&mock.base_url(), "", &[]).await;
    assert_eq!(code, Some(0), "{stderr}");
    let names: Vec<Value> = mock.requests().iter().map(|r| format(r)["json_schema"]["name"].clone()).collect();
    assert_eq!(names, [json!("questions"), json!("dag"), json!("layer_review")]);
    let strict: Vec<Value> = mock.requests().iter().map(|r| format(r)["json_schema"]["strict"].clone()).collect();
    assert_eq!(strict, [json!(false), json!(false), json!(true)], "questions hold any expected answer; DAGs a map");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_against_a_server_that_takes_only_json_object_with_a_schema_passes_on_it() {
    let mock = MockLlm::start(|request, _| match form(&format(request)).as_str() {
        "json_schema" => Reply::Status(422, vec![], r#"{"detail": [{"loc": ["body", "response_format"]}]}"#.into()),
        _ => Reply::Text(row_count_reply(request)),
    })
    .await;
    let (code, stderr, _) = run_binary_with(&mock.base_url(), "", &[]).await;
    assert_eq!(code, Some(0), "{stderr}");
    let forms: Vec<String> = mock.requests().iter().map(|r| form(&format(r))).collect();
    assert_eq!(forms, ["json_schema", "json_object+schema", "json_object+schema", "json_object+schema"]);
}
