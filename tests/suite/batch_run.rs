//! `eval-dag run --batch` against mock servers speaking OpenAI's Batch API and
//! Anthropic's Message Batches: the same statuses and answers as the same
//! scripted run made live, at the batch price; failed lines, expired and
//! refused batches; a run killed with SIGKILL after a submission and resumed
//! without any line sent twice; Ctrl-C headless leaves the batches in flight
//! and says so; a 200-question run whose builds share a batch.

use crate::common;

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::{Duration, Instant};

use common::mock_batch::{Behaviour, MockBatch};
use common::mock_llm::{MockLlm, layered_reply};
use eval_dag::domain::LlmRole;
use eval_dag::run::{EngineEvent, RunState};
use eval_dag::trace::Trace;
use serde_json::Value;

/// `eval-dag run sample-data/fraud --headless --llm openai` at `base_url` with `extra` flags, into `out`.
fn openai_run(home: &Path, base_url: &str, out: &Path, extra: &[&str]) -> std::process::Command {
    let mut command = common::eval_dag(home);
    command
        .current_dir(common::root())
        .args(["run", "sample-data/fraud", "--headless", "--llm", "openai", "--model", "gpt-4o-mini"])
        .args(["--base-url", base_url])
        .arg("--out")
        .arg(out)
        .args(["--no-cache"])
        .args(extra)
        .env("OPENAI_API_KEY", "test-key");
    command
}

async fn output(command: std::process::Command) -> std::process::Output {
    tokio::process::Command::from(command).output().await.unwrap()
}

fn folded(out: &Path) -> (Trace, RunState) {
    let trace = Trace::read(&out.join("trace.jsonl")).unwrap();
    let mut state = RunState::default();
    for record in &trace.records {
        state.apply(record.t_ms, &record.event);
    }
    (trace, state)
}

/// Each question's status, final answer and iterations.
fn outcomes(state: &RunState) -> Vec<(String, String, Option<Value>, usize)> {
    state
        .questions
        .iter()
        .map(|q| {
            let attempt = q.latest().unwrap();
            (
                q.question.id.to_string(),
                format!("{:?}", q.status),
                attempt.final_answer.clone(),
                attempt.iterations.len(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_batched_run_answers_as_the_live_run_does_at_half_the_price() {
    let dir = tempfile::tempdir().unwrap();
    let live = MockLlm::start(super::run_scripted::script(Arc::new(AtomicUsize::new(0)))).await;
    let live_out = dir.path().join("live");
    let live_run = output(openai_run(dir.path(), &live.base_url(), &live_out, &["--questions", "2"])).await;
    let batched = MockBatch::openai(
        Behaviour { polls: 2, ..Behaviour::default() },
        super::run_scripted::script(Arc::new(AtomicUsize::new(0))),
    )
    .await;
    let out = dir.path().join("batched");
    let flags = ["--questions", "2", "--batch", "--batch-window", "2"];
    let batched_run = output(openai_run(dir.path(), &batched.base_url(), &out, &flags)).await;
    let stderr = String::from_utf8_lossy(&batched_run.stderr);
    assert_eq!(batched_run.status.code(), live_run.status.code(), "{stderr}");
    assert_eq!(batched.live_calls(), 0, "no call went out live");

    let (_, live_state) = folded(&live_out);
    let (trace, state) = folded(&out);
    assert_eq!(outcomes(&state), outcomes(&live_state), "the same statuses, answers and iterations");
    let submitted = trace.records.iter().filter(|r| matches!(r.event, EngineEvent::BatchSubmitted { .. })).count();
    let ended = trace.records.iter().filter(|r| matches!(r.event, EngineEvent::BatchEnded { .. })).count();
    assert!(submitted >= 3 && submitted == ended, "{submitted} submitted, {ended} ended");
    assert_eq!(batched.batch_sizes().len(), submitted);
    // The 429 on the first line and the 500 and cut-off reviews failed in their batch and went into the next.
    let ids = batched.submitted();
    assert!(ids.len() > ids.iter().collect::<HashSet<_>>().len(), "failed lines are submitted again");

    for call in state.calls.values().filter(|call| call.error.is_none()) {
        let batch = call.batch_id.as_ref().expect("every reply came from a batch");
        assert!(state.batches.contains_key(batch));
        let usage = call.usage;
        // gpt-4o-mini: $0.15 / $0.60 per million live, half in a batch.
        let batch_price = (usage.prompt_tokens as f64 * 0.075 + usage.completion_tokens as f64 * 0.30) / 1e6;
        assert!((call.cost_usd - batch_price).abs() < 1e-12, "{} at the batch price", call.cost_usd);
    }
    let live_cost: f64 = live_state.calls.values().map(|c| c.cost_usd).sum();
    assert!((state.cost_usd - live_cost / 2.0).abs() < 1e-9, "{} is half of {live_cost}", state.cost_usd);

    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("eval_results.json")).unwrap()).unwrap();
    let batches = &results["summary"]["batches"];
    assert_eq!(batches["batches"], submitted);
    assert_eq!(batches["live_calls"], 0);
    assert!(batches["batched_calls"].as_u64().unwrap() >= 6, "{batches}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_without_a_batch_api_or_the_offline_planner_is_refused_before_any_call() {
    let dir = tempfile::tempdir().unwrap();
    let mock =
        MockLlm::start(|request, _| common::mock_llm::Reply::Text(common::mock_llm::row_count_reply(request))).await;
    let out = dir.path().join("refused");
    let refused = output(openai_run(dir.path(), &mock.base_url(), &out, &["--questions", "1", "--batch"])).await;
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains("--batch refused") && stderr.contains("no batch API"), "{stderr}");
    assert!(mock.requests().is_empty(), "no call was sent");
    assert!(!out.exists(), "no run directory");

    let offline = common::eval_dag(dir.path())
        .current_dir(common::root())
        .args(["run", "sample-data/fraud", "--headless", "--llm", "offline", "--batch", "--questions", "1"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&offline.stderr);
    assert_eq!(offline.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains("the offline planner has none"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_expired_batch_is_submitted_again_and_a_refused_one_says_which_line() {
    let dir = tempfile::tempdir().unwrap();
    let script =
        |request: &common::mock_llm::Recorded, _| common::mock_llm::Reply::Text(layered_reply(request, 4, false));
    let mock = MockBatch::openai(Behaviour { expire_first: true, ..Behaviour::default() }, script).await;
    let out = dir.path().join("expired");
    let run = output(openai_run(dir.path(), &mock.base_url(), &out, &["--questions", "4", "--batch"])).await;
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    let (trace, state) = folded(&out);
    let expired = trace
        .records
        .iter()
        .any(|r| matches!(&r.event, EngineEvent::BatchEnded { status, .. } if status.label() == "expired"));
    assert!(expired, "the first batch expired");
    assert!(state.questions.iter().all(|q| q.latest().unwrap().final_answer.is_some()));

    let refusing = MockBatch::openai(Behaviour { refuse_line: Some(1), ..Behaviour::default() }, script).await;
    let out = dir.path().join("refused");
    let run = output(openai_run(dir.path(), &refusing.base_url(), &out, &["--questions", "4", "--batch"])).await;
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_ne!(run.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("was refused: line 1: the model field is missing"), "{stderr}");
    assert_eq!(refusing.submitted().len(), 1, "a refused batch is not sent again");
}

/// Wait until the trace in `out` records `count` submitted batches.
fn wait_for_submissions(out: &Path, count: usize) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let text = std::fs::read_to_string(out.join("trace.jsonl")).unwrap_or_default();
        if text.matches("\"batch_submitted\"").count() >= count {
            return;
        }
        assert!(Instant::now() < deadline, "no {count} submissions in the trace");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_killed_after_a_submission_resumes_without_sending_any_line_twice() {
    let dir = tempfile::tempdir().unwrap();
    let script =
        |request: &common::mock_llm::Recorded, _| common::mock_llm::Reply::Text(layered_reply(request, 3, false));
    let mock = MockBatch::openai(Behaviour { hold_from: Some(1), ..Behaviour::default() }, script).await;
    let out = dir.path().join("killed");
    let mut first = openai_run(dir.path(), &mock.base_url(), &out, &["--questions", "3", "--batch"]).spawn().unwrap();
    let trace_dir = out.clone();
    tokio::task::spawn_blocking(move || wait_for_submissions(&trace_dir, 2)).await.unwrap();
    first.kill().unwrap(); // SIGKILL
    first.wait().unwrap();
    let (_, state) = folded(&out);
    let builds = state.batches.values().find(|b| b.role == LlmRole::DagBuild).expect("the builds' batch");
    assert!(builds.ended.is_none());
    assert_eq!(mock.batch_sizes(), vec![1, 3], "the questions, then every question's build in one batch");

    mock.release();
    let mut resume = common::eval_dag(dir.path());
    resume.current_dir(common::root()).args(["run", "--headless", "--no-cache", "--resume"]).arg(&out);
    resume.env("OPENAI_API_KEY", "test-key");
    let resumed = output(resume).await;
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert_eq!(resumed.status.code(), Some(0), "{stderr}");
    let ids = mock.submitted();
    assert_eq!(
        ids.len(),
        ids.iter().collect::<HashSet<_>>().len(),
        "no line submitted twice: {:?}",
        mock.batch_sizes()
    );
    let (_, state) = folded(&out);
    assert!(state.batches.values().all(|b| b.ended.is_some()), "the adopted batch ended");
    assert_eq!(state.questions.len(), 3);
    assert!(state.questions.iter().all(|q| q.latest().unwrap().final_answer.is_some()));
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_headless_leaves_the_batches_in_flight_and_says_how_to_fetch_them() {
    let dir = tempfile::tempdir().unwrap();
    let script =
        |request: &common::mock_llm::Recorded, _| common::mock_llm::Reply::Text(layered_reply(request, 3, false));
    let mock = MockBatch::openai(Behaviour { hold_from: Some(1), ..Behaviour::default() }, script).await;
    let out = dir.path().join("interrupted");
    let mut command = openai_run(dir.path(), &mock.base_url(), &out, &["--questions", "3", "--batch"]);
    let child = command.stderr(std::process::Stdio::piped()).spawn().unwrap();
    let trace_dir = out.clone();
    tokio::task::spawn_blocking(move || wait_for_submissions(&trace_dir, 2)).await.unwrap();
    // SAFETY: signalling a child process this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let ended = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap()).await.unwrap();
    let stderr = String::from_utf8_lossy(&ended.stderr);
    let line =
        format!("batches: 1 left running at the provider with 3 calls; `eval-dag run --resume {}`", out.display());
    assert!(stderr.contains(&line), "{stderr}");
    assert_eq!(mock.cancels(), 0, "nothing was cancelled at the provider");
    let (_, state) = folded(&out);
    assert_eq!(state.batches_in_flight(), 1, "the builds' batch has no end recorded");
    assert_eq!(state.calls_waiting_in_batches(), 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_builds_of_200_questions_share_one_batch() {
    let dir = tempfile::tempdir().unwrap();
    let script =
        |request: &common::mock_llm::Recorded, _| common::mock_llm::Reply::Text(layered_reply(request, 200, false));
    let mock = MockBatch::openai(Behaviour::default(), script).await;
    let out = dir.path().join("wide");
    let flags = ["--questions", "200", "--batch", "--batch-window", "600", "--max-iterations", "1"];
    let run = output(openai_run(dir.path(), &mock.base_url(), &out, &flags)).await;
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    let (_, state) = folded(&out);
    let builds: Vec<usize> =
        state.batches.values().filter(|b| b.role == LlmRole::DagBuild).map(|b| b.calls.len()).collect();
    assert_eq!(builds, vec![200], "every build in one batch, not --concurrency of them");
}

/// Peak memory (KiB) and wall time of `command`, run under `/usr/bin/time -v`.
fn measured(command: std::process::Command) -> (u64, Duration, std::process::Output) {
    let mut timed = std::process::Command::new("/usr/bin/time");
    timed.arg("-v").arg(command.get_program()).args(command.get_args());
    if let Some(dir) = command.get_current_dir() {
        timed.current_dir(dir);
    }
    for (name, value) in command.get_envs() {
        match value {
            Some(value) => timed.env(name, value),
            None => timed.env_remove(name),
        };
    }
    let started = Instant::now();
    let output = timed.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let peak = stderr.lines().find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes): "));
    (peak.and_then(|kib| kib.parse().ok()).unwrap_or(0), started.elapsed(), output)
}

/// BENCHMARKS.md's figures: 1,000 scripted questions live, then batched with
/// a mock batch latency of 5 s. `cargo test --release --test all batch_run::sweep -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "a benchmark: minutes of work"]
async fn sweep_of_1000_questions_live_and_batched() {
    let dir = tempfile::tempdir().unwrap();
    let questions = 1000;
    let live = MockLlm::start(move |r, _| common::mock_llm::Reply::Text(layered_reply(r, questions, false))).await;
    let flags = ["--questions", "1000", "--max-iterations", "1"];
    let (live_peak, live_wall, run) = tokio::task::block_in_place(|| {
        measured(openai_run(dir.path(), &live.base_url(), &dir.path().join("live"), &flags))
    });
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    let (_, live_state) = folded(&dir.path().join("live"));
    let behaviour = Behaviour { latency: Duration::from_secs(5), ..Behaviour::default() };
    let batch =
        MockBatch::openai(behaviour, move |r, _| common::mock_llm::Reply::Text(layered_reply(r, questions, false)))
            .await;
    let batched_flags = ["--questions", "1000", "--max-iterations", "1", "--batch", "--batch-window", "600"];
    let (batch_peak, batch_wall, run) = tokio::task::block_in_place(|| {
        measured(openai_run(dir.path(), &batch.base_url(), &dir.path().join("batched"), &batched_flags))
    });
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    let (_, state) = folded(&dir.path().join("batched"));
    let most_waiting = state.batches.values().map(|b| b.calls.len()).max().unwrap_or(1);
    println!(
        "live:    {} requests, {} calls, ${:.4}, {:.1} s, peak {} KiB",
        live.requests().len(),
        live_state.calls.len(),
        live_state.cost_usd,
        live_wall.as_secs_f64(),
        live_peak
    );
    println!(
        "batched: {} requests, {} batches {:?}, {} calls, ${:.4}, {:.1} s, peak {} KiB",
        batch.http_requests(),
        state.batches.len(),
        batch.batch_sizes(),
        state.calls.len(),
        state.cost_usd,
        batch_wall.as_secs_f64(),
        batch_peak
    );
    println!(
        "memory per waiting call: ~{:.1} KiB ({} calls in the largest batch)",
        (batch_peak as f64 - live_peak as f64) / most_waiting as f64,
        most_waiting
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn anthropic_message_batches_answer_a_run_and_an_expired_batch_is_sent_again() {
    let dir = tempfile::tempdir().unwrap();
    let script =
        |request: &common::mock_llm::Recorded, _| common::mock_llm::Reply::Text(layered_reply(request, 4, false));
    let behaviour = Behaviour { expire_first: true, polls: 1, ..Behaviour::default() };
    let mock = MockBatch::anthropic(behaviour, script).await;
    let out = dir.path().join("anthropic");
    let run = common::eval_dag(dir.path())
        .current_dir(common::root())
        .args(["run", "sample-data/fraud", "--headless", "--llm", "anthropic", "--model", "claude-sonnet-4-20250514"])
        .args(["--base-url", &mock.root_url(), "--questions", "4", "--no-cache", "--batch", "--out"])
        .arg(&out)
        .env("ANTHROPIC_API_KEY", "k")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert_eq!(mock.live_calls(), 0, "no call went out live");
    let (trace, state) = folded(&out);
    let expired = trace
        .records
        .iter()
        .any(|r| matches!(&r.event, EngineEvent::BatchEnded { status, .. } if status.label() == "expired"));
    assert!(expired, "the first batch expired and its line went into the next");
    assert_eq!(mock.submitted()[0], mock.submitted()[1], "the expired line was submitted again");
    assert!(state.calls.values().all(|call| call.batch_id.is_some()), "every reply came from a batch");
    assert!(state.questions.iter().all(|q| q.latest().unwrap().final_answer == Some(serde_json::json!(50_000))));
    assert!(state.cost_usd > 0.0, "priced at the model's batch price");
}

#[tokio::test(flavor = "multi_thread")]
async fn max_cost_counts_a_call_waiting_in_a_batch_at_its_estimate() {
    let dir = tempfile::tempdir().unwrap();
    let script =
        |request: &common::mock_llm::Recorded, _| common::mock_llm::Reply::Text(layered_reply(request, 3, false));
    let mock = MockBatch::openai(Behaviour::default(), script).await;
    let out = dir.path().join("budget");
    // A waiting build counts its prompt and 4,096 tokens of reply at $0.30 per million: over
    // $0.001. One slot: the loop after it checks the budget once the first build waits.
    let flags = ["--questions", "3", "--batch", "--max-cost", "0.001", "--concurrency", "1"];
    let run = output(openai_run(dir.path(), &mock.base_url(), &out, &flags)).await;
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("budget: --max-cost $0.001"), "{stderr}");
    let (_, state) = folded(&out);
    let builds = state.batches.values().filter(|b| b.role == LlmRole::DagBuild).map(|b| b.calls.len()).sum::<usize>();
    assert_eq!(builds, 1, "the first build's estimate leaves no room for the others");
    assert!(state.cost_usd < 0.001, "spent ${}", state.cost_usd);
}
