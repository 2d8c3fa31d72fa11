//! `grade_answer`: order of grades, call keys, missing answers.

use super::rubric::PLAIN_RUBRIC;
use super::*;

#[tokio::test]
async fn grades_come_in_order_with_keys_for_replay() {
    let script = Script::default()
        .on("Task: do t", json!({"output": "T"}))
        .on("Criterion: is j?", said(json!(false), "no"))
        .on_text("Is the number plausible?", "5");
    let question = question(Some(json!(0.0058)));
    let outputs = IndexMap::new();
    let panel = JudgePanel::new(vec![fixture("valid.toml"), Judge::parse(PLAIN_RUBRIC, "inline").unwrap()]).unwrap();
    let options = MatchOptions::default();
    let answer = json!(0.006);
    let input = GradeInput {
        question: &question,
        options: &options,
        final_answer: Some(&answer),
        narrative: None,
        node_outputs: &outputs,
        at: &JudgedAt::final_answer(AttemptAt::new("q_01", 2)),
    };
    let grades = grade_answer(&input, &panel, &script).await;
    let methods: Vec<&str> = grades.iter().map(|g| g.method.name()).collect();
    assert_eq!(methods, ["ground_truth", "fixture", "plausible"]);
    assert!(grades[0].passed);
    let mut keys = script.keys();
    keys.sort();
    let expected: Vec<CallKey> = [(1, 0), (1, 1), (2, 0)]
        .into_iter()
        .map(|(iteration, layer)| CallKey {
            question_id: Some("q_01".into()),
            role: LlmRole::Judge,
            attempt: 2,
            iteration,
            layer: Some(layer),
            judge: None,
            epoch: 1,
            draft: 1,
            repair: 0,
            judge_repeat: 1,
            baseline: None,
        })
        .collect();
    assert_eq!(keys, expected);

    // The same answer in epoch 2, judged a second time: every key says so.
    let script = Script::default()
        .on("Task: do t", json!({"output": "T"}))
        .on("Criterion: is j?", said(json!(false), "no"))
        .on_text("Is the number plausible?", "5");
    let again = JudgedAt::final_answer(AttemptAt::new("q_01", 2).in_epoch(2, 1)).repeated(2);
    grade_answer(&GradeInput { at: &again, ..input }, &panel, &script).await;
    let keys = script.keys();
    assert_eq!(keys.len(), 3);
    assert!(keys.iter().all(|k| (k.epoch, k.judge_repeat, k.attempt) == (2, 2, 2)), "{keys:?}");
}

#[tokio::test]
async fn judge_calls_on_a_rejected_iteration_name_that_iteration_and_the_judge() {
    let script = Script::default()
        .on("Task: do t", json!({"output": "T"}))
        .on("Criterion: is j?", said(json!(false), "no"))
        .on_text("Is the number plausible?", "5");
    let question = question(None);
    let outputs = IndexMap::new();
    let panel = JudgePanel::new(vec![fixture("valid.toml"), Judge::parse(PLAIN_RUBRIC, "inline").unwrap()]).unwrap();
    let options = MatchOptions::default();
    let answer = json!(0.006);
    let input = GradeInput {
        question: &question,
        options: &options,
        final_answer: Some(&answer),
        narrative: None,
        node_outputs: &outputs,
        at: &JudgedAt::rejected(AttemptAt::new("q_01", 2), 4),
    };
    assert_eq!(grade_answer(&input, &panel, &script).await.len(), 2);
    let mut keys = script.keys();
    keys.sort();
    let expected: Vec<CallKey> = [(1, 0), (2, 0), (1, 1)]
        .into_iter()
        .map(|(judge, step)| CallKey {
            question_id: Some("q_01".into()),
            role: LlmRole::Judge,
            attempt: 2,
            iteration: 4,
            layer: Some(step),
            judge: Some(judge),
            epoch: 1,
            draft: 1,
            repair: 0,
            judge_repeat: 1,
            baseline: None,
        })
        .collect();
    assert_eq!(keys, expected, "apart from the final answer's keys, one set per iteration");
}

#[tokio::test]
async fn without_an_answer_every_method_fails_and_no_llm_is_called() {
    let script = Script::default();
    let grades = grade_with(vec![fixture("valid.toml"), fixture("faithfulness.toml")], &script, None).await;
    assert_eq!(grades.len(), 2);
    for grade in &grades {
        assert_eq!((grade.score, grade.passed, grade.error.as_deref()), (Some(0.0), false, None));
        assert_eq!(grade.reason, "no answer was produced");
    }
    assert!(script.prompts().is_empty());
    let json = serde_json::to_value(&grades[0]).unwrap();
    assert_eq!(
        json,
        json!({"method": "fixture", "score": 0.0, "passed": false, "threshold": 0.5, "reason": "no answer was produced"})
    );
}
