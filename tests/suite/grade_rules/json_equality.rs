//! JSON equality: parsing, top-level sorting, number normalisation, operators.

use super::*;

fn s(text: &str) -> Value {
    Value::String(text.to_string())
}

#[test]
fn json_equality_follows_the_documented_examples() {
    let equal = json_equality(&s(r#"{"a": 1}"#), &s(r#"{"a": 1}"#), &exact_operator).unwrap();
    assert_eq!((equal.score, equal.passed), (1.0, true));
    let differ = json_equality(&s(r#"{"a": 1}"#), &s(r#"{"a": 2}"#), &exact_operator).unwrap();
    assert_eq!((differ.score, differ.passed), (0.0, false));
    assert_eq!(differ.reason, r#"$: expected {"a":2}, got {"a":1}"#);
    let only_a = |p: &Value, r: &Value| {
        let same = p["a"] == r["a"];
        MatchResult::from_parts(usize::from(same), 1, (!same).then(|| "a differs".into()), ScoreMode::All, 1.0)
    };
    let custom = json_equality(&s(r#"{"a": 1, "b": 2}"#), &s(r#"{"a": 1, "c": 3}"#), &only_a).unwrap();
    assert_eq!(custom.score, 1.0);
    assert_eq!(json_equality(&s(r#"{"a": 1}"#), &s(r#"{"a": 2}"#), &only_a).unwrap().score, 0.0);
    let strict = json_equality(&s(r#"{"a": 1, "b": 2}"#), &s(r#"{"a": 1, "c": 3}"#), &exact_operator).unwrap();
    assert_eq!(strict.score, 0.0);
}

#[test]
fn json_equality_sorts_top_level_lists_only() {
    assert_eq!(json_equality(&s("[1, 2]"), &s("[2, 1]"), &exact_operator).unwrap().score, 1.0);
    assert_eq!(
        json_equality(&s(r#"[{"c": 3}, {"b": 2, "a": 1}]"#), &s(r#"[{"a": 1, "b": 2}, {"c": 3}]"#), &exact_operator)
            .unwrap()
            .score,
        1.0
    );
    assert_eq!(json_equality(&s("[[1, 2]]"), &s("[[2, 1]]"), &exact_operator).unwrap().score, 0.0);
    assert_eq!(json_equality(&s("[1, 2, 2]"), &s("[2, 1, 1]"), &exact_operator).unwrap().score, 0.0);
    let not_list = json_equality(&s(r#"{"a": 1}"#), &s("[1]"), &exact_operator).unwrap();
    assert_eq!(not_list.score, 0.0);
    assert_eq!(not_list.reason, r#"$: expected a list, got {"a":1}"#);
}

#[test]
fn json_equality_normalises_numbers() {
    assert_eq!(json_equality(&s(r#"{"a": 1.0}"#), &s(r#"{"a": 1}"#), &exact_operator).unwrap().score, 1.0);
    assert_eq!(json_equality(&s("[2.0, 1]"), &s("[1.0, 2]"), &exact_operator).unwrap().score, 1.0);
    assert_eq!(json_equality(&s("0.5"), &s("0.50"), &exact_operator).unwrap().score, 1.0);
    assert_eq!(json_equality(&s("1.5"), &s("1"), &exact_operator).unwrap().score, 0.0);
}

#[test]
fn json_equality_reads_fenced_and_wrapped_json() {
    let fenced = s("```json\n{\"a\": 1}\n```");
    assert_eq!(json_equality(&fenced, &s(r#"{"a":1}"#), &exact_operator).unwrap().score, 1.0);
    let prose = s("Here is the result:\n```\n[1, 2]\n```\nDone.");
    assert_eq!(json_equality(&prose, &s("[2, 1]"), &exact_operator).unwrap().score, 1.0);
    let inline = s(r#"The answer is {"a": 1,} as computed."#);
    assert_eq!(json_equality(&inline, &s(r#"{"a": 1}"#), &exact_operator).unwrap().score, 1.0);
    // Values that are not strings are taken as they are.
    assert_eq!(json_equality(&json!([1, 2]), &s("[2, 1]"), &exact_operator).unwrap().score, 1.0);
}

#[test]
fn json_equality_reports_which_side_failed_to_parse() {
    let bad_prediction = json_equality(&s("not json"), &s(r#"{"a": 1}"#), &exact_operator).unwrap_err();
    assert!(matches!(bad_prediction, JsonEqualityError::Prediction(_)));
    assert!(bad_prediction.to_string().starts_with("the answer is not JSON: "), "{bad_prediction}");
    let bad_reference = json_equality(&s("[1]"), &s("{oops"), &exact_operator).unwrap_err();
    assert!(matches!(bad_reference, JsonEqualityError::Reference(_)));
}

#[test]
fn json_equality_with_the_tolerant_rules() {
    let options = MatchOptions::default();
    let rules = rules_operator(&options);
    assert_eq!(json_equality(&s(r#"{"rate": 0.121}"#), &s(r#"{"rate": 0.12}"#), &rules).unwrap().score, 1.0);
    assert_eq!(json_equality(&s(r#"{"rate": 0.121}"#), &s(r#"{"rate": 0.12}"#), &exact_operator).unwrap().score, 0.0);
}

#[test]
fn json_equality_as_the_ground_truth_method() {
    let exact = MatchOptions { method: MatchMethod::JsonEquality, ..MatchOptions::default() };
    let grade = grade_ground_truth(&s("[2, 1]"), Some(&s("```json\n[1, 2]\n```")), &exact);
    assert_eq!((grade.method.name(), grade.passed), ("json_equality", true));
    let tolerant = MatchOptions { json_compare: JsonCompare::Rules, ..exact.clone() };
    assert!(!grade_ground_truth(&json!(0.12), Some(&json!(0.121)), &exact).passed);
    assert!(grade_ground_truth(&json!(0.12), Some(&json!(0.121)), &tolerant).passed);
    let not_json = grade_ground_truth(&json!([1]), Some(&s("one")), &exact);
    assert_eq!((not_json.score, not_json.error.as_deref()), (Some(0.0), None));
    assert!(not_json.reason.starts_with("the answer is not JSON"), "{}", not_json.reason);
    let bad_reference = grade_ground_truth(&s("{oops"), Some(&json!(1)), &exact);
    assert_eq!((bad_reference.score, bad_reference.passed), (None, false));
    assert!(bad_reference.error.unwrap().starts_with("the expected answer is not JSON"));
}
