//! `run --consensus 3` against a scripted server whose builder gives one of
//! three drafts another DAG: three critic loops per question, the drafts'
//! answers compared, agreement 2/3 and the majority answer speaking for the
//! question — in the trace, the state and the results.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::common;

use common::dags::node;
use common::mock_llm::{MockLlm, Reply};
use eval_dag::run::EngineEvent;
use eval_dag::trace::Trace;
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread")]
async fn three_drafts_agree_two_to_one_and_the_majority_speaks() {
    let builds = Arc::new(AtomicUsize::new(0));
    let counter = builds.clone();
    let mock = MockLlm::start(move |request, _| {
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
        // The third build of the three counts one row too many.
        let code = match counter.fetch_add(1, Ordering::SeqCst) {
            2 => "def answer(rows):\n    return len(rows) + 1\n",
            _ => "def answer(rows):\n    return len(rows)\n",
        };
        Reply::Text(
            json!({"question_id": "q_01", "description": "count",
                "nodes": [node("answer", 0, json!({"rows": "dataset.transactions"}), code, "int")],
                "edges": [], "final_answer_node": "answer"})
            .to_string(),
        )
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let output = tokio::process::Command::from(common::eval_dag(dir.path()))
        .current_dir(common::root())
        .args(["run", "sample-data/fraud", "--headless", "--llm", "openai", "--questions", "1", "--consensus", "3"])
        .arg("--base-url")
        .arg(mock.base_url())
        .arg("--out")
        .arg(&run)
        .env("OPENAI_API_KEY", "test-key")
        .output()
        .await
        .unwrap();
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
