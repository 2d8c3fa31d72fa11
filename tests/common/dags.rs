//! DAGs as a scripted builder model writes them, for mock servers to answer with.

use serde_json::{Value, json};

/// One node of a DAG as JSON.
pub fn node(id: &str, layer: usize, inputs: Value, code: &str, out: &str) -> Value {
    json!({"node_id": id, "operation": id.replace('_', " "), "function_name": id, "inputs": inputs,
           "expected_output_type": out, "layer": layer, "code": code})
}

/// The sample data's two-layer DAG for "which category has the highest fraud
/// rate?", its first node's code given.
pub fn fraud_dag(rate_code: &str) -> Value {
    json!({"question_id": "q_01", "description": "fraud rate per category, then the highest",
        "nodes": [
            node("rates", 0, json!({"stats": "dataset.category_stats"}), rate_code, "dict"),
            node("highest", 1, json!({"rates": "prev_node.rates.output"}),
                 "def highest(rates):\n    return max(sorted(rates), key=lambda k: rates[k])\n", "str")],
        "edges": [{"source": "rates", "target": "highest"}], "final_answer_node": "highest"})
}
