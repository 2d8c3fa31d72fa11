//! `run --metamorphic` against a scripted server: two approved DAGs, one
//! reading the first row (order dependent) and one summing a column (its
//! invariants hold), checked on the transformed copies — in the trace, the
//! results with their summary set against the grades, and `grade`.

use crate::common;

use common::dags::node;
use common::mock_llm::{MockLlm, Recorded, Reply};
use crossterm::event::{KeyCode, KeyEvent};
use eval_dag::run::EngineEvent;
use eval_dag::trace::Trace;
use serde_json::{Value, json};

fn script(request: &Recorded, _index: usize) -> Reply {
    let prompt = request.prompt();
    if prompt.contains("evaluation questions") {
        return Reply::Text(
            json!({"questions": [
                {"id": "q_01", "question": "What is the amount of a typical transaction?", "difficulty_rank": 1,
                 "difficulty_level": "easy", "expected_answer": 12.53},
                {"id": "q_02", "question": "How much money do the transactions move in total?", "difficulty_rank": 2,
                 "difficulty_level": "medium", "expected_answer": 68808.27}]})
            .to_string(),
        );
    }
    if prompt.contains("review one layer") {
        return Reply::Text(json!({"is_valid": true, "issues": [], "reasoning": "fine"}).to_string());
    }
    let (id, code) = if prompt.contains("Question q_01") {
        ("q_01", "def answer(rows):\n    return rows[0]['amt']\n")
    } else {
        ("q_02", "def answer(rows):\n    return round(sum(r['amt'] for r in rows), 2)\n")
    };
    Reply::Text(
        json!({"question_id": id, "description": "planted",
            "nodes": [node("answer", 0, json!({"rows": "dataset.transactions"}), code, "float")],
            "edges": [], "final_answer_node": "answer"})
        .to_string(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn approved_dags_are_checked_on_transformed_copies_and_the_summary_meets_the_grades() {
    let mock = MockLlm::start(script).await;
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let output = tokio::process::Command::from(common::eval_dag(dir.path()))
        .current_dir(common::root())
        .args(["run", "sample-data/fraud", "--headless", "--llm", "openai", "--questions", "2", "--metamorphic"])
        .arg("--base-url")
        .arg(mock.base_url())
        .arg("--out")
        .arg(&run)
        .env("OPENAI_API_KEY", "test-key")
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");

    let trace = Trace::read(&run.join("trace.jsonl")).unwrap();
    assert!(trace.header.settings.metamorphic, "the trace says the run asked for the checks");
    let checked: Vec<(String, bool)> = trace
        .records
        .iter()
        .filter_map(|r| match &r.event {
            EngineEvent::MetamorphicChecked { at, metamorphic } => {
                Some((at.question_id.to_string(), metamorphic.order_dependent))
            }
            _ => None,
        })
        .collect();
    let mut checked = checked;
    checked.sort();
    assert_eq!(checked, [("q_01".to_string(), true), ("q_02".to_string(), false)]);

    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("eval_results.json")).unwrap()).unwrap();
    let row = |id: &str| {
        results["detailed_results"].as_array().unwrap().iter().find(|r| r["question_id"] == id).unwrap().clone()
    };
    let q_02 = row("q_02");
    let sums: Vec<&str> =
        q_02["metamorphic"]["checks"].as_array().unwrap().iter().map(|c| c["relation"].as_str().unwrap()).collect();
    assert_eq!(sums, ["holds", "doubles", "holds", "scales"]);
    assert_eq!(row("q_01")["metamorphic"]["checks"][0]["broken"], true);
    assert_eq!(
        results["summary"]["metamorphic"],
        json!({"checked": 2, "broken": 1, "order_dependent": 1,
            "against_labels": {"flagged_right": 1, "flagged_wrong": 0, "unflagged_right": 1, "unflagged_wrong": 0}}),
        "the first row's amount happens to be right: a broken invariant is a warning, not a grade"
    );

    let html = std::fs::read_to_string(run.join("eval_report.html")).unwrap();
    let trust = &html[html.find("id=\"trust\"").expect("the report's trust section")..];
    assert!(trust.contains("1 of 2 checked answers break an invariant (1 order dependent)"), "{trust}");
    assert!(trust.contains("<li class=\"broken\">shuffle: other"), "{trust}");
    assert!(trust.contains("<li class=\"holds\">duplicate: doubles"), "{trust}");
    let scorecard = &html[html.find("id=\"critic-scorecard\"").expect("the scorecard")..];
    assert!(
        scorecard.contains(
            "<tr><td>broken invariant</td><td>1</td><td>0</td><td>1</td><td>0</td><td>0%</td><td>0%</td></tr>"
        ),
        "a broken invariant against the grades, in the scorecard: {scorecard}"
    );

    // The question screen's output tab lists the checks under the approved iteration.
    let state = eval_dag::report::fold_trace(&trace);
    let mut app = eval_dag::tui::App::new(state, eval_dag::tui::Theme::dark(), None, None);
    for code in [KeyCode::Enter, KeyCode::Char('t')] {
        app.handle_key(KeyEvent::from(code));
    }
    let screen = common::tui::screen(&app, 160, 60);
    assert!(screen.contains("✗ breaks (shuffle) other → "), "{screen}");
    assert!(screen.contains("✓ holds (duplicate) holds → 12.53"), "{screen}");
    // The scorecard screen sets the broken invariant against the same grades.
    for code in [KeyCode::Esc, KeyCode::Char('c')] {
        app.handle_key(KeyEvent::from(code));
    }
    let screen = common::tui::screen(&app, 160, 60);
    assert!(screen.contains("label-free signals against the grades"), "{screen}");
    assert!(
        screen.contains("broken invariant           1         0           1           0             0%             0%"),
        "{screen}"
    );

    let output = common::eval_dag(dir.path()).arg("grade").arg(&run).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(
            "metamorphic: 1 of 2 checked answers break an invariant (1 order dependent) · flagged answers wrong 0% \
             (0 of 1), unflagged answers wrong 0% (0 of 1)"
        ),
        "{stdout}"
    );
}
