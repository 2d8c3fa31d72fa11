//! Sorting in the sandbox against CPython: seeded pseudo-random lists of
//! ints, floats (-0.0, infinities, NaN), big ints, bools, mixed numbers,
//! Unicode strings, tuples and dict rows, sorted with and without `key=` and
//! `reverse=`, in place and not, and the sorts inside `min`/`max`,
//! `statistics` and `Counter.most_common`: the same values in the same order
//! (equal values of different types told apart, stability seen through the
//! order of indices) and the same exceptions, type and message. The lists are
//! built by `tests/fixtures/sandbox/sort_cases.py` from integer arithmetic
//! alone, so both interpreters sort the same data.

use super::sandbox_differential::cpython_answers;
use crate::common;

use std::time::Duration;

use eval_dag::domain::Engine;
use eval_dag::domain::GeneratedDag;
use serde_json::{Value, json};

common::on_both_engines!(
    sorts_match_cpython,
    nan_bearing_lists_end_in_cpythons_order,
    named_tuples_of_the_allowed_modules_read_as_cpythons
);

/// (seed, size) of each run of every case: empty, tiny, around the 64 items
/// below which the sort is one insertion sort, and several merges' worth.
const RUNS: [(u64, usize); 10] =
    [(1, 0), (2, 1), (3, 2), (4, 7), (5, 40), (6, 63), (7, 64), (8, 65), (9, 300), (10, 1500)];

/// (seed, size) of the large run: fewer cases, sampled answers.
const LARGE: (u64, usize) = (11, 100_000);

/// A one-node DAG whose answer is `call` (`run(...)` or `run_large(...)`).
fn dag(name: &str, call: &str) -> Value {
    let code = common::seeded_cases("sort_cases.py");
    json!({
        "question_id": name,
        "final_answer_node": "sort",
        "nodes": [{"node_id": "sort", "function_name": "cases", "layer": 0, "inputs": {},
                   "code": format!("{code}\n\ndef cases():\n    return {call}\n")}],
    })
}

/// Where `ours` and `theirs` first differ, as a path and the two values there.
/// Each of `dags` run in `pool` against CPython's answer in `expected` (in
/// the same order): where the two differ, or where the sandbox failed.
pub(crate) async fn differences(
    pool: &eval_dag::sandbox::SandboxPool,
    dags: &[Value],
    expected: &[Value],
) -> Vec<String> {
    let mut mismatches = Vec::new();
    for (dag, reference) in dags.iter().zip(expected) {
        let dag: GeneratedDag = serde_json::from_value(dag.clone()).unwrap();
        let want =
            reference.get("answer").unwrap_or_else(|| panic!("{}: CPython failed: {reference}", dag.question_id));
        let result = pool.run(&dag, 0).await;
        match result.final_answer {
            Some(answer) if result.success => {
                mismatches.extend(first_difference(dag.question_id.to_string(), &answer, want));
            }
            _ => mismatches.push(format!("{}: sandbox failed: {:?}", dag.question_id, result.error)),
        }
    }
    mismatches
}

pub(crate) fn first_difference(path: String, ours: &Value, theirs: &Value) -> Option<String> {
    match (ours, theirs) {
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            a.iter().zip(b).enumerate().find_map(|(i, (x, y))| first_difference(format!("{path}[{i}]"), x, y))
        }
        (Value::Object(a), Value::Object(b)) if a.keys().eq(b.keys()) => {
            a.iter().find_map(|(key, x)| first_difference(format!("{path} {key:?}"), x, &b[key]))
        }
        _ if ours == theirs => None,
        _ => Some(format!("{path}: sandbox {} vs CPython {}", preview(ours), preview(theirs))),
    }
}

fn preview(value: &Value) -> String {
    let text = value.to_string();
    if text.len() > 300 {
        format!("{}… ({} bytes)", &text[..text.floor_char_boundary(300)], text.len())
    } else {
        text
    }
}

async fn sorts_match_cpython(engine: Engine) {
    let mut dags: Vec<Value> = RUNS
        .iter()
        .map(|(seed, size)| dag(&format!("seed {seed}, {size} items"), &format!("run({seed}, {size})")))
        .collect();
    let (seed, size) = LARGE;
    dags.push(dag(&format!("seed {seed}, {size} items"), &format!("run_large({seed}, {size})")));
    let text = Value::Array(dags.clone()).to_string();
    let Some(expected) = cpython_answers(&text) else { return };
    let pool = common::pool_on(engine, Duration::from_secs(60), Duration::from_secs(120));
    let mismatches = differences(&pool, &dags, &expected).await;
    assert!(mismatches.is_empty(), "{mismatches:#?}");
}

/// The cases raise what CPython raises, so the comparison above covers the
/// exceptions: this pins a few of CPython's messages as the fixture sees them.
#[test]
fn the_fixture_raises_cpython_messages() {
    let text = Value::Array(vec![dag("messages", "run(4, 40)")]).to_string();
    let Some(answers) = cpython_answers(&text) else { return };
    let answer = &answers[0]["answer"];
    for (case, message) in [
        ("str and int", r#"raised TypeError("'<' not supported between instances of 'str' and 'int'")"#),
        ("int and str", r#"raised TypeError("'<' not supported between instances of 'int' and 'str'")"#),
        ("None and int", r#"raised TypeError("'<' not supported between instances of 'NoneType' and 'int'")"#),
        ("key raises", "raised KeyError('x')"),
    ] {
        assert_eq!(answer[case], message, "{case}");
    }
}

/// Lists per DAG of the NaN test, and DAGs: thousands of lists in all.
const NAN_LISTS: usize = 300;
const NAN_DAGS: u64 = 12;

/// Lists holding NaN (fresh and shared objects) among ints, floats and -0.0,
/// through `sorted` (keys, `reverse`), `list.sort`, `min`, `max`,
/// `statistics.median`/`quantiles` and `Counter.most_common`: where `<` is
/// no total order the result depends on each comparison the sort makes, so
/// the sandbox must sort exactly as CPython 3.11 does.
async fn nan_bearing_lists_end_in_cpythons_order(engine: Engine) {
    let code = common::seeded_cases("nan_cases.py");
    let dags: Vec<Value> = (1..=NAN_DAGS)
        .map(|seed| {
            json!({
                "question_id": format!("nan seed {seed}"),
                "final_answer_node": "nan",
                "nodes": [{"node_id": "nan", "function_name": "cases", "layer": 0, "inputs": {},
                           "code": format!("{code}\n\ndef cases():\n    return nan_run({seed}, {NAN_LISTS})\n")}],
            })
        })
        .collect();
    let text = Value::Array(dags.clone()).to_string();
    let Some(expected) = cpython_answers(&text) else { return };
    let pool = common::pool_on(engine, Duration::from_secs(60), Duration::from_secs(120));
    let mismatches = differences(&pool, &dags, &expected).await;
    assert!(mismatches.is_empty(), "{} differences: {mismatches:#?}", mismatches.len());
}

/// The named tuples the allowed modules return read as CPython's do.
async fn named_tuples_of_the_allowed_modules_read_as_cpythons(engine: Engine) {
    let code = "def f():\n    day = datetime.date(2024, 12, 30)\n    \
                return [repr(day.isocalendar()), str(day.isocalendar()), repr(decimal.Decimal('-1.50').as_tuple()),\n            \
                repr(tuple(day.isocalendar())), day.isocalendar().week]\n";
    let dags = vec![json!({
        "question_id": "named tuples", "final_answer_node": "a",
        "nodes": [{"node_id": "a", "function_name": "f", "layer": 0, "inputs": {}, "code": code}],
    })];
    let Some(expected) = cpython_answers(&Value::Array(dags.clone()).to_string()) else { return };
    let pool = common::pool_on(engine, Duration::from_secs(10), Duration::from_secs(30));
    let mismatches = differences(&pool, &dags, &expected).await;
    assert!(mismatches.is_empty(), "{mismatches:#?}");
}
