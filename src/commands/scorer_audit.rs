//! The scorer audit of `eval-dag import`: what an empty answer and the most
//! common expected answer (the `empty` and `constant` baselines) would score
//! by the benchmark's own scorer, so a scorer that accepts an answer that
//! says nothing is known before anything runs.

use serde_json::{Map, Value};

use crate::benchmark::{score, scorer_name};
use crate::domain::Scorer;
use crate::report::constant_answers;

/// The expected answer of a question line; none when the benchmark keeps it private.
fn expected(line: &Map<String, Value>) -> Option<&Value> {
    line.get("expected_answer").filter(|value| !value.is_null())
}

/// Whether `answer` is right for `line` by its scorer; none when it has no
/// expected answer or no benchmark scorer.
fn right(line: &Map<String, Value>, answer: Option<&Value>) -> Option<bool> {
    let scorer: Scorer = serde_json::from_value(line.get("scorer")?.clone()).ok()?;
    let expected = expected(line)?;
    Some(score(scorer, expected, answer?)?.is_ok_and(|scored| scored.correct))
}

/// The audit's lines for the imported question `lines`: the counts, then the
/// questions whose scorer accepts an empty answer, by their benchmark ids.
pub fn scorer_audit(lines: &[Map<String, Value>]) -> Vec<String> {
    let empty = Value::String(String::new());
    let constants = constant_answers(lines.iter().map(expected));
    // Per scored question: whether the empty answer and the constant one are right
    // (a question with no other expected answer of its type has no constant: wrong).
    let scored: Vec<(&Map<String, Value>, bool, bool)> = lines
        .iter()
        .zip(&constants)
        .filter_map(|(line, constant)| {
            Some((line, right(line, Some(&empty))?, right(line, *constant).unwrap_or(false)))
        })
        .collect();
    let total = scored.len();
    if total == 0 {
        return Vec::new();
    }
    let empty_right: Vec<&Map<String, Value>> =
        scored.iter().filter(|(_, empty, _)| *empty).map(|(line, ..)| *line).collect();
    let constant_right = scored.iter().filter(|(.., constant)| *constant).count();
    let mut out = vec![format!(
        "scorer audit: an empty answer scores right on {} of {total} questions, the most common expected answer on {constant_right}",
        empty_right.len()
    )];
    if !empty_right.is_empty() {
        let scorer = empty_right[0].get("scorer").and_then(Value::as_str).unwrap_or(scorer_name(Scorer::Builtin));
        let ids: Vec<String> = empty_right
            .iter()
            .map(|line| crate::benchmark::import::id_text(line.get("source_id").or(line.get("id"))).unwrap_or_default())
            .collect();
        out.push(format!("the {scorer} scorer accepts an empty answer for: {}", ids.join(", ")));
    }
    out
}
