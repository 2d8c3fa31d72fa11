//! `compare` of three runs through the real binary: the sample trace (the
//! baseline), an edited copy of it where q_02 fails (a regression), and an
//! offline run of other questions — as a table, as JSON and as an HTML page;
//! and the matrix screen in a real terminal.

use crate::common;
use crate::suite::replay_cli::{edited_trace, sample_trace};

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

/// The three runs, written under `dir`.
fn three_runs(dir: &Path) -> [PathBuf; 3] {
    let failed = edited_trace(
        dir,
        "\"type\":\"question_finished\",\"at\":{\"question_id\":\"q_02\"",
        "\"outcome\":\"passed\"",
        "\"outcome\":\"failed\"",
    );
    let out = dir.join("offline");
    let run = common::eval_dag(dir)
        .arg("run")
        .arg(common::root().join("sample-data/fraud"))
        .args(["--headless", "--questions", "3", "--seed", "7", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    [sample_trace(), failed, out.join("eval_results.json")]
}

fn compare(dir: &Path, flags: &[&str], runs: &[PathBuf]) -> Output {
    common::eval_dag(dir).arg("compare").args(flags).args(runs).output().unwrap()
}

#[test]
fn three_runs_as_a_table_json_and_a_page() {
    let dir = tempfile::tempdir().unwrap();
    let runs = three_runs(dir.path());

    let out = compare(dir.path(), &["--headless"], &runs);
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "q_02 was graded wrong in A too: accuracy did not drop: {table}");
    assert!(
        table.contains("B vs A: accuracy 0.500 → 0.500 (+0.000, 95% CI +0.000…+0.000) over 2 paired questions, p = 1.0000 (exact McNemar, 0 right only in the baseline, 0 only here): not significant at 0.05"),
        "{table}"
    );
    assert!(!table.contains("C vs A"), "C shares no question with A: {table}");
    assert!(table.contains("run C: 3 questions not in the baseline, 2 baseline questions missing"), "{table}");
    let lines: Vec<&str> = table.lines().collect();
    let header = lines.iter().position(|l| l.starts_with("question")).unwrap();
    assert!(lines[header + 1].starts_with("q_02") && lines[header + 1].contains("REGRESSION B"), "{table}");
    assert!(lines[1].starts_with('A') && lines[1].contains("baseline") && lines[2].contains("1 regression"), "{table}");
    let offline_q_01 = lines.iter().filter(|l| l.starts_with("q_01")).nth(1).unwrap();
    assert!(
        offline_q_01.contains("missing") && offline_q_01.contains("In the `transactions` sample"),
        "the text tells it apart: {table}"
    );
    assert!(lines.last().unwrap().starts_with("5 questions: 1 regression, 0 disagree, 4 missing, 0 same"), "{table}");

    let out = compare(dir.path(), &["--json", "--significance", "1"], &runs);
    assert_eq!(out.status.code(), Some(0), "even at level 1: the same accuracy is no drop");
    assert!(String::from_utf8_lossy(&out.stderr).contains("B vs A: accuracy"), "the verdict beside the JSON");
    let matrix: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        matrix["runs"][1]["significance"]["test"],
        serde_json::json!({"name": "mcnemar", "baseline_only": 0, "candidate_only": 0})
    );
    assert_eq!(
        (
            matrix["runs"][1]["significance"]["level"].as_f64(),
            matrix["runs"][1]["significance"]["significant"].as_bool()
        ),
        (Some(1.0), Some(false))
    );
    assert!(matrix["runs"][0]["significance"].is_null() && matrix["runs"][2]["significance"].is_null());
    assert_eq!(matrix["runs"].as_array().unwrap().len(), 3);
    assert_eq!(matrix["runs"][2]["not_in_baseline"], 3);
    assert_eq!(matrix["runs"][2]["baseline_missing"], 2);
    assert_eq!(matrix["runs"][0]["pass_rate"], 1.0);
    let questions = matrix["questions"].as_array().unwrap();
    assert_eq!(questions.len(), 5, "2 of the sample and 3 of the offline run");
    assert!(questions.iter().all(|q| q["runs"].as_array().unwrap().len() == 3), "one entry per run");
    let q_02 = &questions[0];
    assert_eq!((q_02["question_id"].as_str(), q_02["agreement"].as_str()), (Some("q_02"), Some("regression")));
    assert_eq!(q_02["runs"][1]["change"], "regression");
    assert_eq!((q_02["runs"][0]["status"].as_str(), q_02["runs"][2].is_null()), (Some("passed"), true));
    assert_eq!(q_02["runs"][0]["correct"], false, "the sample graded q_02 wrong");

    let page = dir.path().join("pages/compare.html");
    let out = compare(dir.path(), &["--html", page.to_str().unwrap()], &runs);
    assert_eq!(out.status.code(), Some(0), "the page changes nothing about the verdict");
    assert!(String::from_utf8_lossy(&out.stdout).contains("REGRESSION B"), "the table is printed too");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("<script") && !html.contains("http://") && !html.contains("https://"));
    assert!(!html.contains("<link") && !html.contains("src="), "no external assets");
    assert!(html.contains("run C: 3 questions not in the baseline, 2 baseline questions missing"));
    assert_eq!(html.matches("<tr><td><code>").count(), 5, "a row per question");
    assert!(html.contains("class=\"cell failed regression\""), "B's q_02 is marked");
    assert!(html.contains("✗ wrong") && html.contains("not in this run"));
}

#[test]
fn two_runs_keep_their_json_rows_and_can_write_the_page_too() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("two.html");
    let out = compare(dir.path(), &["--json", "--html", page.to_str().unwrap()], &[sample_trace(), sample_trace()]);
    assert_eq!(out.status.code(), Some(0));
    let compared: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(compared["rows"][0]["change"], "unchanged", "the two-run rows under `rows`");
    assert_eq!(compared["frontier"]["points"].as_array().unwrap().len(), 2, "and the frontier beside them");
    assert!(std::fs::read_to_string(&page).unwrap().contains("eval-dag compare · 2 runs"));
    let out = compare(dir.path(), &["--headless"], &[sample_trace()]);
    assert_eq!(out.status.code(), Some(2), "one run is not a comparison");
    let out = compare(dir.path(), &["--headless"], &[sample_trace(), sample_trace(), dir.path().join("nowhere.json")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!((out.status.code(), stderr.trim().lines().count()), (Some(2), 1), "{stderr}");
    assert!(stderr.contains("nowhere.json"), "{stderr}");
}

#[test]
fn on_a_terminal_three_runs_open_the_matrix_and_a_pair_from_it() {
    let Some(session) = common::tmux::session("matrix") else { return };
    let trace = "sample-data/traces/fraud-scripted.trace.jsonl";
    common::tmux::run(&session, &format!("compare {trace} {trace} {trace}"));
    let screen = common::tmux::wait_for_all(&session, &["2 questions × 3 runs", "3 runs · baseline A", "▸ B (vs A)"]);
    assert!(screen.contains("3 runs · baseline A") && screen.contains("▸ B (vs A)"), "{screen}");
    for key in ["Right", "Enter"] {
        common::tmux::tmux(&["send-keys", "-t", &session, key]);
    }
    let screen =
        common::tmux::wait_for_all(&session, &["final DAG: changes from A to C", "the final DAGs are the same"]);
    assert!(screen.contains("the final DAGs are the same"), "{screen}");
    common::tmux::tmux(&["send-keys", "-t", &session, "Escape"]);
    // `q` once the matrix is back: an Escape and a key in one read are Alt and that key.
    let screen = common::tmux::wait_until(&session, |screen| !screen.contains("final DAG: changes from A to C"));
    assert!(screen.contains("2 questions × 3 runs"), "Escape went back to the matrix: {screen}");
    common::tmux::tmux(&["send-keys", "-t", &session, "q"]);
    let screen = common::tmux::wait_for(&session, "EXITED-0");
    assert!(!screen.contains("2 questions × 3 runs"), "left cleanly: {screen}");
}

#[test]
fn run_directories_compare_in_any_mix_with_traces_and_results_files() {
    let dir = tempfile::tempdir().unwrap();
    let [baseline_trace, failed_trace, offline_results] = three_runs(dir.path());
    let offline = offline_results.parent().unwrap().to_path_buf();
    let [baseline, failed] = ["baseline", "failed"].map(|name| dir.path().join(name));
    for (run, trace) in [(&baseline, &baseline_trace), (&failed, &failed_trace)] {
        std::fs::create_dir(run).unwrap();
        std::fs::copy(trace, run.join("trace.jsonl")).unwrap();
    }

    let out = compare(dir.path(), &["--json"], &[baseline.clone(), failed.clone()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let compared: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = &compared["rows"];
    assert_eq!((rows[0]["a"]["question_id"].as_str(), rows[0]["change"].as_str()), (Some("q_02"), Some("regression")));

    // q_01 graded wrong: accuracy drops from 1/2 to 0/2, on one question — worse only at level 1.
    let wrong = dir.path().join("wrong");
    std::fs::create_dir(&wrong).unwrap();
    let wrong_trace = edited_trace(
        &wrong,
        "\"type\":\"graded\",\"at\":{\"question_id\":\"q_01\"",
        "\"passed\":true",
        "\"passed\":false",
    );
    let out = compare(dir.path(), &["--headless"], &[baseline.clone(), wrong_trace.clone()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("accuracy 0.500 → 0.000")
            && stdout.contains("p = 1.0000")
            && stdout.contains("not significant at 0.05"),
        "{stdout}"
    );
    let out = compare(dir.path(), &["--headless", "--significance", "1"], &[baseline.clone(), wrong_trace]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("(exact McNemar, 1 right only in the baseline, 0 only here): worse"), "{stdout}");
    for level in ["0", "1.5", "x"] {
        let out = compare(dir.path(), &["--headless", "--significance", level], &[baseline.clone(), failed.clone()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("is not a level between 0 (excluded) and 1"), "{stderr}");
    }

    let mix = [offline.clone(), offline.join("trace.jsonl"), offline_results];
    let out = compare(dir.path(), &["--json"], &mix);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let matrix: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(matrix["questions"].as_array().unwrap().len(), 3);
    assert!(matrix["questions"].as_array().unwrap().iter().all(|q| q["agreement"] == "agree"), "{matrix}");

    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = compare(dir.path(), &["--headless"], &[baseline, empty]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!((out.status.code(), stderr.trim().lines().count()), (Some(2), 1), "{stderr}");
    assert!(stderr.contains("holds no trace.jsonl"), "{stderr}");
}
