//! Ground-truth grading without an LLM: matching rules, JSON equality, the
//! questions file and accuracy summaries.

use eval_dag::domain::DifficultyLevel;
use eval_dag::domain::Grade;
use eval_dag::grade::{
    GradeError, JsonCompare, JsonEqualityError, MatchMethod, MatchOptions, MatchResult, ScoreMode, exact_operator,
    grade_ground_truth, json_equality, match_values, parse_questions_jsonl, read_questions_file, rules_operator,
    summarise,
};
use serde_json::{Value, json};

fn check(expected: Value, got: Value) -> MatchResult {
    match_values(&expected, &got, &MatchOptions::default())
}

fn with(overrides: Value) -> MatchOptions {
    let Value::Object(map) = overrides else { panic!("overrides must be an object") };
    MatchOptions::default().overridden(&map).unwrap()
}

#[path = "grade_rules/json_equality.rs"]
mod json_equality;
#[path = "grade_rules/questions_file.rs"]
mod questions_file;
#[path = "grade_rules/summary.rs"]
mod summary;

// ---------------------------------------------------------------- matching rules

#[test]
fn floats_match_within_the_default_absolute_tolerance() {
    assert!(check(json!(0.12), json!(0.125)).passed);
    let miss = check(json!(0.12), json!(0.131));
    assert!(!miss.passed);
    assert_eq!(miss.score, 0.0);
    assert_eq!(miss.reason, "$: expected 0.12, got 0.131");
}

#[test]
fn relative_tolerance_scales_with_the_values() {
    let options = with(json!({"abs_tol": null, "rel_tol": 0.01}));
    assert!(match_values(&json!(1000.5), &json!(1010.0), &options).passed);
    assert!(!match_values(&json!(1000.5), &json!(1011.0), &options).passed);
    assert!(!match_values(&json!(0.12), &json!(0.125), &options).passed);
    let exact = with(json!({"abs_tol": null}));
    assert!(!match_values(&json!(0.1), &json!(0.1000001), &exact).passed);
    assert!(match_values(&json!(0.1), &json!(0.1), &exact).passed);
}

#[test]
fn integers_compare_exactly_and_one_equals_one_point_zero() {
    let loose = with(json!({"rel_tol": 0.05}));
    assert!(!match_values(&json!(100), &json!(101), &loose).passed);
    assert!(check(json!(1), json!(1.0)).passed);
    assert!(check(json!(2.0), json!(2)).passed);
    assert!(!check(json!(7), json!(8)).passed);
    // A non-integral side brings the tolerance back.
    assert!(check(json!(3), json!(3.004)).passed);
}

#[test]
fn strings_are_trimmed_and_case_insensitive_unless_asked() {
    assert!(check(json!("Grocery_POS"), json!("  grocery_pos\n")).passed);
    let strict = with(json!({"case_sensitive": true}));
    let miss = match_values(&json!("Grocery_POS"), &json!("grocery_pos"), &strict);
    assert!(!miss.passed);
    assert_eq!(miss.reason, r#"$: expected "Grocery_POS", got "grocery_pos""#);
}

#[test]
fn numeric_strings_compare_as_numbers() {
    assert!(check(json!("0.12"), json!(0.121)).passed);
    assert!(check(json!(42), json!(" 42 ")).passed);
    assert!(check(json!("12"), json!("12.0")).passed);
    assert!(!check(json!(1234), json!("1,234")).passed);
    // Words are not numbers, even those f64 parsing accepts.
    assert!(check(json!("NaN"), json!("nan")).passed);
    assert!(!check(json!("inf"), json!(f64::MAX)).passed);
}

#[test]
fn lists_compare_in_order_unless_order_is_ignored() {
    let miss = check(json!([1, 2]), json!([2, 1]));
    assert!(!miss.passed);
    assert_eq!(miss.reason, "$[0]: expected 1, got 2");
    let any_order = with(json!({"ignore_order": true}));
    assert!(match_values(&json!([1, 2]), &json!([2, 1]), &any_order).passed);
    assert!(match_values(&json!(["b", "A"]), &json!(["a", "B"]), &any_order).passed);
    let dup = match_values(&json!([1, 1, 2]), &json!([1, 2, 2]), &any_order);
    assert!(!dup.passed);
    assert_eq!(dup.reason, "$: no element matches expected 1");
    let short = check(json!([1, 2, 3]), json!([1, 2]));
    assert_eq!(short.reason, "$[2]: expected 3, got nothing (the list is shorter)");
    let long = check(json!([1, 2]), json!([1, 2, 3]));
    assert_eq!(long.reason, "$[2]: unexpected extra 3");
    assert!(check(json!([]), json!([])).passed);
    assert!(!check(json!([]), json!([0])).passed);
}

#[test]
fn dicts_compare_by_key_set_then_values() {
    let keys = check(json!({"a": 1, "b": 2}), json!({"a": 1, "c": 2}));
    assert!(!keys.passed);
    assert_eq!(keys.reason, r#"$: keys differ; missing "b"; unexpected "c""#);
    let values = check(json!({"grocery_pos": 0.12, "travel": 0.05}), json!({"travel": 0.05, "grocery_pos": 0.31}));
    assert_eq!(values.reason, "$.grocery_pos: expected 0.12, got 0.31");
    assert!(check(json!({"Grocery_POS": 1}), json!({" grocery_pos": 1})).passed);
    let strict = with(json!({"case_sensitive": true}));
    assert!(!match_values(&json!({"A": 1}), &json!({"a": 1}), &strict).passed);
    // Keys that coincide once normalised are compared exactly.
    assert!(check(json!({"a": 1, "A": 2}), json!({"A": 2, "a": 1})).passed);
}

#[test]
fn mismatch_paths_name_nested_positions() {
    let miss = check(json!({"x": {"y": [1, {"z": "a"}]}, "a b": 1}), json!({"x": {"y": [1, {"z": "b"}]}, "a b": 1}));
    assert_eq!(miss.reason, r#"$.x.y[1].z: expected "a", got "b""#);
    let odd_key = check(json!({"a b": 1}), json!({"a b": 2}));
    assert_eq!(odd_key.reason, r#"$["a b"]: expected 1, got 2"#);
}

#[test]
fn a_one_element_list_equals_its_scalar() {
    assert!(check(json!([5]), json!(5)).passed);
    assert!(check(json!(5), json!([5.0])).passed);
    assert!(check(json!({"top": ["fraud"]}), json!({"top": "Fraud"})).passed);
    assert!(!check(json!([5, 6]), json!(5)).passed);
    assert!(!check(json!([5]), json!(6)).passed);
}

#[test]
fn other_scalars_compare_strictly() {
    assert!(check(json!(true), json!(true)).passed);
    assert!(!check(json!(true), json!("true")).passed);
    assert!(check(json!(null), json!(null)).passed);
    assert!(!check(json!(null), json!(0)).passed);
    assert!(!check(json!({"a": 1}), json!([1])).passed);
}

#[test]
fn divide_scores_the_fraction_of_parts_right() {
    let expected = json!({"a": 1, "b": 2, "c": 3, "d": 4});
    let got = json!({"a": 1, "b": 2, "c": 3, "d": 5});
    let divide = with(json!({"score": "divide"}));
    let result = match_values(&expected, &got, &divide);
    assert_eq!(result.score, 0.75);
    assert_eq!((result.right, result.total), (3, 4));
    assert!(!result.passed);
    assert_eq!(result.reason, "3 of 4 parts right; first mismatch $.d: expected 4, got 5");
    let lenient = with(json!({"score": "divide", "threshold": 0.7}));
    assert!(match_values(&expected, &got, &lenient).passed);
    assert_eq!(match_values(&expected, &got, &MatchOptions::default()).score, 0.0);
    // An unexpected key is a wrong part; a missing nested value counts its leaves.
    assert_eq!(match_values(&json!({"a": 1}), &json!({"a": 1, "b": 2}), &divide).score, 0.5);
    assert_eq!(match_values(&json!({"a": 1, "b": [1, 2]}), &json!({"a": 1}), &divide).score, 1.0 / 3.0);
    let perfect = match_values(&expected, &expected, &divide);
    assert_eq!((perfect.score, perfect.reason.as_str()), (1.0, "matches the expected answer"));
}

#[test]
fn options_have_defaults_merge_overrides_and_reject_bad_values() {
    let defaults: MatchOptions = serde_json::from_value(json!({})).unwrap();
    assert_eq!(defaults, MatchOptions::default());
    assert_eq!(defaults.abs_tol, Some(0.01));
    assert_eq!(defaults.method, MatchMethod::Rules);
    assert_eq!(defaults.score, ScoreMode::All);
    let global = with(json!({"rel_tol": 0.02}));
    let merged = global.overridden(json!({"ignore_order": true}).as_object().unwrap()).unwrap();
    assert!(merged.ignore_order);
    assert_eq!(merged.rel_tol, Some(0.02));
    for (bad, needle) in [
        (json!({"abs_tol": -1.0}), "abs_tol must be a non-negative number"),
        (json!({"threshold": 2}), "threshold must be between 0 and 1"),
        (json!({"ignore_ordr": true}), "unknown field `ignore_ordr`"),
        (json!({"score": "most"}), "unknown variant `most`"),
    ] {
        let err = MatchOptions::default().overridden(bad.as_object().unwrap()).unwrap_err().to_string();
        assert!(err.starts_with("match options: ") && err.contains(needle), "{err}");
    }
}

#[test]
fn ground_truth_grades_carry_method_threshold_and_reason() {
    let options = MatchOptions::default();
    let grade = grade_ground_truth(&json!({"a": 0.12}), Some(&json!({"a": 0.31})), &options);
    assert_eq!(grade.method, "ground_truth");
    assert_eq!((grade.score, grade.passed, grade.threshold), (Some(0.0), false, 1.0));
    assert_eq!(grade.reason, "$.a: expected 0.12, got 0.31");
    let none = grade_ground_truth(&json!(1), None, &options);
    assert_eq!((none.score, none.passed), (Some(0.0), false));
    assert_eq!(none.reason, "no answer was produced");
    assert!(grade_ground_truth(&json!(1), Some(&json!(1.0)), &options).passed);
}
