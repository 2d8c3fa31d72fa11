//! `exec --metamorphic`: approved-looking DAGs planted to be order dependent,
//! to double, to hold, to answer a category, to read a pre-aggregated key, to
//! compare with a threshold, and to time out or fail on a transformed copy —
//! each run on the real sample data in the real sandbox.

use std::path::Path;

use serde_json::{Value, json};

use crate::common;

/// A one-node DAG over the sample's `transactions` rows (or `input`).
fn dag(code: &str, input: &str) -> Value {
    json!({"question_id": "q", "description": "planted", "edges": [], "final_answer_node": "answer",
        "nodes": [{"node_id": "answer", "operation": "compute", "function_name": "answer",
            "inputs": {"rows": input}, "expected_output_type": "any", "layer": 0, "code": code}]})
}

/// `exec --metamorphic` of a DAG running `code`: exit code and the printed JSON.
fn checks(dir: &Path, code: &str, input: &str, extra: &[&str]) -> (Option<i32>, Value) {
    let path = dir.join("dag.json");
    std::fs::write(&path, dag(code, input).to_string()).unwrap();
    let out = common::eval_dag(dir)
        .arg("exec")
        .arg(&path)
        .arg("--dataset")
        .arg(common::root().join("sample-data/fraud"))
        .arg("--metamorphic")
        .args(extra)
        .output()
        .unwrap();
    let printed = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), printed)
}

/// (transform, relation, broken, informational) of every check.
fn summary(printed: &Value) -> Vec<(String, String, bool, bool)> {
    printed["metamorphic"]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let text = |k: &str| c[k].as_str().unwrap().to_string();
            (text("transform"), text("relation"), c["broken"].as_bool().unwrap(), c["informational"].as_bool().unwrap())
        })
        .collect()
}

fn row(transform: &str, relation: &str, broken: bool, informational: bool) -> (String, String, bool, bool) {
    (transform.into(), relation.into(), broken, informational)
}

const ROWS: &str = "dataset.transactions";

#[test]
fn reading_the_first_row_is_order_dependent_unless_the_question_is_about_order() {
    let dir = tempfile::tempdir().unwrap();
    let code = "def answer(rows):\n    return rows[0]['amt']\n";
    let (code_, printed) = checks(dir.path(), code, ROWS, &[]);
    assert_eq!(code_, Some(1), "an invariant broke: {printed}");
    assert_eq!(printed["metamorphic"]["order_dependent"], true);
    assert_eq!(
        summary(&printed),
        [
            row("shuffle", "other", true, false),
            row("duplicate", "holds", false, false),
            row("rename", "holds", false, false),
            row("scale", "scales", false, false),
        ]
    );
    let asked = ["--question", "What is the amount of the first transaction?"];
    let (code_, printed) = checks(dir.path(), code, ROWS, &asked);
    assert_eq!(code_, Some(0), "{printed}");
    assert_eq!(printed["metamorphic"]["order_dependent"], false);
    let shuffle = &printed["metamorphic"]["checks"][0];
    assert_eq!((shuffle["relation"].as_str(), shuffle["informational"].as_bool()), (Some("other"), Some(true)));
    assert_eq!(shuffle["note"], "the question is about order (\"first\")");
}

#[test]
fn a_sum_doubles_and_scales_a_mean_holds_and_a_count_keeps_its_number() {
    let dir = tempfile::tempdir().unwrap();
    let sum = "def answer(rows):\n    return round(sum(r['amt'] for r in rows), 6)\n";
    let (code_, printed) = checks(dir.path(), sum, ROWS, &[]);
    assert_eq!(code_, Some(0), "{printed}");
    let original = printed["execution"]["final_answer"].as_f64().unwrap();
    assert_eq!(
        summary(&printed),
        [
            row("shuffle", "holds", false, false),
            row("duplicate", "doubles", false, false),
            row("rename", "holds", false, false),
            row("scale", "scales", false, false),
        ]
    );
    let doubled = printed["metamorphic"]["checks"][1]["answer"].as_f64().unwrap();
    assert!((doubled - 2.0 * original).abs() < 1e-6, "{doubled} vs {original}");

    let mean = "def answer(rows):\n    return statistics.mean(r['amt'] for r in rows)\n";
    let (_, printed) = checks(dir.path(), mean, ROWS, &[]);
    let relations: Vec<String> = summary(&printed).into_iter().map(|r| r.1).collect();
    assert_eq!(relations, ["holds", "holds", "holds", "scales"], "{printed}");

    let count = "def answer(rows):\n    return sum(1 for r in rows if r['amt'] > 0)\n";
    let (_, printed) = checks(dir.path(), count, ROWS, &[]);
    let relations: Vec<String> = summary(&printed).into_iter().map(|r| r.1).collect();
    assert_eq!(relations, ["holds", "doubles", "holds", "holds"], "comparing with 0 holds at any scale: {printed}");
}

#[test]
fn a_threshold_or_a_named_category_makes_the_check_informational() {
    let dir = tempfile::tempdir().unwrap();
    let above = "def answer(rows):\n    return sum(1 for r in rows if r['amt'] > 100)\n";
    let (code_, printed) = checks(dir.path(), above, ROWS, &[]);
    assert_eq!(code_, Some(0), "scaling moved rows past the threshold, which only informs: {printed}");
    let scale = &printed["metamorphic"]["checks"][3];
    assert_eq!((scale["relation"].as_str(), scale["broken"].as_bool()), (Some("other"), Some(false)), "{printed}");
    assert_eq!(scale["note"], "the code compares with the number 100");

    let most_common =
        "def answer(rows):\n    return collections.Counter(r['category'] for r in rows).most_common(1)[0][0]\n";
    let (_, printed) = checks(dir.path(), most_common, ROWS, &[]);
    let rename = &printed["metamorphic"]["checks"][2];
    assert_eq!(rename["relation"], "follows_renaming", "{printed}");
    let original = printed["execution"]["final_answer"].as_str().unwrap();
    assert_eq!(rename["answer"].as_str().unwrap(), format!("renamed_{original}"));

    let named = "def answer(rows):\n    return sum(1 for r in rows if r['category'] == 'grocery_pos')\n";
    let (code_, printed) = checks(dir.path(), named, ROWS, &[]);
    assert_eq!(code_, Some(0), "{printed}");
    let rename = &printed["metamorphic"]["checks"][2];
    assert_eq!((rename["relation"].as_str(), rename["informational"].as_bool()), (Some("other"), Some(true)));
    assert_eq!(rename["note"], "the code names the category \"grocery_pos\"");
}

#[test]
fn a_pre_aggregated_key_informs_only_and_a_copy_that_times_out_or_fails_is_not_broken() {
    let dir = tempfile::tempdir().unwrap();
    let (code_, printed) =
        checks(dir.path(), "def answer(rows):\n    return rows['row_count']\n", "dataset.overview", &[]);
    assert_eq!(code_, Some(0), "{printed}");
    assert!(
        summary(&printed)
            .iter()
            .all(|(_, relation, broken, informational)| relation == "holds" && !broken && *informational),
        "{printed}"
    );
    assert_eq!(
        printed["metamorphic"]["checks"][0]["note"],
        "the DAG reads `overview`, which the copies leave as it is"
    );

    // The sample holds 2,000 rows: only the duplicated copy has more.
    let spins = "def answer(rows):\n    while len(rows) > 2000:\n        pass\n    return len(rows)\n";
    let (code_, printed) = checks(dir.path(), spins, ROWS, &["--node-timeout", "1"]);
    assert_eq!(code_, Some(0), "{printed}");
    let duplicate = &printed["metamorphic"]["checks"][1];
    assert_eq!(
        (duplicate["relation"].as_str(), duplicate["broken"].as_bool()),
        (Some("timed_out"), Some(false)),
        "{printed}"
    );
    assert!(duplicate["note"].as_str().unwrap().contains("timed out"), "{printed}");

    let raises = "def answer(rows):\n    if len(rows) > 2000:\n        raise ValueError('duplicated rows')\n    return len(rows)\n";
    let (code_, printed) = checks(dir.path(), raises, ROWS, &[]);
    assert_eq!(code_, Some(0), "{printed}");
    let duplicate = &printed["metamorphic"]["checks"][1];
    assert_eq!((duplicate["relation"].as_str(), duplicate["broken"].as_bool()), (Some("failed"), Some(false)));
    assert!(duplicate["note"].as_str().unwrap().contains("ValueError: duplicated rows"), "{printed}");
}

/// The transformed copies read the same clock as the DAG they check: an
/// answer that is the time now breaks no invariant.
#[test]
fn the_copies_read_the_same_clock_as_the_dag_they_check() {
    let dir = tempfile::tempdir().unwrap();
    let code = "def answer(rows):\n    return [len(rows) > 0, datetime.datetime.now().isoformat()]\n";
    let (exit, printed) = checks(dir.path(), code, ROWS, &[]);
    let broken: Vec<_> = summary(&printed).into_iter().filter(|(_, _, broken, _)| *broken).collect();
    assert!(broken.is_empty(), "{broken:?}: {printed}");
    assert_eq!(exit, Some(0), "{printed}");
}
