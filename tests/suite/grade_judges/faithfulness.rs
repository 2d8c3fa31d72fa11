//! Answer faithfulness: the formula and the three LLM steps.

use super::*;

#[test]
fn faithfulness_is_the_share_of_claims_not_contradicted() {
    use ClaimVerdict::{Contradicted, Supported, Unknown};
    assert_eq!(faithfulness_score(&[], false), 1.0);
    assert_eq!(faithfulness_score(&[], true), 1.0);
    assert_eq!(faithfulness_score(&[Supported, Contradicted, Unknown], false), 2.0 / 3.0);
    assert_eq!(faithfulness_score(&[Supported, Contradicted, Unknown], true), 1.0 / 3.0);
    assert_eq!(faithfulness_score(&[Unknown, Unknown], false), 1.0);
    assert_eq!(faithfulness_score(&[Unknown, Unknown], true), 0.0);
    assert_eq!(faithfulness_score(&[Contradicted], false), 0.0);
}

fn faithfulness_script(verdicts: Value) -> Script {
    Script::default()
        .on(
            "List the factual claims",
            json!({"claims": ["The fraud share is 0.58%.", "Fraud is rising.", "Data covers 2020."]}),
        )
        .on("List the facts these outputs establish", json!({"truths": ["step_1 computed a fraud share of 0.0058."]}))
        .on("For each claim", json!({"verdicts": verdicts}))
}

#[tokio::test]
async fn faithfulness_judges_claims_against_node_outputs() {
    let verdicts = json!([
        {"reason": "matches step_1", "verdict": "supported"},
        {"reason": "step_1 shows no trend", "verdict": "contradicted"},
        {"reason": "nothing about years", "verdict": "idk"},
    ]);
    let script = faithfulness_script(verdicts.clone());
    let grade = grade_one(fixture("faithfulness.toml"), &script).await;
    assert_eq!(grade.score, Some(1.0 / 3.0));
    assert!(!grade.passed);
    assert_eq!(
        grade.reason,
        r#"1 of 3 claims supported, 1 contradicted, 1 unknown; contradicted: "Fraud is rising." (step_1 shows no trend)"#
    );
    let prompts = script.prompts();
    assert!(prompts[script.call_index("List the facts")].contains("step_1: 0.0058"));
    assert!(prompts[script.call_index("List the facts")].contains("at most 10 facts"));
    assert!(prompts[script.call_index("For each claim")].contains("2. Fraud is rising."));
    assert!(script.max_in_flight.load(Ordering::SeqCst) >= 2, "claims and truths run together");

    let lenient = Judge::parse("name = \"f\"\nkind = \"faithfulness\"", "inline").unwrap();
    let grade = grade_one(lenient, &faithfulness_script(verdicts)).await;
    assert_eq!((grade.score, grade.passed), (Some(2.0 / 3.0), true));
}

#[tokio::test]
async fn faithfulness_without_claims_scores_one_and_bad_verdicts_are_errors() {
    let script = Script::default()
        .on("List the factual claims", json!({"claims": []}))
        .on("List the facts these outputs establish", json!({"truths": []}));
    let grade = grade_one(fixture("faithfulness.toml"), &script).await;
    assert_eq!((grade.score, grade.reason.as_str()), (Some(1.0), "the answer makes no claims"));
    assert_eq!(script.prompts().len(), 2);

    let short = faithfulness_script(json!([{"verdict": "supported"}]));
    let grade = grade_one(fixture("faithfulness.toml"), &short).await;
    assert_eq!(grade.error.as_deref(), Some("1 verdicts for 3 claims"));
    let odd = faithfulness_script(json!([{"verdict": "supported"}, {"verdict": "maybe"}, {"verdict": "no"}]));
    let grade = grade_one(fixture("faithfulness.toml"), &odd).await;
    assert_eq!(grade.error.as_deref(), Some("verdict 2 is not supported, contradicted or unknown"));
}

#[tokio::test]
async fn a_judge_reply_in_prose_is_repaired_under_the_same_key() {
    let script = Script::default()
        .on("Your reply could not be read", json!({"claims": ["The fraud share is 0.58%."]}))
        .on_text("List the factual claims", "The answer makes one claim about the fraud share.")
        .on("List the facts these outputs establish", json!({"truths": ["step_1 computed 0.0058."]}))
        .on("For each claim", json!({"verdicts": [{"reason": "matches step_1", "verdict": "supported"}]}));
    let prompts = std::sync::Arc::new(eval_dag::prompts::Prompts::load(None).unwrap());
    let panel = JudgePanel::new(vec![fixture("faithfulness.toml")])
        .unwrap()
        .with_repairs(eval_dag::llm::Repairs::new(2, prompts));
    let (question, options) = (question(None), MatchOptions::default());
    let outputs: IndexMap<NodeId, Value> = [("step_1".into(), json!(0.0058))].into();
    let answer = json!(0.0058);
    let input = GradeInput {
        question: &question,
        options: &options,
        final_answer: Some(&answer),
        narrative: None,
        node_outputs: &outputs,
        at: &JudgedAt::final_answer(AttemptAt::new("q_01", 1)),
    };
    let grades = grade_answer(&input, &panel, &script).await;
    assert_eq!(grades[0].score, Some(1.0), "{:?}", grades[0]);
    let claims: Vec<u32> = script.keys().iter().filter(|k| k.layer == Some(0)).map(|k| k.repair).collect();
    assert_eq!(claims, vec![0, 1], "the claims step asked once more, under its own key");
    let repair = &script.prompts()[script.call_index("Your reply could not be read")];
    assert!(repair.contains("holds no JSON object") && repair.contains("\"claims\""), "{repair}");
}
