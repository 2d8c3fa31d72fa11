//! Replies that cannot be read, from a scripted server that fails the way real
//! ones do (empty, prose, cut off at the token limit, an interrupted stream, a
//! question list with a malformed entry, a review in prose): each is repaired
//! within its iteration — calls of the same key with `repair: n` — and only a
//! reply still unreadable after the repairs costs a critic iteration. A
//! question list keeps its well-formed entries and asks again for the rest;
//! a run fails only with no usable question. Resume asks only what was not
//! recorded.

use crate::common;

use std::path::Path;

use common::mock_llm::{MockLlm, Recorded, Reply, mock_usage, row_count_reply};
use eval_dag::domain::LlmRole;
use eval_dag::run::{EngineEvent, Outcome};
use eval_dag::trace::Trace;
use serde_json::json;

use super::llm_openai::run_binary_with;

/// Whether `request` is of `role`, by what its prompt asks.
fn asks(request: &Recorded, role: LlmRole) -> bool {
    let prompt = request.prompt();
    match role {
        LlmRole::QuestionGeneration => prompt.contains("evaluation questions"),
        LlmRole::LayerReview => prompt.contains("review one layer"),
        _ => !prompt.contains("evaluation questions") && !prompt.contains("review one layer"),
    }
}

/// The repair note a request ends with, when it is a repair exchange.
fn note(request: &Recorded) -> Option<String> {
    Some(last_message(request)).filter(|text| text.starts_with("Your reply"))
}

/// `(role, repair)` of every finished call, in order.
fn calls(events: &[EngineEvent]) -> Vec<(LlmRole, u32)> {
    events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::LlmCallFinished { key, .. } => Some((key.role, key.repair)),
            _ => None,
        })
        .collect()
}

/// The rules of every finding of every verdict.
fn verdict_rules(events: &[EngineEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::CriticVerdict { feedback, .. } => Some(feedback.findings.iter().map(|f| f.rule.to_string())),
            _ => None,
        })
        .flatten()
        .collect()
}

/// `(outcome, iterations, reason)` of every finished attempt.
fn finished(events: &[EngineEvent]) -> Vec<(Outcome, u32, Option<String>)> {
    events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::QuestionFinished { outcome, iterations, reason, .. } => {
                Some((*outcome, *iterations, reason.clone()))
            }
            _ => None,
        })
        .collect()
}

/// The text of the last message of `request`.
fn last_message(request: &Recorded) -> String {
    let messages = request.body["messages"].as_array().cloned().unwrap_or_default();
    messages.last().and_then(|m| m["content"].as_str()).unwrap_or_default().to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn empty_prose_and_cut_off_builder_replies_are_repaired_within_the_iteration() {
    let mock = MockLlm::start(|request, _| {
        let whole = row_count_reply(request);
        if !asks(request, LlmRole::DagBuild) {
            return Reply::Text(whole);
        }
        match note(request) {
            None => Reply::Text(String::new()),
            Some(note) if note.starts_with("Your reply was empty.") => {
                Reply::Text("Sure! The DAG reads the row count from the overview.".into())
            }
            Some(note) if note.contains("Write a shorter reply") => Reply::Text(whole),
            Some(_) => Reply::Length(whole[..whole.len() / 2].to_string()),
        }
    })
    .await;
    let (code, stderr, events) = run_binary_with(&mock.base_url(), "", &["--repair", "3"]).await;
    assert_eq!(code, Some(0), "{stderr}");
    let build: Vec<u32> = calls(&events).into_iter().filter(|(r, _)| *r == LlmRole::DagBuild).map(|c| c.1).collect();
    assert_eq!(build, vec![0, 1, 2, 3], "three repairs of the one build call");
    assert_eq!(finished(&events), vec![(Outcome::Passed, 1, None)], "no critic iteration spent on a format error");
    assert!(verdict_rules(&events).is_empty(), "the critic only saw the DAG");
    let builds: Vec<Recorded> = mock.requests().into_iter().filter(|r| asks(r, LlmRole::DagBuild)).collect();
    let repairs: Vec<String> = builds.iter().skip(1).map(last_message).collect();
    assert!(repairs[0].starts_with("Your reply was empty.\n- the reply was empty"), "{}", repairs[0]);
    assert!(repairs[1].contains("the reply holds no JSON object (it starts: \"Sure!"), "{}", repairs[1]);
    assert!(repairs[2].contains("Write a shorter reply"), "a cut-off reply asks for a shorter DAG: {}", repairs[2]);
    assert!(repairs.iter().all(|r| r.contains("\"final_answer_node\"")), "each repair gives the DAG's schema");
    let roles: Vec<&str> =
        builds[2].body["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, vec!["system", "user", "assistant", "user"], "the bad reply is quoted back as the model's own");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reply_still_unreadable_after_its_repairs_is_the_iterations_finding() {
    let mock = MockLlm::start(|request, _| {
        if asks(request, LlmRole::DagBuild) {
            Reply::Text("I would group the rows and count them.".into())
        } else {
            Reply::Text(row_count_reply(request))
        }
    })
    .await;
    let flags = ["--repair", "1", "--max-iterations", "2"];
    let (code, stderr, events) = run_binary_with(&mock.base_url(), "", &flags).await;
    assert_eq!(code, Some(1), "{stderr}");
    let build: Vec<u32> = calls(&events).into_iter().filter(|(r, _)| *r == LlmRole::DagBuild).map(|c| c.1).collect();
    assert_eq!(build, vec![0, 1, 0, 1], "one repair per iteration");
    assert_eq!(verdict_rules(&events), vec!["unparseable_response", "unparseable_response"]);
    let (outcome, iterations, _) = finished(&events)[0].clone();
    assert_eq!((outcome, iterations), (Outcome::Exhausted, 2));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_review_in_prose_and_an_interrupted_stream_cost_no_iteration() {
    // The interrupted stream is retried with the same prompt: the mock tells the retry by the count.
    let seen = std::sync::Mutex::new(0usize);
    let mock = MockLlm::start(move |request, _| {
        let whole = row_count_reply(request);
        if asks(request, LlmRole::LayerReview) && note(request).is_none() {
            return Reply::Text("The layer looks correct to me.".into());
        }
        if asks(request, LlmRole::DagBuild) {
            let mut seen = seen.lock().unwrap();
            *seen += 1;
            if *seen == 1 {
                return Reply::Interrupted(whole[..20].to_string());
            }
        }
        Reply::Text(whole)
    })
    .await;
    let (code, stderr, events) = run_binary_with(&mock.base_url(), "[llm]\nretries = 1\n", &[]).await;
    assert_eq!(code, Some(0), "{stderr}");
    let review: Vec<u32> =
        calls(&events).into_iter().filter(|(r, _)| *r == LlmRole::LayerReview).map(|c| c.1).collect();
    assert_eq!(review, vec![0, 1], "the review in prose is repaired");
    let build: Vec<u32> = calls(&events).into_iter().filter(|(r, _)| *r == LlmRole::DagBuild).map(|c| c.1).collect();
    assert_eq!(build, vec![0], "an interrupted stream is retried within its call, not repaired");
    assert_eq!(finished(&events), vec![(Outcome::Passed, 1, None)]);
    assert!(verdict_rules(&events).is_empty());
    let repair = mock.requests().into_iter().find_map(|r| note(&r)).unwrap();
    assert!(repair.contains("holds no JSON object") && repair.contains("\"is_valid\""), "{repair}");
}

/// The question list of `texts`, each `(id, question)`; a `None` question is an object where a string belongs.
fn question_list(texts: &[(&str, Option<&str>)]) -> String {
    let list: Vec<_> = texts
        .iter()
        .map(|(id, text)| match text {
            Some(text) => json!({"id": id, "question": text, "difficulty_level": "easy"}),
            None => json!({"id": id, "question": {"text": "How many?"}}),
        })
        .collect();
    json!({ "questions": list }).to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_question_list_keeps_its_good_entries_and_asks_again_for_the_malformed_one() {
    let mock = MockLlm::start(|request, _| {
        if !asks(request, LlmRole::QuestionGeneration) {
            return Reply::Text(row_count_reply(request));
        }
        Reply::Text(match note(request) {
            None => {
                question_list(&[("q_01", Some("How many rows?")), ("q_02", None), ("q_03", Some("How many frauds?"))])
            }
            // A repeat of a kept question is left out: only the new one is added.
            Some(_) => question_list(&[("q_01", Some("How many rows?")), ("q_01", Some("How many merchants?"))]),
        })
    })
    .await;
    let (code, stderr, events) = run_binary_with(&mock.base_url(), "", &["--questions", "3"]).await;
    assert!(code.is_some(), "{stderr}");
    let generation: Vec<u32> =
        calls(&events).into_iter().filter(|(r, _)| *r == LlmRole::QuestionGeneration).map(|c| c.1).collect();
    assert_eq!(generation, vec![0, 1]);
    let questions = events
        .iter()
        .find_map(|e| match e {
            EngineEvent::QuestionsGenerated { questions } => Some(questions.clone()),
            _ => None,
        })
        .expect("the run has questions");
    let listed: Vec<(&str, &str)> = questions.iter().map(|q| (q.id.as_str(), q.question.as_str())).collect();
    assert_eq!(listed, vec![("q_01", "How many rows?"), ("q_03", "How many frauds?"), ("q_04", "How many merchants?")]);
    let note = mock.requests().into_iter().find_map(|r| note(&r)).unwrap();
    assert!(note.contains("- question 2 is malformed: "), "{note}");
    assert!(note.contains("- How many rows?\n- How many frauds?") && note.contains("Write 1 new question"), "{note}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_without_a_usable_question_fails_in_one_line_after_two_repairs() {
    let mock = MockLlm::start(|_, _| Reply::Text("Here are ten good questions about fraud.".into())).await;
    let (code, stderr, events) = run_binary_with(&mock.base_url(), "", &["--repair", "5"]).await;
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(calls(&events).iter().map(|c| c.1).collect::<Vec<_>>(), vec![0, 1, 2], "a question list: at most twice");
    let failure = events
        .iter()
        .find_map(|e| match e {
            EngineEvent::RunFailed { error } => Some(error.clone()),
            _ => None,
        })
        .expect("the run failed");
    assert!(
        failure.starts_with("question generation gave no usable question (the reply holds no JSON object"),
        "{failure}"
    );
    assert!(!failure.contains('\n'), "{failure}");
    assert!(stderr.contains(&failure), "{stderr}");
}

/// Run the binary in `home` with `args` against `base_url`; its exit code and stderr.
async fn run_in(home: &Path, base_url: &str, args: &[&str]) -> (Option<i32>, String) {
    let mut command = common::eval_dag(home);
    command
        .args(["run", "--headless", "--llm", "openai", "--base-url", base_url])
        .args(args)
        .env("OPENAI_API_KEY", "test-key");
    let output = tokio::process::Command::from(command).output().await.unwrap();
    (output.status.code(), String::from_utf8_lossy(&output.stderr).to_string())
}

#[tokio::test(flavor = "multi_thread")]
async fn resume_in_the_middle_of_repairs_asks_only_what_was_not_recorded() {
    let prose = "Let me think about which node to write first.";
    let mock = MockLlm::start(move |request, _| match (asks(request, LlmRole::DagBuild), note(request)) {
        (true, None) => Reply::Text(prose.into()),
        _ => Reply::Text(row_count_reply(request)),
    })
    .await;
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("run");
    let dataset = common::root().join("sample-data/fraud");
    // The budget lets the question list and the first build call through, not the build's repair.
    let asking = json!({"messages": [{"role": "user", "content": "evaluation questions"}]});
    let generation = mock_usage(&row_count_reply(&Recorded { body: asking, authorization: None }));
    let spent = generation.0 + generation.1 + mock_usage(prose).0 + mock_usage(prose).1;
    let limit = (spent - 1).to_string();
    let first = ["--max-tokens", &limit, "--no-cache", "--out", out.to_str().unwrap(), dataset.to_str().unwrap()];
    let base = mock.base_url();
    let (code, stderr) = run_in(home.path(), &base, &first).await;
    assert_eq!(code, Some(1), "{stderr}");
    let events: Vec<EngineEvent> =
        Trace::read(&out.join("trace.jsonl")).unwrap().records.into_iter().map(|r| r.event).collect();
    assert_eq!(calls(&events).last(), Some(&(LlmRole::DagBuild, 0)), "the repair was refused by the budget, unsent");
    assert_eq!(finished(&events)[0].0, Outcome::Budget);
    let asked_before = mock.requests().len();
    assert_eq!(asked_before, 2, "the question list and the first build call");

    let second = ["--resume", out.to_str().unwrap(), "--max-tokens", "1000000", "--no-cache"];
    let (code, stderr) = run_in(home.path(), &base, &second).await;
    assert_eq!(code, Some(0), "{stderr}");
    let asked: Vec<(bool, bool)> =
        mock.requests()[asked_before..].iter().map(|r| (asks(r, LlmRole::DagBuild), note(r).is_some())).collect();
    assert_eq!(asked, vec![(true, true), (false, false)], "only the build's repair and the review went to the server");
    let events: Vec<EngineEvent> =
        Trace::read(&out.join("trace.jsonl")).unwrap().records.into_iter().map(|r| r.event).collect();
    assert_eq!(finished(&events).last().map(|f| (f.0, f.1)), Some((Outcome::Passed, 1)));
}
