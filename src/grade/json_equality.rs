//! JSON equality: parse the answer and the reference as JSON (fenced or
//! markdown-wrapped text accepted), sort both at the top level when the
//! reference is a list, then compare with an operator — plain equality by
//! default, or the tolerant matching rules.
//!
//! Numbers are normalised before anything else, so `1` equals `1.0` (as in
//! Python) although serde_json keeps them apart.

use serde_json::Value;

use super::matching::{MatchOptions, MatchResult, ScoreMode, match_values, show};
use crate::domain::canonical_json;
use crate::prompts::extract_json_object;

/// One side could not be parsed as JSON.
#[derive(Debug, thiserror::Error)]
pub enum JsonEqualityError {
    /// The answer is not JSON; the field is the parser's error on the whole text.
    #[error("the answer is not JSON: {0}")]
    Prediction(#[source] serde_json::Error),
    /// The reference is not JSON; the field is the parser's error on the whole text.
    #[error("the expected answer is not JSON: {0}")]
    Reference(#[source] serde_json::Error),
}

/// Compares a parsed answer (first argument) with the parsed reference (second).
pub type JsonOperator<'a> = &'a dyn Fn(&Value, &Value) -> MatchResult;

/// Parse JSON text: plain, inside a code fence, or an object inside prose;
/// the error is the parser's on the whole (trimmed) text.
pub fn parse_json_text(text: &str) -> Result<Value, serde_json::Error> {
    let trimmed = text.trim();
    let first_error = match serde_json::from_str::<Value>(trimmed) {
        Ok(value) => return Ok(value),
        Err(err) => err,
    };
    if let Some(inner) = fenced(trimmed)
        && let Ok(value) = serde_json::from_str::<Value>(inner)
    {
        return Ok(value);
    }
    extract_json_object(fenced(trimmed).unwrap_or(trimmed)).map_err(|_| first_error)
}

/// The text inside the first code fence (an unclosed fence runs to the end).
fn fenced(text: &str) -> Option<&str> {
    let start = text.find("```")? + 3;
    let rest = &text[start..];
    // Skip an info string such as `json` on the fence line.
    let body = match rest.find('\n') {
        Some(newline) if rest[..newline].trim().chars().all(|c| c.is_alphanumeric()) => &rest[newline + 1..],
        _ => rest,
    };
    let end = body.find("```").unwrap_or(body.len());
    Some(body[..end].trim())
}

/// A JSON side: strings are parsed as JSON text, other values are taken as they are.
fn parse_side(value: &Value) -> Result<Value, serde_json::Error> {
    match value {
        Value::String(text) => parse_json_text(text),
        other => Ok(other.clone()),
    }
}

/// Plain equality of canonical values, as a 0/1 [`MatchResult`].
pub fn exact_operator(prediction: &Value, reference: &Value) -> MatchResult {
    let equal = prediction == reference;
    let mismatch = (!equal).then(|| format!("$: expected {}, got {}", show(reference), show(prediction)));
    MatchResult::from_parts(usize::from(equal), 1, mismatch, ScoreMode::All, 1.0)
}

/// The tolerant matching rules as an operator.
pub fn rules_operator(options: &MatchOptions) -> impl Fn(&Value, &Value) -> MatchResult + '_ {
    move |prediction, reference| match_values(reference, prediction, options)
}

/// Compare `prediction` with `reference` after parsing both (strings are JSON
/// text) and, when the reference is a list, sorting both lists by their
/// canonical JSON; a list reference and a non-list answer score 0.
pub fn json_equality(
    prediction: &Value,
    reference: &Value,
    operator: JsonOperator<'_>,
) -> Result<MatchResult, JsonEqualityError> {
    let reference = canonical_json(&parse_side(reference).map_err(JsonEqualityError::Reference)?);
    let prediction = canonical_json(&parse_side(prediction).map_err(JsonEqualityError::Prediction)?);
    match (reference, prediction) {
        (Value::Array(mut expected), Value::Array(mut got)) => {
            expected.sort_by_cached_key(Value::to_string);
            got.sort_by_cached_key(Value::to_string);
            Ok(operator(&Value::Array(got), &Value::Array(expected)))
        }
        (Value::Array(_), prediction) => Ok(MatchResult::from_parts(
            0,
            1,
            Some(format!("$: expected a list, got {}", show(&prediction))),
            ScoreMode::All,
            1.0,
        )),
        (reference, prediction) => Ok(operator(&prediction, &reference)),
    }
}
