//! Rubric judges: reply parsing, normalisation, errors.

use super::*;

#[test]
fn rubric_replies_are_parsed_or_rejected() {
    let plain = |text| parse_rubric_reply(text, RubricOutput::Plain).map(|r| r.raw);
    assert_eq!(plain("4"), Ok(4.0));
    assert_eq!(plain("  3,5 \n"), Ok(3.5));
    assert_eq!(plain("-1.25"), Ok(-1.25));
    for bad in ["Score: 4", "4 out of 5", "", "four", "[RESULT] 4 [END]", "3,5,1"] {
        let err = plain(bad).unwrap_err().to_string();
        assert!(err.contains("the reply holds no score (expected a number alone)"), "{bad}: {err}");
    }
    let tagged =
        parse_rubric_reply("[FEEDBACK] Mostly right,\nminor slip. [RESULT] 4 [END]", RubricOutput::Tagged).unwrap();
    assert_eq!(tagged.raw, 4.0);
    assert_eq!(tagged.feedback.as_deref(), Some("Mostly right,\nminor slip."));
    let bare = parse_rubric_reply("I think... [result] 2,5 [end]", RubricOutput::Tagged).unwrap();
    assert_eq!((bare.raw, bare.feedback), (2.5, None));
    for bad in ["4", "[RESULT] four [END]", "[FEEDBACK] ok [RESULT] 4"] {
        let err = parse_rubric_reply(bad, RubricOutput::Tagged).unwrap_err().to_string();
        assert!(err.contains("expected [RESULT] <number> [END]"), "{bad}: {err}");
    }
}

#[test]
fn rubric_scores_are_normalised_and_clamped() {
    assert_eq!(normalise_score(3.0, 1.0, 5.0), 0.5);
    assert_eq!(normalise_score(1.0, 1.0, 5.0), 0.0);
    assert_eq!(normalise_score(5.0, 1.0, 5.0), 1.0);
    assert_eq!(normalise_score(7.0, 1.0, 5.0), 1.0);
    assert_eq!(normalise_score(-3.0, 1.0, 5.0), 0.0);
    assert_eq!(normalise_score(3.0, 2.0, 2.0), 0.0);
}

pub(crate) const PLAIN_RUBRIC: &str = r#"
name = "plausible"
kind = "rubric"
criteria = "Is the number plausible?"
inputs = ["question", "answer", "node_outputs"]
level = [{ score = 1, description = "impossible" }, { score = 5, description = "plausible" }]
"#;

#[tokio::test]
async fn a_rubric_judge_scores_one_reply() {
    let script = Script::default().on_text("Is the number plausible?", " 4,5 ");
    let grade = grade_one(Judge::parse(PLAIN_RUBRIC, "inline").unwrap(), &script).await;
    assert_eq!((grade.score, grade.passed, grade.threshold), (Some(0.875), true, 0.5));
    assert_eq!(grade.reason, "4.5 on 1-5");
    let calls = script.calls.lock().unwrap().clone();
    assert_eq!(calls.len(), 1);
    assert!(calls[0].schema.is_none(), "a rubric's reply is free text");
    let prompt = user_prompt(&calls[0]);
    assert!(prompt.contains("- 1: impossible\n- 5: plausible"), "{prompt}");
    assert!(prompt.contains("step_1: 0.0058"), "{prompt}");

    let script = Script::default().on_text("Is the value plausible?", "[FEEDBACK] Odd but possible. [RESULT] 3 [END]");
    let grade = grade_one(fixture("rubric_valid.toml"), &script).await;
    assert_eq!((grade.score, grade.passed, grade.threshold), (Some(0.5), false, 1.0));
    assert_eq!(grade.reason, "3 on 1-5: doubtful — Odd but possible.");
}

#[tokio::test]
async fn an_unparseable_rubric_reply_is_an_error_not_a_zero() {
    let script = Script::default().on_text("Is the number plausible?", "I would give it a 4.");
    let grade = grade_one(Judge::parse(PLAIN_RUBRIC, "inline").unwrap(), &script).await;
    assert_eq!((grade.score, grade.passed), (None, false));
    assert!(grade.error.unwrap().contains("the reply holds no score"));
    let script = Script::default().on_text("Is the number plausible?", "9");
    let grade = grade_one(Judge::parse(PLAIN_RUBRIC, "inline").unwrap(), &script).await;
    assert_eq!(grade.score, Some(1.0));
    assert_eq!(grade.reason, "9 on 1-5 (outside the scale, clamped)");
}
