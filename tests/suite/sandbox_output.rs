//! What is recorded of node results: an intermediate node's display copy
//! (made from the items shown only, when they are plain values) is exactly
//! the truncated JSON of the whole result, as the final node's path makes it.

use crate::common;

use std::time::Duration;

use eval_dag::domain::Engine;
use eval_dag::domain::GeneratedDag;
use eval_dag::sandbox::truncate_for_display;
use serde_json::json;

common::on_both_engines!(an_intermediate_result_is_shown_as_its_whole_json_truncated);

/// `expression` returned by node `a`, which is the final node or feeds one.
fn dag(expression: &str, intermediate: bool) -> GeneratedDag {
    let a = json!({"node_id": "a", "function_name": "f", "layer": 0,
                   "code": format!("def f():\n    return {expression}\n")});
    let b = json!({"node_id": "b", "function_name": "g", "layer": 1, "inputs": {"v": "prev_node.a.output"},
                   "code": "def g(v):\n    return 1\n"});
    let (nodes, last) = if intermediate { (json!([a, b]), "b") } else { (json!([a]), "a") };
    serde_json::from_value(json!({"question_id": "q", "final_answer_node": last, "nodes": nodes})).unwrap()
}

async fn an_intermediate_result_is_shown_as_its_whole_json_truncated(engine: Engine) {
    let pool = common::pool_on(engine, Duration::from_secs(10), Duration::from_secs(30));
    let cases = [
        "list(range(120))",
        "tuple(range(60))",
        "{str(i): i for i in range(80)}",
        "{1: 'a', '1': 'b', 2: 'c'}",
        "dict([(i, i) for i in range(50)] + [(str(i), -i) for i in range(40, 60)] + [(99, 'x'), ('99', 'y')])",
        "'x' * 2500",
        "[[i] * 60 for i in range(3)]",
        "[1.5, None, True, (1, 2), {'k': [1, 2]}]",
        "[1] * 60 + [decimal.Decimal('1.5')]",
        "[decimal.Decimal('1.5')] + [1] * 60",
        "{'when': datetime.date(2024, 1, 2), 'n': 3}",
        "{i: {str(j): j for j in range(55)} for i in range(3)}",
    ];
    for expression in cases {
        let whole = pool.run(&dag(expression, false), 0).await;
        assert!(whole.success, "{expression}: {:?}", whole.error);
        let expected = truncate_for_display(whole.final_answer.as_ref().unwrap());
        assert_eq!(whole.node_outputs["a"], expected, "{expression} as the final node");
        let shown = pool.run(&dag(expression, true), 0).await;
        assert!(shown.success, "{expression}: {:?}", shown.error);
        assert_eq!(shown.node_outputs["a"], expected, "{expression} as an intermediate node");
    }
}
