//! Ground-truth grading without an LLM: matching rules, JSON equality, the
//! questions file and accuracy summaries.

use eval_dag::grade::{
    Grade, GradeError, JsonCompare, JsonEqualityError, MatchMethod, MatchOptions, MatchResult,
    ScoreMode, exact_operator, grade_ground_truth, json_equality, match_values,
    parse_questions_jsonl, read_questions_file, rules_operator, summarise,
};
use eval_dag::model::DifficultyLevel;
use serde_json::{Value, json};

fn check(expected: Value, got: Value) -> MatchResult {
    match_values(&expected, &got, &MatchOptions::default())
}

fn with(overrides: Value) -> MatchOptions {
    let Value::Object(map) = overrides else {
        panic!("overrides must be an object")
    };
    MatchOptions::default().overridden(&map).unwrap()
}

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
    assert_eq!(
        miss.reason,
        r#"$: expected "Grocery_POS", got "grocery_pos""#
    );
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
    assert_eq!(
        short.reason,
        "$[2]: expected 3, got nothing (the list is shorter)"
    );
    let long = check(json!([1, 2]), json!([1, 2, 3]));
    assert_eq!(long.reason, "$[2]: unexpected extra 3");
    assert!(check(json!([]), json!([])).passed);
    assert!(!check(json!([]), json!([0])).passed);
}

#[test]
fn dicts_compare_by_key_set_then_values() {
    let keys = check(json!({"a": 1, "b": 2}), json!({"a": 1, "c": 2}));
    assert!(!keys.passed);
    assert_eq!(
        keys.reason,
        r#"$: keys differ; missing "b"; unexpected "c""#
    );
    let values = check(
        json!({"grocery_pos": 0.12, "travel": 0.05}),
        json!({"travel": 0.05, "grocery_pos": 0.31}),
    );
    assert_eq!(values.reason, "$.grocery_pos: expected 0.12, got 0.31");
    assert!(check(json!({"Grocery_POS": 1}), json!({" grocery_pos": 1})).passed);
    let strict = with(json!({"case_sensitive": true}));
    assert!(!match_values(&json!({"A": 1}), &json!({"a": 1}), &strict).passed);
    // Keys that coincide once normalised are compared exactly.
    assert!(check(json!({"a": 1, "A": 2}), json!({"A": 2, "a": 1})).passed);
}

#[test]
fn mismatch_paths_name_nested_positions() {
    let miss = check(
        json!({"x": {"y": [1, {"z": "a"}]}, "a b": 1}),
        json!({"x": {"y": [1, {"z": "b"}]}, "a b": 1}),
    );
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
    assert_eq!(
        result.reason,
        "3 of 4 parts right; first mismatch $.d: expected 4, got 5"
    );
    let lenient = with(json!({"score": "divide", "threshold": 0.7}));
    assert!(match_values(&expected, &got, &lenient).passed);
    assert_eq!(
        match_values(&expected, &got, &MatchOptions::default()).score,
        0.0
    );
    // An unexpected key is a wrong part; a missing nested value counts its leaves.
    assert_eq!(
        match_values(&json!({"a": 1}), &json!({"a": 1, "b": 2}), &divide).score,
        0.5
    );
    assert_eq!(
        match_values(&json!({"a": 1, "b": [1, 2]}), &json!({"a": 1}), &divide).score,
        1.0 / 3.0
    );
    let perfect = match_values(&expected, &expected, &divide);
    assert_eq!(
        (perfect.score, perfect.reason.as_str()),
        (1.0, "matches the expected answer")
    );
}

#[test]
fn options_have_defaults_merge_overrides_and_reject_bad_values() {
    let defaults: MatchOptions = serde_json::from_value(json!({})).unwrap();
    assert_eq!(defaults, MatchOptions::default());
    assert_eq!(defaults.abs_tol, Some(0.01));
    assert_eq!(defaults.method, MatchMethod::Rules);
    assert_eq!(defaults.score, ScoreMode::All);
    let global = with(json!({"rel_tol": 0.02}));
    let merged = global
        .overridden(json!({"ignore_order": true}).as_object().unwrap())
        .unwrap();
    assert!(merged.ignore_order);
    assert_eq!(merged.rel_tol, Some(0.02));
    for (bad, needle) in [
        (
            json!({"abs_tol": -1.0}),
            "abs_tol must be a non-negative number",
        ),
        (json!({"threshold": 2}), "threshold must be between 0 and 1"),
        (json!({"ignore_ordr": true}), "unknown field `ignore_ordr`"),
        (json!({"score": "most"}), "unknown variant `most`"),
    ] {
        let err = MatchOptions::default()
            .overridden(bad.as_object().unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("match options: ") && err.contains(needle),
            "{err}"
        );
    }
}

#[test]
fn ground_truth_grades_carry_method_threshold_and_reason() {
    let options = MatchOptions::default();
    let grade = grade_ground_truth(&json!({"a": 0.12}), Some(&json!({"a": 0.31})), &options);
    assert_eq!(grade.method, "ground_truth");
    assert_eq!(
        (grade.score, grade.passed, grade.threshold),
        (Some(0.0), false, 1.0)
    );
    assert_eq!(grade.reason, "$.a: expected 0.12, got 0.31");
    let none = grade_ground_truth(&json!(1), None, &options);
    assert_eq!((none.score, none.passed), (Some(0.0), false));
    assert_eq!(none.reason, "no answer was produced");
    assert!(grade_ground_truth(&json!(1), Some(&json!(1.0)), &options).passed);
}

// ---------------------------------------------------------------- JSON equality

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
        MatchResult::from_parts(
            usize::from(same),
            1,
            (!same).then(|| "a differs".into()),
            ScoreMode::All,
            1.0,
        )
    };
    let custom = json_equality(
        &s(r#"{"a": 1, "b": 2}"#),
        &s(r#"{"a": 1, "c": 3}"#),
        &only_a,
    )
    .unwrap();
    assert_eq!(custom.score, 1.0);
    assert_eq!(
        json_equality(&s(r#"{"a": 1}"#), &s(r#"{"a": 2}"#), &only_a)
            .unwrap()
            .score,
        0.0
    );
    let strict = json_equality(
        &s(r#"{"a": 1, "b": 2}"#),
        &s(r#"{"a": 1, "c": 3}"#),
        &exact_operator,
    )
    .unwrap();
    assert_eq!(strict.score, 0.0);
}

#[test]
fn json_equality_sorts_top_level_lists_only() {
    assert_eq!(
        json_equality(&s("[1, 2]"), &s("[2, 1]"), &exact_operator)
            .unwrap()
            .score,
        1.0
    );
    assert_eq!(
        json_equality(
            &s(r#"[{"c": 3}, {"b": 2, "a": 1}]"#),
            &s(r#"[{"a": 1, "b": 2}, {"c": 3}]"#),
            &exact_operator
        )
        .unwrap()
        .score,
        1.0
    );
    assert_eq!(
        json_equality(&s("[[1, 2]]"), &s("[[2, 1]]"), &exact_operator)
            .unwrap()
            .score,
        0.0
    );
    assert_eq!(
        json_equality(&s("[1, 2, 2]"), &s("[2, 1, 1]"), &exact_operator)
            .unwrap()
            .score,
        0.0
    );
    let not_list = json_equality(&s(r#"{"a": 1}"#), &s("[1]"), &exact_operator).unwrap();
    assert_eq!(not_list.score, 0.0);
    assert_eq!(not_list.reason, r#"$: expected a list, got {"a":1}"#);
}

#[test]
fn json_equality_normalises_numbers() {
    assert_eq!(
        json_equality(&s(r#"{"a": 1.0}"#), &s(r#"{"a": 1}"#), &exact_operator)
            .unwrap()
            .score,
        1.0
    );
    assert_eq!(
        json_equality(&s("[2.0, 1]"), &s("[1.0, 2]"), &exact_operator)
            .unwrap()
            .score,
        1.0
    );
    assert_eq!(
        json_equality(&s("0.5"), &s("0.50"), &exact_operator)
            .unwrap()
            .score,
        1.0
    );
    assert_eq!(
        json_equality(&s("1.5"), &s("1"), &exact_operator)
            .unwrap()
            .score,
        0.0
    );
}

#[test]
fn json_equality_reads_fenced_and_wrapped_json() {
    let fenced = s("```json\n{\"a\": 1}\n```");
    assert_eq!(
        json_equality(&fenced, &s(r#"{"a":1}"#), &exact_operator)
            .unwrap()
            .score,
        1.0
    );
    let prose = s("Here is the result:\n```\n[1, 2]\n```\nDone.");
    assert_eq!(
        json_equality(&prose, &s("[2, 1]"), &exact_operator)
            .unwrap()
            .score,
        1.0
    );
    let inline = s(r#"The answer is {"a": 1,} as computed."#);
    assert_eq!(
        json_equality(&inline, &s(r#"{"a": 1}"#), &exact_operator)
            .unwrap()
            .score,
        1.0
    );
    // Values that are not strings are taken as they are.
    assert_eq!(
        json_equality(&json!([1, 2]), &s("[2, 1]"), &exact_operator)
            .unwrap()
            .score,
        1.0
    );
}

#[test]
fn json_equality_reports_which_side_failed_to_parse() {
    let bad_prediction =
        json_equality(&s("not json"), &s(r#"{"a": 1}"#), &exact_operator).unwrap_err();
    assert!(matches!(bad_prediction, JsonEqualityError::Prediction(_)));
    assert!(
        bad_prediction
            .to_string()
            .starts_with("the answer is not JSON: "),
        "{bad_prediction}"
    );
    let bad_reference = json_equality(&s("[1]"), &s("{oops"), &exact_operator).unwrap_err();
    assert!(matches!(bad_reference, JsonEqualityError::Reference(_)));
}

#[test]
fn json_equality_with_the_tolerant_rules() {
    let options = MatchOptions::default();
    let rules = rules_operator(&options);
    assert_eq!(
        json_equality(&s(r#"{"rate": 0.121}"#), &s(r#"{"rate": 0.12}"#), &rules)
            .unwrap()
            .score,
        1.0
    );
    assert_eq!(
        json_equality(
            &s(r#"{"rate": 0.121}"#),
            &s(r#"{"rate": 0.12}"#),
            &exact_operator
        )
        .unwrap()
        .score,
        0.0
    );
}

#[test]
fn json_equality_as_the_ground_truth_method() {
    let exact = MatchOptions {
        method: MatchMethod::JsonEquality,
        ..MatchOptions::default()
    };
    let grade = grade_ground_truth(&s("[2, 1]"), Some(&s("```json\n[1, 2]\n```")), &exact);
    assert_eq!(
        (grade.method.as_str(), grade.passed),
        ("json_equality", true)
    );
    let tolerant = MatchOptions {
        json_compare: JsonCompare::Rules,
        ..exact.clone()
    };
    assert!(!grade_ground_truth(&json!(0.12), Some(&json!(0.121)), &exact).passed);
    assert!(grade_ground_truth(&json!(0.12), Some(&json!(0.121)), &tolerant).passed);
    let not_json = grade_ground_truth(&json!([1]), Some(&s("one")), &exact);
    assert_eq!(
        (not_json.score, not_json.error.as_deref()),
        (Some(0.0), None)
    );
    assert!(
        not_json.reason.starts_with("the answer is not JSON"),
        "{}",
        not_json.reason
    );
    let bad_reference = grade_ground_truth(&s("{oops"), Some(&json!(1)), &exact);
    assert_eq!((bad_reference.score, bad_reference.passed), (None, false));
    assert!(
        bad_reference
            .error
            .unwrap()
            .starts_with("the expected answer is not JSON")
    );
}

// ---------------------------------------------------------------- questions file

const QUESTIONS: &str = r#"{"id": "fraud_rate", "question": "What share of transactions is fraud?", "difficulty": "easy", "expected_answer": 0.0058}

{"text": "Fraud rate per category?", "difficulty": 6, "expected_answer": {"grocery_pos": 0.014}, "match": {"score": "divide"}}
{"question": "Top 3 states by fraud count?", "difficulty": "HARD", "match": {"ignore_order": true}, "relevant_data_keys": ["by_state"]}
"#;

#[test]
fn a_questions_file_becomes_ranked_questions_with_options() {
    let specs = parse_questions_jsonl(QUESTIONS, "q.jsonl").unwrap();
    let ids: Vec<&str> = specs.iter().map(|s| s.question.id.as_str()).collect();
    assert_eq!(ids, ["fraud_rate", "q_02", "q_03"]);
    let lines: Vec<usize> = specs.iter().map(|s| s.line).collect();
    assert_eq!(lines, [1, 3, 4]);
    let levels: Vec<DifficultyLevel> = specs.iter().map(|s| s.question.difficulty_level).collect();
    assert_eq!(
        levels,
        [
            DifficultyLevel::Easy,
            DifficultyLevel::Medium,
            DifficultyLevel::Hard
        ]
    );
    let ranks: Vec<usize> = specs.iter().map(|s| s.question.difficulty_rank).collect();
    assert_eq!(ranks, [1, 2, 3]);
    assert_eq!(specs[1].question.question, "Fraud rate per category?");
    assert_eq!(specs[0].question.expected_answer, Some(json!(0.0058)));
    assert_eq!(specs[2].question.expected_answer, None);
    assert_eq!(specs[2].question.relevant_data_keys, ["by_state"]);
    let global = with(json!({"abs_tol": 0.001}));
    let second = specs[1].match_options(&global).unwrap();
    assert_eq!(
        (second.score, second.abs_tol),
        (ScoreMode::Divide, Some(0.001))
    );
    assert!(!specs[0].match_options(&global).unwrap().ignore_order);
    assert!(specs[2].match_options(&global).unwrap().ignore_order);
}

#[test]
fn generated_ids_avoid_ids_the_file_uses() {
    let text = "{\"id\": \"q_02\", \"question\": \"a\", \"difficulty\": 1}\n{\"question\": \"b\", \"difficulty\": 2}";
    let specs = parse_questions_jsonl(text, "q.jsonl").unwrap();
    assert_eq!(specs[1].question.id, "q_02_2");
}

#[test]
fn questions_file_errors_name_the_line() {
    let cases = [
        (
            "{\"question\": \"a\", \"difficulty\": 1}\n{\"question\": \"b\",",
            2,
            "not a valid question object",
        ),
        (
            "{\"difficulty\": 1}",
            1,
            "missing \"question\" (or \"text\")",
        ),
        (
            "{\"question\": \" \", \"difficulty\": 1}",
            1,
            "missing \"question\"",
        ),
        (
            "{\"question\": \"a\"}",
            1,
            "missing \"difficulty\" must be easy, medium, hard or an integer 1-10",
        ),
        ("{\"question\": \"a\", \"difficulty\": 11}", 1, "got 11"),
        ("{\"question\": \"a\", \"difficulty\": 0}", 1, "got 0"),
        (
            "{\"question\": \"a\", \"difficulty\": \"extreme\"}",
            1,
            "got \"extreme\"",
        ),
        ("{\"question\": \"a\", \"difficulty\": [1]}", 1, "got [1]"),
        (
            "{\"id\": \"x\", \"question\": \"a\", \"difficulty\": 1}\n\n{\"id\": \"x\", \"question\": \"b\", \"difficulty\": 1}",
            3,
            "id \"x\" is already used on line 1",
        ),
        (
            "{\"id\": \"  \", \"question\": \"a\", \"difficulty\": 1}",
            1,
            "\"id\" is blank",
        ),
        (
            "{\"question\": \"a\", \"difficulty\": 1, \"expected\": 3}",
            1,
            "unknown field `expected`",
        ),
        (
            "{\"question\": \"a\", \"difficulty\": 1, \"match\": {\"ignore_order\": \"yes\"}}",
            1,
            "\"match\": match options:",
        ),
        ("[1, 2]", 1, "not a valid question object"),
    ];
    for (text, line, needle) in cases {
        match parse_questions_jsonl(text, "q.jsonl") {
            Err(err @ GradeError::QuestionsFile { line: got, .. }) => {
                let message = err.to_string();
                assert_eq!(got, line, "{message}");
                assert!(
                    message.starts_with(&format!("q.jsonl:{line}: ")),
                    "{message}"
                );
                assert!(message.contains(needle), "{message} lacks {needle}");
            }
            other => panic!("{text}: expected a line error, got {other:?}"),
        }
    }
    let empty = parse_questions_jsonl("\n \n", "q.jsonl")
        .unwrap_err()
        .to_string();
    assert_eq!(empty, "q.jsonl: the file holds no questions");
}

#[test]
fn a_questions_file_is_read_from_disk() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("questions.jsonl");
    std::fs::write(&path, QUESTIONS).unwrap();
    assert_eq!(read_questions_file(&path).unwrap().len(), 3);
    let missing = read_questions_file(&dir.path().join("nope.jsonl")).unwrap_err();
    assert!(matches!(missing, GradeError::File { .. }), "{missing:?}");
    assert!(missing.to_string().contains("nope.jsonl"));
}

// ---------------------------------------------------------------- summaries

#[test]
fn accuracy_is_summarised_per_method_overall_and_per_difficulty() {
    let pass = Grade::scored("ground_truth", 1.0, 1.0, "ok".into());
    let fail = Grade::scored("ground_truth", 0.0, 1.0, "no".into());
    let judged = Grade::scored("judge", 0.6, 0.5, "fine".into());
    let broken = Grade::failed("judge", 0.5, "LLM down".into());
    let easy = [pass.clone(), judged.clone()];
    let easy_too = [fail.clone(), broken.clone()];
    let hard = [pass.clone(), broken];
    let summary = summarise([
        (DifficultyLevel::Easy, &easy[..]),
        (DifficultyLevel::Easy, &easy_too[..]),
        (DifficultyLevel::Hard, &hard[..]),
    ]);
    let truth = &summary.overall["ground_truth"];
    assert_eq!((truth.graded, truth.passed, truth.errors), (3, 2, 0));
    assert_eq!(truth.accuracy, Some(2.0 / 3.0));
    let judge = &summary.overall["judge"];
    assert_eq!((judge.graded, judge.passed, judge.errors), (1, 1, 2));
    assert_eq!(judge.mean_score, Some(0.6));
    let easy_truth = &summary.by_difficulty[&DifficultyLevel::Easy]["ground_truth"];
    assert_eq!(easy_truth.accuracy, Some(0.5));
    let hard_judge = &summary.by_difficulty[&DifficultyLevel::Hard]["judge"];
    assert_eq!((hard_judge.accuracy, hard_judge.errors), (None, 1));
    assert!(!summary.by_difficulty.contains_key(&DifficultyLevel::Medium));
    let json = serde_json::to_value(&summary).unwrap();
    assert_eq!(
        json["by_difficulty"]["easy"]["ground_truth"]["passed"],
        json!(1)
    );
}

#[test]
fn tolerance_boundaries_are_inclusive_despite_float_rounding() {
    // 0.13 - 0.12 is 0.010000000000000009 in binary floating point.
    assert!(check(json!(0.12), json!(0.13)).passed);
    assert!(!check(json!(0.12), json!(0.1301)).passed);
    let exact = with(json!({"abs_tol": null}));
    assert!(match_values(&json!(0.3), &json!(0.1 + 0.2), &exact).passed);
}
