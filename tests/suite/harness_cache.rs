//! The response cache through the binary against a mock server that counts
//! requests: a second identical run sends none and answers the same, a
//! corrupt file is one warning and an uncached run, two runs share a file at
//! once, an unwritable path is refused before any call; `eval-dag cache`.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::mock_llm::{MockLlm, Reply, layered_reply};
use eval_dag::run::EngineEvent;
use eval_dag::trace::Trace;
use serde_json::Value;

/// What one run came to.
pub(crate) struct Ran {
    pub(crate) code: Option<i32>,
    pub(crate) stderr: String,
    pub(crate) events: Vec<EngineEvent>,
    pub(crate) results: Value,
}

/// A mock answering every call of a `questions`-question run with three-layer DAGs.
pub(crate) async fn mock(questions: usize) -> MockLlm {
    MockLlm::start(move |request, _| Reply::Text(layered_reply(request, questions, false))).await
}

/// The command of a run of `questions` questions against `mock` in `home`, into `home/<out>`.
pub(crate) fn command(
    mock: &MockLlm,
    home: &Path,
    out: &str,
    questions: usize,
    flags: &[&str],
) -> std::process::Command {
    let mut command = common::eval_dag(home);
    command
        .current_dir(common::root())
        .args(["run", "sample-data/fraud", "--headless", "--llm", "openai", "--base-url"])
        .arg(mock.base_url())
        .args(["--questions", &questions.to_string(), "--out"])
        .arg(home.join(out))
        .args(flags)
        .env("OPENAI_API_KEY", "test-key");
    command
}

/// Run `command` to its end (a hang fails the test) and read what it wrote into `out`.
pub(crate) async fn finish(command: std::process::Command, out: &Path) -> Ran {
    let output = tokio::time::timeout(Duration::from_secs(120), tokio::process::Command::from(command).output())
        .await
        .expect("the run ended")
        .unwrap();
    let events =
        Trace::read(&out.join("trace.jsonl")).map_or(Vec::new(), |t| t.records.into_iter().map(|r| r.event).collect());
    let results = std::fs::read_to_string(out.join("eval_results.json"))
        .map_or(Value::Null, |text| serde_json::from_str(&text).unwrap());
    Ran { code: output.status.code(), stderr: String::from_utf8_lossy(&output.stderr).into_owned(), events, results }
}

/// A two-question run against `mock` into `home/first`, then the same run
/// again into `home/second`, both through the cache file `home/responses.sqlite`;
/// each must succeed.
pub(crate) async fn cached_rerun(mock: &MockLlm, home: &Path) -> (Ran, Ran) {
    let cache = home.join("responses.sqlite");
    let flags = ["--cache", cache.to_str().unwrap()];
    let first = finish(command(mock, home, "first", 2, &flags), &home.join("first")).await;
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    let second = finish(command(mock, home, "second", 2, &flags), &home.join("second")).await;
    assert_eq!(second.code, Some(0), "{}", second.stderr);
    (first, second)
}

/// Every finished call's `from_cache`.
fn served_from_cache(events: &[EngineEvent]) -> Vec<bool> {
    events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::LlmCallFinished { from_cache, .. } => Some(*from_cache),
            _ => None,
        })
        .collect()
}

/// Each question's id and final answer.
fn answers(results: &Value) -> Vec<(String, Value)> {
    results["detailed_results"]
        .as_array()
        .expect("detailed results")
        .iter()
        .map(|q| (q["question_id"].as_str().unwrap().to_string(), q["final_answer"].clone()))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_identical_run_sends_no_request_and_answers_the_same() {
    let mock = mock(2).await;
    let home = tempfile::tempdir().unwrap();
    let cache = home.path().join("responses.sqlite");
    let flags = ["--cache", cache.to_str().unwrap()];
    let (first, second) = cached_rerun(&mock, home.path()).await;
    let sent = mock.requests().len();
    assert!(sent >= 2 * 4, "a question and two three-layer DAGs: {sent} requests");
    assert!(served_from_cache(&first.events).iter().all(|hit| !hit));
    assert!(served_from_cache(&second.events).iter().all(|hit| *hit), "the second run sent no request");
    let hits = served_from_cache(&second.events);
    assert_eq!((hits.len(), hits.iter().all(|hit| *hit)), (sent, true), "every call served from the cache");
    assert_eq!(answers(&second.results), answers(&first.results));
    let cache_use = &second.results["summary"]["cache"];
    assert_eq!((cache_use["hits"].as_u64(), cache_use["misses"].as_u64()), (Some(sent as u64), Some(0)));
    assert!(cache_use["list_cost_usd"].as_f64().unwrap() > 0.0, "hits priced at list price: {cache_use}");
    assert_eq!(second.results["summary"]["cost_usd"].as_f64().unwrap_or(0.0), 0.0, "hits cost nothing");

    let stats = common::eval_dag(home.path()).args(["cache", "stats"]).arg(&cache).output().unwrap();
    let stats = String::from_utf8_lossy(&stats.stdout).into_owned();
    assert!(stats.contains(&format!("{sent} responses")), "{stats}");
    assert!(stats.contains(&format!("openai/gpt-4o-mini: {sent} responses, {sent} hits")), "{stats}");

    let pruned = common::eval_dag(home.path()).args(["cache", "prune"]).arg(&cache).args(["--model", "other"]).output();
    assert!(String::from_utf8_lossy(&pruned.unwrap().stdout).contains("0 responses deleted"));
    let pruned =
        common::eval_dag(home.path()).args(["cache", "prune"]).arg(&cache).args(["--model", "gpt-4o-mini"]).output();
    assert!(String::from_utf8_lossy(&pruned.unwrap().stdout).contains(&format!("{sent} responses deleted")));
    let third = finish(command(&mock, home.path(), "third", 2, &flags), &home.path().join("third")).await;
    assert_eq!(third.code, Some(0), "{}", third.stderr);
    assert_eq!(mock.requests().len(), 2 * sent, "pruned: every call went to the model again");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_default_cache_is_under_the_user_cache_dir_and_no_cache_bypasses_it() {
    let mock = mock(1).await;
    let home = tempfile::tempdir().unwrap();
    let first = finish(command(&mock, home.path(), "a", 1, &[]), &home.path().join("a")).await;
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    assert!(home.path().join("cache/eval-dag/responses.sqlite").is_file());
    let sent = mock.requests().len();
    let bypass = finish(command(&mock, home.path(), "b", 1, &["--no-cache"]), &home.path().join("b")).await;
    assert_eq!(bypass.code, Some(0), "{}", bypass.stderr);
    assert_eq!(mock.requests().len(), 2 * sent, "--no-cache sends every call");
    assert!(served_from_cache(&bypass.events).iter().all(|hit| !hit));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_corrupt_cache_file_is_one_warning_and_the_run_goes_on_uncached() {
    let mock = mock(1).await;
    let home = tempfile::tempdir().unwrap();
    let cache = home.path().join("responses.sqlite");
    std::fs::write(&cache, "this is not a database, it is a note about one ".repeat(200)).unwrap();
    let flags = ["--cache", cache.to_str().unwrap()];
    let ran = finish(command(&mock, home.path(), "run", 1, &flags), &home.path().join("run")).await;
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let warnings: Vec<&str> = ran.stderr.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(warnings.len(), 1, "{}", ran.stderr);
    assert!(warnings[0].contains("responses.sqlite") && warnings[0].contains("uncached"), "{}", warnings[0]);
    assert!(!mock.requests().is_empty());
    assert!(served_from_cache(&ran.events).iter().all(|hit| !hit));
    let stats = common::eval_dag(home.path()).args(["cache", "stats"]).arg(&cache).output().unwrap();
    assert_eq!(stats.status.code(), Some(2), "stats of a corrupt file is an error");
}

#[tokio::test(flavor = "multi_thread")]
async fn two_runs_share_one_cache_file_at_once() {
    let mock = mock(3).await;
    let home = tempfile::tempdir().unwrap();
    let cache = home.path().join("shared.sqlite");
    let flags = ["--cache", cache.to_str().unwrap()];
    let (one_out, two_out) = (home.path().join("one"), home.path().join("two"));
    let (one, two) = tokio::join!(
        finish(command(&mock, home.path(), "one", 3, &flags), &one_out),
        finish(command(&mock, home.path(), "two", 3, &flags), &two_out),
    );
    for ran in [&one, &two] {
        assert_eq!(ran.code, Some(0), "{}", ran.stderr);
        assert!(!ran.stderr.contains("warning"), "{}", ran.stderr);
    }
    assert_eq!(answers(&one.results), answers(&two.results));
    let sent = mock.requests().len();
    let third = finish(command(&mock, home.path(), "three", 3, &flags), &home.path().join("three")).await;
    assert_eq!(third.code, Some(0), "{}", third.stderr);
    assert_eq!(mock.requests().len(), sent, "both runs' replies were stored: the third sent none");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unwritable_cache_path_is_one_line_and_exit_2_before_any_call() {
    let mock = mock(1).await;
    let home = tempfile::tempdir().unwrap();
    let blocker = home.path().join("a-file");
    std::fs::write(&blocker, "").unwrap();
    let cache = blocker.join("responses.sqlite");
    let flags = ["--cache", cache.to_str().unwrap()];
    let ran = finish(command(&mock, home.path(), "run", 1, &flags), &home.path().join("run")).await;
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert_eq!(ran.stderr.trim().lines().count(), 1, "{}", ran.stderr);
    assert!(ran.stderr.starts_with("error: cannot write the response cache"), "{}", ran.stderr);
    assert!(mock.requests().is_empty());
}
