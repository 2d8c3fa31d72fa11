use std::path::{Path, PathBuf};

use super::{RESULTS_FILE, RunRow, RunStatus, TRACE_FILE, list_runs, scan_new_runs};

/// A finished offline run of ten questions on the sample data.
const SAMPLE: &str = "sample-data/traces/fraud-offline.trace.jsonl";

fn sample() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(SAMPLE)).unwrap()
}

/// A run directory `name` under `root` whose trace is `trace`.
fn run_dir(root: &Path, name: &str, trace: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(TRACE_FILE), trace).unwrap();
    dir
}

/// The sample without its last line (`run_finished`), cut in the middle of the line before.
fn interrupted_trace() -> String {
    let text = sample();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.pop();
    let cut = lines.pop().unwrap();
    format!("{}\n{}", lines.join("\n"), &cut[..cut.len() / 2])
}

#[test]
fn a_finished_run_without_results_is_folded_from_its_trace() {
    let root = tempfile::tempdir().unwrap();
    let dir = run_dir(root.path(), "a", &sample());
    let row = RunRow::read(&dir);
    assert_eq!(row.status, RunStatus::Finished);
    assert_eq!((row.questions, row.pass_rate, row.wall_ms), (Some(10), Some(1.0), Some(230)));
    assert_eq!(row.dataset.as_deref(), Some("fraud"));
    assert_eq!(row.models.get("dag_build").map(String::as_str), Some("schema-planner"));
    assert_eq!((row.epochs, row.drafts, row.accuracy, row.problem.as_deref()), (Some(1), Some(1), None, None));
    let json = serde_json::to_value(&row).unwrap();
    for key in ["path", "started", "dataset", "models", "questions", "status", "pass_rate", "accuracy"] {
        assert!(json.get(key).is_some(), "{key} in {json}");
    }
    assert_eq!(json["status"], "finished");
}

#[test]
fn results_are_read_for_their_summary_only() {
    let root = tempfile::tempdir().unwrap();
    let dir = run_dir(root.path(), "a", &sample());
    let mut results =
        serde_json::to_value(crate::report::analyses::load_results::load_results(&dir.join(TRACE_FILE)).unwrap())
            .unwrap();
    results["summary"]["grading"]["accuracy"] = serde_json::json!(0.25);
    // What follows the summary is never read: garbage there changes nothing.
    let text = serde_json::to_string(&results).unwrap();
    let summary_end = text.find(",\"difficulty_breakdown\"").expect("the summary comes first");
    std::fs::write(dir.join(RESULTS_FILE), format!("{}, \"rest\": [nonsense", &text[..summary_end])).unwrap();
    let row = RunRow::read(&dir);
    assert_eq!((row.accuracy, row.questions, row.problem.as_deref()), (Some(0.25), Some(10), None));
}

#[test]
fn a_run_without_run_finished_is_interrupted_and_a_cut_line_is_passed_over() {
    let root = tempfile::tempdir().unwrap();
    let row = RunRow::read(&run_dir(root.path(), "a", &interrupted_trace()));
    assert_eq!(row.status, RunStatus::Interrupted);
    assert_eq!(row.questions, Some(10), "the questions generated");
    assert!(row.pass_rate.is_some_and(|rate| rate > 0.0 && rate < 1.0), "{:?}", row.pass_rate);
}

#[test]
fn a_run_the_budget_stopped_says_budget() {
    let root = tempfile::tempdir().unwrap();
    let trace =
        sample().replace("\"cancelled\":0,\"fixed_by_hand\":0,", "\"cancelled\":0,\"fixed_by_hand\":0,\"budget\":2,");
    assert!(trace.contains("\"budget\":2"));
    assert_eq!(RunRow::read(&run_dir(root.path(), "a", &trace)).status, RunStatus::Budget);
}

#[test]
fn foreign_results_say_so_in_one_line_and_the_trace_still_speaks() {
    let root = tempfile::tempdir().unwrap();
    for (name, results) in [("a", "{\"results\": [1, 2]}"), ("b", "[1, 2, 3]"), ("c", "{\"summary\": {\"x\": 1}}")] {
        let dir = run_dir(root.path(), name, &sample());
        std::fs::write(dir.join(RESULTS_FILE), results).unwrap();
        let row = RunRow::read(&dir);
        let problem = row.problem.clone().unwrap_or_default();
        assert!(problem.starts_with("results unreadable: ") && !problem.contains('\n'), "{problem}");
        assert_eq!((row.status, row.questions), (RunStatus::Finished, Some(10)), "{name}");
    }
}

#[test]
fn a_trace_that_is_not_one_is_unreadable_in_one_line() {
    let root = tempfile::tempdir().unwrap();
    let row = RunRow::read(&run_dir(root.path(), "a", "hello\n"));
    assert_eq!(row.status, RunStatus::Unreadable);
    assert!(row.problem.is_some_and(|p| p.contains("not an eval-dag trace header") && !p.contains('\n')));
}

#[test]
fn a_removed_run_is_gone_when_read_again_and_unchanged_rows_are_not_read() {
    let root = tempfile::tempdir().unwrap();
    let dir = run_dir(root.path(), "a", &sample());
    let row = RunRow::read(&dir);
    assert_eq!(row.reread(), None, "nothing changed");
    std::fs::remove_dir_all(&dir).unwrap();
    let gone = row.reread().expect("it changed");
    assert_eq!(gone.status, RunStatus::Gone);
    assert_eq!(gone.reread(), None);
}

#[test]
fn walking_finds_runs_among_many_other_files_and_says_what_it_cannot_read() {
    let root = tempfile::tempdir().unwrap();
    let clutter = root.path().join("clutter");
    std::fs::create_dir(&clutter).unwrap();
    for n in 0..3000 {
        std::fs::write(clutter.join(format!("file{n}.json")), "not a run").unwrap();
    }
    run_dir(&clutter, "nested/deeper/run", &sample());
    run_dir(root.path(), "b", &interrupted_trace());
    let not_a_dir = root.path().join("not-a-dir");
    std::fs::write(&not_a_dir, "a file given as a directory").unwrap();
    let rows = list_runs(&[root.path().to_path_buf(), not_a_dir, root.path().join("missing")]);
    let statuses: Vec<(String, RunStatus)> =
        rows.iter().map(|r| (r.path.strip_prefix(root.path()).unwrap().display().to_string(), r.status)).collect();
    assert_eq!(
        statuses,
        [
            ("b".into(), RunStatus::Interrupted),
            ("clutter/nested/deeper/run".into(), RunStatus::Finished),
            ("not-a-dir".into(), RunStatus::Unreadable)
        ]
    );
    // A given directory that does not exist (the bare browser over a `runs/` no run made yet) holds no runs.
    assert!(rows[2].problem.as_ref().is_some_and(|p| p.starts_with("directory unreadable")));
}

#[test]
fn a_trace_locked_by_another_process_is_running_until_it_is_killed() {
    let root = tempfile::tempdir().unwrap();
    let dir = run_dir(root.path(), "a", &interrupted_trace());
    let trace = dir.join(TRACE_FILE);
    // flock(1) takes the same advisory lock a run's trace writer holds.
    let Ok(mut holder) =
        std::process::Command::new("flock").args(["-x", "-o"]).arg(&trace).args(["sleep", "60"]).spawn()
    else {
        return eprintln!("flock(1) is not installed: the real binary's lock is tested in tests/suite/runs_cli.rs");
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !crate::trace::being_written(&trace) {
        assert!(std::time::Instant::now() < deadline, "the lock is taken");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(RunRow::read(&dir).status, RunStatus::Running);
    holder.kill().unwrap(); // SIGKILL
    holder.wait().unwrap();
    // `-o`: the lock is flock's own, not its `sleep`'s; the kill freed it.
    assert_eq!(RunRow::read(&dir).status, RunStatus::Interrupted);
}

#[test]
fn a_writer_of_this_process_holds_the_lock_while_it_lives() {
    let root = tempfile::tempdir().unwrap();
    let path = root.path().join(TRACE_FILE);
    let writer = crate::trace::TraceWriter::create(&path, &crate::trace::TraceHeader::new(Default::default())).unwrap();
    assert!(crate::trace::being_written(&path));
    let written = std::fs::read(&path).unwrap();
    let second = crate::trace::TraceWriter::create(&path, &crate::trace::TraceHeader::new(Default::default()));
    assert!(second.is_err(), "a second writer of a live trace is refused");
    assert_eq!(std::fs::read(&path).unwrap(), written, "and the live trace is left as it was, not truncated");
    drop(writer);
    // Another test's child may hold a copy of the descriptor between its fork
    // and its exec (the descriptor closes at exec): the lock goes with it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while crate::trace::being_written(&path) {
        assert!(std::time::Instant::now() < deadline, "the lock outlived its writer");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[test]
fn a_rescan_reads_only_the_runs_that_appeared_since() {
    let root = tempfile::tempdir().unwrap();
    let first = run_dir(root.path(), "a", &sample());
    let known: std::collections::HashSet<PathBuf> =
        list_runs(&[root.path().to_path_buf()]).into_iter().map(|r| r.path).collect();
    assert_eq!(known, [first].into());
    let second = run_dir(root.path(), "later/b", &interrupted_trace());
    let mut found = Vec::new();
    scan_new_runs(&[root.path().to_path_buf()], &known, |row| {
        found.push((row.path, row.status));
        true
    });
    assert_eq!(found, [(second, RunStatus::Interrupted)]);
}

/// The figures a row shows, as text.
fn figures(row: &RunRow) -> String {
    format!("{:?} {:?} {:?} {:?} {:?}", row.questions, row.pass_rate, row.tokens, row.wall_ms, row.cost_usd)
}

#[test]
fn a_live_runs_reread_folds_only_the_lines_appended_since() {
    let root = tempfile::tempdir().unwrap();
    let text = sample();
    let lines: Vec<&str> = text.lines().collect();
    let (head, rest) = lines.split_at(lines.len() / 2);
    let dir = run_dir(root.path(), "live", &format!("{}\n", head.join("\n")));
    let trace = dir.join(TRACE_FILE);
    let earlier = RunRow::read(&dir).folded.expect("the figures are folded from the trace");
    // Spoil a line already folded, keeping its length: a fold from the start refuses the trace.
    let mut bytes = std::fs::read(&trace).unwrap();
    let second = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    bytes[second..second + 10].copy_from_slice(b"not json!!");
    bytes.extend(format!("{}\n", rest.join("\n")).bytes());
    std::fs::write(&trace, bytes).unwrap();
    assert_eq!(RunRow::read(&dir).questions, None, "folded from the start, the spoilt line stops the fold");
    let whole = RunRow::read(&run_dir(root.path(), "whole", &text));
    let on = RunRow::read_on(&dir, Some(&earlier));
    assert_eq!(figures(&on), figures(&whole), "folded on from the earlier read, as the whole trace");
    assert_eq!(on.questions, Some(10));
}

#[test]
fn a_reread_folds_anew_a_trace_that_shrank_or_was_replaced() {
    let root = tempfile::tempdir().unwrap();
    let dir = run_dir(root.path(), "a", &sample());
    let earlier = RunRow::read(&dir).folded.expect("folded from the trace");
    std::fs::write(dir.join(TRACE_FILE), interrupted_trace()).unwrap();
    assert_eq!(figures(&RunRow::read_on(&dir, Some(&earlier))), figures(&RunRow::read(&dir)), "shorter");
    let other = sample().replacen("\"created_at\":\"", "\"created_at\":\"1", 1);
    assert_ne!(other, sample(), "the header names its start");
    let longer = format!("{other}{}", sample().lines().nth(1).unwrap());
    std::fs::write(dir.join(TRACE_FILE), &longer).unwrap();
    assert_eq!(figures(&RunRow::read_on(&dir, Some(&earlier))), figures(&RunRow::read(&dir)), "another run");
}
