//! `run --consensus 3` against a scripted server whose builder gives one of
//! three drafts another DAG: three critic loops per question, the drafts'
//! answers compared, agreement 2/3 and the majority answer speaking for the
//! question — in the trace, the state and the results; killed in the middle
//! of the drafts and resumed with only the missing calls; compared with
//! another consensus run; a draft fixed by hand records the consensus anew.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use crate::common;

use common::dags::node;
use common::mock_llm::{MockLlm, Reply};
use eval_dag::run::EngineEvent;
use eval_dag::trace::Trace;
use serde_json::{Value, json};

/// A server scripted for one question: its builds counted, the third giving
/// a DAG that counts one row too many; while `held`, the second build is
/// answered only after a minute.
async fn scripted(builds: Arc<AtomicUsize>, held: Arc<AtomicBool>) -> MockLlm {
    MockLlm::start(move |request, _| {
        let prompt = request.prompt();
        if prompt.contains("evaluation questions") {
            return Reply::Text(
                json!({"questions": [{"id": "q_01", "question": "How many transactions does the sample hold?",
                    "difficulty_rank": 1, "difficulty_level": "easy", "expected_answer": 2000}]})
                .to_string(),
            );
        }
        if prompt.contains("review one layer") {
            return Reply::Text(json!({"is_valid": true, "issues": [], "reasoning": "fine"}).to_string());
        }
        let build = builds.fetch_add(1, Ordering::SeqCst);
        let code = match build {
            2 => "def answer(rows):\n    return len(rows) + 1\n",
            _ => "def answer(rows):\n    return len(rows)\n",
        };
        let reply = Reply::Text(
            json!({"question_id": "q_01", "description": "count",
                "nodes": [node("answer", 0, json!({"rows": "dataset.transactions"}), code, "int")],
                "edges": [], "final_answer_node": "answer"})
            .to_string(),
        );
        if build == 1 && held.load(Ordering::SeqCst) {
            return Reply::Delayed(Duration::from_secs(60), Box::new(reply));
        }
        reply
    })
    .await
}

/// `eval-dag run` of one question with three drafts against `mock`, into `run`.
fn consensus_run(home: &Path, mock: &MockLlm, run: &Path) -> tokio::process::Command {
    let mut command = tokio::process::Command::from(common::eval_dag(home));
    command
        .current_dir(common::root())
        .args(["run", "sample-data/fraud", "--headless", "--llm", "openai", "--questions", "1", "--consensus", "3"])
        .args(["--no-cache", "--concurrency", "1", "--base-url", mock.base_url().as_str()])
        .arg("--out")
        .arg(run)
        .env("OPENAI_API_KEY", "test-key");
    command
}

#[tokio::test(flavor = "multi_thread")]
async fn three_drafts_agree_two_to_one_and_the_majority_speaks() {
    let builds = Arc::new(AtomicUsize::new(0));
    let mock = scripted(builds.clone(), Arc::new(AtomicBool::new(false))).await;
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let output = consensus_run(dir.path(), &mock, &run).output().await.unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(builds.load(Ordering::SeqCst), 3, "one build per draft");

    let trace = Trace::read(&run.join("trace.jsonl")).unwrap();
    assert_eq!(trace.header.settings.consensus, 3);
    let mut drafts: Vec<u32> = trace
        .records
        .iter()
        .filter_map(|r| match &r.event {
            EngineEvent::QuestionStarted { at, .. } => Some(at.draft),
            _ => None,
        })
        .collect();
    drafts.sort_unstable();
    assert_eq!(drafts, [1, 2, 3], "a critic loop per draft");
    let reached: Vec<&EngineEvent> =
        trace.records.iter().map(|r| &r.event).filter(|e| matches!(e, EngineEvent::ConsensusReached { .. })).collect();
    assert_eq!(reached.len(), 1, "recorded once every draft ended");

    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("eval_results.json")).unwrap()).unwrap();
    let row = &results["detailed_results"][0];
    assert_eq!(row["final_answer"], 2000, "the majority answer speaks: {row}");
    assert_eq!(row["correct"], true);
    let consensus = &row["consensus"];
    assert!((consensus["agreement"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12, "{consensus}");
    let mut answers: Vec<(i64, bool)> = consensus["answers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["answer"].as_i64().unwrap(), a["in_majority"].as_bool().unwrap()))
        .collect();
    answers.sort_unstable();
    assert_eq!(answers, [(2000, true), (2000, true), (2001, false)]);
    let html = std::fs::read_to_string(run.join("eval_report.html")).unwrap();
    let trust = &html[html.find("id=\"trust\"").expect("the report's trust section")..];
    assert!(trust.contains("Consensus of 3 drafts: mean agreement 67%, 0 of 1 questions unanimous"), "{trust}");
    assert!(trust.contains("2&#x2f;3 drafts agree") && trust.contains(": 2001</td>"), "the minority answer: {trust}");
    let minority = &trust[trust.find("<tr class=\"minority\">").expect("the minority draft's DAG")..];
    assert!(
        minority.contains("the DAG of draft 3, outside the majority: <code>2001</code>")
            && minority.contains("<svg class=\"dag\"")
            && minority.contains("return len(rows) + 1"),
        "collapsed, with its picture and code: {minority}"
    );
    let scorecard = &html[html.find("id=\"critic-scorecard\"").expect("the scorecard")..];
    assert!(
        scorecard
            .contains("<tr><td>drafts disagree</td><td>1</td><td>0</td><td>0</td><td>0</td><td>0%</td><td>—</td></tr>"),
        "disagreement against the grades beside the critic's: {scorecard}"
    );
    for draft in ["", "draft 2 · ", "draft 3 · "] {
        assert!(
            html.contains(&format!("<summary>{draft}Attempt 1 · passed</summary>")),
            "{draft:?} titles its attempt"
        );
    }
    let summary = &results["summary"]["consensus"];
    assert_eq!(
        (summary["k"].as_u64(), summary["questions"].as_u64(), summary["unanimous"].as_u64()),
        (Some(3), Some(1), Some(0))
    );
    assert_eq!(
        summary["against_labels"],
        json!({"flagged_right": 1, "flagged_wrong": 0, "unflagged_right": 0, "unflagged_wrong": 0}),
        "a split vote whose majority was right"
    );
}

/// The consensus run of the TUI's tests, continued idle (as a replay's derived
/// run is) through the real engine and sandbox: draft 3's answer, outside the
/// majority, is fixed by hand in draft 3 — and the consensus is recorded anew.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draft_fixed_by_hand_records_the_consensus_anew() {
    use eval_dag::domain::{AttemptAt, GeneratedDag};
    use eval_dag::engine::{self, RunOptions};
    use eval_dag::report::fold_trace;
    use eval_dag::run::{Command, HandEdit, Outcome};
    use std::time::Duration;

    let dir = tempfile::tempdir().unwrap();
    let path = consensus_trace(dir.path(), "run", [2000, 2000, 2001]);
    let trace = Trace::read(&path).unwrap();
    let prior = fold_trace(&trace);
    let (settings, parts) = common::idle_engine_parts(&trace);
    let options = RunOptions { keep_alive: true, prior: Some(prior), idle: true, ..RunOptions::default() };
    let mut handle = engine::start(parts, None, settings, options);
    let mut next = async || {
        tokio::time::timeout(Duration::from_secs(30), handle.events.recv()).await.expect("within 30 s").unwrap().1
    };

    let draft_3 = AttemptAt::new("q_01", 1).in_epoch(1, 3).iteration(1);
    let count = "def answer(rows):\n    return len(rows)\n";
    let dag: GeneratedDag = serde_json::from_value(crate::suite::tui_consensus::one_node("q_01", count)).unwrap();
    handle.commands.send(Command::TryDag { from: draft_3, edit: HandEdit::Dag { dag } }).unwrap();
    let hand = loop {
        if let EngineEvent::QuestionFinished { at, outcome, .. } = next().await {
            assert_eq!(outcome, Outcome::Drafted);
            break at;
        }
    };
    assert_eq!((hand.attempt, hand.epoch, hand.draft), (2, 1, 3), "the edit is an attempt of the draft it came from");
    handle.commands.send(Command::Accept { at: hand.iteration(1) }).unwrap();
    let consensus = loop {
        if let EngineEvent::ConsensusReached { question_id, epoch, consensus } = next().await {
            assert_eq!((question_id.as_str(), epoch), ("q_01", 1));
            break consensus;
        }
    };
    let answers: Vec<(u32, Option<Value>, bool)> =
        consensus.answers.iter().map(|a| (a.draft, a.answer.clone(), a.in_majority)).collect();
    assert_eq!(
        answers,
        [(1, Some(json!(2000)), true), (2, Some(json!(2000)), true), (3, Some(json!(2000)), true)],
        "draft 3 now speaks with the answer accepted by hand"
    );
    assert_eq!(consensus.agreement, 1.0);
    handle.commands.send(Command::CancelRun).unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn killed_in_the_middle_of_the_drafts_a_resumed_run_sends_only_the_missing_calls() {
    let (builds, held) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicBool::new(true)));
    let mock = scripted(builds.clone(), held.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let mut child = consensus_run(dir.path(), &mock, &run).stderr(std::process::Stdio::null()).spawn().unwrap();
    // One loop at a time: draft 1 ends, then draft 2's build waits on the server.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while builds.load(Ordering::SeqCst) < 2 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(builds.load(Ordering::SeqCst), 2, "draft 2's build was sent");
    let id = child.id().expect("running") as i32;
    // SAFETY: signalling a child process this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(id, libc::SIGKILL) }, 0);
    child.wait().await.unwrap();
    let before = Trace::read(&run.join("trace.jsonl")).unwrap();
    let finished = |trace: &Trace| -> Vec<u32> {
        let mut drafts: Vec<u32> = trace
            .records
            .iter()
            .filter_map(|r| match &r.event {
                EngineEvent::QuestionFinished { at, .. } => Some(at.draft),
                _ => None,
            })
            .collect();
        drafts.sort_unstable();
        drafts
    };
    assert_eq!(finished(&before), [1], "killed after draft 1, before draft 2 ended");
    let sent_before = mock.requests().len();

    held.store(false, Ordering::SeqCst);
    let resumed = tokio::process::Command::from(common::eval_dag(dir.path()))
        .current_dir(common::root())
        .args(["run", "--headless", "--no-cache", "--resume"])
        .arg(&run)
        .env("OPENAI_API_KEY", "test-key")
        .output()
        .await
        .unwrap();
    assert_eq!(resumed.status.code(), Some(0), "{}", String::from_utf8_lossy(&resumed.stderr));
    let sent: Vec<String> = mock.requests()[sent_before..].iter().map(|r| r.prompt()).collect();
    let reviews = sent.iter().filter(|p| p.contains("review one layer")).count();
    assert!(!sent.iter().any(|p| p.contains("evaluation questions")), "the questions are not asked for again");
    assert_eq!(
        (sent.len() - reviews, reviews),
        (2, 2),
        "drafts 2 and 3 built (draft 2's unanswered build sent again) and reviewed; nothing of draft 1"
    );
    let after = Trace::read(&run.join("trace.jsonl")).unwrap();
    assert_eq!(finished(&after), [1, 2, 3]);
    let reached: Vec<&EngineEvent> =
        after.records.iter().map(|r| &r.event).filter(|e| matches!(e, EngineEvent::ConsensusReached { .. })).collect();
    assert_eq!(reached.len(), 1, "recorded once every draft ended");
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("eval_results.json")).unwrap()).unwrap();
    let agreement = results["detailed_results"][0]["consensus"]["agreement"].as_f64().unwrap();
    assert!((agreement - 2.0 / 3.0).abs() < 1e-12, "{results}");
}

/// The consensus run of the TUI's tests with q_01's drafts answering `answers`, as a trace in `dir`.
fn consensus_trace(dir: &Path, name: &str, answers: [i64; 3]) -> std::path::PathBuf {
    let events = crate::suite::tui_consensus::consensus_events_of(answers);
    let header = json!({"format": "eval-dag-trace", "version": 6, "created_at": "2026-11-26T00:00:00Z",
        "settings": events[0]["settings"]});
    let mut lines = vec![header.to_string()];
    lines.extend(
        events.iter().enumerate().map(|(seq, event)| json!({"seq": seq, "t_ms": seq, "event": event}).to_string()),
    );
    let path = dir.join(format!("{name}.trace.jsonl"));
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

#[test]
fn two_consensus_runs_compare_by_their_majority_answers() {
    let dir = tempfile::tempdir().unwrap();
    // A: drafts 1 and 2 count right, 3 is off; B: two drafts off outvote the right one.
    let a = consensus_trace(dir.path(), "a", [2000, 2000, 2001]);
    let b = consensus_trace(dir.path(), "b", [2001, 2000, 2001]);
    let out = common::eval_dag(dir.path()).args(["compare", "--json"]).arg(&a).arg(&b).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "one question is no significant drop: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let compared: Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = |id: &str| compared["rows"].as_array().unwrap().iter().find(|r| r["question_id"] == id).unwrap().clone();
    let q_01 = row("q_01");
    assert_eq!(q_01["change"], "answer_changed", "the majority's answer speaks for each run: {q_01}");
    assert_eq!((&q_01["a"]["answer"], &q_01["b"]["answer"]), (&json!(2000), &json!(2001)), "{q_01}");
    assert_eq!(row("q_02")["change"], "unchanged", "unanimous in both");
}
