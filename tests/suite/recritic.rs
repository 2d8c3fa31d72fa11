//! `eval-dag recritic` against scripted OpenAI-compatible servers: a run is
//! recorded with planted cases — a right answer the critic rejects (q_01), a
//! wrong answer it approves (q_02), a rejection that keeps the answer (q_03,
//! no expected answer), a structural rejection (q_04) — then judged again by a
//! second scripted critic that turns the planted verdicts around. The printed
//! agreement and both scorecards are exact, no build call reaches the second
//! server, and a re-criticism killed mid-way and resumed gives the same result
//! without asking for a recorded review again — killed (SIGKILL) or stopped
//! by SIGINT, which finishes its records first.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::mock_llm::{MockLlm, Recorded, Reply};
use eval_dag::domain::LlmRole;
use eval_dag::run::EngineEvent;
use eval_dag::trace::Trace;
use serde_json::{Value, json};

/// A reply the way models write them: prose around fenced JSON.
fn fenced(before: &str, value: Value, after: &str) -> String {
    format!("{before}\n\n```json\n{value:#}\n```\n\n{after}")
}

/// The number N of the question `Question q_0N` a prompt is about.
fn question_number(prompt: &str) -> usize {
    prompt.split("Question q_").nth(1).and_then(|rest| rest.get(..2)).and_then(|d| d.parse().ok()).unwrap_or(0)
}

fn questions() -> String {
    let question = |n: usize, text: &str, expected: Option<Value>| {
        let mut q = json!({"id": format!("q_{n:02}"), "question": text, "difficulty_rank": n,
            "difficulty_level": "easy", "reasoning": "a lookup", "relevant_data_keys": ["overview"]});
        if let Some(expected) = expected {
            q["expected_answer"] = expected;
        }
        q
    };
    let list = json!({"questions": [
        question(1, "How many transactions does the dataset hold?", Some(json!(50_000))),
        question(2, "How many transactions are fraudulent?", Some(json!(436))),
        question(3, "What share of transactions is fraudulent?", None),
        question(4, "How many rows does the dataset describe?", Some(json!(50_000))),
    ]});
    fenced("Here are the questions, easiest first:", list, "Each can be answered from the overview.")
}

/// A one-node DAG for question `n`; a rebuild says `(revised)` in its description.
fn dag(n: usize, revised: bool) -> String {
    let (input, code, out) = match (n, revised) {
        (1 | 4, true) | (1, false) => ("dataset.overview", "def answer(data):\n    return data['row_count']\n", "int"),
        // The planted wrong answer: a rate where a count is asked for.
        (2, _) | (3, _) => ("dataset.overview", "def answer(data):\n    return data['is_fraud_rate']\n", "float"),
        // The planted structural rejection: a field the category stats do not have.
        _ => (
            "dataset.category_stats",
            "def answer(data):\n    return {name: s['fraud_rate'] for name, s in data.items()}\n",
            "dict",
        ),
    };
    let suffix = if revised { " (revised)" } else { "" };
    let dag = json!({"question_id": format!("q_{n:02}"), "description": format!("read the overview{suffix}"),
        "nodes": [{"node_id": "answer", "operation": "read the answer", "function_name": "answer",
            "inputs": {"data": input}, "expected_output_type": out, "layer": 0, "code": code}],
        "edges": [], "final_answer_node": "answer"});
    fenced("Here is the DAG:", dag, "It reads the answer in one step.")
}

/// A layer review approving or rejecting.
fn review(approve: bool) -> String {
    let verdict = if approve {
        json!({"is_valid": true, "issues": [], "reasoning": "the node reads what the question asks"})
    } else {
        json!({"is_valid": false, "issues": [{"node_id": "answer", "message": "this does not answer the question"}],
            "reasoning": "the node reads the wrong thing"})
    };
    fenced("I reviewed the layer.", verdict, "That is my verdict.")
}

/// Whether the first critic approves a review prompt: q_01 and q_03 only once rebuilt.
fn first_critic(prompt: &str) -> bool {
    !matches!(question_number(prompt), 1 | 3) || prompt.contains("(revised)")
}

/// Whether the second critic approves: everything but q_02.
fn second_critic(prompt: &str) -> bool {
    question_number(prompt) != 2
}

fn builder_and_first_critic(request: &Recorded, _: usize) -> Reply {
    let prompt = request.prompt();
    if prompt.contains("evaluation questions") {
        return Reply::Text(questions());
    }
    if prompt.contains("review one layer") {
        return Reply::Text(review(first_critic(&prompt)));
    }
    Reply::Text(dag(question_number(&prompt), prompt.contains("was rejected")))
}

/// The second critic; anything but a layer review is refused. With
/// `rate_limited`, its first request is answered 429 (and retried).
fn second(delay: Duration, rate_limited: bool) -> impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static {
    move |request, index| {
        let prompt = request.prompt();
        if !prompt.contains("review one layer") {
            return Reply::Status(400, vec![], r#"{"error": {"message": "this server only reviews"}}"#.into());
        }
        if rate_limited && index == 0 {
            return Reply::Status(
                429,
                vec![("retry-after-ms", "50".into())],
                r#"{"error": {"message": "slow down"}}"#.into(),
            );
        }
        Reply::Delayed(delay, Box::new(Reply::Text(review(second_critic(&prompt)))))
    }
}

/// The review a request asks for: (question id, iteration).
fn review_of(request: &Recorded) -> (String, u32) {
    let prompt = request.prompt();
    (format!("q_{:02}", question_number(&prompt)), if prompt.contains("(revised)") { 2 } else { 1 })
}

/// Record the run with the planted cases in `dir/run`.
async fn record(dir: &Path) -> PathBuf {
    let mock = MockLlm::start(builder_and_first_critic).await;
    let out = dir.join("run");
    let output = tokio::process::Command::from(common::eval_dag(dir))
        .current_dir(common::root())
        .args(["run", "sample-data/fraud", "--headless", "--llm", "openai", "--model", "scripted-model"])
        .args(["--questions", "4", "--base-url", &mock.base_url()])
        .arg("--out")
        .arg(&out)
        .env("OPENAI_API_KEY", "test-key")
        .output()
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "q_02 is graded wrong: {}", String::from_utf8_lossy(&output.stderr));
    out
}

fn recritic(dir: &Path, run: &Path, base_url: &str, out: &Path, extra: &[&str]) -> tokio::process::Command {
    let mut command = tokio::process::Command::from(common::eval_dag(dir));
    command
        .current_dir(common::root())
        .arg("recritic")
        .arg(run)
        .args(["--llm", "openai", "--model", "unused-model", "--base-url", "http://127.0.0.1:9/v1"])
        .args(["--critic-model", "second-critic", "--critic-base-url", base_url])
        .arg("--out")
        .arg(out)
        .args(extra)
        .env("OPENAI_API_KEY", "test-key");
    command
}

/// Tokens the mock reports for one reply (see `mock_llm::sse`).
fn tokens_of(reply: &str) -> usize {
    100 + reply.len() / 10 + reply.len() / 4
}

fn expected_stdout(run: &Path) -> String {
    let reviews = [("q_01", true), ("q_01", true), ("q_02", false), ("q_03", true), ("q_03", true), ("q_04", true)];
    let tokens: usize = reviews.iter().map(|(_, approve)| tokens_of(&review(*approve))).sum();
    format!(
        "recritic of {}: critic openai/second-critic (original openai/scripted-model)
verdicts: 4 of 7 iterations agree
approved → rejected: 1
  q_02 attempt 1 iteration 1
rejected → approved: 2
  q_01 attempt 1 iteration 1
  q_03 attempt 1 iteration 1
critic scorecard              original  recritic
correct approvals                    2         3
wrong approvals                      1         0
correct rejections                   0         1
wrong rejections                     1         0
answer-neutral rejections            1         0
ungraded approvals                   1         2
ungraded rejections                  0         0
rejections without answer            1         1
right by the answers               50%      100%
recritic: 6 review calls, {tokens} tokens, $0.0000
",
        run.join("trace.jsonl").display()
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_critic_turns_the_planted_verdicts_and_the_comparison_is_exact() {
    let dir = tempfile::tempdir().unwrap();
    let run = record(dir.path()).await;
    let critic = MockLlm::start(second(Duration::ZERO, true)).await;
    let prompts = dir.path().join("prompts");
    std::fs::create_dir_all(&prompts).unwrap();
    let template = std::fs::read_to_string(common::root().join("prompts/layer_review.j2")).unwrap();
    let marked = template.replace("You review one layer", "STRICT HOUSE RULES. You review one layer");
    std::fs::write(prompts.join("layer_review.j2"), marked).unwrap();
    let out = dir.path().join("recritic");
    let output = recritic(dir.path(), &run, &critic.base_url(), &out, &["--concurrency", "2"])
        .arg("--prompts")
        .arg(&prompts)
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&output.stdout), expected_stdout(&run));

    let requests = critic.requests();
    assert!(requests.iter().all(|r| r.prompt().contains("review one layer")), "no build call reaches the critic");
    assert!(requests.iter().all(|r| r.prompt().contains("STRICT HOUSE RULES")), "--prompts replaces the template");
    assert!(requests.iter().all(|r| r.body["model"] == "second-critic"), "--critic-model over --model");
    assert_eq!(requests.len(), 7, "one review per judged layer (one retried); the structural rejection needs none");

    // The derived run: its header names the source, it begins with the source's question list.
    let source = Trace::read(&run.join("trace.jsonl")).unwrap();
    let derived = Trace::read(&out.join("trace.jsonl")).unwrap();
    let from = derived.header.derived_from.clone().expect("a derived run");
    assert_eq!(from.path, run.join("trace.jsonl").display().to_string());
    let copied = from.up_to_seq as usize;
    assert!(matches!(source.records[copied - 1].event, EngineEvent::QuestionsGenerated { .. }));
    assert_eq!(derived.records[..copied], source.records[..copied]);
    let retries = derived.records.iter().filter(|r| matches!(r.event, EngineEvent::LlmCallRetrying { .. }));
    assert_eq!(retries.count(), 1, "the rate-limited review was retried");
    let builds = derived.records[copied..]
        .iter()
        .filter(|r| matches!(&r.event, EngineEvent::LlmCallStarted { key, .. } if key.role != LlmRole::LayerReview));
    assert_eq!(builds.count(), 0, "nothing but layer reviews is asked");
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("eval_results.json")).unwrap()).unwrap();
    assert_eq!(results["critic_scorecard"]["total"]["wrong_approvals"], 0);
    assert_eq!(results["summary"]["passed"], 3, "q_02 is exhausted: its one DAG is rejected");
    assert!(out.join("eval_report.html").is_file());
}

/// Finished layer reviews recorded in `trace`: (question id, iteration).
fn recorded_reviews(trace: &Path) -> BTreeSet<(String, u32)> {
    let Ok(trace) = Trace::read(trace) else { return BTreeSet::new() };
    trace
        .records
        .iter()
        .filter_map(|r| match &r.event {
            EngineEvent::LlmCallFinished { key, error: None, .. } if key.role == LlmRole::LayerReview => {
                Some((key.question_id.as_deref().unwrap_or_default().to_string(), key.iteration))
            }
            _ => None,
        })
        .collect()
}

/// Stop a re-criticism with `signal` once three reviews are recorded, then
/// continue it with the same `--out`: the result is the one of a run in one
/// go, and exactly the reviews not recorded are asked, each once.
async fn interrupt_and_resume(signal: i32) {
    let dir = tempfile::tempdir().unwrap();
    let run = record(dir.path()).await;
    let critic = MockLlm::start(second(Duration::from_millis(300), false)).await;
    let out = dir.path().join("recritic");
    let trace = out.join("trace.jsonl");
    let serial = ["--concurrency", "1", "--review-concurrency", "1"];
    let child = recritic(dir.path(), &run, &critic.base_url(), &out, &serial)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while recorded_reviews(&trace).len() < 3 {
        assert!(tokio::time::Instant::now() < deadline, "three reviews within a minute");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // SAFETY: signalling our own child process, which has not been waited for.
    assert_eq!(unsafe { libc::kill(child.id().unwrap() as i32, signal) }, 0);
    let stopped = child.wait_with_output().await.unwrap();
    if signal == libc::SIGINT {
        let stderr = String::from_utf8_lossy(&stopped.stderr);
        assert_eq!(stopped.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("resume:  eval-dag recritic"), "{stderr}");
    }
    let recorded = recorded_reviews(&trace);
    assert!(recorded.len() < 6, "stopped mid-way: {recorded:?}");
    let asked_before = critic.requests().len();

    let output = recritic(dir.path(), &run, &critic.base_url(), &out, &serial).output().await.unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(String::from_utf8_lossy(&output.stdout), expected_stdout(&run), "the same result as in one go");
    let mut asked_after: Vec<(String, u32)> = critic.requests()[asked_before..].iter().map(review_of).collect();
    asked_after.sort();
    let all: BTreeSet<(String, u32)> = [("q_01", 1), ("q_01", 2), ("q_02", 1), ("q_03", 1), ("q_03", 2), ("q_04", 2)]
        .into_iter()
        .map(|(q, i)| (q.to_string(), i))
        .collect();
    let expected: Vec<(String, u32)> = all.difference(&recorded).cloned().collect();
    assert_eq!(asked_after, expected, "exactly the reviews not recorded are asked, each once");
}

#[tokio::test(flavor = "multi_thread")]
async fn killed_mid_way_and_resumed_it_asks_no_recorded_review_again() {
    interrupt_and_resume(libc::SIGKILL).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn interrupted_it_finishes_its_records_and_resumes_the_same_way() {
    interrupt_and_resume(libc::SIGINT).await;
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-run");
    let output = common::eval_dag(dir.path()).arg("recritic").arg(&missing).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("no-such-run"), "{stderr}");

    let sample = common::root().join("sample-data/traces/fraud-scripted.trace.jsonl");
    let output = common::eval_dag(dir.path())
        .current_dir(common::root())
        .arg("recritic")
        .arg(&sample)
        .args(["--llm", "offline", "--prompts"])
        .arg(dir.path().join("no-templates"))
        .arg("--out")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--prompts") && stderr.contains("not a directory"), "{stderr}");
    assert!(!dir.path().join("out").exists(), "nothing is written for bad input");

    let other = dir.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(&sample, other.join("trace.jsonl")).unwrap();
    let output = common::eval_dag(dir.path())
        .current_dir(common::root())
        .arg("recritic")
        .arg(&sample)
        .args(["--llm", "offline", "--out"])
        .arg(&other)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("already holds another run; choose another --out"), "{stderr}");
    let untouched = std::fs::read(other.join("trace.jsonl")).unwrap();
    assert_eq!(untouched, std::fs::read(&sample).unwrap(), "another run's trace is never written to");
}

#[test]
fn the_offline_critic_recriticises_the_sample_trace() {
    let dir = tempfile::tempdir().unwrap();
    let sample = common::root().join("sample-data/traces/fraud-scripted.trace.jsonl");
    let out = dir.path().join("out");
    let output = common::eval_dag(dir.path())
        .current_dir(common::root())
        .arg("recritic")
        .arg(&sample)
        .args(["--llm", "offline", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    // The structural and trial-run rejections are the same whoever reviews; the offline critic approves the rest.
    assert!(stdout.contains("critic offline/"), "{stdout}");
    assert!(stdout.contains("verdicts: 4 of 4 iterations agree"), "{stdout}");
    assert!(stdout.contains("recritic: 3 review calls"), "{stdout}");
}

/// The engine alone: the sample run with a person's label, an attempt whose
/// builder reply could not be read (with a note on it) and a draft by hand
/// added, re-criticised by the offline critic.
#[tokio::test(flavor = "multi_thread")]
async fn labels_carry_over_unreadable_replies_keep_their_rejection_and_drafts_are_left_alone() {
    use eval_dag::dataset::Dataset;
    use eval_dag::domain::{AttemptAt, CriticFeedback, Finding, FindingSource, Severity};
    use eval_dag::engine::{EngineParts, start_recritic};
    use eval_dag::grade::Grader;
    use eval_dag::llm::OfflinePlanner;
    use eval_dag::prompts::Prompts;
    use eval_dag::report::fold_trace;
    use eval_dag::run::{Command, Outcome, RunState};
    use eval_dag::sandbox::SandboxPool;
    use eval_dag::trace::{TraceHeader, TraceWriter};
    use std::sync::Arc;

    let trace = Trace::read(&common::root().join("sample-data/traces/fraud-scripted.trace.jsonl")).unwrap();
    let mut source = fold_trace(&trace);
    let finding = |rule: &str, source: FindingSource, severity: Severity| Finding {
        node_id: None,
        layer: None,
        rule: rule.into(),
        source,
        message: format!("{rule} message"),
        severity,
    };
    let unreadable = CriticFeedback {
        is_approved: false,
        findings: vec![finding("unparseable_response", FindingSource::Structural, Severity::Error)],
        ..CriticFeedback::default()
    };
    let label = Command::Label { at: AttemptAt::new("q_02", 1).iteration(1), right: true, reason: "counted".into() };
    let note = Command::Note { at: AttemptAt::new("q_01", 2).iteration(1), node_id: None, text: "no JSON".into() };
    for event in [
        EngineEvent::Control(label),
        EngineEvent::QuestionStarted { at: AttemptAt::new("q_01", 2), forked_from: None, by_hand: false },
        EngineEvent::CriticVerdict { at: AttemptAt::new("q_01", 2).iteration(1), feedback: unreadable },
        EngineEvent::Control(note),
        EngineEvent::QuestionStarted { at: AttemptAt::new("q_02", 2), forked_from: None, by_hand: true },
    ] {
        source.apply(source.now_ms, &event);
    }

    let dir = tempfile::tempdir().unwrap();
    let mut settings = trace.header.settings.clone();
    settings.dataset_dir = common::root().join("sample-data/fraud");
    let dataset = Arc::new(Dataset::load(&settings.dataset_dir).unwrap());
    let config = common::sandbox_config(Duration::from_secs(2), Duration::from_secs(4));
    let executor = Arc::new(SandboxPool::new(&dataset.dir, config).unwrap());
    let llm = Arc::new(OfflinePlanner::new(dataset.clone(), 2, 0, Default::default()));
    let (prompts, grader) =
        (Arc::new(Prompts::load(None).unwrap()), Arc::new(Grader::ground_truth_with(&settings.grading)));
    let parts = EngineParts::new(dataset, llm, executor, prompts, grader);
    let writer = TraceWriter::create(&dir.path().join("trace.jsonl"), &TraceHeader::new(settings.clone())).unwrap();
    let mut prior = RunState::default();
    let questions = source.questions.iter().map(|q| q.question.clone()).collect();
    prior.apply(0, &EngineEvent::QuestionsGenerated { questions });
    let handle = start_recritic(parts, writer, settings, Arc::new(source), prior);
    let state = tokio::time::timeout(Duration::from_secs(60), handle.task).await.unwrap().unwrap();

    let q1 = state.question("q_01").unwrap();
    let retried = q1.attempt(2).unwrap();
    let feedback = retried.iteration(1).unwrap().feedback.as_ref().unwrap();
    let rules: Vec<&str> = feedback.findings.iter().map(|f| f.rule.name()).collect();
    assert_eq!(rules, ["unparseable_response"], "the recorded rejection stands, the note stays with the source");
    assert_eq!(retried.outcome, Some(Outcome::Exhausted));
    assert_eq!(retried.reason.as_deref(), Some("rejected in all 1 recorded iterations"));
    assert!(retried.iteration(1).unwrap().calls.is_empty(), "nothing to review without a DAG");
    let verdicts: Vec<bool> =
        q1.attempt(1).unwrap().iterations.iter().map(|i| i.feedback.as_ref().unwrap().is_approved).collect();
    assert_eq!(verdicts, [false, false, true], "the structural and trial-run rejections are found again");
    let q2 = state.question("q_02").unwrap();
    let labels = &q2.attempt(1).unwrap().iteration(1).unwrap().labels;
    assert_eq!(labels.iter().map(|l| (l.right, l.reason.as_str())).collect::<Vec<_>>(), [(true, "counted")]);
    assert!(q2.attempt(2).is_none(), "a draft by hand is not re-criticised");
    let builds = state.calls.values().filter(|c| c.key.role != LlmRole::LayerReview).count();
    assert_eq!(builds, 0);
}
