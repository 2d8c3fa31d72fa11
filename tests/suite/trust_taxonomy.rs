//! The findings taxonomy and convergence, from a planted oscillation: a
//! scripted model (prose around fenced JSON, as real models answer) builds a
//! DAG whose node `rates` divides by zero (iteration 1), fixes it but counts
//! instead of dividing so the reviewer rejects it (2), goes back to its
//! iteration-1 code and the ZeroDivisionError with it (3), then gets it right
//! (4). The taxonomy, eval_results.json, the report and the diff screen all
//! flag it. Set `RECORD_OSCILLATION_TRACE=1` to refresh
//! `sample-data/traces/oscillation-scripted.trace.jsonl` from this run; the
//! screens' snapshots are drawn from that committed trace.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::dags::{fraud_dag, node};
use common::mock_llm::{MockLlm, Recorded, Reply};
use common::press;
use common::tui::{replay_app, screen};
use eval_dag::tui::Screen;
use serde_json::{Value, json};

/// The committed trace of the planted oscillation.
const OSCILLATION: &str = "sample-data/traces/oscillation-scripted.trace.jsonl";

/// Divides by zero.
const DIVIDES_BY_ZERO: &str = "def rates(stats):\n    return {name: s['is_fraud_count'] / (s['count'] - s['count']) for name, s in stats.items()}\n";
/// Runs, but counts frauds instead of a rate.
const COUNTS: &str = "def rates(stats):\n    # variant B: frauds per category\n    return {name: s['is_fraud_count'] for name, s in stats.items()}\n";
/// Right.
const RATES: &str =
    "def rates(stats):\n    return {name: s['is_fraud_count'] / s['count'] for name, s in stats.items()}\n";

/// `value` as a model writes it: a sentence, fenced JSON, a sentence.
fn prose(value: &Value) -> String {
    format!("Sure — here it is.\n\n```json\n{value:#}\n```\n\nLet me know if anything needs changing.")
}

fn script(builds: Arc<AtomicUsize>) -> impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static {
    move |request, _| {
        let prompt = request.prompt();
        if prompt.contains("evaluation questions") {
            return Reply::Text(prose(&json!({"questions": [
                {"id": "q_01", "question": "Which category has the highest fraud rate?", "difficulty_rank": 1,
                 "difficulty_level": "medium", "reasoning": "a rate per category", "relevant_data_keys": ["category_stats"]},
                {"id": "q_02", "question": "How many transactions does the dataset hold?", "difficulty_rank": 2,
                 "difficulty_level": "easy", "reasoning": "one lookup", "relevant_data_keys": ["overview"]}]})));
        }
        if prompt.contains("review one layer") {
            let review = if prompt.contains("variant B") {
                json!({"is_valid": false, "reasoning": "the node counts frauds; the question asks for a rate",
                       "issues": [{"node_id": "rates", "message": "divide the fraud count by the count"}]})
            } else {
                json!({"is_valid": true, "issues": [], "reasoning": "the layer does what the question needs"})
            };
            return Reply::Text(prose(&review));
        }
        if prompt.contains("Question q_02") {
            return Reply::Text(prose(&json!({"question_id": "q_02", "description": "read the row count",
                "nodes": [node("count", 0, json!({"overview": "dataset.overview"}), "def count(overview):\n    return overview['row_count']\n", "int")],
                "edges": [], "final_answer_node": "count"})));
        }
        let code = match builds.fetch_add(1, Ordering::SeqCst) {
            0 | 2 => DIVIDES_BY_ZERO,
            1 => COUNTS,
            _ => RATES,
        };
        Reply::Text(prose(&fraud_dag(code)))
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_planted_oscillation_is_flagged_in_the_results_the_report_and_the_diff() {
    let mock = MockLlm::start(script(Arc::new(AtomicUsize::new(0)))).await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let output = tokio::process::Command::from(common::eval_dag(dir.path()))
        .current_dir(common::root())
        .args(["run", "sample-data/fraud", "--headless", "--llm", "openai", "--model", "scripted-model"])
        .args(["--questions", "2", "--max-iterations", "4", "--concurrency", "1"])
        .arg("--base-url")
        .arg(mock.base_url())
        .arg("--out")
        .arg(&out)
        .env("OPENAI_API_KEY", "test-key")
        .output()
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));

    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("eval_results.json")).unwrap()).unwrap();
    let taxonomy = &results["findings_taxonomy"];
    let groups = taxonomy["groups"].as_array().unwrap();
    let zero = groups.iter().find(|g| g["exception"] == "ZeroDivisionError").expect("a ZeroDivisionError group");
    assert_eq!((zero["source"].as_str(), zero["rule"].as_str()), (Some("trial_run"), Some("runtime_error")));
    assert_eq!(
        (&zero["count"], &zero["questions"], &zero["resolved"], &zero["iterations_caused"], &zero["oscillations"]),
        (&json!(2), &json!(["q_01"]), &json!(2), &json!(2), &json!(1)),
        "{zero:#}"
    );
    assert!(zero["tokens"].as_u64().unwrap() > 0, "the rebuilds it caused spent tokens");
    let semantic = groups.iter().find(|g| g["source"] == "semantic").expect("the reviewer's rejection");
    assert_eq!((&semantic["count"], &semantic["oscillations"]), (&json!(1), &json!(0)));
    let oscillations: Vec<(String, u64, String)> = taxonomy["oscillations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["kind"].as_str().unwrap().to_string(), o["iteration"].as_u64().unwrap(), o["node_id"].to_string()))
        .collect();
    let expected = [("finding_back", 3, "\"rates\""), ("node_reverted", 3, "\"rates\"")];
    assert_eq!(oscillations, expected.map(|(k, i, n)| (k.to_string(), i, n.to_string())));
    assert_eq!(taxonomy["oscillations"][0]["resolved_at"], 2);
    assert_eq!(taxonomy["oscillations"][1]["to_iteration"], 1);
    let convergence = &results["convergence"];
    assert_eq!(convergence["run"]["approved_at"], json!([1, 0, 0, 1]), "q_02 at once, q_01 at the fourth");
    assert_eq!(convergence["by_difficulty"]["medium"]["approved_at"], json!([0, 0, 0, 1]));

    let html = std::fs::read_to_string(out.join("eval_report.html")).unwrap();
    let section = &html[html.find("id=\"findings-taxonomy\"").unwrap()..];
    let section = &section[..section.find("</section>").unwrap()];
    assert!(section.contains("trial_run · runtime_error · ZeroDivisionError</text>"), "{section}");
    assert!(section.contains("iteration 3: back again: [trial run] rates runtime_error (resolved in iteration 2)"));
    assert!(section.contains("iteration 3: node rates reverted to iteration 1&#x27;s code"), "{section}");
    assert!(html.contains("<svg class=\"chart convergence\""));

    let trace = out.join("trace.jsonl");
    let mut app = replay_app(trace.to_str().unwrap());
    press(&mut app, "\n");
    assert_eq!(app.current_question().map(|q| q.question.id.as_str()), Some("q_01"));
    press(&mut app, "hd");
    let diff = screen(&app, 160, 48);
    assert!(diff.contains("iteration 2 → 3"), "{diff}");
    assert!(diff.contains("↺ back again: [trial run] rates runtime_error (resolved in iteration 2)"), "{diff}");
    assert!(diff.contains("↺ node rates reverted to iteration 1's code"), "{diff}");
    press(&mut app, "h");
    let earlier = screen(&app, 160, 48);
    assert!(earlier.contains("iteration 1 → 2") && !earlier.contains("↺"), "nothing oscillates at 2: {earlier}");

    if std::env::var_os("RECORD_OSCILLATION_TRACE").is_some() {
        std::fs::copy(&trace, common::root().join(OSCILLATION)).unwrap();
    }
}

#[test]
fn the_taxonomy_screen_lists_the_groups_and_narrows_the_dashboard_to_one() {
    for (width, height) in [(80, 24), (160, 48)] {
        let mut app = replay_app(OSCILLATION);
        assert_eq!(app.visible().len(), 2);
        press(&mut app, "T");
        assert_eq!(app.screen(), Screen::Taxonomy);
        let text = screen(&app, width, height);
        assert!(text.contains("findings taxonomy") && text.contains("ZeroDivisionError"), "{text}");
        assert!(text.contains("↺ back again") && text.contains("reverted to iteration 1's code"), "{text}");
        // The groups: ZeroDivisionError (2 findings) first, the reviewer's below.
        press(&mut app, "j\n");
        assert_eq!(app.screen(), Screen::Dashboard);
        let only = app.visible();
        assert_eq!(only.len(), 1, "the group hit q_01 only");
        assert_eq!(app.state().questions[only[0]].question.id, "q_01");
        let text = screen(&app, 160, 48);
        assert!(text.contains("questions: semantic · "), "the header names the group: {text}");
        press(&mut app, "\x1b");
        assert_eq!(app.visible().len(), 2, "esc shows every question again");
        assert!(!screen(&app, 160, 48).contains("questions: semantic"));
    }
}
