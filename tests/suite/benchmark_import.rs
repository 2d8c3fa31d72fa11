//! `eval-dag import infiagent|dabstep` through the real binary, on small
//! made-up files in each benchmark's published layout: what is written, what
//! is skipped and why, and bad input as one line with nothing written.

use crate::common;

use std::path::Path;
use std::process::Output;

use eval_dag::dataset::Dataset;
use eval_dag::domain::Scorer;
use eval_dag::prompts::Prompts;
use serde_json::{Value, json};

pub fn import(kind: &str, dir: &Path, out: &Path) -> Output {
    common::eval_dag(dir).arg("import").arg(kind).arg(dir).arg("--out").arg(out).output().unwrap()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn lines(values: &[Value]) -> String {
    values.iter().map(|v| v.to_string() + "\n").collect()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// InfiAgent's layout: two good questions, one per table (one table below a
/// title row), and four that cannot be imported.
pub fn infiagent_files(dir: &Path) {
    let question = |id: u32, file: &str, level: &str| {
        json!({"id": id, "question": format!("question {id}"), "concepts": ["Summary Statistics"],
               "constraints": "Round to two decimals.", "format": "@mean_x[mean]", "file_name": file, "level": level})
    };
    write(
        &dir.join("da-dev-questions.jsonl"),
        &lines(&[
            question(0, "hard table.csv", "hard"),
            question(1, "titled.csv", "easy"),
            question(2, "nope.csv", "easy"),
            question(3, "titled.csv", "medium"),
            question(4, "titled.csv", "medium"),
            question(5, "empty.csv", "easy"),
        ]),
    );
    write(
        &dir.join("da-dev-labels.jsonl"),
        &lines(&[
            json!({"id": 0, "common_answers": [["mean_x", "2.00"], ["n", "3"]]}),
            json!({"id": 1, "common_answers": [["mean_x", "15.0"]]}),
            json!({"id": 2, "common_answers": [["mean_x", "1"]]}),
            json!({"id": 4, "common_answers": [["mean_x"]]}),
            json!({"id": 5, "common_answers": [["mean_x", "1"]]}),
        ]),
    );
    write(&dir.join("da-dev-tables/hard table.csv"), "x,y\n1,a\n2,b\n3,c\n");
    write(&dir.join("da-dev-tables/titled.csv"), "JAMES LOGAN,,\nx,y,z\n10,a,1\n20,b,2\n");
    write(&dir.join("da-dev-tables/empty.csv"), "x,y\n");
}

#[test]
fn infiagent_files_become_a_benchmark_directory_with_every_row_and_the_skips_named() {
    let dir = tempfile::tempdir().unwrap();
    infiagent_files(dir.path());
    let out = dir.path().join("bench");
    let output = import("infiagent", dir.path(), &out);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let said: Vec<&str> = err.lines().collect();
    assert_eq!(said.len(), 6, "{err}");
    assert!(said[0].starts_with("skipped 2: its table nope.csv is not in "), "{err}");
    assert_eq!(said[1], "skipped 3: no label line has its id");
    assert!(said[2].starts_with("skipped 4: its label has a part that is not [name, text]"), "{err}");
    assert!(
        said[3].starts_with("skipped 5: its table cannot be prepared: ") && said[3].contains("no data rows"),
        "{err}"
    );
    assert_eq!(said[4], format!("imported 2 questions over 2 datasets into {} (4 skipped)", out.display()));
    assert_eq!(
        said[5],
        "scorer audit: an empty answer scores right on 0 of 2 questions, the most common expected answer on 0"
    );

    let text = std::fs::read_to_string(out.join("questions.jsonl")).unwrap();
    let specs = eval_dag::grade::parse_questions_jsonl(&text, "questions.jsonl").unwrap();
    let ids: Vec<&str> = specs.iter().map(|s| s.question.id.as_str()).collect();
    assert_eq!(ids, ["da_1", "da_0"], "easy before hard");
    let first = &specs[0].question;
    assert_eq!(first.dataset.as_deref(), Some("titled"));
    assert_eq!((first.source_id.as_deref(), first.scorer), (Some("1"), Some(Scorer::Infiagent)));
    assert_eq!(first.answer_format.as_deref(), Some("@mean_x[mean]"));
    assert_eq!(first.constraints.as_deref(), Some("Round to two decimals."));
    assert_eq!(first.expected_answer, Some(json!({"mean_x": "15.0"})));
    assert_eq!(first.extra.get("concepts"), Some(&json!(["Summary Statistics"])));
    assert_eq!(specs[1].question.dataset.as_deref(), Some("hard_table"));

    let titled = Dataset::load(out.join("datasets/titled")).unwrap();
    assert_eq!(titled.data["rows"], json!([{"x": 10, "y": "a", "z": 1}, {"x": 20, "y": "b", "z": 2}]));
    assert_eq!(Dataset::load(out.join("datasets/hard_table")).unwrap().data["rows"].as_array().unwrap().len(), 3);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".import-"))
        .collect();
    assert!(leftovers.is_empty(), "the staging directory is renamed, not left behind");
}

/// DABstep's layout under `data/`: a table, a JSON file, a manual, the dev
/// tasks with answers and all tasks without.
pub fn dabstep_files(dir: &Path) {
    write(&dir.join("data/context/payments.csv"), "psp_reference,merchant,eur_amount\n1,Shop_A,10.5\n2,Shop_B,20\n");
    write(&dir.join("data/context/fees.json"), r#"[{"ID": 1, "fixed_amount": 0.1}]"#);
    write(&dir.join("data/context/manual.md"), "# Manual\nFees are fixed_amount + rate * amount / 10000.\n");
    let task = |id: u32, level: &str, answer: &str| {
        json!({"task_id": id.to_string(), "question": format!("task {id}?"), "level": level, "answer": answer,
               "guidelines": "Answer must be a number rounded to 2 decimals."})
    };
    write(&dir.join("data/tasks/dev.jsonl"), &lines(&[task(5, "hard", "30.50"), task(7, "easy", "Shop_A")]));
    write(&dir.join("data/tasks/all.jsonl"), &lines(&[task(5, "hard", ""), task(7, "easy", ""), task(9, "easy", "")]));
}

#[test]
fn dabstep_files_become_one_dataset_keyed_by_file_with_its_manual_for_the_builder() {
    let dir = tempfile::tempdir().unwrap();
    dabstep_files(dir.path());
    let out = dir.path().join("bench");
    let output = import("dabstep", dir.path(), &out);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let imported = format!("imported 3 questions over 1 datasets into {} (0 skipped)", out.display());
    let audit = "scorer audit: an empty answer scores right on 0 of 2 questions, the most common expected answer on 0";
    assert_eq!(err.trim(), format!("{imported}\n{audit}"), "task 9's answer is private: not audited");

    let text = std::fs::read_to_string(out.join("questions.jsonl")).unwrap();
    let specs = eval_dag::grade::parse_questions_jsonl(&text, "questions.jsonl").unwrap();
    let tasks: Vec<(&str, Option<&Value>)> =
        specs.iter().map(|s| (s.question.id.as_str(), s.question.expected_answer.as_ref())).collect();
    assert_eq!(
        tasks,
        [("task_7", Some(&json!("Shop_A"))), ("task_9", None), ("task_5", Some(&json!("30.50")))],
        "the dev answers win over the blank ones; a private answer stays unknown"
    );
    assert!(specs.iter().all(|s| s.question.scorer == Some(Scorer::Dabstep)));

    let dataset = Dataset::load(out.join("datasets/dabstep")).unwrap();
    assert_eq!(dataset.data["payments"][1], json!({"psp_reference": 2, "merchant": "Shop_B", "eur_amount": 20.0}));
    assert_eq!(dataset.data["fees"], json!([{"ID": 1, "fixed_amount": 0.1}]));
    assert!(dataset.metadata.documentation["manual.md"].contains("fixed_amount + rate"));

    let prompts = Prompts::load(None).unwrap();
    let messages = prompts.dag_build(&dataset, &specs[2].question, 1, None);
    let user = &messages[1].content;
    assert!(user.contains("Documentation (manual.md):\n# Manual\nFees are fixed_amount"), "{user}");
    assert!(user.contains("Answer format: Answer must be a number rounded to 2 decimals."), "{user}");
}

#[test]
fn a_scorer_that_accepts_an_empty_answer_is_named_with_its_questions_at_import() {
    let dir = tempfile::tempdir().unwrap();
    dabstep_files(dir.path());
    // DABstep's scorer keeps letters, digits and `_` of a text: "[]" and an empty answer are equal.
    let task = |id: u32, answer: &str| json!({"task_id": id.to_string(), "question": format!("task {id}?"), "level": "easy", "answer": answer});
    let dev = [task(5, "30.50"), task(7, "Shop_A"), task(11, "[]"), task(12, "Shop_A"), task(13, "Shop_A")];
    write(&dir.path().join("data/tasks/dev.jsonl"), &lines(&dev));
    let out = dir.path().join("bench");
    let output = import("dabstep", dir.path(), &out);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let said: Vec<&str> = err.lines().collect();
    // Shop_A is the most common answer: right for tasks 7, 12 and 13; task 9's answer is private.
    assert_eq!(
        said[1..],
        [
            "scorer audit: an empty answer scores right on 1 of 5 questions, the most common expected answer on 3",
            "the dabstep scorer accepts an empty answer for: 11",
        ],
        "{err}"
    );
}

#[test]
fn bad_input_is_one_line_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bench");
    let neither = import("infiagent", dir.path(), &out);
    assert_eq!(neither.status.code(), Some(2));
    assert_eq!(stderr(&neither).lines().count(), 1, "{}", stderr(&neither));
    assert!(stderr(&neither).contains("not InfiAgent-DABench's files"));
    let neither = import("dabstep", dir.path(), &out);
    assert!(stderr(&neither).contains("not DABstep's files") && neither.status.code() == Some(2));

    infiagent_files(dir.path());
    write(&dir.path().join("da-dev-labels.jsonl"), "{\"id\": 0, \"common_answers\": []}\n{not json\n");
    let bad_label = import("infiagent", dir.path(), &out);
    let err = stderr(&bad_label);
    assert_eq!(bad_label.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("da-dev-labels.jsonl line 2: not a JSON object"), "{err}");
    assert!(!out.exists());

    let dab = tempfile::tempdir().unwrap();
    dabstep_files(dab.path());
    write(&dab.path().join("data/context/payments.csv"), "a,b\n1\n");
    let bad_table = import("dabstep", dab.path(), &out);
    let err = stderr(&bad_table);
    assert_eq!((bad_table.status.code(), err.lines().count()), (Some(2), 1), "{err}");
    assert!(err.contains("cannot prepare") && err.contains("payments.csv"), "{err}");
    assert!(!out.exists());

    std::fs::create_dir_all(&out).unwrap();
    let exists = import("dabstep", dab.path(), &out);
    assert!(stderr(&exists).contains("already exists") && exists.status.code() == Some(2));
}

/// A recorded run of three DABstep tasks (one right, one wrong, one
/// unanswered) and one InfiAgent question: its submission file and its results.
#[test]
fn a_run_exports_a_dabstep_submission_and_its_results_carry_the_benchmark_figures() {
    use eval_dag::trace::{TraceHeader, TraceWriter};
    let dir = tempfile::tempdir().unwrap();
    let settings = json!({"dataset_dir": "bench", "dataset_hash": "h", "provider": "openai", "model": "m",
        "questions": 4, "max_iterations": 2, "concurrency": 1, "seed": 0, "step": false});
    let question = |id: &str, rank: usize, scorer: &str, expected: Value| {
        json!({"id": id, "question": "?", "difficulty_rank": rank, "difficulty_level": "easy", "dataset": "dabstep",
            "source_id": id.trim_start_matches("task_"), "scorer": scorer, "expected_answer": expected})
    };
    let finished = |id: &str, outcome: &str, answer: Value| {
        [
            json!({"type": "question_started", "at": {"question_id": id, "attempt": 1}}),
            json!({"type": "question_finished", "at": {"question_id": id, "attempt": 1}, "outcome": outcome,
                "iterations": 1, "final_answer": answer}),
        ]
    };
    let mut events = vec![
        json!({"type": "run_started", "settings": settings}),
        json!({"type": "questions_generated", "questions": [
            question("task_5", 1, "dabstep", json!("Shop_A, Shop_B")),
            question("task_7", 2, "dabstep", json!("12.50")),
            question("task_9", 3, "dabstep", Value::Null),
            question("da_3", 4, "infiagent", json!({"n": "3", "mean": "2.00"})),
        ]}),
    ];
    events.extend(finished("task_5", "passed", json!(["shop_b", "shop_a"])));
    events.extend(finished("task_7", "passed", json!(13.0)));
    events.extend(finished("task_9", "exhausted", Value::Null));
    events.extend(finished("da_3", "passed", json!({"n": 3, "mean": 2.01})));
    let path = dir.path().join("trace.jsonl");
    let mut writer = TraceWriter::create(&path, &TraceHeader::new(serde_json::from_value(settings).unwrap())).unwrap();
    for (t, event) in events.into_iter().enumerate() {
        writer.record(t as u64, &serde_json::from_value(event).unwrap()).unwrap();
    }
    drop(writer);

    let out = dir.path().join("submission.jsonl");
    let export = common::eval_dag(dir.path())
        .args(["export", path.to_str().unwrap(), "--format", "dabstep", "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(export.status.success(), "{}", stderr(&export));
    assert!(String::from_utf8_lossy(&export.stdout).starts_with("3 tasks (2 answered) written to"));
    let lines: Vec<Value> =
        std::fs::read_to_string(&out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let answers: Vec<(&str, &str)> =
        lines.iter().map(|l| (l["task_id"].as_str().unwrap(), l["agent_answer"].as_str().unwrap())).collect();
    assert_eq!(answers, [("5", "shop_b, shop_a"), ("7", "13.0"), ("9", "")]);
    assert!(lines.iter().all(|l| l["reasoning_trace"].is_string()));

    let results = eval_dag::report::eval_results(
        &eval_dag::report::fold_trace(&eval_dag::trace::Trace::read(&path).unwrap()),
        "t",
    );
    let summary = results.summary.benchmark.unwrap();
    // Scored: task_5 right, task_7 wrong (13.0 against 12.50: not equal at one decimal, and over 1e-2 relative apart), da_3 wrong in
    // one of two parts; task_9 has no expected answer. Answered 3: 1 right; parts 2 of 4; shares (1 + 0 + 1/2) / 3.
    assert_eq!((summary.name.as_str(), summary.questions, summary.answered), ("dabstep+infiagent", 3, 3));
    assert_eq!(summary.accuracy_by_question, Some(1.0 / 3.0));
    assert_eq!(summary.accuracy_by_sub_question, Some(0.5));
    assert_eq!(summary.proportional_accuracy_by_sub_question, Some(1.5 / 3.0));
    let per_question: Vec<Option<bool>> =
        results.detailed_results.iter().map(|d| d.benchmark.as_ref().map(|b| b.correct)).collect();
    assert_eq!(per_question, [Some(true), Some(false), None, Some(false)]);
}
