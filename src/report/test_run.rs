//! A small finished run for the report's tests.

use serde_json::json;

use crate::domain::{AttemptAt, CriticFeedback, DifficultyLevel, ExecutionResult, GeneratedDag, Question};
use crate::llm::{CallKey, ChatMessage, LlmRole, TokenUsage};
use crate::run::{EngineEvent, Outcome, RunSettings, RunState, Stage};

fn question(id: &str, rank: usize) -> Question {
    Question {
        id: id.into(),
        question: format!("question {id}"),
        difficulty_rank: rank,
        difficulty_level: DifficultyLevel::from_rank(rank, 2),
        reasoning: String::new(),
        relevant_data_keys: vec![],
        expected_answer: None,
        match_overrides: Default::default(),
    }
}

/// A run of two questions: q_01 passed in one iteration, q_02 exhausted.
pub fn run_with_one_pass_and_one_exhausted() -> RunState {
    let dag: GeneratedDag = serde_json::from_value(json!({"question_id": "q_01", "description": "d",
        "final_answer_node": "a", "nodes": [{"node_id": "a", "operation": "o", "function_name": "f",
        "inputs": {}, "expected_output_type": "int", "layer": 0, "code": "def f():\n    return 1\n"}], "edges": []}))
    .unwrap();
    let key =
        CallKey { question_id: Some("q_01".into()), role: LlmRole::DagBuild, attempt: 1, iteration: 1, layer: None };
    let result = ExecutionResult { success: true, final_answer: Some(json!(1)), ..Default::default() };
    let events = vec![
        EngineEvent::RunStarted { settings: RunSettings::default() },
        EngineEvent::QuestionsGenerated { questions: vec![question("q_01", 1), question("q_02", 2)] },
        EngineEvent::QuestionStarted { at: AttemptAt::new("q_01", 1), forked_from: None, by_hand: false },
        EngineEvent::StageStarted { at: AttemptAt::new("q_01", 1).iteration(1), stage: Stage::Build },
        EngineEvent::LlmCallStarted {
            call_id: 1,
            key: key.clone(),
            model: "m".into(),
            messages: vec![ChatMessage::user("build")],
        },
        EngineEvent::LlmCallFinished {
            call_id: 1,
            key,
            response: Some("{}".into()),
            usage: TokenUsage { prompt_tokens: 10, completion_tokens: 5 },
            latency_ms: 3,
            error: None,
            retries: 0,
            cost_usd: 0.001,
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
    let mut state = RunState::default();
    for (t, event) in events.iter().enumerate() {
        state.apply(t as u64, event);
    }
    state
}
