//! A dry run over a table of 10,000 columns whose names share no pattern:
//! every prompt that carries the schema stays within 1.1× the default
//! schema budget (the fields a prompt is about in full, as many other names as
//! fit, the rest counted), and says which role's prompt is the largest.

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::common;

/// Default `--schema-budget`, tokens.
const BUDGET: f64 = 32_000.0;

/// A dataset of 5 rows × `columns` float columns with unrelated names, in `dir`.
fn unpatterned(dir: &Path, columns: usize) {
    let words = ["amber", "birch", "cedar", "dune", "ember", "fjord", "grove", "heath", "inlet", "juniper"];
    let name = |c: usize| {
        format!("{}_{}_{}", words[c % 10], words[(c / 10) % 10], words[(c / 100) % 10]) + &"x".repeat(c / 1000)
    };
    let rows: Vec<Value> = (0..5)
        .map(|r| Value::Object((0..columns).map(|c| (name(c), json!((r * c) as f64 / 7.0))).collect::<Map<_, _>>()))
        .collect();
    let described: Map<String, Value> = (0..columns)
        .map(|c| (name(c), json!({"type": "float", "description": "a reading", "range": [0.0, 100.0]})))
        .collect();
    let metadata =
        json!({"description": "readings", "columns": described, "dataset_keys": {"rows": "one row per reading"}});
    std::fs::write(dir.join("data.json"), json!({ "rows": rows }).to_string()).unwrap();
    std::fs::write(dir.join("metadata.json"), metadata.to_string()).unwrap();
}

#[test]
fn every_prompt_over_ten_thousand_unrelated_columns_stays_within_the_budget() {
    let home = tempfile::tempdir().unwrap();
    let dataset = home.path().join("wide");
    std::fs::create_dir(&dataset).unwrap();
    unpatterned(&dataset, 10_000);
    let output = common::eval_dag(home.path())
        .arg("run")
        .arg(&dataset)
        .args(["--dry-run", "--llm", "openai", "--model", "gpt-4o", "--questions", "5"])
        .env("OPENAI_API_KEY", "test-key")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    let line = stdout.lines().find(|l| l.starts_with("largest prompt (tokens): ")).expect("the largest prompts");
    let largest: Vec<(String, f64)> = line["largest prompt (tokens): ".len()..]
        .split(" · ")
        .map(|part| {
            let (role, tokens) = part.rsplit_once(' ').unwrap();
            (role.to_string(), tokens.replace(',', "").parse().unwrap())
        })
        .collect();
    let roles: Vec<&str> = largest.iter().map(|(role, _)| role.as_str()).collect();
    assert_eq!(roles, ["questions", "builder", "critic"], "{line}");
    for (role, tokens) in &largest {
        assert!(*tokens <= 1.1 * BUDGET, "{role}: {tokens} tokens, over 1.1× the budget: {line}");
        assert!(*tokens >= 0.9 * BUDGET, "{role}: {tokens} tokens: the shortened schema fills its room: {line}");
    }
    assert!(!stdout.contains("warning"), "fits gpt-4o's context: {stdout}");
}
