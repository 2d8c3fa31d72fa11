//! A small finished run for the report's tests.

use serde_json::json;

use crate::domain::{AttemptAt, CriticFeedback, DifficultyLevel, ExecutionResult, GeneratedDag, Question};
use crate::domain::{CallKey, ChatMessage, LlmRole, TokenUsage};
use crate::run::{EngineEvent, Outcome, RunSettings, RunState, Stage};

fn question(id: &str, rank: usize) -> Question {
    Question::new(id, format!("question {id}"), rank, DifficultyLevel::from_rank(rank, 2))
}

/// A run of two questions: q_01 passed in one iteration, q_02 exhausted.
pub fn run_with_one_pass_and_one_exhausted() -> RunState {
    let dag: GeneratedDag = serde_json::from_value(json!({"question_id": "q_01", "description": "d",
        "final_answer_node": "a", "nodes": [{"node_id": "a", "operation": "o", "function_name": "f",
        "inputs": {}, "expected_output_type": "int", "layer": 0, "code": "def f():\n    return 1\n"}], "edges": []}))
    .unwrap();
    let key = CallKey::for_iteration(&AttemptAt::new("q_01", 1).iteration(1), LlmRole::DagBuild, None);
    let result = ExecutionResult { success: true, final_answer: Some(json!(1)), ..Default::default() };
    let events = vec![
        EngineEvent::RunStarted { settings: RunSettings::default() },
        EngineEvent::QuestionsGenerated { questions: vec![question("q_01", 1), question("q_02", 2)] },
        EngineEvent::QuestionStarted { at: AttemptAt::new("q_01", 1), forked_from: None, by_hand: false },
        EngineEvent::StageStarted { at: AttemptAt::new("q_01", 1).iteration(1), stage: Stage::Build },
        EngineEvent::LlmCallStarted {
            call_id: 1,
            key: key.clone(),
            provider: "openai".into(),
            model: "m".into(),
            messages: vec![ChatMessage::user("build")],
        },
        EngineEvent::LlmCallFinished {
            call_id: 1,
            key,
            response: Some("{}".into()),
            usage: TokenUsage { prompt_tokens: 10, completion_tokens: 5, cached_tokens: 0, ..Default::default() },
            latency_ms: 3,
            error: None,
            retries: 0,
            cost_usd: 0.001,
            finish_reason: None,
            from_cache: false,
            list_cost_usd: None,
            estimated: false,
            batch_id: None,
        },
        EngineEvent::DagBuilt { at: AttemptAt::new("q_01", 1).iteration(1), dag },
        EngineEvent::CriticVerdict {
            at: AttemptAt::new("q_01", 1).iteration(1),
            feedback: CriticFeedback { is_approved: true, ..Default::default() },
        },
        EngineEvent::Executed { at: AttemptAt::new("q_01", 1).iteration(1), trial: false, result },
        EngineEvent::QuestionFinished {
            at: AttemptAt::new("q_01", 1),
            outcome: Outcome::Passed,
            iterations: 1,
            final_answer: Some(json!(1)),
            reason: None,
        },
        EngineEvent::QuestionStarted { at: AttemptAt::new("q_02", 1), forked_from: None, by_hand: false },
        EngineEvent::QuestionFinished {
            at: AttemptAt::new("q_02", 1),
            outcome: Outcome::Exhausted,
            iterations: 3,
            final_answer: None,
            reason: Some("rejected in all 3 iterations".into()),
        },
    ];
    fold(&events)
}

/// Finding `rule` of `source` on node `node`, with `message`.
fn finding(source: &str, rule: &str, node: &str, message: &str) -> serde_json::Value {
    json!({"node_id": node, "rule": rule, "source": source, "message": message, "severity": "error"})
}

/// Iteration `n` of `id`: a one-node DAG whose node `rates` has `code`, a
/// build call of `tokens` tokens, and the verdict (approved when no findings).
fn iteration(id: &str, n: u32, code: &str, tokens: u64, findings: Vec<serde_json::Value>) -> Vec<EngineEvent> {
    let at = AttemptAt::new(id, 1).iteration(n);
    let key = CallKey {
        question_id: Some(id.into()),
        role: LlmRole::DagBuild,
        attempt: 1,
        iteration: n,
        layer: None,
        judge: None,
        epoch: 1,
        draft: 1,
        repair: 0,
        judge_repeat: 1,
        baseline: None,
    };
    let call_id = u64::from(n) + 100 * id.bytes().last().map_or(0, u64::from);
    let dag = serde_json::from_value(json!({"question_id": id, "final_answer_node": "rates", "nodes": [
        {"node_id": "rates", "function_name": "rates", "layer": 0, "code": code}]}))
    .unwrap();
    let feedback = serde_json::from_value(json!({"is_approved": findings.is_empty(), "findings": findings})).unwrap();
    vec![
        EngineEvent::LlmCallStarted {
            call_id,
            key: key.clone(),
            provider: "openai".into(),
            model: "m".into(),
            messages: vec![],
        },
        EngineEvent::LlmCallFinished {
            call_id,
            key,
            response: Some("{}".into()),
            usage: TokenUsage { prompt_tokens: tokens, completion_tokens: 0, cached_tokens: 0, ..Default::default() },
            latency_ms: 1,
            error: None,
            retries: 0,
            cost_usd: 0.0,
            finish_reason: None,
            from_cache: false,
            list_cost_usd: None,
            estimated: false,
            batch_id: None,
        },
        EngineEvent::DagBuilt { at: at.clone(), dag },
        EngineEvent::CriticVerdict { at, feedback },
    ]
}

/// The planted oscillation and its neighbours. q_a: a KeyError (iteration 1)
/// resolved in 2 (a semantic finding instead) and back in 3, where node
/// `rates` is back to its iteration-1 code; approved in 4. q_b: an unknown
/// field that persists until the attempt is exhausted. q_c: a TypeError,
/// then approved. Easy, medium and hard in that order; iteration n of each
/// question spends 10·n tokens.
pub fn run_with_oscillation() -> RunState {
    let key_error = "node rates: KeyError: 'amount'\nTraceback (most recent call last):\n  File \"rates\", line 2\nKeyError: 'amount'";
    let runtime = |message: &str| finding("trial_run", "runtime_error", "rates", message);
    let mut questions = vec![question("q_a", 1), question("q_b", 2), question("q_c", 3)];
    let levels = [DifficultyLevel::Easy, DifficultyLevel::Medium, DifficultyLevel::Hard];
    for (q, level) in questions.iter_mut().zip(levels) {
        q.difficulty_level = level;
    }
    let mut events = vec![
        EngineEvent::RunStarted { settings: RunSettings { max_iterations: 4, ..RunSettings::default() } },
        EngineEvent::QuestionsGenerated { questions },
    ];
    let finished = |id: &str, outcome, iterations| EngineEvent::QuestionFinished {
        at: AttemptAt::new(id, 1),
        outcome,
        iterations,
        final_answer: None,
        reason: None,
    };
    events.push(EngineEvent::QuestionStarted { at: AttemptAt::new("q_a", 1), forked_from: None, by_hand: false });
    events.extend(iteration("q_a", 1, "A", 10, vec![runtime(key_error)]));
    events.extend(iteration("q_a", 2, "B", 20, vec![finding("semantic", "layer_review", "rates", "wrong sum")]));
    events.extend(iteration("q_a", 3, "A", 30, vec![runtime(key_error)]));
    events.extend(iteration("q_a", 4, "C", 40, vec![]));
    events.push(finished("q_a", Outcome::Passed, 4));
    events.push(EngineEvent::QuestionStarted { at: AttemptAt::new("q_b", 1), forked_from: None, by_hand: false });
    for n in 1..=2 {
        let unknown = finding("structural", "unknown_field", "rates", "no field amount");
        events.extend(iteration("q_b", n, &format!("B{n}"), 10 * u64::from(n), vec![unknown]));
    }
    events.push(finished("q_b", Outcome::Exhausted, 2));
    events.push(EngineEvent::QuestionStarted { at: AttemptAt::new("q_c", 1), forked_from: None, by_hand: false });
    let type_error = "node rates: TypeError: unsupported operand type(s) for +: 'int' and 'str'";
    events.extend(iteration("q_c", 1, "C1", 10, vec![runtime(type_error)]));
    events.extend(iteration("q_c", 2, "C2", 20, vec![]));
    events.push(finished("q_c", Outcome::Passed, 2));
    fold(&events)
}

/// A finished run of `count` questions `q_0001`, `q_0002`, … of ranks 1, 2, …:
/// odd ones passed after one build call of 10·n tokens, even ones exhausted.
/// Question 8's text tries to close the page's script elements.
pub fn run_of(count: usize) -> RunState {
    fold(&run_events(count))
}

/// [`run_of`] killed once its first `finished` questions are over: the next
/// one has started (and never finishes), the others never started.
pub fn run_stopped_after(count: usize, finished: usize) -> RunState {
    let events = run_events(count);
    // Two events open the run, four make each question, the first of them its start.
    fold(&events[..2 + 4 * finished + 1])
}

fn fold(events: &[EngineEvent]) -> RunState {
    let mut state = RunState::default();
    for (t, event) in events.iter().enumerate() {
        state.apply(t as u64, event);
    }
    state
}

fn run_events(count: usize) -> Vec<EngineEvent> {
    let ids: Vec<String> = (1..=count).map(|n| format!("q_{n:04}")).collect();
    let mut questions: Vec<Question> = ids.iter().enumerate().map(|(i, id)| question(id, i + 1)).collect();
    if let Some(q) = questions.get_mut(7) {
        q.question = "</script><script>alert(1)</script><!-- x".into();
    }
    let mut events = vec![
        EngineEvent::RunStarted { settings: RunSettings::default() },
        EngineEvent::QuestionsGenerated { questions },
    ];
    for (i, id) in ids.iter().enumerate() {
        let n = i as u64 + 1;
        let at = AttemptAt::new(id, 1);
        let key = CallKey::for_iteration(&at.iteration(1), LlmRole::DagBuild, None);
        let passed = n % 2 == 1;
        events.extend([
            EngineEvent::QuestionStarted { at: at.clone(), forked_from: None, by_hand: false },
            EngineEvent::LlmCallStarted {
                call_id: n,
                key: key.clone(),
                provider: "openai".into(),
                model: "m".into(),
                messages: vec![],
            },
            EngineEvent::LlmCallFinished {
                call_id: n,
                key,
                response: Some("{}".into()),
                usage: TokenUsage { prompt_tokens: 10 * n, ..Default::default() },
                latency_ms: 1,
                error: None,
                retries: 0,
                cost_usd: 0.0,
                finish_reason: None,
                from_cache: false,
                list_cost_usd: None,
                estimated: false,
                batch_id: None,
            },
            EngineEvent::QuestionFinished {
                at,
                outcome: if passed { Outcome::Passed } else { Outcome::Exhausted },
                iterations: 1,
                final_answer: passed.then(|| json!(n)),
                reason: None,
            },
        ]);
    }
    events
}
