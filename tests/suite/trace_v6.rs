//! Trace version 6's contract: epochs, drafts, repair calls, calls served by
//! the response cache or counted locally, finish reasons, the `budget`
//! outcome, benchmark question fields and several datasets — written by the
//! trace writer, read back, folded and summed up in the results and the report.

use eval_dag::domain::{AttemptAt, FinishReason, Scorer};
use eval_dag::report::{eval_results, fold_trace, report_html};
use eval_dag::run::{EngineEvent, Outcome, QuestionStatus};
use eval_dag::trace::{TRACE_VERSION, Trace, TraceHeader, TraceWriter};
use eval_dag::tui::{App, Theme};
use serde_json::{Value, json};

use crate::common::tui::screen;

fn event(value: Value) -> EngineEvent {
    serde_json::from_value(value).unwrap()
}

fn settings() -> Value {
    json!({"dataset_dir": "bench", "dataset_hash": "h", "provider": "openai", "model": "m", "questions": 3,
        "max_iterations": 2, "concurrency": 2, "seed": 0, "step": false,
        "datasets": [{"name": "titanic", "dir": "bench/datasets/titanic", "hash": "aa"},
                     {"name": "weather", "dir": "bench/datasets/weather", "hash": "bb"}]})
}

/// A finished call of `key` with `prompt + completion` tokens.
fn finished(call_id: u64, key: Value, tokens: (u64, u64), extra: Value) -> [EngineEvent; 2] {
    let started = json!({"type": "llm_call_started", "call_id": call_id, "key": key, "provider": "openai",
        "model": "m", "messages": [{"role": "user", "content": "build"}]});
    let mut end = json!({"type": "llm_call_finished", "call_id": call_id, "key": key, "response": "{}",
        "usage": {"prompt_tokens": tokens.0, "completion_tokens": tokens.1}, "latency_ms": 5, "error": null,
        "retries": 0, "cost_usd": 0.0});
    end.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    [event(started), event(end)]
}

/// An attempt at `at` that ends with `outcome` and `answer` after one iteration.
fn attempt(at: Value, outcome: &str, answer: Value) -> Vec<EngineEvent> {
    let mut iteration = at.clone();
    iteration["iteration"] = json!(1);
    vec![
        event(json!({"type": "question_started", "at": at})),
        event(json!({"type": "stage_started", "at": iteration, "stage": "build"})),
        event(json!({"type": "question_finished", "at": at, "outcome": outcome, "iterations": 1,
            "final_answer": answer})),
    ]
}

/// The hand-built run: q_01 asked in two epochs (two drafts in epoch 1, a
/// repair call and a cached call), q_02 stopped by the budget, q_03 passed
/// with its token counts estimated.
fn hand_built_run() -> Vec<EngineEvent> {
    let questions = json!([
        {"id": "q_01", "question": "Mean fare?", "difficulty_rank": 1, "difficulty_level": "easy",
         "dataset": "titanic", "source_id": "17", "answer_format": "@mean_fare[value]", "scorer": "infiagent",
         "expected_answer": 32.2, "extra": {"concepts": ["Summary Statistics"]}},
        {"id": "q_02", "question": "Wettest month?", "difficulty_rank": 2, "difficulty_level": "medium",
         "dataset": "weather"},
        {"id": "q_03", "question": "Rows?", "difficulty_rank": 3, "difficulty_level": "hard", "dataset": "weather"},
    ]);
    let mut events = vec![
        event(json!({"type": "run_started", "settings": settings()})),
        event(json!({"type": "questions_generated", "questions": questions})),
    ];
    let build = |epoch: u32, draft: u32, repair: u32| {
        json!({"question_id": "q_01", "role": "dag_build", "attempt": 1, "iteration": 1, "layer": null,
            "epoch": epoch, "draft": draft, "repair": repair})
    };
    events.extend(attempt(json!({"question_id": "q_01", "attempt": 1}), "passed", json!(32.2)));
    events.extend(finished(1, build(1, 1, 0), (100, 10), json!({"finish_reason": "length"})));
    events.extend(finished(2, build(1, 1, 1), (120, 20), json!({"finish_reason": "stop"})));
    events.extend(attempt(json!({"question_id": "q_01", "draft": 2, "attempt": 1}), "passed", json!(31.0)));
    events.extend(finished(3, build(1, 2, 0), (100, 10), json!({"from_cache": true, "finish_reason": "stop"})));
    events.extend(attempt(json!({"question_id": "q_01", "epoch": 2, "attempt": 1}), "exhausted", Value::Null));
    events.extend(finished(4, build(2, 1, 0), (90, 9), json!({})));
    events.push(event(json!({"type": "question_finished", "at": {"question_id": "q_02", "attempt": 1},
        "outcome": "budget", "iterations": 0, "final_answer": null, "reason": "the run's budget of $0.10 was reached"})));
    events.extend(attempt(json!({"question_id": "q_03", "attempt": 1}), "passed", json!(891)));
    let key = json!({"question_id": "q_03", "role": "dag_build", "attempt": 1, "iteration": 1, "layer": null});
    events.extend(finished(5, key, (40, 4), json!({"estimated": true})));
    events
}

#[test]
fn a_hand_built_version_6_trace_is_written_read_back_and_folded_with_the_right_counts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.jsonl");
    let header = TraceHeader::new(serde_json::from_value(settings()).unwrap());
    let mut writer = TraceWriter::create(&path, &header).unwrap();
    let events = hand_built_run();
    for (t, e) in events.iter().enumerate() {
        writer.record(t as u64, e).unwrap();
    }
    drop(writer);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with(&format!("{{\"format\":\"eval-dag-trace\",\"version\":{TRACE_VERSION},")));
    assert!(text.contains(r#""at":{"question_id":"q_01","draft":2,"attempt":1}"#), "draft written when not 1");
    assert!(!text.contains(r#""epoch":1"#) && !text.contains(r#""draft":1"#), "the defaults are never written");
    assert!(text.contains(r#""repair":1"#) && !text.contains(r#""repair":0"#));
    assert!(text.contains(r#""from_cache":true"#) && !text.contains(r#""from_cache":false"#));
    let trace = Trace::read(&path).unwrap();
    assert_eq!(trace.header.settings.datasets.len(), 2);
    let read: Vec<&EngineEvent> = trace.records.iter().map(|r| &r.event).collect();
    assert_eq!(read, events.iter().collect::<Vec<_>>(), "every event reads back as it was");

    let state = fold_trace(&trace);
    let q1 = state.question("q_01").unwrap();
    assert_eq!(q1.question.scorer, Some(Scorer::Infiagent));
    assert_eq!(q1.question.extra["concepts"], json!(["Summary Statistics"]));
    let places: Vec<AttemptAt> = q1.attempts().iter().map(|a| a.at("q_01")).collect();
    let expected =
        [AttemptAt::new("q_01", 1), AttemptAt::new("q_01", 1).in_epoch(1, 2), AttemptAt::new("q_01", 1).in_epoch(2, 1)];
    assert_eq!(places, expected, "attempt 1 of three epoch/draft places, each its own record");
    assert_eq!(q1.attempt(1).unwrap().final_answer, Some(json!(32.2)), "attempt(n) is epoch 1, draft 1");
    assert_eq!(q1.attempt_at(&expected[1]).unwrap().final_answer, Some(json!(31.0)));
    let calls_of = |place: &AttemptAt| q1.attempt_at(place).unwrap().iterations[0].calls.clone();
    assert_eq!(
        (calls_of(&expected[0]), calls_of(&expected[1]), calls_of(&expected[2])),
        (vec![1, 2], vec![3], vec![4])
    );
    assert_eq!(state.calls[&2].key.repair, 1);
    assert_eq!(state.calls[&1].finish_reason, Some(FinishReason::Length));
    assert_eq!(q1.usage.total(), 110 + 140 + 110 + 99, "repair and cached calls count in the question's tokens");
    assert_eq!(
        q1.epochs().iter().map(|(e, a)| (*e, a.outcome)).collect::<Vec<_>>(),
        [(1, Some(Outcome::Passed)), (2, Some(Outcome::Exhausted))]
    );
    assert_eq!(state.question("q_02").unwrap().status, QuestionStatus::Done(Outcome::Budget));
    assert!(state.question("q_02").unwrap().status.is_unfinished(), "a budget stop is resumable");
    assert_eq!((state.calls_finished, state.cache_hits, state.tokens_estimated), (5, 1, true));
    assert_eq!(state.summary(0).budget, 1);

    let doc = serde_json::to_value(eval_results(&state, "2026-11-25T00:00:00Z")).unwrap();
    let summary = &doc["summary"];
    assert_eq!(summary["budget"], json!({"max_cost_usd": null, "spent_usd": 0.0, "stopped": 1}));
    assert_eq!(summary["cache"], json!({"hits": 1, "misses": 4}));
    assert_eq!(summary["tokens"]["estimated"], true);
    let rows = doc["detailed_results"].as_array().unwrap();
    let datasets: Vec<&str> = rows.iter().map(|r| r["dataset"].as_str().unwrap()).collect();
    assert_eq!(datasets, ["titanic", "weather", "weather"], "every row names its dataset");
    assert_eq!(rows[1]["status"], "budget");
    let epochs = rows[0]["epochs"].as_array().unwrap();
    assert_eq!(epochs.len(), 2);
    assert_eq!((epochs[0]["epoch"].as_u64(), epochs[0]["status"].as_str()), (Some(1), Some("passed")));
    assert_eq!(epochs[0]["tokens"]["total"], 110 + 140 + 110, "epoch 1's drafts and repairs");
    assert_eq!((epochs[1]["status"].as_str(), epochs[1]["tokens"]["total"].as_u64()), (Some("exhausted"), Some(99)));
    assert!(rows[2].get("epochs").is_none(), "a question asked once lists no epochs");
    assert_eq!(rows[2]["tokens"]["estimated"], true);
    let exchanges = doc["question_traces"][0]["llm_exchanges"].as_array().unwrap();
    let metas: Vec<&Value> = exchanges.iter().filter(|e| e["role"] == "assistant").map(|e| &e["meta"]).collect();
    assert_eq!(
        (metas[1]["repair"].as_u64(), metas[2]["draft"].as_u64(), metas[2]["from_cache"].as_bool()),
        (Some(1), Some(2), Some(true))
    );
    let attempts = doc["question_traces"][0]["attempts"].as_array().unwrap();
    assert_eq!(attempts[2]["epoch"], 2);

    let errors = crate::common::schema_errors(&doc);
    assert!(errors.is_empty(), "{errors:#?}");

    let html = report_html(&state, &chrono::DateTime::parse_from_rfc3339("2026-11-25T00:00:00Z").unwrap());
    assert!(html.contains("<b>1</b>stopped by budget (resumable)"), "the report counts the budget stop");
    assert!(html.contains("tokens (some estimated)"));

    let app = App::new(state, Theme::dark(), None, None);
    let frame = screen(&app, 140, 30);
    let header: Vec<&str> = frame.lines().take(3).collect();
    assert!(header[0].contains("~503 tokens") && header[0].contains("cache 1/5"), "{header:#?}");
    assert!(header[1].contains("1 stopped by budget"), "{header:#?}");
    assert!(frame.lines().any(|line| line.contains("q_02") && line.contains("budget")), "{frame}");
}
