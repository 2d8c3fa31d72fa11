//! QRData's rules (its published `eval.py`): both answers lower-cased; a
//! numerical answer is right when the first number in it (`-?\d+\.?\d*%?`,
//! a trailing `%` dividing by 100) lies strictly between the gold value
//! times 0.97 and times 1.03; a multiple-choice answer is right when it
//! starts with the gold text. An answer that is not a string is read as
//! Python's `str()` of it.

use serde_json::Value;

use super::ScoreError;
use super::python::{is_decimal, parse_float, str_of};

/// The relative error a numerical answer may have (`error_scale`).
const ERROR_SCALE: f64 = 0.03;

/// What kind of question: how its answer is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuestionType {
    /// A number within the error scale.
    Numerical,
    /// Text the answer starts with.
    MultipleChoice,
}

/// A QRData expected answer: `{"answer": text, "question_type": "numerical" | "multiple_choice"}`.
pub fn expected_parts(expected: &Value) -> Result<(String, QuestionType), ScoreError> {
    let bad = || ScoreError("a QRData expected answer is {\"answer\": text, \"question_type\": ...}".into());
    let answer = expected.get("answer").and_then(Value::as_str).ok_or_else(bad)?;
    let kind = match expected.get("question_type").and_then(Value::as_str) {
        Some("numerical") => QuestionType::Numerical,
        Some(_) => QuestionType::MultipleChoice,
        None => return Err(bad()),
    };
    Ok((answer.to_string(), kind))
}

/// The text an answer is scored as: a string as it is, anything else as Python's `str()`.
pub fn answer_text(answer: &Value) -> String {
    str_of(answer)
}

/// The first match of `-?\d+\.?\d*%?` in `text` (`\d`: a decimal digit of any script).
fn first_number(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let digits_from = |at: usize| chars[at.min(chars.len())..].iter().take_while(|c| is_decimal(**c)).count();
    for start in 0..chars.len() {
        let sign = usize::from(chars[start] == '-');
        let whole = digits_from(start + sign);
        if whole == 0 {
            continue;
        }
        let mut end = start + sign + whole;
        if chars.get(end) == Some(&'.') {
            end += 1 + digits_from(end + 1);
        }
        if chars.get(end) == Some(&'%') {
            end += 1;
        }
        return Some(chars[start..end].iter().collect());
    }
    None
}

/// A number as `eval.py` reads it: `float()` of the text, or of the text
/// before a trailing `%` divided by 100.
fn read_number(text: &str) -> Option<f64> {
    match text.strip_suffix('%') {
        Some(percent) => parse_float(percent).map(|x| x / 100.0),
        None => parse_float(text),
    }
}

/// Whether `answer` is right against the gold text `expected` for a question of `kind`.
pub fn is_right(answer: &str, expected: &str, kind: QuestionType) -> Result<bool, ScoreError> {
    let (answer, expected) = (answer.to_lowercase(), expected.to_lowercase());
    match kind {
        QuestionType::Numerical => {
            let gold = read_number(&expected)
                .filter(|_| !expected.is_empty())
                .ok_or_else(|| ScoreError(format!("the QRData expected answer {expected:?} is not a number")))?;
            let Some(given) = first_number(&answer).and_then(|n| read_number(&n)) else { return Ok(false) };
            let (a, b) = (gold * (1.0 - ERROR_SCALE), gold * (1.0 + ERROR_SCALE));
            Ok(a.min(b) < given && a.max(b) > given)
        }
        QuestionType::MultipleChoice => {
            let length = expected.chars().count();
            Ok(answer.chars().take(length).eq(expected.chars()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numeric(answer: &str, gold: &str) -> bool {
        is_right(answer, gold, QuestionType::Numerical).unwrap()
    }

    #[test]
    fn numbers_are_right_strictly_within_three_percent() {
        assert!(numeric("The proportion is 0.20.", "0.20"));
        assert!(numeric("about 20.5%", "0.20"), "a trailing % divides by 100");
        assert!(numeric("0.2", "20%"), "so does the gold's");
        assert!(!numeric("103", "100") && !numeric("97", "100") && numeric("102.99", "100"), "3 % is strict");
        assert!(!numeric("0", "0"), "nothing lies strictly around a gold zero");
        assert!(numeric("-1.02", "-1") && !numeric("1", "-1"), "bounds ordered for a negative gold");
        assert!(!numeric("1.5e-3", "0.0015"), "the exponent is not part of the first number");
        assert!(!numeric("n = 2,370 people", "2370"), "the first number only: 2");
        assert!(numeric("٣", "3"), "any script's digits");
        assert!(!numeric("no number here", "3"));
        assert!(is_right("1", "abc", QuestionType::Numerical).is_err(), "a gold that is no number");
        assert!(is_right("1", "", QuestionType::Numerical).is_err());
    }

    #[test]
    fn choices_are_right_when_the_answer_starts_with_the_gold() {
        let choice = |answer: &str, gold: &str| is_right(answer, gold, QuestionType::MultipleChoice).unwrap();
        assert!(choice("Treatment group, since 30% > 20%", "treatment group"));
        assert!(choice("C. No causal relationship exists", "C"));
        assert!(!choice("The answer is C", "C") && !choice("treat", "treatment group"));
        assert!(choice("True", "true") && choice("anything", ""));
        assert_eq!(answer_text(&serde_json::json!(true)), "True");
        assert_eq!(answer_text(&serde_json::json!([1, "a"])), "[1, 'a']");
    }
}
