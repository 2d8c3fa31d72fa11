//! Published benchmarks: their scorers (InfiAgent-DABench's closed-form
//! parts, DABstep's tolerant matching, QRData's tolerance and choices), the Python readings those scorers
//! rely on, and the import of their files as published into a benchmark
//! directory (`questions.jsonl` + `datasets/<name>/`).
//!
//! Parts:
//! - Scorers, exactly as published: `infiagent.rs` (InfiAgent-DABench's
//!   `@name[value]` parts, equal text or floats within 1e-6), `dabstep.rs`
//!   (DABstep's tolerant numbers, sorted lists, one-word subsets and near-equal
//!   text) and `qrdata.rs` (QRData's first number within 3 %, or a choice the
//!   answer starts with); `BenchmarkScore` and `SubAnswer`.
//! - What those scorers lean on from Python: `python.rs` (`str()`/`repr()` of a
//!   JSON value, `float()`, `round()`, `strip()`) and `difflib.rs`
//!   (`SequenceMatcher.ratio` with its popular-character rule).
//! - `import/`: a benchmark's files, as published, imported into a benchmark
//!   directory — `infiagent.rs` a dataset per table, `dabstep.rs` one dataset keyed
//!   by file with its markdown as metadata `documentation`, `qrdata.rs` a dataset
//!   per set of data files (several files: several tables); `mod.rs` writes the
//!   directory under a temporary name and renames it once whole.
//!
//! Elsewhere: `grade::grade_truth` grades a question with a `scorer` by it;
//! `report/analyses/benchmark.rs` sums the results' `benchmark` figures (shown by
//! `report/views/benchmark_section.rs` and `templates/benchmark.html.j2`) and writes a
//! DABstep submission (`export --format dabstep`); `commands/import.rs` is
//! `eval-dag import`.

pub mod dabstep;
pub mod difflib;
pub mod import;
pub mod infiagent;
pub mod python;
pub mod qrdata;
mod score_types;

pub use score_types::{BenchmarkScore, ScoreError, SubAnswer, scorer_name};

use serde_json::Value;

use crate::domain::Scorer;

/// Score `answer` against `expected` by `scorer`'s rules; none for the
/// built-in matching, which is not a benchmark's.
pub fn score(scorer: Scorer, expected: &Value, answer: &Value) -> Option<Result<BenchmarkScore, ScoreError>> {
    let sub_answers = match scorer {
        Scorer::Builtin => return None,
        Scorer::Infiagent => infiagent::score(expected, answer),
        Scorer::Dabstep => dabstep_parts(expected, answer),
        Scorer::Qrdata => qrdata_parts(expected, answer),
    };
    Some(sub_answers.map(|sub_answers| BenchmarkScore {
        scorer,
        correct: !sub_answers.is_empty() && sub_answers.iter().all(|s| s.correct),
        sub_answers,
    }))
}

/// The expected parts of an unanswered question, each wrong (for metrics
/// over all questions).
pub fn unanswered(scorer: Scorer, expected: &Value) -> Option<Result<BenchmarkScore, ScoreError>> {
    let sub_answers = match scorer {
        Scorer::Builtin => return None,
        Scorer::Infiagent => infiagent::labels(expected).map(|labels| {
            labels
                .into_iter()
                .map(|(name, expected)| SubAnswer { name, expected, given: None, correct: false })
                .collect()
        }),
        Scorer::Dabstep => dabstep_expected(expected)
            .map(|expected| vec![SubAnswer { name: "answer".into(), expected, given: None, correct: false }]),
        Scorer::Qrdata => qrdata::expected_parts(expected)
            .map(|(expected, _)| vec![SubAnswer { name: "answer".into(), expected, given: None, correct: false }]),
    };
    Some(sub_answers.map(|sub_answers| BenchmarkScore { scorer, sub_answers, correct: false }))
}

/// DABstep's one part: the answer's text against the expected text.
fn dabstep_parts(expected: &Value, answer: &Value) -> Result<Vec<SubAnswer>, ScoreError> {
    let expected = dabstep_expected(expected)?;
    let given = dabstep::answer_text(answer);
    let correct = dabstep::question_scorer(&given, &expected);
    Ok(vec![SubAnswer { name: "answer".into(), expected, given: Some(given), correct }])
}

/// QRData's one part: the answer's text against the gold, by the question's type.
fn qrdata_parts(expected: &Value, answer: &Value) -> Result<Vec<SubAnswer>, ScoreError> {
    let (expected, kind) = qrdata::expected_parts(expected)?;
    let given = qrdata::answer_text(answer);
    let correct = qrdata::is_right(&given, &expected, kind)?;
    Ok(vec![SubAnswer { name: "answer".into(), expected, given: Some(given), correct }])
}

/// A DABstep expected answer is text (a number stands for its text).
fn dabstep_expected(expected: &Value) -> Result<String, ScoreError> {
    match expected {
        Value::String(text) => Ok(text.clone()),
        Value::Number(n) => Ok(n.to_string()),
        _ => Err(ScoreError("a DABstep expected answer is text".into())),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_score_is_right_only_when_every_part_is() {
        let expected = json!({"a": "1", "b": "x"});
        let partial = score(Scorer::Infiagent, &expected, &json!({"a": 1, "b": "y"})).unwrap().unwrap();
        assert!(!partial.correct);
        assert_eq!(partial.share_right(), 0.5);
        assert_eq!(partial.describe(), "infiagent rules: 1 of 2 parts right (b: expected \"x\", got \"y\")");
        let whole = score(Scorer::Dabstep, &json!("A, B"), &json!(["b", "a"])).unwrap().unwrap();
        assert!(whole.correct);
        assert!(score(Scorer::Builtin, &expected, &json!(1)).is_none());
    }

    #[test]
    fn an_unanswered_question_has_every_part_wrong() {
        let missing = unanswered(Scorer::Infiagent, &json!({"a": "1", "b": "2"})).unwrap().unwrap();
        assert_eq!((missing.sub_answers.len(), missing.correct), (2, false));
        assert!(unanswered(Scorer::Dabstep, &json!([1])).unwrap().is_err());
    }
}
