//! Published benchmarks: their scorers (InfiAgent-DABench's closed-form
//! parts, DABstep's tolerant matching), the Python readings those scorers
//! rely on, and the import of their files as published into a benchmark
//! directory (`questions.jsonl` + `datasets/<name>/`).

pub mod dabstep;
pub mod difflib;
pub mod import;
pub mod infiagent;
pub mod python;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::Scorer;

/// One question's answer scored by its benchmark's rules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchmarkScore {
    /// Whose rules.
    pub scorer: Scorer,
    /// Each named part of the answer.
    pub sub_answers: Vec<SubAnswer>,
    /// Whether every part is right.
    pub correct: bool,
}

/// One named part of a benchmark answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubAnswer {
    /// The part's name (`@name[...]`; `answer` for a one-part benchmark).
    pub name: String,
    /// What the benchmark expects.
    pub expected: String,
    /// What the answer gave; none when it lacks the part.
    pub given: Option<String>,
    /// Whether the part is right by the scorer's rules.
    pub correct: bool,
}

/// An expected answer the scorer cannot read (one line).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ScoreError(pub String);

impl BenchmarkScore {
    /// The share of parts that are right (0 for no parts).
    pub fn share_right(&self) -> f64 {
        let right = self.sub_answers.iter().filter(|s| s.correct).count();
        if self.sub_answers.is_empty() { 0.0 } else { right as f64 / self.sub_answers.len() as f64 }
    }

    /// One line for people: the scorer and the parts right.
    pub fn describe(&self) -> String {
        let name = scorer_name(self.scorer);
        let wrong: Vec<String> = self
            .sub_answers
            .iter()
            .filter(|s| !s.correct)
            .map(|s| {
                format!(
                    "{}: expected {:?}, got {}",
                    s.name,
                    s.expected,
                    s.given.as_deref().map_or("nothing".into(), |g| format!("{g:?}"))
                )
            })
            .collect();
        let right = self.sub_answers.len() - wrong.len();
        let mut line = format!("{name} rules: {right} of {} parts right", self.sub_answers.len());
        if !wrong.is_empty() {
            line.push_str(&format!(" ({})", wrong.join("; ")));
        }
        line
    }
}

/// The scorer's name as written in question lines.
pub fn scorer_name(scorer: Scorer) -> &'static str {
    match scorer {
        Scorer::Builtin => "builtin",
        Scorer::Infiagent => "infiagent",
        Scorer::Dabstep => "dabstep",
    }
}

/// Score `answer` against `expected` by `scorer`'s rules; none for the
/// built-in matching, which is not a benchmark's.
pub fn score(scorer: Scorer, expected: &Value, answer: &Value) -> Option<Result<BenchmarkScore, ScoreError>> {
    let sub_answers = match scorer {
        Scorer::Builtin => return None,
        Scorer::Infiagent => infiagent::score(expected, answer),
        Scorer::Dabstep => dabstep_parts(expected, answer),
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
