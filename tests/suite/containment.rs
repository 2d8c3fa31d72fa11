//! A downloaded benchmark stays inside its folder: `import` skips a question
//! whose table (or a DABstep task or context file) leads outside the
//! benchmark's folder — by `..`, an absolute path or a symlink — and `run
//! BENCH_DIR` refuses a question whose dataset does, with one line naming the
//! question and the path, exit 2, unless `--allow-outside-datasets`.

use crate::common;

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use super::benchmark_import::{dabstep_files, import, infiagent_files};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A secret CSV beside the benchmark's folder, as a stranger's files would point at it.
fn secret_table(dir: &Path) -> std::path::PathBuf {
    let secret = dir.join("secretdir/secrets.csv");
    write(&secret, "user,password\nroot,hunter2\nadmin,swordfish\n");
    secret
}

#[test]
fn import_skips_an_infiagent_table_outside_the_benchmark_by_dotdot_absolute_path_or_symlink() {
    let dir = tempfile::tempdir().unwrap();
    let downloaded = dir.path().join("downloaded");
    infiagent_files(&downloaded);
    let secret = secret_table(dir.path());
    symlink(&secret, downloaded.join("da-dev-tables/linked.csv")).unwrap();
    let question = |id: u32, file: &str| json!({"id": id, "question": format!("question {id}"), "format": "@n[n]", "file_name": file, "level": "easy"});
    let questions = [
        question(1, "titled.csv"),
        question(10, "../../secretdir/secrets.csv"),
        question(11, secret.to_str().unwrap()),
        question(12, "linked.csv"),
    ];
    let labels: Vec<Value> =
        [1, 10, 11, 12].iter().map(|id| json!({"id": id, "common_answers": [["n", "2"]]})).collect();
    let lines = |values: &[Value]| values.iter().map(|v| format!("{v}\n")).collect::<String>();
    write(&downloaded.join("da-dev-questions.jsonl"), &lines(&questions));
    write(&downloaded.join("da-dev-labels.jsonl"), &lines(&labels));

    let out = dir.path().join("bench");
    let output = import("infiagent", &downloaded, &out);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    for id in [10, 11, 12] {
        let line = err.lines().find(|l| l.starts_with(&format!("skipped {id}: "))).unwrap_or_else(|| panic!("{err}"));
        assert!(line.contains("outside the benchmark folder"), "{line}");
        assert!(line.contains("secrets.csv"), "the line names the path: {line}");
    }
    // The count, then the scorer's audit of the one question imported.
    assert!(err.contains("(3 skipped)\nscorer audit: "), "{err}");
    assert!(!out.join("datasets/secrets").exists() && !out.join("datasets/linked").exists());
    let written = std::fs::read_to_string(out.join("questions.jsonl")).unwrap();
    assert_eq!(written.lines().count(), 1, "{written}");
    assert!(!format!("{written}{:?}", std::fs::read_dir(out.join("datasets")).unwrap().count()).contains("hunter2"));

    // Only questions on tables outside: nothing is imported, one line, exit 2.
    write(&downloaded.join("da-dev-questions.jsonl"), &lines(&questions[1..]));
    let only_outside = import("infiagent", &downloaded, &dir.path().join("bench2"));
    let err = stderr(&only_outside);
    assert_eq!(only_outside.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().last(), Some("error: no question could be imported (3 skipped)"), "{err}");
    assert!(!dir.path().join("bench2").exists());

    // The labels file linked outside: every question's, so the import stops, one line, exit 2.
    let labels = downloaded.join("da-dev-labels.jsonl");
    std::fs::rename(&labels, dir.path().join("secretdir/labels.jsonl")).unwrap();
    symlink(dir.path().join("secretdir/labels.jsonl"), &labels).unwrap();
    let linked = import("infiagent", &downloaded, &dir.path().join("bench3"));
    let err = stderr(&linked);
    assert_eq!((linked.status.code(), err.lines().count()), (Some(2), 1), "{err}");
    assert!(err.contains("labels.jsonl") && err.contains("outside the benchmark folder"), "{err}");
}

#[test]
fn import_leaves_out_dabstep_task_and_context_files_linked_outside_the_benchmark() {
    let dir = tempfile::tempdir().unwrap();
    let downloaded = dir.path().join("downloaded");
    dabstep_files(&downloaded);
    let secret = secret_table(dir.path());
    symlink(&secret, downloaded.join("data/context/secrets.csv")).unwrap();
    let stranger_tasks = dir.path().join("secretdir/more.jsonl");
    write(&stranger_tasks, "{\"task_id\": \"66\", \"question\": \"q?\", \"level\": \"easy\", \"answer\": \"1\"}\n");
    symlink(&stranger_tasks, downloaded.join("data/tasks/more.jsonl")).unwrap();

    let out = dir.path().join("bench");
    let output = import("dabstep", &downloaded, &out);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let skipped: Vec<&str> = err.lines().filter(|l| l.starts_with("skipped ")).collect();
    assert_eq!(skipped.len(), 2, "{err}");
    assert!(skipped.iter().any(|l| l.contains("more.jsonl") && l.contains("outside the benchmark folder")), "{err}");
    assert!(skipped.iter().any(|l| l.contains("secrets.csv") && l.contains("outside the benchmark folder")), "{err}");
    let data = std::fs::read_to_string(out.join("datasets/dabstep/data.json")).unwrap();
    assert!(!data.contains("hunter2") && data.contains("Shop_A"), "{data}");
    let questions = std::fs::read_to_string(out.join("questions.jsonl")).unwrap();
    assert!(!questions.contains("task_66"), "{questions}");

    // The context folder itself linked outside: every task is skipped, nothing written.
    let linked = dir.path().join("linked");
    write(&linked.join("data/tasks/dev.jsonl"), "{\"task_id\": \"5\", \"question\": \"q?\", \"answer\": \"1\"}\n");
    symlink(downloaded.join("data/context"), linked.join("data/context")).unwrap();
    let output = import("dabstep", &linked, &dir.path().join("bench2"));
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("skipped 5: its context folder") && err.contains("outside the benchmark folder"), "{err}");
}

/// A benchmark directory with one good question on `datasets/shop` and one
/// question whose `dataset` is `named`.
fn benchmark(root: &Path, named: &str) {
    for dir in [root.join("datasets/shop"), root.parent().unwrap().join("secretdir/data")] {
        write(&dir.join("data.json"), &json!({"rows": [{"v": 1}, {"v": 2}]}).to_string());
        let metadata = json!({"description": "rows", "columns": {"v": {"type": "int"}},
            "dataset_keys": {"rows": "one row per record"}});
        write(&dir.join("metadata.json"), &metadata.to_string());
    }
    let lines = [
        json!({"id": "good", "question": "How many rows?", "difficulty": "easy", "dataset": "shop"}),
        json!({"id": "sneaky", "question": "How many rows?", "difficulty": "easy", "dataset": named}),
    ];
    write(&root.join("questions.jsonl"), &lines.iter().map(|l| format!("{l}\n")).collect::<String>());
}

/// `run BENCH_DIR --dry-run` (no model is called), with `extra` flags.
fn dry_run(home: &Path, bench: &Path, extra: &[&str]) -> Output {
    common::eval_dag(home)
        .arg("run")
        .arg(bench)
        .args(["--headless", "--dry-run", "--llm", "openai", "--base-url", "http://127.0.0.1:9/v1"])
        .arg("--out")
        .arg(home.join("out"))
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn run_refuses_a_question_whose_dataset_leads_outside_the_benchmark() {
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secretdir/data");
    let cases = [
        ("traversal", "../secretdir/data".to_string()),
        ("absolute", secret.display().to_string()),
        ("symlink", "linked".to_string()),
        ("linked data.json", "halfway".to_string()),
    ];
    for (case, named) in cases {
        let bench = dir.path().join(format!("bench-{}", case.replace(' ', "-")));
        benchmark(&bench, &named);
        symlink(&secret, bench.join("datasets/linked")).unwrap();
        let halfway = bench.join("datasets/halfway");
        std::fs::create_dir_all(&halfway).unwrap();
        symlink(secret.join("data.json"), halfway.join("data.json")).unwrap();
        std::fs::copy(secret.join("metadata.json"), halfway.join("metadata.json")).unwrap();

        let output = dry_run(dir.path(), &bench, &[]);
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{case}: {err}");
        assert_eq!(err.lines().count(), 1, "{case}: one line: {err}");
        assert!(err.starts_with("error: question sneaky names dataset "), "{case}: {err}");
        assert!(err.contains("outside the benchmark folder") && err.contains("secretdir"), "{case}: {err}");
        assert!(err.contains("--allow-outside-datasets"), "{case}: {err}");

        let allowed = dry_run(dir.path(), &bench, &["--allow-outside-datasets"]);
        let out = String::from_utf8_lossy(&allowed.stdout);
        assert_eq!(allowed.status.code(), Some(0), "{case}: {out}{}", stderr(&allowed));
        assert!(out.lines().any(|l| l.starts_with("total:")), "{case}: {out}");
    }
    let entries: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
    assert!(
        entries.iter().all(|name| name.starts_with("bench-")
            || ["secretdir", "config", "cache", "log.txt", "out"].contains(&name.as_str())),
        "{entries:?}"
    );
}
