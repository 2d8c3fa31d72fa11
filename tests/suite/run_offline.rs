//! `eval-dag run --headless` with the offline planner through the real binary:
//! every answer equals the planner's independently computed one, on both
//! sample datasets and on a CSV the test generates; a killed run keeps every
//! finished event; a resumed run completes it without re-running finished work.

use crate::common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

fn run(dataset: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    common::eval_dag(out).arg("run").arg(dataset).arg("--headless").arg("--out").arg(out).args(extra).output().unwrap()
}

fn results(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("eval_results.json")).unwrap()).unwrap()
}

fn assert_all_answers_expected(out: &Path, questions: usize) {
    let results = results(out);
    let detailed = results["detailed_results"].as_array().unwrap();
    assert_eq!(detailed.len(), questions);
    let levels: std::collections::BTreeSet<&str> =
        detailed.iter().map(|r| r["difficulty_level"].as_str().unwrap()).collect();
    assert_eq!(levels.len(), 3, "questions span easy, medium and hard: {levels:?}");
    for r in detailed {
        assert_eq!(r["status"], "passed", "{r}");
        assert!(
            common::json_close(&r["final_answer"], &r["expected_answer"], 1e-9),
            "{}: {} vs {}",
            r["question_id"],
            r["final_answer"],
            r["expected_answer"]
        );
    }
    assert!(out.join("trace.jsonl").is_file() && out.join("eval_report.html").is_file());
}

#[test]
fn offline_runs_answer_every_question_correctly_on_the_sample_data() {
    for dataset in ["fraud", "penguins"] {
        let dir = tempfile::tempdir().unwrap();
        let output = run(&common::root().join("sample-data").join(dataset), dir.path(), &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{dataset}: {stderr}");
        assert!(stderr.contains("0 tokens (offline and replayed calls count none)"), "a zero says why: {stderr}");
        assert_all_answers_expected(dir.path(), 10);
    }
}

#[test]
fn offline_runs_work_on_a_csv_with_unfamiliar_columns() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("when,shop,region,spend,items,returned\n");
    for i in 0..400u32 {
        let when = format!("2021-{:02}-{:02} {:02}:{:02}:00", i % 12 + 1, i % 28 + 1, (i * 7) % 24, (i * 13) % 60);
        let shop = ["north", "south", "east", "west", "hub"][(i * 3 % 5) as usize];
        let region = ["alpha", "beta", "gamma"][(i % 3) as usize];
        let spend = if i % 17 == 0 { String::new() } else { format!("{:.2}", f64::from((i * 37) % 500) / 3.0 + 1.0) };
        csv.push_str(&format!("{when},{shop},{region},{spend},{},{}\n", (i * 11) % 9 + 1, u32::from(i % 7 == 0)));
    }
    let csv_path = dir.path().join("shops.csv");
    std::fs::write(&csv_path, csv).unwrap();
    let dataset = dir.path().join("shops");
    let prepared = Command::new(env!("CARGO_BIN_EXE_eval-dag"))
        .args(["prepare"])
        .arg(&csv_path)
        .arg("--out")
        .arg(&dataset)
        .args(["--label", "returned"])
        .output()
        .unwrap();
    assert!(prepared.status.success(), "{}", String::from_utf8_lossy(&prepared.stderr));
    let out = dir.path().join("run");
    let output = run(&dataset, &out, &["--questions", "12"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert_all_answers_expected(&out, 12);
}

/// How many attempts each question started in `trace`.
fn starts_per_question(trace: &eval_dag::trace::Trace) -> std::collections::HashMap<String, usize> {
    let mut starts = std::collections::HashMap::new();
    for record in &trace.records {
        if let eval_dag::run::EngineEvent::QuestionStarted { at, .. } = &record.event {
            *starts.entry(at.question_id.to_string()).or_default() += 1;
        }
    }
    starts
}

/// Send `signal` to a headless run once `count` events of type `event` are in
/// its trace, then resume it: every event before the signal is readable, no
/// question finished before it starts again, and the final answers equal
/// `reference`'s (an uninterrupted run). SIGKILL ends the run where it
/// stands; SIGINT and SIGTERM cancel it, and it still finishes its records.
fn kill_and_resume(signal: i32, event: &str, count: usize, reference: &Value) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let dataset = common::root().join("sample-data/fraud");
    let child = common::eval_dag(dir.path())
        .arg("run")
        .arg(&dataset)
        .args(["--headless", "--concurrency", "1", "--questions", "10", "--out"])
        .arg(&out)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let trace_path = out.join("trace.jsonl");
    let marker = format!("\"type\":\"{event}\"");
    let seen = |path: &Path| std::fs::read_to_string(path).unwrap_or_default().matches(&marker).count();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while seen(&trace_path) < count && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    // SAFETY: signalling a child process this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
    let ended = child.wait_with_output().unwrap();
    let trace = eval_dag::trace::Trace::read(&trace_path).expect("the killed run's trace is readable");
    if signal != libc::SIGKILL {
        let stderr = String::from_utf8_lossy(&ended.stderr);
        assert_eq!(ended.status.code(), Some(1), "signal {signal}: cancelled questions did not pass: {stderr}");
        let last = &trace.records.last().unwrap().event;
        let eval_dag::run::EngineEvent::RunFinished { summary } = last else { panic!("the trace ends with {last:?}") };
        assert!(summary.cancelled > 0, "signal {signal}: {summary:?}");
        assert!(stderr.contains(&format!("{} cancelled", summary.cancelled)), "the summary counts them: {stderr}");
        assert!(stderr.contains(&format!("resume:  eval-dag run --resume {}", out.display())), "{stderr}");
        assert_eq!(results(&out)["summary"]["cancelled"], summary.cancelled, "eval_results.json is written");
    }
    let lines = std::fs::read_to_string(&trace_path).unwrap().lines().count();
    // Every line but the header (and a last line the kill may have cut) is an event.
    assert!(trace.records.len() + 2 >= lines, "{event} {count}: {} events of {lines} lines", trace.records.len());
    let finished_before: std::collections::HashSet<String> = trace
        .records
        .iter()
        .filter_map(|r| match &r.event {
            eval_dag::run::EngineEvent::QuestionFinished { at, outcome, .. }
                if *outcome != eval_dag::run::Outcome::Cancelled =>
            {
                Some(at.question_id.to_string())
            }
            _ => None,
        })
        .collect();
    assert!(finished_before.len() < 10, "{event} {count}: the kill came before the end");
    let starts_before = starts_per_question(&trace);

    let resumed = common::eval_dag(dir.path()).arg("run").arg("--resume").arg(&out).arg("--headless").output().unwrap();
    assert_eq!(resumed.status.code(), Some(0), "{event} {count}: {}", String::from_utf8_lossy(&resumed.stderr));
    let trace = eval_dag::trace::Trace::read(&trace_path).unwrap();
    let starts = starts_per_question(&trace);
    for id in &finished_before {
        assert_eq!(
            starts.get(id),
            starts_before.get(id),
            "{event} {count}: {id} finished before the kill and was not re-run"
        );
    }
    let mut call_ids: Vec<u64> = trace
        .records
        .iter()
        .filter_map(|r| match &r.event {
            eval_dag::run::EngineEvent::LlmCallStarted { call_id, .. } => Some(*call_id),
            _ => None,
        })
        .collect();
    let calls = call_ids.len();
    call_ids.sort_unstable();
    call_ids.dedup();
    assert_eq!(call_ids.len(), calls, "LLM call ids stay unique across the resumed trace");
    let times: Vec<u64> = trace.records.iter().map(|r| r.t_ms).collect();
    assert!(times.windows(2).all(|w| w[1] >= w[0]), "the resumed clock carries on");
    let seqs: Vec<u64> = trace.records.iter().map(|r| r.seq).collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "the appended trace keeps numbering");
    let results = results(&out);
    assert_eq!(results["summary"]["passed"], 10);
    let answers = |doc: &Value| -> Vec<Value> {
        doc["detailed_results"].as_array().unwrap().iter().map(|r| r["final_answer"].clone()).collect()
    };
    assert_eq!(answers(&results), answers(reference), "{event} {count}: resumed answers equal an uninterrupted run");
}

#[test]
fn a_run_killed_at_any_point_keeps_its_events_and_resumes_without_redoing_finished_questions() {
    let dir = tempfile::tempdir().unwrap();
    let reference = dir.path().join("reference");
    assert_eq!(run(&common::root().join("sample-data/fraud"), &reference, &[]).status.code(), Some(0));
    let reference = results(&reference);
    // Before any question finished (mid-question), after a few, after most.
    for (event, count) in [("stage_started", 2), ("question_finished", 3), ("question_finished", 7)] {
        kill_and_resume(libc::SIGKILL, event, count, &reference);
    }
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        kill_and_resume(signal, "question_finished", 3, &reference);
    }
}

#[test]
fn a_closed_stderr_does_not_stop_a_headless_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = common::eval_dag(dir.path())
        .arg("run")
        .arg(common::root().join("sample-data/penguins"))
        .args(["--headless", "--questions", "3", "--out"])
        .arg(dir.path())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    assert_eq!(results(dir.path())["summary"]["passed"], 3);
}

#[test]
fn without_a_terminal_a_run_goes_headless_by_itself() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    // stdout is a pipe here, as in CI or `… | tee`: no TUI is attempted.
    let output = common::eval_dag(dir.path())
        .arg("run")
        .arg(common::root().join("sample-data/fraud"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("terminal UI"), "no TUI was tried: {stderr}");
    assert!(stderr.contains("10 questions: 10 passed"), "headless progress and summary on stderr: {stderr}");
    assert_all_answers_expected(&out, 10);
}
