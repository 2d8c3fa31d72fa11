//! Each validator: a DAG that breaks it, and the valid DAG that passes all.

use serde_json::{Value, json};

use super::check_dag;
use crate::dataset::{Metadata, SchemaCatalogue};
use crate::domain::GeneratedDag;

fn catalogue() -> SchemaCatalogue {
    let data = json!({
        "transactions": [{"amt": 1.0, "category": "a", "is_fraud": 0}],
        "category_stats": {"grocery": {"count": 3}}
    });
    SchemaCatalogue::build(data.as_object().unwrap(), &Metadata::default())
}

fn valid() -> Value {
    json!({
        "question_id": "q", "description": "d", "final_answer_node": "c",
        "nodes": [
            {"node_id": "a", "function_name": "f", "layer": 0, "inputs": {"rows": "dataset.transactions"},
             "code": "def f(rows):\n    return [r['amt'] for r in rows]\n"},
            {"node_id": "b", "function_name": "g", "layer": 0, "inputs": {"stats": "dataset.category_stats"},
             "code": "def g(stats):\n    return {k: v['count'] for k, v in stats.items()}\n"},
            {"node_id": "c", "function_name": "h", "layer": 1,
             "inputs": {"amts": "prev_node.a.output", "counts": "prev_node.b.output"},
             "code": "def h(amts, counts):\n    return sum(amts) / max(sum(counts.values()), 1)\n"}
        ],
        "edges": [{"source": "a", "target": "c"}, {"source": "b", "target": "c"}]
    })
}

fn rules(dag: Value) -> Vec<String> {
    let dag: GeneratedDag = serde_json::from_value(dag).unwrap();
    check_dag(&dag, &catalogue()).into_iter().map(|f| f.rule.to_string()).collect()
}

fn with(mutate: impl FnOnce(&mut Value)) -> Vec<String> {
    let mut dag = valid();
    mutate(&mut dag);
    rules(dag)
}

#[test]
fn the_valid_dag_has_no_findings() {
    assert_eq!(rules(valid()), Vec::<String>::new());
}

#[test]
fn each_rule_catches_its_defect() {
    type Mutation = Box<dyn FnOnce(&mut Value)>;
    let cases: Vec<(&str, Mutation)> = vec![
        ("duplicate_node_id", Box::new(|d| d["nodes"][1]["node_id"] = json!("a"))),
        ("unknown_edge_node", Box::new(|d| d["edges"][0]["source"] = json!("zz"))),
        ("edge_layer_order", Box::new(|d| d["nodes"][2]["layer"] = json!(0))),
        (
            "cycle",
            Box::new(|d| {
                d["nodes"][0]["inputs"]["back"] = json!("prev_node.c.output");
                d["nodes"][0]["code"] = json!("def f(rows, back):\n    return 1\n");
                d["edges"].as_array_mut().unwrap().push(json!({"source": "c", "target": "a"}));
            }),
        ),
        ("missing_final_node", Box::new(|d| d["final_answer_node"] = json!("nope"))),
        ("final_not_in_last_layer", Box::new(|d| d["final_answer_node"] = json!("a"))),
        (
            "dead_node",
            Box::new(|d| {
                d["nodes"].as_array_mut().unwrap().push(
                    json!({"node_id": "x", "function_name": "k", "layer": 0, "code": "def k():\n    return 1\n"}),
                );
            }),
        ),
        ("bad_input_ref", Box::new(|d| d["nodes"][0]["inputs"]["rows"] = json!("transactions"))),
        ("unknown_dataset_key", Box::new(|d| d["nodes"][0]["inputs"]["rows"] = json!("dataset.transaction"))),
        ("unknown_node_ref", Box::new(|d| d["nodes"][2]["inputs"]["amts"] = json!("prev_node.zz.output"))),
        (
            "missing_edge",
            Box::new(|d| {
                d["edges"].as_array_mut().unwrap().remove(0);
            }),
        ),
        ("phantom_edge", Box::new(|d| d["edges"].as_array_mut().unwrap().push(json!({"source": "a", "target": "b"})))),
        ("syntax_error", Box::new(|d| d["nodes"][0]["code"] = json!("def f(rows:\n"))),
        ("function_not_defined", Box::new(|d| d["nodes"][0]["function_name"] = json!("nope"))),
        ("signature_mismatch", Box::new(|d| d["nodes"][2]["code"] = json!("def h(counts, amts):\n    return 1\n"))),
        ("import", Box::new(|d| d["nodes"][0]["code"] = json!("def f(rows):\n    import os\n    return 1\n"))),
        ("private_attribute", Box::new(|d| d["nodes"][0]["code"] = json!("def f(rows):\n    return rows.__class__\n"))),
        (
            "unknown_field",
            Box::new(|d| {
                d["nodes"][1]["code"] =
                    json!("def g(stats):\n    return {k: v['transaction_count'] for k, v in stats.items()}\n")
            }),
        ),
    ];
    for (rule, mutate) in cases {
        let found = with(mutate);
        assert!(found.iter().any(|r| r == rule), "{rule} not found, got {found:?}");
    }
}

#[test]
fn unknown_fields_suggest_the_closest_name() {
    let mut dag = valid();
    dag["nodes"][1]["code"] =
        json!("def g(stats):\n    return {k: v['transaction_count'] for k, v in stats.items()}\n");
    let dag: GeneratedDag = serde_json::from_value(dag).unwrap();
    let findings = check_dag(&dag, &catalogue());
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].node_id.as_deref(), Some("b"));
    assert!(findings[0].message.contains("did you mean 'count'?"), "{}", findings[0].message);
}

#[test]
fn deeply_nested_or_huge_code_is_refused_without_crashing() {
    let mut dag = valid();
    let deep = format!("def f(rows):\n    return {}1{}\n", "(".repeat(20_000), ")".repeat(20_000));
    dag["nodes"][0]["code"] = json!(deep);
    // On the default stack the parser overflows and aborts the process here.
    let found = rules(dag);
    assert!(found.iter().all(|r| r == "code_too_complex"), "{found:?}");
    let mut dag = valid();
    dag["nodes"][0]["code"] = json!(format!("def f(rows):\n    return 1\n{}", "# pad\n".repeat(20_000)));
    assert!(rules(dag).contains(&"code_too_long".to_string()));
}
