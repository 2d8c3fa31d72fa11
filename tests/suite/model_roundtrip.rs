//! The base JSON formats (`src/lib.rs`, "Decisions the code relies on") load and serialise back unchanged;
//! unknown extra fields are tolerated on input.

use eval_dag::domain::{CriticFeedback, ExecutionResult, GeneratedDag, Question};
use serde_json::{Value, json};

fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(value: &Value) -> Value {
    serde_json::to_value(serde_json::from_value::<T>(value.clone()).unwrap()).unwrap()
}

#[test]
fn a_reference_dag_round_trips_exactly() {
    let dag = json!({"question_id": "q_01", "description": "mean amount",
        "nodes": [{"node_id": "step_1a", "operation": "load", "function_name": "f",
                   "inputs": {"rows": "dataset.transactions", "other": "prev_node.step_0.output"},
                   "expected_output_type": "float", "layer": 0, "code": "def f(rows, other):\n    return 1.0\n"}],
        "edges": [{"source": "step_0", "target": "step_1a"}], "final_answer_node": "step_1a"});
    assert_eq!(round_trip::<GeneratedDag>(&dag), dag);
    let mut extra = dag.clone();
    extra["confidence"] = json!(0.9);
    extra["nodes"][0]["notes"] = json!("ignored");
    assert_eq!(round_trip::<GeneratedDag>(&extra), dag, "unknown fields are tolerated and dropped");
}

#[test]
fn reference_feedback_round_trips_and_gains_an_empty_findings_list() {
    let feedback = json!({"is_approved": false, "overall_reasoning": "r",
        "layer_validations": [{"layer_index": 0, "nodes_in_layer": ["a"], "is_valid": false, "issues": ["x"]}],
        "specific_errors": ["e"], "suggestions": ["s"]});
    let mut expected = feedback.clone();
    expected["findings"] = json!([]);
    assert_eq!(round_trip::<CriticFeedback>(&feedback), expected);
    let with_findings = json!({"is_approved": true, "overall_reasoning": "", "layer_validations": [], "specific_errors": [],
        "suggestions": [], "findings": [{"node_id": "a", "layer": 0, "rule": "unknown_field", "source": "trial_run",
        "message": "m", "severity": "warning"}]});
    assert_eq!(round_trip::<CriticFeedback>(&with_findings), with_findings);
}

#[test]
fn reference_results_and_questions_round_trip() {
    let result = json!({"question_id": "q", "success": true, "final_answer": {"a": [1, 2.5]},
        "node_outputs": {"a": 1}, "error": null, "execution_time_ms": 12.5});
    assert_eq!(round_trip::<ExecutionResult>(&result), result);
    let question = json!({"id": "q_01", "question": "What?", "difficulty_rank": 4, "difficulty_level": "medium",
        "reasoning": "because", "relevant_data_keys": ["transactions"]});
    assert_eq!(round_trip::<Question>(&question), question);
    let aliased = json!({"question_id": "q_01", "text": "What?", "difficulty_rank": 4, "difficulty_level": "medium",
        "reasoning": "because", "relevant_data_keys": ["transactions"]});
    assert_eq!(round_trip::<Question>(&aliased), question);
    assert!(
        serde_json::from_value::<Question>(
            json!({"id": "q", "question": "x", "difficulty_rank": 1, "difficulty_level": "extreme"})
        )
        .is_err()
    );
}
