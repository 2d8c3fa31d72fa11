//! `eval-dag export`: a recorded run sent to a local OTLP/HTTP receiver (whose
//! protobuf decoding is Python's opentelemetry-proto, not ours) and written as
//! OTLP JSON; the spans checked against the trace's own events.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use serde_json::Value;

use crate::common::otlp::{Receiver, parse_json};
use crate::common::{eval_dag, root};

const TRACE: &str = "sample-data/traces/fraud-offline.trace.jsonl";
/// OTLP span kinds.
const INTERNAL: u64 = 1;
const CLIENT: u64 = 3;

/// What the trace at `path` holds: its start (RFC 3339) and its events.
fn trace_events(path: &Path) -> (String, Vec<Value>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap());
    let header = lines.next().unwrap();
    (header["created_at"].as_str().unwrap().to_string(), lines.map(|r| r["event"].clone()).collect())
}

fn count(events: &[Value], kind: &str) -> usize {
    events.iter().filter(|e| e["type"] == kind).count()
}

fn attr<'a>(span: &'a Value, key: &str) -> &'a Value {
    &span["attributes"][key]
}

/// The name of a span's parent ("" for the root).
fn parent_name<'a>(span: &Value, by_id: &HashMap<&str, &'a Value>) -> &'a str {
    match span["parent_span_id"].as_str().unwrap() {
        "" => "",
        id => by_id.get(id).unwrap_or_else(|| panic!("parent {id} of {} was not sent", span["name"]))["name"]
            .as_str()
            .unwrap(),
    }
}

/// Check the decoded spans of the offline run recorded in `trace`: one
/// trace, the tree, kinds, attributes, and as many spans of each sort as the
/// trace has events.
fn check_spans(trace: &Path, spans: &[Value], resources: &[Value], project: &str) {
    let (created_at, events) = trace_events(trace);
    let trace_ids: BTreeSet<&str> = spans.iter().map(|s| s["trace_id"].as_str().unwrap()).collect();
    assert_eq!(trace_ids.len(), 1, "one trace per run: {trace_ids:?}");
    let by_id: HashMap<&str, &Value> = spans.iter().map(|s| (s["span_id"].as_str().unwrap(), s)).collect();
    assert_eq!(by_id.len(), spans.len(), "span ids are unique");
    for resource in resources {
        assert_eq!(resource["service.name"], "eval-dag");
        assert_eq!(resource["openinference.project.name"], project);
    }

    let named = |prefix: &'static str| spans.iter().filter(move |s| s["name"].as_str().unwrap().starts_with(prefix));
    let roots: Vec<&Value> = spans.iter().filter(|s| s["parent_span_id"] == "").collect();
    assert_eq!(roots.len(), 1);
    assert_eq!(roots[0]["name"], "eval-dag run");
    let started = chrono::DateTime::parse_from_rfc3339(&created_at).unwrap();
    assert_eq!(roots[0]["start"].as_u64().unwrap(), started.timestamp_nanos_opt().unwrap() as u64);

    let questions: BTreeSet<&str> = events
        .iter()
        .filter(|e| e["type"] == "question_started")
        .map(|e| e["at"]["question_id"].as_str().unwrap())
        .collect();
    assert_eq!(named("question ").count(), questions.len());
    for span in named("question ") {
        assert_eq!(parent_name(span, &by_id), "eval-dag run");
        assert_eq!(attr(span, "openinference.span.kind"), "CHAIN");
        assert!(questions.contains(attr(span, "eval_dag.question.id").as_str().unwrap()));
        assert!(["easy", "medium", "hard"].contains(&attr(span, "eval_dag.question.difficulty").as_str().unwrap()));
        assert_eq!(attr(span, "eval_dag.outcome"), "passed");
        assert_eq!(attr(span, "eval_dag.grade.ground_truth.passed"), true);
        assert!(attr(span, "input.value").as_str().unwrap().ends_with('?'), "the question is the input");
    }
    assert_eq!(named("attempt ").count(), count(&events, "question_started"));
    for span in named("attempt ") {
        assert!(parent_name(span, &by_id).starts_with("question "));
        assert!(attr(span, "eval_dag.answer").is_string());
        assert!(attr(span, "eval_dag.iterations").as_i64().unwrap() >= 1);
    }
    let iterations: BTreeSet<String> =
        events.iter().filter(|e| e["type"] == "stage_started").map(|e| e["at"].to_string()).collect();
    assert_eq!(named("iteration ").count(), iterations.len());
    for span in named("iteration ") {
        assert!(parent_name(span, &by_id).starts_with("attempt "));
        assert!(["approved", "rejected"].contains(&attr(span, "eval_dag.verdict").as_str().unwrap()));
        assert!(attr(span, "eval_dag.findings").is_string());
    }

    let stages = [
        ("build", "CHAIN"),
        ("check", "EVALUATOR"),
        ("trial run", "TOOL"),
        ("review", "EVALUATOR"),
        ("execute", "TOOL"),
    ];
    let stage_spans: Vec<&Value> = spans.iter().filter(|s| stages.iter().any(|(n, _)| s["name"] == *n)).collect();
    assert_eq!(stage_spans.len(), count(&events, "stage_started"));
    for span in &stage_spans {
        let kind = stages.iter().find(|(n, _)| span["name"] == *n).unwrap().1;
        assert_eq!(attr(span, "openinference.span.kind"), kind, "{}", span["name"]);
        assert_eq!(span["kind"], INTERNAL);
        assert!(parent_name(span, &by_id).starts_with("iteration "));
        assert!(span["start"].as_u64() <= span["end"].as_u64());
    }
    let executions = named("execute").filter(|s| attr(s, "output.value").is_string()).count();
    assert_eq!(executions, count(&events, "question_finished"), "each execution carries the answer");

    let llm: Vec<&Value> = spans.iter().filter(|s| attr(s, "openinference.span.kind") == "LLM").collect();
    assert_eq!(llm.len(), count(&events, "llm_call_started"));
    for span in &llm {
        assert_eq!(span["kind"], CLIENT);
        assert_eq!(span["name"], "chat schema-planner");
        assert_eq!(attr(span, "gen_ai.operation.name"), "chat");
        assert_eq!(attr(span, "gen_ai.provider.name"), "offline");
        assert_eq!(attr(span, "gen_ai.request.model"), "schema-planner");
        assert_eq!(attr(span, "llm.model_name"), "schema-planner");
        for key in ["gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "llm.token_count.total"] {
            assert!(attr(span, key).is_i64(), "{key} on {span}");
        }
        assert!(attr(span, "llm.cost.total").is_f64());
        assert_eq!(attr(span, "llm.input_messages.0.message.role"), "system");
        assert!(attr(span, "gen_ai.input.messages").as_str().unwrap().starts_with("[{\"role\":\"system\""));
        assert!(!attr(span, "output.value").as_str().unwrap().is_empty(), "the completion is the output");
        let parent = parent_name(span, &by_id);
        match attr(span, "eval_dag.llm.role").as_str().unwrap() {
            "questions" => assert_eq!(parent, "eval-dag run"),
            "build" => assert_eq!(parent, "build"),
            "review" => assert_eq!(parent, "review"),
            other => panic!("unexpected call role {other}"),
        }
    }
}

#[test]
fn a_run_reaches_an_otlp_receiver_as_one_trace_of_nested_spans() {
    let home = tempfile::tempdir().unwrap();
    let Some(receiver) = Receiver::start(home.path(), 200) else { return };
    let out = eval_dag(home.path())
        .arg("export")
        .args([TRACE, "--otlp", &receiver.url, "--project", "fraud-demo", "--batch-size", "50"])
        .args(["--header", "Authorization=Basic cGs6c2s="])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let requests = receiver.requests();
    let spans: Vec<Value> = requests.iter().flat_map(|r| r["spans"].as_array().unwrap().clone()).collect();
    assert!(spans.len() > 100);
    assert_eq!(requests.len(), spans.len().div_ceil(50), "batches of 50 spans");
    for request in &requests {
        assert_eq!(request["path"], "/v1/traces");
        assert_eq!(request["content_type"], "application/x-protobuf");
        assert_eq!(request["authorization"], "Basic cGs6c2s=");
    }
    let resources: Vec<Value> = requests.iter().flat_map(|r| r["resources"].as_array().unwrap().clone()).collect();
    check_spans(&root().join(TRACE), &spans, &resources, "fraud-demo");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let trace_id = spans[0]["trace_id"].as_str().unwrap();
    assert!(stdout.contains(&format!("trace {trace_id}: {} spans sent to", spans.len())), "{stdout}");
}

/// Export `TRACE` as OTLP JSON into `file`.
fn export_json(home: &Path, file: &Path) {
    let out = eval_dag(home)
        .arg("export")
        .arg(root().join(TRACE))
        .args(["--format", "otlp-json", "--out"])
        .arg(file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn the_otlp_json_file_is_the_same_request_and_the_same_ids_every_time() {
    let home = tempfile::tempdir().unwrap();
    let (first, second) = (home.path().join("a/otlp.json"), home.path().join("b.json"));
    export_json(home.path(), &first);
    export_json(home.path(), &second);
    assert_eq!(std::fs::read(&first).unwrap(), std::fs::read(&second).unwrap(), "ids are derived, not random");

    let document: Value = serde_json::from_str(&std::fs::read_to_string(&first).unwrap()).unwrap();
    let span = &document["resourceSpans"][0]["scopeSpans"][0]["spans"][0];
    assert_eq!(span["traceId"].as_str().unwrap().len(), 32, "OTLP JSON spells ids in hex");
    assert!(span["startTimeUnixNano"].is_string(), "64-bit times are strings");

    let Some(decoded) = parse_json(&first) else { return };
    let resources = decoded["resources"].as_array().unwrap();
    check_spans(&root().join(TRACE), decoded["spans"].as_array().unwrap(), resources, "fraud-offline");
}

#[test]
fn an_error_status_from_the_receiver_is_one_line_and_a_failure() {
    let home = tempfile::tempdir().unwrap();
    let Some(receiver) = Receiver::start(home.path(), 503) else { return };
    let out =
        eval_dag(home.path()).arg("export").arg(root().join(TRACE)).args(["--otlp", &receiver.url]).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("503 Service Unavailable") && stderr.contains("receiver says no"), "{stderr}");
    assert_eq!(receiver.requests().len(), 1, "no batch after a refused one");
}

#[test]
fn a_bad_receiver_url_or_header_is_one_line() {
    let home = tempfile::tempdir().unwrap();
    for args in [["--otlp", "ftp://localhost:4318"], ["--otlp", "localhost:4318"]] {
        let out = eval_dag(home.path()).arg("export").arg(root().join(TRACE)).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains("is not an http:// or https:// URL"), "{stderr}");
    }
    let out = eval_dag(home.path())
        .arg("export")
        .arg(root().join(TRACE))
        .args(["--otlp", "http://127.0.0.1:9", "--header", "Bad Name=x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--header \"Bad Name\""));
}

#[test]
fn run_otlp_sends_spans_as_they_end_and_the_rest_at_the_end() {
    let home = tempfile::tempdir().unwrap();
    let Some(receiver) = Receiver::start(home.path(), 200) else { return };
    let out = home.path().join("live-run");
    let run = eval_dag(home.path())
        .arg("run")
        .arg(root().join("sample-data/fraud"))
        .args(["--headless", "--questions", "3", "--concurrency", "1", "--offline-delay", "700"])
        .args(["--otlp", &receiver.url, "--otlp-header", "Authorization=Bearer t", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    let requests = receiver.requests();
    assert!(requests.len() >= 2, "spans went out during the run, not only at its end: {} requests", requests.len());
    assert!(requests.iter().all(|r| r["authorization"] == "Bearer t"));
    let spans: Vec<Value> = requests.iter().flat_map(|r| r["spans"].as_array().unwrap().clone()).collect();
    let last = requests.last().unwrap()["spans"].as_array().unwrap();
    assert!(last.iter().any(|s| s["name"] == "eval-dag run"), "the run's span closes with the run");
    assert!(!requests[0]["spans"].as_array().unwrap().iter().any(|s| s["name"] == "eval-dag run"));
    let resources: Vec<Value> = requests.iter().flat_map(|r| r["resources"].as_array().unwrap().clone()).collect();
    check_spans(&out.join("trace.jsonl"), &spans, &resources, "live-run");
    let trace_id = spans[0]["trace_id"].as_str().unwrap();
    let line = format!(
        "otlp:    trace {trace_id}: {} spans sent to {}/v1/traces in {} requests",
        spans.len(),
        receiver.url,
        requests.len()
    );
    assert!(stderr.contains(&line), "{line} in {stderr}");
}

#[test]
fn run_otlp_to_a_refusing_receiver_says_so_and_a_bad_url_stops_the_run_before_it_starts() {
    let home = tempfile::tempdir().unwrap();
    let Some(receiver) = Receiver::start(home.path(), 503) else { return };
    let out = home.path().join("refused");
    let run = eval_dag(home.path())
        .arg("run")
        .arg(root().join("sample-data/fraud"))
        .args(["--headless", "--questions", "2", "--otlp", &receiver.url, "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1), "the run passed but its spans were refused");
    let stderr = String::from_utf8_lossy(&run.stderr);
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].contains("not all sent") && errors[0].contains("503"), "{stderr}");
    assert!(out.join("eval_results.json").exists(), "the run's own outputs are written all the same");

    let never = home.path().join("never");
    let run = eval_dag(home.path())
        .arg("run")
        .arg(root().join("sample-data/fraud"))
        .args(["--headless", "--questions", "2", "--otlp", "localhost:4318", "--out"])
        .arg(&never)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&run.stderr).lines().count(), 1);
    assert!(!never.exists(), "no run directory for a run that never started");
}
