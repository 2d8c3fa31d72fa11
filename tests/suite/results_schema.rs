//! `eval_results.json`'s types (`eval_dag::report::EvalResults`) and its JSON
//! Schema (`src/report/documents/eval_results.schema.json`) describe the same document:
//! a document with every optional part present follows the schema, reads
//! back unchanged, and writes exactly the properties the schema lists, object
//! by object. A field added to one and not the other fails here.

use std::collections::{BTreeMap, BTreeSet};

use eval_dag::report::EvalResults;
use serde_json::Value;

use crate::common;

mod document;
mod engines;
use document::full_document;

/// Objects keyed by names from the data (nodes, options), not by fields.
const MAPS: [&str; 13] = [
    "inputs",
    "match_options",
    "node_outputs",
    "node_timings_ms",
    "printed",
    "by_difficulty",
    "by_source",
    "by_rule",
    "roles",
    "pass_at_k",
    "dataset_breakdown",
    "by_level",
    "by_dataset",
];

/// Where `value` holds a null, an empty list or an empty object.
fn holes(value: &Value, at: &str, out: &mut Vec<String>) {
    match value {
        Value::Null => out.push(at.to_string()),
        Value::Array(items) if items.is_empty() => out.push(at.to_string()),
        Value::Object(fields) if fields.is_empty() => out.push(at.to_string()),
        Value::Array(items) => items.iter().for_each(|item| holes(item, &format!("{at}[]"), out)),
        Value::Object(fields) => fields.iter().for_each(|(key, item)| holes(item, &format!("{at}/{key}"), out)),
        _ => {}
    }
}

/// Per object location (list indices folded to `[]`): the properties the
/// schema lists there, and the ones the document writes.
#[derive(Default)]
struct Shapes {
    listed: BTreeMap<String, BTreeSet<String>>,
    written: BTreeMap<String, BTreeSet<String>>,
}

/// Walk `schema` and `instance` together from `at`, following `$ref`s.
fn walk(root: &Value, schema: &Value, instance: &Value, at: &str, shapes: &mut Shapes) {
    let schema = match schema["$ref"].as_str() {
        Some(reference) => root.pointer(reference.trim_start_matches('#')).expect("every $ref resolves"),
        None => schema,
    };
    if let (Some(listed), Some(written)) = (schema["properties"].as_object(), instance.as_object()) {
        shapes.listed.entry(at.to_string()).or_default().extend(listed.keys().cloned());
        shapes.written.entry(at.to_string()).or_default().extend(written.keys().cloned());
        for (key, value) in written {
            if let Some(property) = listed.get(key) {
                walk(root, property, value, &format!("{at}/{key}"), shapes);
            }
        }
    }
    if let Some(items) = instance.as_array() {
        items.iter().for_each(|item| walk(root, &schema["items"], item, &format!("{at}[]"), shapes));
    }
}

/// Locations of every object in `value`, maps keyed by data left out.
fn objects(value: &Value, at: &str, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(fields) => {
            out.insert(at.to_string());
            for (key, item) in fields.iter().filter(|(key, _)| !MAPS.contains(&key.as_str())) {
                objects(item, &format!("{at}/{key}"), out);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| objects(item, &format!("{at}[]"), out)),
        _ => {}
    }
}

fn schema() -> Value {
    let text = std::fs::read_to_string(common::root().join("src/report/documents/eval_results.schema.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn a_full_document_follows_the_schema_and_reads_back_unchanged() {
    let document = full_document();
    let value = serde_json::to_value(&document).unwrap();
    let mut missing = Vec::new();
    holes(&value, "", &mut missing);
    assert!(missing.is_empty(), "the test document leaves parts out, so the schema is not checked there: {missing:#?}");
    let errors = common::schema_errors(&value);
    assert!(errors.is_empty(), "{errors:#?}");
    let back: EvalResults = serde_json::from_value(value).unwrap();
    assert_eq!(back, document, "every part reads back into the same types (judge and loop calls apart)");
}

#[test]
fn the_schema_lists_exactly_the_properties_the_types_write() {
    let schema = schema();
    let value = serde_json::to_value(full_document()).unwrap();
    let mut shapes = Shapes::default();
    walk(&schema, &schema, &value, "", &mut shapes);
    let mut drift = Vec::new();
    for (at, listed) in &shapes.listed {
        let written = &shapes.written[at];
        drift.extend(
            listed.difference(written).map(|key| format!("the schema lists {at}/{key}; the types never write it")),
        );
        drift.extend(
            written.difference(listed).map(|key| format!("the types write {at}/{key}; the schema does not list it")),
        );
    }
    let mut all = BTreeSet::new();
    objects(&value, "", &mut all);
    drift.extend(
        all.iter()
            .filter(|at| !shapes.listed.contains_key(*at))
            .map(|at| format!("the schema lists no properties for the object at {at:?}")),
    );
    assert!(drift.is_empty(), "eval_results.schema.json and the report's types differ:\n{}", drift.join("\n"));
    assert!(shapes.listed.len() > 20, "the walk reached the nested objects: {:?}", shapes.listed.keys());
}

/// The type of a JSON value, as the reference's tooling expects it.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_u64() || n.is_i64() => "int",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[test]
fn the_reference_implementations_keys_are_written_with_their_types() {
    let trace = eval_dag::trace::Trace::read(&common::root().join("sample-data/traces/fraud-scripted.trace.jsonl"));
    let state = eval_dag::report::fold_trace(&trace.unwrap());
    let doc = serde_json::to_value(eval_dag::report::eval_results(&state, "2026-01-01T00:00:00Z")).unwrap();
    let expect = |value: &Value, key: &str, kinds: &[&str]| {
        let got = value.get(key).unwrap_or_else(|| panic!("{key} is written: {value}"));
        assert!(kinds.contains(&kind(got)), "{key} is {}, expected one of {kinds:?}", kind(got));
    };
    let summary = &doc["summary"];
    for key in ["successful_executions", "execution_failures", "critic_loop_exhausted", "total_questions"] {
        expect(summary, key, &["int"]);
    }
    expect(summary, "pass_rate", &["number", "int"]);
    assert_eq!(summary["successful_executions"], summary["passed"]);
    for row in doc["detailed_results"].as_array().unwrap() {
        expect(row, "question_text", &["string"]);
        assert_eq!(row["question_text"], row["question"]);
    }
    for trace in doc["question_traces"].as_array().unwrap() {
        expect(trace, "question_text", &["string"]);
        assert!(["easy", "medium", "hard"].contains(&trace["difficulty"].as_str().unwrap()), "{trace}");
        for key in ["difficulty_rank", "total_iterations"] {
            expect(trace, key, &["int"]);
        }
        expect(trace, "success", &["bool"]);
        expect(trace, "final_answer", &["string", "int", "number", "bool", "array", "object", "null"]);
        expect(trace, "execution_error", &["string", "null"]);
        expect(trace, "execution_time_ms", &["number", "null"]);
        expect(trace, "node_outputs", &["object", "null"]);
        for iteration in trace["iterations"].as_array().unwrap() {
            expect(iteration, "iteration", &["int"]);
            expect(iteration, "dag", &["object"]);
            let feedback = &iteration["critic_feedback"];
            expect(feedback, "is_approved", &["bool"]);
            expect(feedback, "overall_reasoning", &["string"]);
            for key in ["specific_errors", "suggestions", "layer_validations"] {
                expect(feedback, key, &["array"]);
            }
        }
        for entry in trace["conversation_log"].as_array().unwrap() {
            assert_eq!(entry.as_object().unwrap().len(), 2, "only role and content: {entry}");
            expect(entry, "content", &["string"]);
        }
    }
    // q_01: rejected by the structural check, then by the trial run, then approved and executed.
    let q01 = doc["question_traces"].as_array().unwrap().iter().find(|t| t["question_id"] == "q_01").unwrap();
    let roles: Vec<&str> =
        q01["conversation_log"].as_array().unwrap().iter().map(|e| e["role"].as_str().unwrap()).collect();
    let expected =
        ["dag_builder", "critic", "dag_builder", "executor", "critic", "dag_builder", "executor", "critic", "executor"];
    assert_eq!(roles, expected);
    let last = q01["conversation_log"].as_array().unwrap().last().unwrap()["content"].as_str().unwrap();
    assert_eq!(last, "final execution: grocery_pos");
    assert!(q01["llm_exchanges"].as_array().unwrap().len() >= 8, "every prompt and reply is still there");
}
