//! A synthetic trace of many questions for the benchmarks and the tests of
//! large traces: the same shape a real run records (builds with long prompts,
//! layer reviews, findings on rejected iterations, trial runs with node
//! outputs, an approved final execution), generated, not recorded.

// Each benchmark (and the test suite) that includes this file uses part of it.
#![allow(dead_code)]

use eval_dag::domain::AttemptAt;
use eval_dag::domain::{CallKey, ChatMessage, LlmRole, TokenUsage};
use eval_dag::domain::{
    CriticFeedback, DifficultyLevel, ExecutionResult, Finding, FindingSource, GeneratedDag, Question, Severity,
};
use eval_dag::run::{EngineEvent, Outcome, RunSettings, Stage};
use eval_dag::trace::{TraceHeader, TraceWriter};
use serde_json::json;

fn dag(id: &str) -> GeneratedDag {
    serde_json::from_value(json!({"question_id": id, "description": "plan", "final_answer_node": "b",
        "nodes": [
            {"node_id": "a", "operation": "group", "function_name": "f", "layer": 0, "inputs": {"rows": "dataset.transactions"},
             "code": format!("def f(rows):\n    # {id}: amounts per category\n    g = collections.defaultdict(list)\n    for r in rows:\n        g[r['category']].append(r['amt'])\n    return g\n")},
            {"node_id": "b", "operation": "pick", "function_name": "g", "layer": 1, "inputs": {"x": "prev_node.a.output"},
             "code": format!("def g(x):\n    # {id}: highest mean\n    return max(sorted(x), key=lambda k: statistics.fmean(x[k]))\n")}],
        "edges": [{"source": "a", "target": "b"}]}))
    .unwrap()
}

/// What each DAG run produced: a grouped mapping and the answer.
fn result() -> ExecutionResult {
    let groups: serde_json::Map<String, serde_json::Value> =
        ["grocery_pos", "shopping_net", "misc_net", "gas_transport", "home", "kids_pets"]
            .iter()
            .enumerate()
            .map(|(i, name)| (name.to_string(), json!([12.5 * i as f64, 80.25, 3.0 + i as f64])))
            .collect();
    ExecutionResult {
        success: true,
        final_answer: Some(json!("grocery_pos")),
        node_outputs: [("a".into(), json!(groups)), ("b".into(), json!("grocery_pos"))].into_iter().collect(),
        ..Default::default()
    }
}

/// Record one LLM call of `key` with messages and reply of these sizes.
fn call(
    emit: &mut impl FnMut(&mut TraceWriter, EngineEvent),
    w: &mut TraceWriter,
    call_id: &mut u64,
    key: CallKey,
    (system, user, reply): (usize, usize, usize),
) {
    *call_id += 1;
    let call_id = *call_id;
    // As in a recorded run, most of each message repeats the last call of its
    // kind (87 % of a user message, 93 % of a system message on the sample
    // data); the rest is the call's own.
    let text = |fill: &str, size: usize, shared: f64| {
        let head = (size as f64 * shared) as usize;
        let own: String = format!(" call {call_id}").chars().cycle().take(size - head).collect();
        fill.repeat(head) + &own
    };
    let mut messages = vec![ChatMessage::user(text("x", user, 0.87))];
    if system > 0 {
        messages.insert(0, ChatMessage::system(text("s", system, 0.93)));
    }
    emit(
        w,
        EngineEvent::LlmCallStarted {
            call_id,
            key: key.clone(),
            provider: "openai".into(),
            model: "m".into(),
            messages,
        },
    );
    let usage = TokenUsage {
        prompt_tokens: (system + user) as u64 / 4,
        completion_tokens: reply as u64 / 4,
        ..Default::default()
    };
    let finished = EngineEvent::LlmCallFinished {
        call_id,
        key,
        response: Some("y".repeat(reply)),
        usage,
        latency_ms: 900,
        error: None,
        retries: 0,
        cost_usd: 0.0,
        finish_reason: None,
        from_cache: false,
        list_cost_usd: None,
        estimated: false,
        batch_id: None,
    };
    emit(w, finished);
}

/// Sizes (characters) of the LLM calls of each iteration.
pub struct CallSizes {
    /// The build call's system and user messages and its reply.
    pub build: (usize, usize, usize),
    /// Each layer review's system and user messages and its reply; `None`:
    /// no review calls.
    pub review: Option<(usize, usize, usize)>,
}

/// A 3 kB build prompt with a 1.5 kB reply and no review calls (the
/// benchmarks' first traces, kept so their figures stay comparable).
pub const LIGHT: CallSizes = CallSizes { build: (0, 3000, 1500), review: None };

/// The mean sizes of an offline run on the sample data
/// (`sample-data/traces/fraud-offline.trace.jsonl`, trace version 4): a build
/// call of 944 + 8,513 characters with a 1,164-character reply, and one
/// review per layer of 341 + 8,085 characters with a 116-character reply.
pub const SAMPLE_RUN: CallSizes = CallSizes { build: (944, 8513, 1164), review: Some((341, 8085, 116)) };

/// Write a trace of `count` questions × `iterations` iterations to `path`
/// with [`LIGHT`] calls.
pub fn write_trace(path: &std::path::Path, count: usize, iterations: u32) {
    write_trace_with(path, count, iterations..=iterations, &LIGHT);
}

/// Write a trace of `count` questions to `path`, question `i` taking the
/// `i % n`-th count of `iterations` (`1..=2`: one, two, one, …). Every
/// iteration builds, is checked, trial-run and reviewed (each of the DAG's
/// two layers by a call when `sizes` has review calls); the last one is
/// approved and executed.
pub fn write_trace_with(
    path: &std::path::Path,
    count: usize,
    iterations: std::ops::RangeInclusive<u32>,
    sizes: &CallSizes,
) {
    let most = *iterations.end();
    let mut w = TraceWriter::create(path, &TraceHeader::new(RunSettings::default())).unwrap();
    let mut t = 0u64;
    let mut emit = |w: &mut TraceWriter, e: EngineEvent| {
        t += 1;
        w.record(t, &e).unwrap();
    };
    emit(&mut w, EngineEvent::RunStarted { settings: RunSettings { max_iterations: most, ..RunSettings::default() } });
    let questions: Vec<Question> = (0..count)
        .map(|i| {
            let text = format!("Which category has the highest mean amount, variant {i}?");
            Question::new(format!("q_{i:04}"), text, i + 1, DifficultyLevel::from_rank(i + 1, count))
        })
        .collect();
    emit(&mut w, EngineEvent::QuestionsGenerated { questions: questions.clone() });
    let mut call_id = 0u64;
    for (i, q) in questions.iter().enumerate() {
        let id = q.id.clone();
        let span = (iterations.end() - iterations.start() + 1) as usize;
        let iterations = iterations.start() + (i % span) as u32;
        emit(
            &mut w,
            EngineEvent::QuestionStarted { at: AttemptAt::new(id.clone(), 1), forked_from: None, by_hand: false },
        );
        for iteration in 1..=iterations {
            for stage in [Stage::Build, Stage::StructuralCheck, Stage::TrialRun, Stage::SemanticReview] {
                emit(
                    &mut w,
                    EngineEvent::StageStarted { at: AttemptAt::new(id.clone(), 1).iteration(iteration), stage },
                );
                emit(
                    &mut w,
                    EngineEvent::StageFinished {
                        at: AttemptAt::new(id.clone(), 1).iteration(iteration),
                        stage,
                        ok: true,
                        duration_ms: 5,
                    },
                );
            }
            let key =
                CallKey::for_iteration(&AttemptAt::new(id.clone(), 1).iteration(iteration), LlmRole::DagBuild, None);
            call(&mut emit, &mut w, &mut call_id, key.clone(), sizes.build);
            emit(
                &mut w,
                EngineEvent::DagBuilt { at: AttemptAt::new(id.clone(), 1).iteration(iteration), dag: dag(&id) },
            );
            let approved = iteration == iterations;
            let findings = if approved {
                vec![]
            } else {
                vec![Finding {
                    node_id: Some("a".into()),
                    layer: Some(0),
                    rule: "unknown_field".into(),
                    source: FindingSource::Structural,
                    message: "reads an unknown field".into(),
                    severity: Severity::Error,
                }]
            };
            if let Some(review) = sizes.review {
                for layer in 0..2 {
                    let key = CallKey { role: LlmRole::LayerReview, layer: Some(layer), ..key.clone() };
                    call(&mut emit, &mut w, &mut call_id, key, review);
                }
            }
            emit(
                &mut w,
                EngineEvent::Executed {
                    at: AttemptAt::new(id.clone(), 1).iteration(iteration),
                    trial: true,
                    result: result(),
                },
            );
            emit(
                &mut w,
                EngineEvent::CriticVerdict {
                    at: AttemptAt::new(id.clone(), 1).iteration(iteration),
                    feedback: CriticFeedback { is_approved: approved, findings, ..Default::default() },
                },
            );
        }
        emit(
            &mut w,
            EngineEvent::Executed {
                at: AttemptAt::new(id.clone(), 1).iteration(iterations),
                trial: false,
                result: result(),
            },
        );
        emit(
            &mut w,
            EngineEvent::QuestionFinished {
                at: AttemptAt::new(id, 1),
                outcome: Outcome::Passed,
                iterations,
                final_answer: Some(json!("grocery_pos")),
                reason: None,
            },
        );
    }
}
