//! The anthropic provider through the real binary, against a mock of the
//! Messages API on 127.0.0.1 answering with the scripted replies the
//! OpenAI-compatible tests use: a whole run (headers, system field, prompt
//! caching) with its replay and recritic, a resume after SIGKILL, streams cut or ended by an `error` event, a 529
//! with `retry-after`, cache read/write usage in the results, a refused key.

use crate::common;

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::mock_anthropic::{MockAnthropic, Reply, Usage};
use common::mock_llm::{layered_reply, row_count_reply};
use eval_dag::run::{EngineEvent, Outcome};
use eval_dag::trace::Trace;
use serde_json::Value;

use super::llm_openai::finished_calls;

/// A finished `eval-dag run` (its directory lives as long as this does).
struct Run {
    home: tempfile::TempDir,
    code: Option<i32>,
    stderr: String,
}

impl Run {
    fn dir(&self) -> PathBuf {
        self.home.path().join("run")
    }

    fn events(&self) -> Vec<EngineEvent> {
        Trace::read(&self.dir().join("trace.jsonl")).unwrap().records.into_iter().map(|r| r.event).collect()
    }

    fn results(&self) -> Value {
        serde_json::from_str(&std::fs::read_to_string(self.dir().join("eval_results.json")).unwrap()).unwrap()
    }
}

/// `eval-dag run sample-data/fraud --llm anthropic` against `base_url` with
/// `config` as its config file, more `flags`, and `key` in `ANTHROPIC_API_KEY`.
async fn run(base_url: &str, config: &str, flags: &[&str], key: Option<&str>) -> Run {
    let home = tempfile::tempdir().unwrap();
    let config_path = home.path().join("config.toml");
    std::fs::write(&config_path, config).unwrap();
    let mut command = common::eval_dag(home.path());
    command
        .arg("run")
        .arg(common::root().join("sample-data/fraud"))
        .args(["--headless", "--llm", "anthropic", "--base-url", base_url, "--config"])
        .arg(&config_path)
        .arg("--out")
        .arg(home.path().join("run"))
        .args(flags);
    if let Some(key) = key {
        command.env("ANTHROPIC_API_KEY", key);
    }
    let output = tokio::time::timeout(Duration::from_secs(120), tokio::process::Command::from(command).output())
        .await
        .expect("the run ended")
        .unwrap();
    Run { home, code: output.status.code(), stderr: String::from_utf8_lossy(&output.stderr).to_string() }
}

/// A script answering each distinct prompt first with `first`, then with the whole scripted reply.
fn first_then_whole(first: fn(String) -> Reply) -> impl Fn(&common::mock_llm::Recorded, usize) -> Reply {
    let seen = Mutex::new(HashSet::new());
    move |request, _| {
        let reply = row_count_reply(request);
        if seen.lock().unwrap().insert(request.prompt()) { first(reply) } else { Reply::Text(reply) }
    }
}

fn outcomes(events: &[EngineEvent]) -> Vec<Outcome> {
    events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::QuestionFinished { outcome, .. } => Some(*outcome),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_through_anthropic_sends_its_headers_and_cache_marks_then_replays_and_recritics() {
    let mock = MockAnthropic::start(|request, _| Reply::Text(layered_reply(request, 2, false))).await;
    // Given with `/v1`: the client takes the base URL either way.
    let run = run(&format!("{}/v1", mock.base_url()), "", &["--questions", "2"], Some("test-key")).await;
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let events = run.events();
    assert_eq!(outcomes(&events), vec![Outcome::Passed; 2]);
    assert!(finished_calls(&events).iter().all(|call| *call == (None, 0)));
    let trace = Trace::read(&run.dir().join("trace.jsonl")).unwrap();
    assert_eq!(trace.header.settings.provider.name(), "anthropic");

    let requests = mock.requests();
    assert_eq!(requests.len(), finished_calls(&events).len());
    for received in &requests {
        assert_eq!(received.api_key.as_deref(), Some("test-key"));
        assert_eq!(received.version.as_deref(), Some("2023-06-01"));
        let body = &received.request.body;
        assert_eq!((body["stream"].as_bool(), body["max_tokens"].as_u64()), (Some(true), Some(4096)));
        assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral", "the system block is cached");
        assert!(body["system"][0]["text"].as_str().unwrap().starts_with("Dataset keys:"), "the schema heads it");
        let roles: Vec<&str> =
            body["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
        assert_eq!(roles, ["user"], "the system prompt is not a message");
    }
    // Every review but the first sent (reviews run at once: not always the first to arrive) marks
    // the head all reviews share (the reply format; the schema heads the cached system block).
    let reviews: Vec<&Value> = requests
        .iter()
        .map(|r| &r.request.body)
        .filter(|b| b["system"][0]["text"].as_str().unwrap().contains("review one layer"))
        .collect();
    assert_eq!(reviews.len(), 6);
    let (unmarked, marked): (Vec<&Value>, Vec<&Value>) =
        reviews.into_iter().partition(|review| review["messages"][0]["content"].is_string());
    assert_eq!((unmarked.len(), marked.len()), (1, 5));
    for review in marked {
        let head = &review["messages"][0]["content"][0];
        assert_eq!(head["cache_control"]["type"], "ephemeral", "{review}");
        let head = head["text"].as_str().unwrap();
        assert!(head.starts_with("Reply as JSON"), "{head}");
        assert!(review["messages"][0]["content"][1].get("cache_control").is_none(), "the tail is not marked");
    }

    // The trace replays as it was recorded, without the server.
    drop(mock);
    let trace_path = run.dir().join("trace.jsonl");
    let verify = common::eval_dag(run.home.path()).args(["replay", "--verify"]).arg(&trace_path).output().unwrap();
    let stdout = String::from_utf8_lossy(&verify.stdout);
    assert_eq!(verify.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&verify.stderr));
    assert!(stdout.contains("no drift"), "{stdout}");
    let replay = common::eval_dag(run.home.path()).args(["replay", "--headless"]).arg(&trace_path).output().unwrap();
    let stdout = String::from_utf8_lossy(&replay.stdout);
    assert_eq!(replay.status.code(), Some(0), "{stdout}");
    assert!(stdout.lines().last().unwrap().contains("2 passed"), "{stdout}");

    // recritic: the recorded builds, reviewed again by an Anthropic critic.
    let critic = MockAnthropic::start(|request, _| Reply::Text(layered_reply(request, 2, false))).await;
    let mut recritic = common::eval_dag(run.home.path());
    recritic
        .arg("recritic")
        .arg(run.dir())
        .args(["--llm", "anthropic", "--base-url", &critic.base_url(), "--out"])
        .arg(run.home.path().join("recritic"))
        .env("ANTHROPIC_API_KEY", "critic-key");
    let output = tokio::process::Command::from(recritic).output().await.unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let reviews = critic.requests();
    assert_eq!(reviews.len(), 6, "every layer of both DAGs reviewed again");
    assert!(reviews.iter().all(|r| r.request.prompt().contains("review one layer")), "only reviews");
    assert!(reviews.iter().all(|r| r.api_key.as_deref() == Some("critic-key")));
}

#[tokio::test(flavor = "multi_thread")]
async fn streams_cut_before_message_stop_are_retried_and_the_run_completes() {
    let mock = MockAnthropic::start(first_then_whole(Reply::CutOff)).await;
    let run = run(&mock.base_url(), "[llm]\nretries = 1\n", &[], Some("k")).await;
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let events = run.events();
    assert_eq!(finished_calls(&events), vec![(None, 1); 3], "questions, build and review each retried once");
    assert_eq!(outcomes(&events), [Outcome::Passed]);
    let requests = mock.requests();
    assert_eq!(requests.len(), 6);
    for retried in &requests {
        let first = requests.iter().find(|r| r.request.prompt() == retried.request.prompt()).unwrap();
        assert_eq!(first.request.body, retried.request.body, "a retry sends the same body, cache marks included");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_error_event_mid_stream_is_retried() {
    let mock = MockAnthropic::start(first_then_whole(Reply::ErrorEvent)).await;
    let run = run(&mock.base_url(), "[llm]\nretries = 1\n", &[], Some("k")).await;
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let events = run.events();
    assert_eq!(finished_calls(&events), vec![(None, 1); 3]);
    let errors: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::LlmCallRetrying { error, .. } => Some(error.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 3);
    assert!(errors.iter().all(|e| e.contains("overloaded_error") && e.contains("mid-answer")), "{errors:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_overloaded_529_waits_its_retry_after_and_is_recorded_as_a_retry() {
    let mock = MockAnthropic::start(|request, index| {
        if index == 0 {
            let body = r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#;
            Reply::Status(529, vec![("retry-after", "1".into())], body.into())
        } else {
            Reply::Text(row_count_reply(request))
        }
    })
    .await;
    let run = run(&mock.base_url(), "", &[], Some("k")).await;
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let events = run.events();
    assert_eq!(finished_calls(&events), vec![(None, 1), (None, 0), (None, 0)]);
    let retry = events.iter().find_map(|e| match e {
        EngineEvent::LlmCallRetrying { retry, error, wait_ms, .. } => Some((*retry, error.clone(), *wait_ms)),
        _ => None,
    });
    let (retry, error, wait_ms) = retry.expect("the retry is recorded");
    assert_eq!((retry, wait_ms), (1, 1000), "{error}");
    assert!(error.contains("529") && error.contains("overloaded"), "{error}");
    let requests = mock.requests();
    let waited = requests[1].at - requests[0].at;
    assert!(waited >= Duration::from_secs(1), "the second attempt came {waited:?} after the first");
}

#[tokio::test(flavor = "multi_thread")]
async fn cache_read_and_write_tokens_are_exact_in_the_results() {
    let usage = Usage { input: 50, cache_read: 1000, cache_creation: 200, output: 40 };
    let mock = MockAnthropic::start(move |request, _| Reply::WithUsage(row_count_reply(request), usage)).await;
    let config = "[prices]\n\"claude-test\" = { input_per_mtok = 3.0, output_per_mtok = 15.0, \
                  cached_input_per_mtok = 0.3, cache_write_per_mtok = 3.75 }\n";
    let run = run(&mock.base_url(), config, &["--model", "claude-test"], Some("k")).await;
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let events = run.events();
    let usages: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::LlmCallFinished { usage, .. } => Some(*usage),
            _ => None,
        })
        .collect();
    assert_eq!(usages.len(), 3);
    for recorded in &usages {
        assert_eq!(
            (recorded.prompt_tokens, recorded.completion_tokens, recorded.cached_tokens, recorded.cache_write_tokens),
            (1250, 40, 1000, 200)
        );
    }
    let summary = &run.results()["summary"];
    assert_eq!(summary["tokens"], serde_json::json!({"prompt": 3750, "completion": 120, "total": 3870}));
    assert_eq!(summary["token_economy"]["cached_tokens"], 3000);
    assert_eq!(summary["token_economy"]["cache_write_tokens"], 600);
    let per_call = (50.0 * 3.0 + 1000.0 * 0.3 + 200.0 * 3.75 + 40.0 * 15.0) / 1e6;
    let cost = summary["cost_usd"].as_f64().unwrap();
    assert!((cost - 3.0 * per_call).abs() < 1e-12, "cost {cost}, expected {}", 3.0 * per_call);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_key_fails_at_once_with_one_line_naming_the_variable() {
    let body = r#"{"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}"#;
    let mock = MockAnthropic::start(move |_, _| Reply::Status(401, vec![], body.into())).await;
    let refused = run(&mock.base_url(), "", &[], Some("wrong")).await;
    assert_eq!(refused.code, Some(1), "{}", refused.stderr);
    assert_eq!(mock.requests().len(), 1, "a 401 is not retried");
    let line = refused.stderr.lines().find(|l| l.contains("401")).unwrap_or_else(|| panic!("{}", refused.stderr));
    assert!(line.contains("ANTHROPIC_API_KEY") && line.contains("invalid x-api-key"), "{line}");

    // No key at all for Anthropic's own server: one line before anything starts.
    let keyless = run("https://api.anthropic.com", "", &[], None).await;
    assert_eq!(keyless.code, Some(2), "{}", keyless.stderr);
    assert_eq!(keyless.stderr.trim().lines().count(), 1, "{}", keyless.stderr);
    assert!(keyless.stderr.contains("needs ANTHROPIC_API_KEY"), "{}", keyless.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_killed_anthropic_run_resumes_without_asking_again() {
    // The review never answers in time: the run is killed once the DAG is built.
    // The resumed run keeps its recorded server, which by then answers at once.
    let resumed = Arc::new(AtomicBool::new(false));
    let answers_now = resumed.clone();
    let slow = MockAnthropic::start(move |request, _| {
        let reply = Reply::Text(row_count_reply(request));
        if request.prompt().contains("review one layer") && !answers_now.load(Ordering::SeqCst) {
            Reply::Delayed(Duration::from_secs(30), Box::new(reply))
        } else {
            reply
        }
    })
    .await;
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("run");
    let trace = out.join("trace.jsonl");
    let mut command = common::eval_dag(home.path());
    command
        .arg("run")
        .arg(common::root().join("sample-data/fraud"))
        .args(["--headless", "--llm", "anthropic", "--base-url", &slow.base_url(), "--out"])
        .arg(&out)
        .env("ANTHROPIC_API_KEY", "k")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let child = tokio::process::Command::from(command).spawn().unwrap();
    let built =
        |path: &std::path::Path| std::fs::read_to_string(path).unwrap_or_default().contains("\"type\":\"dag_built\"");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while !built(&trace) {
        assert!(tokio::time::Instant::now() < deadline, "the DAG is built within a minute");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // SAFETY: signalling our own child process, which has not been waited for.
    assert_eq!(unsafe { libc::kill(child.id().unwrap() as i32, libc::SIGKILL) }, 0);
    child.wait_with_output().await.unwrap();

    let before = slow.requests().len();
    resumed.store(true, Ordering::SeqCst);
    let elsewhere = MockAnthropic::start(|request, _| Reply::Text(row_count_reply(request))).await;
    let output = common::eval_dag(home.path())
        .args(["run", "--headless", "--llm", "anthropic", "--base-url", &elsewhere.base_url(), "--resume"])
        .arg(&out)
        .env("ANTHROPIC_API_KEY", "k")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(elsewhere.requests().is_empty(), "a resumed run keeps the roles it recorded, whatever the flags");
    let asked: Vec<String> = slow.requests()[before..].iter().map(|r| r.request.prompt()).collect();
    assert_eq!(asked.len(), 1, "only the review was not recorded");
    assert!(asked[0].contains("review one layer"));
    let events: Vec<EngineEvent> = Trace::read(&trace).unwrap().records.into_iter().map(|r| r.event).collect();
    assert_eq!(outcomes(&events), [Outcome::Passed]);
}

/// Bytes of a request's prompt (system text and user text) and of the part marked `cache_control`.
fn marked_bytes(body: &Value) -> (usize, usize) {
    let blocks = body["system"].as_array().into_iter().flatten().chain(
        body["messages"].as_array().into_iter().flatten().flat_map(|m| m["content"].as_array().into_iter().flatten()),
    );
    let plain = body["messages"].as_array().into_iter().flatten().filter_map(|m| m["content"].as_str());
    let mut total: usize = plain.map(str::len).sum();
    let mut marked = 0;
    for block in blocks {
        let bytes = block["text"].as_str().map_or(0, str::len);
        total += bytes;
        if block.get("cache_control").is_some() {
            marked += bytes;
        }
    }
    (marked, total)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_marked_prefix_covers_most_of_what_the_calls_share() {
    let mock = MockAnthropic::start(|request, _| Reply::Text(layered_reply(request, 6, true))).await;
    let run = run(&mock.base_url(), "", &["--questions", "6"], Some("k")).await;
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let (marked, total) =
        mock.requests().iter().map(|r| marked_bytes(&r.request.body)).fold((0, 0), |(m, t), (a, b)| (m + a, t + b));
    let marked_share = marked as f64 / total as f64;
    let shared = run.results()["summary"]["token_economy"]["prompt_prefix_shared"].as_f64().unwrap();
    println!(
        "{} calls, {total} prompt bytes: {:.1} % marked cache_control, {:.1} % in a prefix shared with an earlier call",
        mock.requests().len(),
        marked_share * 100.0,
        shared * 100.0
    );
    assert!(marked_share <= shared + 0.05, "a mark covers only what calls share");
    assert!(marked_share >= 0.9 * shared, "and nearly all of it");
}
