//! Trace version 7's contract: calls waiting in providers' batches and the
//! batches' ends, a shard's settings, a merged run's header and baseline
//! calls — written by the trace writer, read back, folded, summed up in the
//! results (against the schema) and the report, and drawn by the TUI.

use eval_dag::domain::{BatchId, BatchStatus, LlmRole, MergedShard, Shard};
use eval_dag::report::{eval_results, fold_trace, report_html};
use eval_dag::run::EngineEvent;
use eval_dag::trace::{TRACE_VERSION, Trace, TraceHeader, TraceWriter};
use eval_dag::tui::{App, Theme};
use serde_json::{Value, json};

use crate::common::press;
use crate::common::tui::screen;

fn event(value: Value) -> EngineEvent {
    serde_json::from_value(value).unwrap()
}

/// Shard 2 of 3 of a run with baselines, whose builder also answers them.
fn settings() -> Value {
    let played = json!({"provider": "openai", "model": "m"});
    json!({"dataset_dir": "bench", "dataset_hash": "h", "provider": "openai", "model": "m", "questions": 3,
        "max_iterations": 2, "concurrency": 2, "seed": 0, "step": false, "baselines": true,
        "roles": {"dag_build": played, "layer_review": played, "baseline": played},
        "shard": {"index": 2, "count": 3, "questions_hash": "ab12"}})
}

fn key(question: &str, role: &str, baseline: Option<&str>) -> Value {
    let mut key = json!({"question_id": question, "role": role, "attempt": 1, "iteration": 1, "layer": null});
    if let Some(baseline) = baseline {
        key["baseline"] = json!(baseline);
        key["iteration"] = json!(0);
    }
    key
}

fn started(call_id: u64, key: &Value) -> EngineEvent {
    event(json!({"type": "llm_call_started", "call_id": call_id, "key": key, "provider": "openai", "model": "m",
        "messages": [{"role": "user", "content": "answer"}]}))
}

/// The end of call `call_id`: `reply` read from `batch` (none: a live call), at `cost`.
fn finished(call_id: u64, key: &Value, reply: &str, batch: Option<&str>, cost: f64) -> EngineEvent {
    let mut end = json!({"type": "llm_call_finished", "call_id": call_id, "key": key, "response": reply,
        "usage": {"prompt_tokens": 100, "completion_tokens": 10}, "latency_ms": 5, "error": null, "retries": 0,
        "cost_usd": cost});
    if let Some(batch) = batch {
        end["batch_id"] = json!(batch);
    }
    event(end)
}

/// q_01 passes with 12 (expected 12), q_02 with 7 (expected 9), q_03 (expected 12) waits in a batch.
/// Batch A (completed) holds every build and q_01's `no_data` call; batch B expired holding q_03's build.
/// Baselines: q_01 no_data "12" (right), no_code 11; q_02 no_data 3, no_code 9 (right).
fn hand_built_run() -> Vec<EngineEvent> {
    let questions = json!([
        {"id": "q_01", "question": "How many?", "difficulty_rank": 1, "difficulty_level": "easy", "expected_answer": 12},
        {"id": "q_02", "question": "Which?", "difficulty_rank": 2, "difficulty_level": "medium", "expected_answer": 9},
        {"id": "q_03", "question": "Most?", "difficulty_rank": 3, "difficulty_level": "hard", "expected_answer": 12},
    ]);
    let (b1, b2) = (key("q_01", "dag_build", None), key("q_02", "dag_build", None));
    let no_data_1 = key("q_01", "baseline", Some("no_data"));
    let mut events = vec![
        event(json!({"type": "run_started", "settings": settings()})),
        event(json!({"type": "questions_generated", "questions": questions})),
        event(json!({"type": "question_started", "at": {"question_id": "q_01", "attempt": 1}})),
        event(json!({"type": "question_started", "at": {"question_id": "q_02", "attempt": 1}})),
        started(1, &b1),
        started(2, &b2),
        started(3, &no_data_1),
        event(json!({"type": "batch_submitted", "batch_id": "batch_A", "provider": "openai", "role": "dag_build",
            "calls": [b1, b2, no_data_1]})),
        finished(1, &b1, "{}", Some("batch_A"), 0.01),
        finished(2, &b2, "{}", Some("batch_A"), 0.01),
        finished(3, &no_data_1, "The answer is {\"answer\": 12}", Some("batch_A"), 0.005),
        event(
            json!({"type": "batch_ended", "batch_id": "batch_A", "status": "completed", "succeeded": 3, "failed": 0}),
        ),
    ];
    for (question, answer) in [("q_01", 12), ("q_02", 7)] {
        events.push(event(json!({"type": "question_finished", "at": {"question_id": question, "attempt": 1},
            "outcome": "passed", "iterations": 1, "final_answer": answer})));
    }
    let live = [
        (4, key("q_01", "baseline", Some("no_code")), "{\"answer\": 11}"),
        (5, key("q_02", "baseline", Some("no_data")), "{\"answer\": 3}"),
        (6, key("q_02", "baseline", Some("no_code")), "9"),
    ];
    for (id, key, reply) in &live {
        events.push(started(*id, key));
        events.push(finished(*id, key, reply, None, 0.02));
    }
    let b3 = key("q_03", "dag_build", None);
    events.push(event(json!({"type": "question_started", "at": {"question_id": "q_03", "attempt": 1}})));
    events.push(started(7, &b3));
    events.push(event(json!({"type": "batch_submitted", "batch_id": "batch_B", "provider": "openai",
        "role": "dag_build", "calls": [b3, key("q_09", "dag_build", None)]})));
    events
}

fn header() -> TraceHeader {
    let merged = [1, 2].map(|shard| MergedShard { path: format!("shards/{shard}"), sha256: "cd".into(), shard });
    TraceHeader { merged_from: merged.to_vec(), ..TraceHeader::new(serde_json::from_value(settings()).unwrap()) }
}

fn written(dir: &std::path::Path, events: &[EngineEvent]) -> Trace {
    let path = dir.join("trace.jsonl");
    let mut writer = TraceWriter::create(&path, &header()).unwrap();
    for (t, e) in events.iter().enumerate() {
        writer.record(1000 * t as u64, e).unwrap();
    }
    drop(writer);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with(&format!("{{\"format\":\"eval-dag-trace\",\"version\":{TRACE_VERSION},")));
    assert!(text.contains(r#""merged_from":[{"path":"shards/1","sha256":"cd","shard":1}"#), "{text}");
    assert!(text.contains(r#""baseline":"no_data""#) && text.contains(r#""batch_id":"batch_A""#));
    assert_eq!(text.matches(r#""batch_id":"batch_A""#).count(), 5, "its submission, three replies and its end");
    Trace::read(&path).unwrap()
}

#[test]
fn a_hand_built_version_7_trace_is_written_read_back_and_folded() {
    let dir = tempfile::tempdir().unwrap();
    let events = hand_built_run();
    let mut events_ended = events.clone();
    events_ended.push(event(json!({"type": "batch_ended", "batch_id": "batch_B", "status": "expired",
        "succeeded": 0, "failed": 0})));
    let trace = written(dir.path(), &events_ended);
    assert_eq!(trace.header, TraceHeader { created_at: trace.header.created_at.clone(), ..header() });
    let read: Vec<&EngineEvent> = trace.records.iter().map(|r| &r.event).collect();
    assert_eq!(read, events_ended.iter().collect::<Vec<_>>(), "every event reads back as it was");
    let settings = &trace.header.settings;
    assert_eq!(settings.shard, Some(Shard { index: 2, count: 3, questions_hash: "ab12".into() }));
    assert!(settings.baselines && settings.roles_played().any(|role| role == LlmRole::Baseline));

    // Before batch B's end, q_03's build waits in it; the key of no open call is left out.
    let state = fold_trace(&Trace { records: trace.records[..events.len()].to_vec(), ..trace.clone() });
    let batch_b = &state.batches[&BatchId::from("batch_B")];
    assert_eq!((batch_b.calls.clone(), batch_b.ended), (vec![7], None));
    assert_eq!(state.waiting_in_batch(7).map(|b| b.batch_id.0.as_str()), Some("batch_B"));
    assert!(state.waiting_in_batch(1).is_none(), "a call whose reply was read waits no more");
    assert_eq!(state.calls_waiting_in_batches(), 1);

    let state = fold_trace(&trace);
    assert_eq!(state.batches.len(), 2);
    let ended = |id: &str| state.batches[&BatchId::from(id)].ended.map(|end| (end.status, end.succeeded));
    assert_eq!(
        (ended("batch_A"), ended("batch_B")),
        (Some((BatchStatus::Completed, 3)), Some((BatchStatus::Expired, 0)))
    );
    assert_eq!(state.batches[&BatchId::from("batch_A")].calls, vec![1, 2, 3]);
    assert!(state.waiting_in_batch(7).is_none(), "an expired batch holds no call");
    let q1 = state.question("q_01").unwrap();
    assert_eq!(q1.baseline_calls, vec![3, 4]);
    let loop_calls: Vec<u64> = q1.attempts()[0].iterations.iter().flat_map(|i| i.calls.clone()).collect();
    assert_eq!(loop_calls, [1], "a baseline call is in no iteration of the loop");
    assert_eq!(q1.usage.total(), 110, "a question's own tokens are its loop's");
    assert_eq!(state.usage.total(), 6 * 110, "the run's tokens count every finished call");
}

#[test]
fn the_results_report_and_frames_show_batches_shards_and_baselines() {
    let dir = tempfile::tempdir().unwrap();
    let mut events = hand_built_run();
    events.push(event(json!({"type": "batch_ended", "batch_id": "batch_B", "status": "expired", "succeeded": 0,
        "failed": 0})));
    let state = fold_trace(&written(dir.path(), &events));
    let doc = serde_json::to_value(eval_results(&state, "2026-11-28T00:00:00Z")).unwrap();
    let summary = &doc["summary"];
    assert_eq!(
        summary["batches"],
        json!({"batches": 2, "batched_calls": 3, "live_calls": 3, "batched_cost_usd": 0.01 + 0.01 + 0.005,
            "live_cost_usd": 0.02 + 0.02 + 0.02})
    );
    assert_eq!(summary["settings"]["shard"], json!({"index": 2, "count": 3, "questions_hash": "ab12"}));
    assert_eq!(summary["settings"]["baselines"], true);
    let baselines = &summary["baselines"];
    assert_eq!(baselines["empty"], json!({"answered": 3, "accuracy": 0.0}));
    // constant: each question's most common other expected answer, ties to the first in list order
    // (q_01 → 9 before q_03's 12, q_02 → 12, q_03 → 12 from q_01): right on q_03 only.
    assert_eq!(baselines["constant"], json!({"answered": 3, "accuracy": 1.0 / 3.0}));
    assert_eq!(baselines["no_data"], json!({"answered": 3, "accuracy": 1.0 / 3.0}), "q_03 has no reply: wrong");
    // no_code right on q_02 only; the loop right on q_01 only (q_03 unanswered): one gained, one lost.
    let no_code = &baselines["no_code"];
    assert_eq!((&no_code["answered"], &no_code["accuracy"]), (&json!(3), &json!(1.0 / 3.0)));
    assert_eq!(no_code["lift"], json!({"gained": 1, "lost": 1, "tokens_per_extra_right": null}));

    let rows = doc["detailed_results"].as_array().unwrap();
    assert_eq!(rows[0]["baselines"]["no_data"], json!({"answer": 12, "correct": true, "score": 1.0}));
    assert_eq!(rows[0]["baselines"]["empty"], json!({"answer": "", "correct": false, "score": 0.0}));
    assert_eq!(rows[1]["baselines"]["no_code"], json!({"answer": "9", "correct": true, "score": 1.0}), "{rows:#?}");
    assert_eq!(rows[2]["baselines"]["no_data"], json!({"answer": null, "correct": false, "score": 0.0}));
    let flags: Vec<(&Value, &Value)> =
        rows.iter().map(|r| (&r["answerable_without_data"], &r["scorer_accepts_empty"])).collect();
    let (yes, no) = (&json!(true), &json!(false));
    assert_eq!(flags, [(yes, no), (no, no), (no, no)]);
    let exchanges = doc["question_traces"][0]["llm_exchanges"].as_array().unwrap();
    let metas: Vec<&Value> = exchanges.iter().filter(|e| e["role"] == "assistant").map(|e| &e["meta"]).collect();
    assert_eq!(metas.len(), 3, "q_01's build and its two baseline calls: {exchanges:#?}");
    assert_eq!((metas[0].get("baseline"), &metas[0]["batch_id"]), (None, &json!("batch_A")));
    assert_eq!((&metas[1]["baseline"], &metas[1]["batch_id"]), (&json!("no_data"), &json!("batch_A")));
    assert_eq!((&metas[2]["baseline"], metas[2].get("batch_id")), (&json!("no_code"), None));

    let errors = crate::common::schema_errors(&doc);
    assert!(errors.is_empty(), "{errors:#?}");

    let html = report_html(&state, &chrono::DateTime::parse_from_rfc3339("2026-11-28T00:00:00Z").unwrap());
    assert!(html.contains("<tr><td>no_data</td><td>33% (1&#x2f;3)</td></tr>"), "a baseline row in the summary");
    assert!(html.contains("<tr><td>constant</td><td>33% (1&#x2f;3)</td></tr>"));
    assert!(html.contains("3 calls batched in 2 batches · 3 live"), "the batches line");
    assert!(html.contains("<tr><td>shard</td><td>2&#x2f;3</td></tr>"));

    let app = App::new(state, Theme::dark(), None, None);
    let frame = screen(&app, 140, 30);
    let header: Vec<&str> = frame.lines().take(3).collect();
    assert!(header[0].contains("batches 2 · all ended"), "{header:#?}");
    assert!(header[1].contains("shard 2/3"), "{header:#?}");
}

#[test]
fn a_call_waiting_in_a_batch_says_so_on_the_question_screen() {
    let dir = tempfile::tempdir().unwrap();
    let state = fold_trace(&written(dir.path(), &hand_built_run()));
    let mut app = App::new(state, Theme::dark(), None, None);
    let frame = screen(&app, 140, 30);
    assert!(frame.lines().next().unwrap().contains("batch 2 · 0/1 done · "), "{frame}");
    press(&mut app, "jj\ntt");
    let frame = screen(&app, 140, 40);
    assert!(frame.contains("▸ build · m · waiting in batch batch_B"), "{frame}");
}

#[test]
fn a_batched_call_cancelled_with_its_attempt_still_waits_in_its_open_batch() {
    let mut events = hand_built_run();
    let b3 = key("q_03", "dag_build", None);
    events.push(event(json!({"type": "llm_call_finished", "call_id": 7, "key": b3, "response": null,
        "usage": {"prompt_tokens": 0, "completion_tokens": 0}, "latency_ms": 5, "error": "cancelled", "retries": 0,
        "cost_usd": 0.0})));
    let mut state = eval_dag::run::RunState::default();
    for (t, e) in events.iter().enumerate() {
        state.apply(t as u64, e);
    }
    assert_eq!(state.waiting_in_batch(7).map(|b| b.batch_id.0.as_str()), Some("batch_B"), "resume reads it");
    events.push(event(json!({"type": "batch_ended", "batch_id": "batch_B", "status": "cancelled", "succeeded": 0,
        "failed": 1})));
    state.apply(99, events.last().unwrap());
    assert!(state.waiting_in_batch(7).is_none());
    assert_eq!(state.calls_waiting_in_batches(), 0);

    // Its line failed in the batch, so it was asked again live: its reply is a live call's.
    events.push(event(json!({"type": "llm_call_finished", "call_id": 7, "key": b3, "response": "{}",
        "usage": {"prompt_tokens": 5, "completion_tokens": 1}, "latency_ms": 5, "error": null, "retries": 0,
        "cost_usd": 0.5})));
    state.apply(100, events.last().unwrap());
    assert_eq!(state.calls[&7].batch_id, None, "answered live, not from its batch");
    let doc = serde_json::to_value(eval_results(&state, "2026-11-28T00:00:00Z")).unwrap();
    assert_eq!(
        (&doc["summary"]["batches"]["live_calls"], &doc["summary"]["batches"]["live_cost_usd"]),
        (&json!(4), &json!(0.02 + 0.02 + 0.02 + 0.5))
    );
}
