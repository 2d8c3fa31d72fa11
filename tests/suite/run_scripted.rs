//! The whole `eval-dag run` against a scripted OpenAI-compatible server: a DAG
//! rejected by the structural check (an invented field), then by the trial run
//! (a runtime error), then approved — with rate limits, a server error and a
//! cut-off stream on the way. Set `RECORD_SAMPLE_TRACE=1` to refresh
//! `sample-data/traces/fraud-scripted.trace.jsonl` from this run.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::dags::{fraud_dag, node};
use common::mock_llm::{MockLlm, Recorded, Reply};
use eval_dag::domain::FindingSource;
use eval_dag::run::{EngineEvent, Outcome, RunState, Stage};
use eval_dag::trace::Trace;
use serde_json::{Value, json};

pub(crate) fn script(faults: Arc<AtomicUsize>) -> impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static {
    let top = expected_top_category();
    move |request, index| {
        let prompt = request.prompt();
        if index == 0 {
            return Reply::Status(
                429,
                vec![("retry-after-ms", "50".into())],
                r#"{"error": {"message": "slow down"}}"#.into(),
            );
        }
        if prompt.contains("evaluation questions") {
            return Reply::Text(json!({"questions": [
                {"id": "q_01", "question": "Which category has the highest fraud rate?", "difficulty_rank": 2,
                 "difficulty_level": "medium", "reasoning": "needs a rate per category", "relevant_data_keys": ["category_stats"],
                 "expected_answer": top},
                // A planted wrong expected answer: the run passes it, grading marks it wrong.
                {"id": "q_02", "question": "How many transactions does the dataset hold?", "difficulty_rank": 1,
                 "difficulty_level": "easy", "reasoning": "one lookup", "relevant_data_keys": ["overview"],
                 "expected_answer": 49_999}]}).to_string());
        }
        if prompt.contains("review one layer") {
            return match faults.fetch_add(1, Ordering::SeqCst) {
                0 => Reply::Status(500, vec![], "upstream hiccup".into()),
                1 => Reply::CutOff(r#"{"is_valid": tr"#.into()),
                _ => Reply::Text(
                    r#"{"is_valid": true, "issues": [], "reasoning": "the layer does what the question needs"}"#.into(),
                ),
            };
        }
        if prompt.contains("Question q_02") {
            return Reply::Text(json!({"question_id": "q_02", "description": "read the row count",
                "nodes": [node("count", 0, json!({"overview": "dataset.overview"}), "def count(overview):\n    return overview['row_count']\n", "int")],
                "edges": [], "final_answer_node": "count"}).to_string());
        }
        let code = if prompt.contains("ZeroDivisionError") {
            "def rates(stats):\n    return {name: s['is_fraud_count'] / s['count'] for name, s in stats.items()}\n"
        } else if prompt.contains("did you mean 'is_fraud_rate'") {
            "def rates(stats):\n    return {name: s['is_fraud_count'] / (s['count'] - s['count']) for name, s in stats.items()}\n"
        } else {
            "def rates(stats):\n    return {name: s['fraud_rate'] for name, s in stats.items()}\n"
        };
        Reply::Text(format!("Here is the DAG:\n```json\n{}\n```", fraud_dag(code)))
    }
}

fn expected_top_category() -> String {
    let data: Value =
        serde_json::from_str(&std::fs::read_to_string(common::root().join("sample-data/fraud/data.json")).unwrap())
            .unwrap();
    let stats = data["category_stats"].as_object().unwrap();
    let mut names: Vec<&String> = stats.keys().collect();
    names.sort();
    let rate = |n: &String| stats[n]["is_fraud_count"].as_f64().unwrap() / stats[n]["count"].as_f64().unwrap();
    names
        .into_iter()
        .fold(None::<&String>, |best, n| match best {
            Some(b) if rate(b) >= rate(n) => Some(b),
            _ => Some(n),
        })
        .unwrap()
        .clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn reject_reject_approve_with_faults_on_the_way() {
    let mock = MockLlm::start(script(Arc::new(AtomicUsize::new(0)))).await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let output = tokio::process::Command::from(common::eval_dag(dir.path()))
        .current_dir(common::root())
        .args([
            "run",
            "sample-data/fraud",
            "--headless",
            "--llm",
            "openai",
            "--model",
            "scripted-model",
            "--questions",
            "2",
        ])
        .arg("--base-url")
        .arg(mock.base_url())
        .arg("--out")
        .arg(&out)
        .env("OPENAI_API_KEY", "test-key")
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "every DAG ran, but a graded answer is wrong: {stderr}");

    let trace = Trace::read(&out.join("trace.jsonl")).unwrap();
    let mut state = RunState::default();
    for record in &trace.records {
        state.apply(record.t_ms, &record.event);
    }
    let q1 = state.question("q_01").unwrap();
    let attempt = q1.latest().unwrap();
    assert_eq!(attempt.outcome, Some(Outcome::Passed));
    assert_eq!(attempt.iterations.len(), 3);

    let first = attempt.iterations[0].feedback.as_ref().unwrap();
    assert!(!first.is_approved);
    let finding = first.findings.iter().find(|f| f.rule.name() == "unknown_field").expect("unknown_field finding");
    assert_eq!((finding.node_id.as_deref(), finding.source), (Some("rates"), FindingSource::Structural));
    assert!(finding.message.contains("did you mean 'is_fraud_rate'"), "{}", finding.message);
    let first_stages: Vec<Stage> = attempt.iterations[0].stages.iter().map(|s| s.stage).collect();
    assert_eq!(first_stages, vec![Stage::Build, Stage::StructuralCheck], "no trial run or review of a broken DAG");

    let second = attempt.iterations[1].feedback.as_ref().unwrap();
    let runtime = second.findings.iter().find(|f| f.source == FindingSource::TrialRun).expect("trial run finding");
    assert_eq!((runtime.rule.name(), runtime.node_id.as_deref()), ("runtime_error", Some("rates")));
    assert!(runtime.message.contains("ZeroDivisionError"), "{}", runtime.message);

    assert!(attempt.iterations[2].feedback.as_ref().unwrap().is_approved);
    assert_eq!(attempt.final_answer, Some(json!(expected_top_category())));
    assert_eq!(state.question("q_02").unwrap().latest().unwrap().final_answer, Some(json!(50_000)));

    let builds: Vec<String> = mock
        .requests()
        .iter()
        .map(Recorded::prompt)
        .filter(|p| p.contains("Question q_01") && p.contains("You design small"))
        .collect();
    assert_eq!(builds.len(), 3);
    assert!(!builds[0].contains("was rejected"));
    assert!(
        builds[1].contains("[structural] node rates (unknown_field)")
            && builds[1].contains("did you mean 'is_fraud_rate'")
    );
    assert!(builds[2].contains("[trial run] node rates (runtime_error)") && builds[2].contains("ZeroDivisionError"));

    let generation = trace.records.iter().find_map(|r| match &r.event {
        EngineEvent::LlmCallFinished { key, retries, .. } if key.question_id.is_none() => Some(*retries),
        _ => None,
    });
    assert_eq!(generation, Some(1), "the rate-limited call was retried once");
    let review_retries: u32 = trace
        .records
        .iter()
        .filter_map(|r| match &r.event {
            EngineEvent::LlmCallFinished { key, retries, .. } if key.role == eval_dag::domain::LlmRole::LayerReview => {
                Some(*retries)
            }
            _ => None,
        })
        .sum();
    assert_eq!(review_retries, 2, "the server error and the cut-off stream were each retried");
    let retry_reasons: Vec<&str> = trace
        .records
        .iter()
        .filter_map(|r| match &r.event {
            EngineEvent::LlmCallRetrying { error, .. } => Some(error.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(retry_reasons.len(), 3, "every retry is in the trace: {retry_reasons:?}");
    assert!(retry_reasons[0].starts_with("rate limited"), "{retry_reasons:?}");
    assert!(state.usage.total() > 0, "token usage is recorded");

    assert_eq!(state.question("q_01").unwrap().correct(), Some(true));
    assert_eq!(state.question("q_02").unwrap().correct(), Some(false), "the planted wrong answer is graded wrong");
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("eval_results.json")).unwrap()).unwrap();
    assert_eq!(results["summary"]["grading"], json!({"graded": 2, "correct": 1, "accuracy": 0.5}));
    let q2 = results["detailed_results"].as_array().unwrap().iter().find(|r| r["question_id"] == "q_02").unwrap();
    assert_eq!((q2["correct"].clone(), q2["grades"][0]["passed"].clone()), (json!(false), json!(false)));
    let html = std::fs::read_to_string(out.join("eval_report.html")).unwrap();
    assert!(
        html.contains("✗ wrong") && html.contains("50% (1&#x2f;2)"),
        "the report shows the wrong answer and the accuracy"
    );
    // The conversation log: q_01's first build prompt whole, each rebuild only
    // what changed (the rejected DAG and the feedback), verdicts in between.
    let section = &html[html.find("id=\"q_01\"").unwrap()..];
    let section = &section[..section.find("<details class=\"question\"").unwrap_or(section.len())];
    let log = &section[section.find("Conversation log").unwrap()..];
    assert_eq!(
        log.matches("the plan in one sentence").count(),
        1,
        "the build prompt's reply format appears once, in the first build prompt (rebuilds show what changed)"
    );
    let rebuild = log.find("what changed since the last build").expect("a rebuild shows its changes");
    assert!(log[rebuild..].contains("[structural] node rates (unknown_field)"), "the feedback is among the changes");
    let order = [
        "attempt 1 · iteration 1",
        "✗ rejected: 1 finding",
        "attempt 1 · iteration 2",
        "✓ approved",
        "■ attempt 1 passed",
    ];
    let mut from = 0;
    for needle in order {
        from += log[from..].find(needle).unwrap_or_else(|| panic!("{needle:?} in order in the conversation log"));
    }

    if std::env::var_os("RECORD_SAMPLE_TRACE").is_some() {
        let target = common::root().join("sample-data/traces/fraud-scripted.trace.jsonl");
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(out.join("trace.jsonl"), target).unwrap();
    }
}

#[test]
fn the_committed_scripted_trace_still_loads_and_shows_its_rejections() {
    let trace = Trace::read(&common::root().join("sample-data/traces/fraud-scripted.trace.jsonl")).unwrap();
    let mut state = RunState::default();
    for record in &trace.records {
        state.apply(record.t_ms, &record.event);
    }
    let q1 = state.question("q_01").unwrap().latest().unwrap();
    let verdicts: Vec<bool> = q1.iterations.iter().map(|i| i.feedback.as_ref().unwrap().is_approved).collect();
    assert_eq!(verdicts, vec![false, false, true]);
    assert_eq!(state.summary.as_ref().unwrap().passed, 2);
}
