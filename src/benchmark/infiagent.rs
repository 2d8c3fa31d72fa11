//! InfiAgent-DABench's closed-form rules: a response names each part of its
//! answer as `@name[value]` (the first `]` ends a value); a part is right when
//! its text equals the label's or both read as floats within 1e-6.

use std::sync::LazyLock;

use indexmap::IndexMap;
use regex::Regex;
use serde_json::Value;

use super::python::{parse_float, str_of};
use super::{ScoreError, SubAnswer};

/// `@name[value]`, as the official scorer finds the parts of a response.
static PART: LazyLock<Result<Regex, regex::Error>> = LazyLock::new(|| Regex::new(r"@(\w+)\[(.*?)\]"));

/// The parts a response names, the last of a repeated name kept.
pub fn parts(response: &str) -> IndexMap<String, String> {
    let mut found = IndexMap::new();
    if let Ok(pattern) = PART.as_ref() {
        for capture in pattern.captures_iter(response) {
            found.insert(capture[1].to_string(), capture[2].to_string());
        }
    }
    found
}

/// Whether a part's text is right against its label.
pub fn is_equal(given: Option<&str>, label: &str) -> bool {
    let Some(given) = given else { return false };
    if given == label {
        return true;
    }
    matches!((parse_float(given), parse_float(label)), (Some(a), Some(b)) if (a - b).abs() < 1e-6)
}

/// The response text an answer stands for: a string holding `@name[value]`
/// parts is the response itself; a dict writes each entry as
/// `@key[str(value)]`; any other answer is the one value of a one-part label.
pub fn response(answer: &Value, labels: &IndexMap<String, String>) -> String {
    match answer {
        Value::String(text) if !parts(text).is_empty() => text.clone(),
        Value::Object(map) => map.iter().map(|(k, v)| format!("@{k}[{}]", str_of(v))).collect::<Vec<_>>().join(" "),
        other => match labels.keys().next() {
            Some(name) if labels.len() == 1 => format!("@{name}[{}]", str_of(other)),
            _ => str_of(other),
        },
    }
}

/// The labels of an expected answer: a dict of part name to its text (a
/// number stands for its text); anything else is malformed.
pub fn labels(expected: &Value) -> Result<IndexMap<String, String>, ScoreError> {
    let Value::Object(map) = expected else {
        return Err(ScoreError("an InfiAgent expected answer is a dict of part name to value".into()));
    };
    if map.is_empty() {
        return Err(ScoreError("an InfiAgent expected answer names no part".into()));
    }
    map.iter()
        .map(|(name, value)| match value {
            Value::String(text) => Ok((name.clone(), text.clone())),
            Value::Number(n) => Ok((name.clone(), n.to_string())),
            _ => Err(ScoreError(format!("the label of part {name:?} is not a string"))),
        })
        .collect()
}

/// Each labelled part of `answer` scored.
pub fn score(expected: &Value, answer: &Value) -> Result<Vec<SubAnswer>, ScoreError> {
    let labels = labels(expected)?;
    let given = parts(&response(answer, &labels));
    Ok(labels
        .iter()
        .map(|(name, label)| {
            let text = given.get(name).cloned();
            SubAnswer {
                name: name.clone(),
                expected: label.clone(),
                correct: is_equal(text.as_deref(), label),
                given: text,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn right(expected: Value, answer: Value) -> Vec<bool> {
        score(&expected, &answer).unwrap().iter().map(|s| s.correct).collect()
    }

    #[test]
    fn parts_are_found_as_the_official_pattern_finds_them() {
        let found = parts("The mean is @mean_fare[34.65], @n[3] and again @n[4]; @bad name[1] @list[[1, 2]]");
        let pairs: Vec<(&str, &str)> = found.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(pairs, [("mean_fare", "34.65"), ("n", "4"), ("list", "[1, 2")]);
    }

    #[test]
    fn a_part_is_right_when_equal_or_within_a_millionth() {
        assert!(is_equal(Some("no"), "no"));
        assert!(!is_equal(Some("No"), "no"), "case matters");
        assert!(is_equal(Some("34.650"), "34.65"));
        assert!(is_equal(Some("34.6500005"), "34.65"));
        assert!(!is_equal(Some("34.651"), "34.65"), "no rounding: the model must round as told");
        assert!(is_equal(Some(" 2 "), "2.0"), "float() ignores surrounding space");
        assert!(!is_equal(None, ""), "a missing part is wrong, even against an empty label");
        assert!(is_equal(Some(""), ""));
        assert!(is_equal(Some("nan"), "nan"), "equal text");
        assert!(!is_equal(Some("NaN"), "nan"), "NaN is never within 1e-6 of anything");
        assert!(!is_equal(Some("inf"), "Infinity"), "inf - inf is NaN");
        assert!(is_equal(Some("None"), "None"));
    }

    #[test]
    fn a_dict_answer_is_written_with_python_str() {
        let expected = json!({"is_normal": "False", "tiny": "1e-07", "d": "{'a': 1, 'b': 'x'}", "n": "3"});
        let answer = json!({"is_normal": false, "tiny": 1e-7, "d": {"a": 1, "b": "x"}, "n": 3.0});
        assert_eq!(right(expected, answer), [true, true, true, true]);
        assert_eq!(right(json!({"flag": "True"}), json!({"flag": "true"})), [false]);
    }

    #[test]
    fn a_list_value_is_cut_at_its_first_bracket_as_the_official_pattern_cuts_it() {
        // The published labels keep such cuts, e.g. "[" for an empty list.
        assert_eq!(right(json!({"outlier_list": "["}), json!({"outlier_list": []})), [true]);
    }

    #[test]
    fn a_scalar_or_plain_string_answers_a_one_part_label() {
        assert_eq!(right(json!({"mean_fare": "34.65"}), json!(34.65)), [true]);
        assert_eq!(right(json!({"country": "Congo"}), json!("Congo")), [true]);
        assert_eq!(right(json!({"a": "1", "b": "2"}), json!(1)), [false, false], "several parts need names");
        assert_eq!(right(json!({"a": "1", "b": "2"}), json!("@b[2.0] and @a[1.5]")), [false, true]);
    }

    #[test]
    fn malformed_labels_are_errors() {
        assert!(score(&json!("34.65"), &json!(1)).is_err());
        assert!(score(&json!({}), &json!(1)).is_err());
        assert!(score(&json!({"a": [1]}), &json!(1)).is_err());
    }
}
