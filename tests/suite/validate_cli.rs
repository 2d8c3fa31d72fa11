//! `eval-dag validate` and `exec` on the sample data through the real binary:
//! exit codes 0/1/2 and the field-name check on a dataset it was not written for.

use crate::common;

use std::process::Command;

use serde_json::Value;

fn eval_dag(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_eval-dag")).current_dir(common::root()).args(args).output().unwrap()
}

#[test]
fn an_invented_penguin_field_is_caught_with_the_closest_name() {
    let out = eval_dag(&[
        "validate",
        "tests/fixtures/dags/penguins_invented_field.json",
        "--dataset",
        "sample-data/penguins",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["valid"], false);
    let findings = report["findings"].as_array().unwrap();
    assert!(
        !findings.is_empty() && findings.iter().all(|f| f["rule"] == "unknown_field" && f["node_id"] == "masses"),
        "{findings:?}"
    );
    assert!(findings[0]["message"].as_str().unwrap().contains("did you mean 'body_mass_g'?"));
}

#[test]
fn the_corrected_dag_validates_and_runs() {
    let out = eval_dag(&["validate", "tests/fixtures/dags/penguins_valid.json", "--dataset", "sample-data/penguins"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let out = eval_dag(&["exec", "tests/fixtures/dags/penguins_valid.json", "--dataset", "sample-data/penguins"]);
    assert_eq!(out.status.code(), Some(0));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["final_answer"], "Gentoo");
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    for args in [
        &["validate", "no/such/dag.json", "--dataset", "sample-data/penguins"][..],
        &["validate", "tests/fixtures/dags/penguins_valid.json", "--dataset", "no/such/dir"][..],
        &["validate", "Cargo.toml", "--dataset", "sample-data/penguins"][..],
    ] {
        let out = eval_dag(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{args:?}: {stderr}");
    }
}
