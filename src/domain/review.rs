//! A person's review of an answer, as `RUN_DIR/reviews/<reviewer>.jsonl`
//! holds it: one JSON object a line, the latest line per reviewer, item and
//! kind counting. A review carries the SHA-256 of exactly what it judged (the
//! question, the dataset's hash and the canonical answer), so a review of an
//! answer that later changed is stale: listed, never counted.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{QuestionId, sha256_hex};

/// The version of the review line this build writes.
pub const REVIEW_VERSION: u32 = 1;

/// A reviewer's name: 1 to 64 of `A-Z a-z 0-9 _ . -`, never `.` or `..`
/// (it names a file under `reviews/`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ReviewerName(String);

impl ReviewerName {
    /// The name as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for ReviewerName {
    type Error = String;

    fn try_from(name: String) -> Result<Self, String> {
        let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-');
        if name.is_empty() || name.len() > 64 || !name.chars().all(allowed) || name == "." || name == ".." {
            return Err(format!(
                "reviewer name {name:?} is not 1 to 64 letters, digits, `_`, `.` or `-` (and not `.` or `..`)"
            ));
        }
        Ok(Self(name))
    }
}

impl std::str::FromStr for ReviewerName {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        Self::try_from(name.to_string())
    }
}

impl From<ReviewerName> for String {
    fn from(name: ReviewerName) -> String {
        name.0
    }
}

impl std::fmt::Display for ReviewerName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a review is about: a question's answer in one epoch and draft, at
/// one iteration (none: the final answer).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ReviewItem {
    /// The question.
    pub question_id: QuestionId,
    /// Its repeat, 1-based.
    pub epoch: u32,
    /// Its independent DAG, 1-based.
    pub draft: u32,
    /// The iteration whose answer was reviewed; none for the final answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iteration: Option<u32>,
}

impl ReviewItem {
    /// The final answer of `question_id` (epoch 1, draft 1).
    pub fn final_answer(question_id: QuestionId) -> Self {
        Self { question_id, epoch: 1, draft: 1, iteration: None }
    }
}

/// One answer judged alone, or two runs' answers side by side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewKind {
    /// Right, wrong or unsure.
    Answer,
    /// Which of two runs' answers is better.
    Pairwise,
}

/// What the reviewer said.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The answer is right.
    Right,
    /// The answer is wrong.
    Wrong,
    /// The reviewer cannot tell (left out of every figure, counted).
    Unsure,
    /// Pairwise: the left answer is better.
    Left,
    /// Pairwise: the right answer is better.
    RightSide,
    /// Pairwise: as good as each other.
    Tie,
    /// Pairwise: neither is right.
    BothWrong,
}

impl Verdict {
    /// The verdicts of `kind`.
    pub fn of(kind: ReviewKind) -> &'static [Verdict] {
        match kind {
            ReviewKind::Answer => &[Verdict::Right, Verdict::Wrong, Verdict::Unsure],
            ReviewKind::Pairwise => &[Verdict::Left, Verdict::RightSide, Verdict::Tie, Verdict::BothWrong],
        }
    }

    /// Its name in a review line.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Right => "right",
            Verdict::Wrong => "wrong",
            Verdict::Unsure => "unsure",
            Verdict::Left => "left",
            Verdict::RightSide => "right_side",
            Verdict::Tie => "tie",
            Verdict::BothWrong => "both_wrong",
        }
    }

    /// Right or wrong as a yes or no; none for unsure and the pairwise verdicts.
    pub fn right(self) -> Option<bool> {
        match self {
            Verdict::Right => Some(true),
            Verdict::Wrong => Some(false),
            _ => None,
        }
    }
}

/// Which side a pairwise review showed this run on, and the other run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairShown {
    /// The other run, as given.
    pub other_run: String,
    /// SHA-256 of the other run's results file when reviewed.
    pub other_results_sha256: String,
    /// `this` or `other`: which run's answer was on the left.
    pub left: String,
}

/// One line of a reviewer's file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Review {
    /// [`REVIEW_VERSION`] when written.
    pub version: u32,
    /// Who reviewed.
    pub reviewer: ReviewerName,
    /// When (RFC 3339).
    pub at: String,
    /// What.
    pub item: ReviewItem,
    /// Alone or side by side.
    pub kind: ReviewKind,
    /// The verdict.
    pub verdict: Verdict,
    /// Why, in one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The right answer, when the reviewer gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correct_answer: Option<Value>,
    /// [`shown_sha256`] of what was judged.
    pub shown_sha256: String,
    /// Pairwise: the other run and the sides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pair: Option<PairShown>,
}

/// What divides a stratified sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stratum {
    /// The question's difficulty level.
    Level,
    /// The question's dataset.
    Dataset,
    /// The question's status (passed, exhausted, …).
    Status,
}

impl Stratum {
    /// Every stratum, as `--stratify` lists them.
    pub const ALL: [Self; 3] = every_variant!(Self: Level, Dataset, Status);

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Level => "level",
            Self::Dataset => "dataset",
            Self::Status => "status",
        }
    }
}

/// The order of a review queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReviewOrder {
    /// The run's order (a sample's own seeded order).
    #[default]
    Run,
    /// Most machine disagreements first, the run's order among equals.
    Disagreement,
}

impl ReviewOrder {
    /// Every order, as `--order` lists them.
    pub const ALL: [Self; 2] = every_variant!(Self: Run, Disagreement);

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Run => "run",
            Self::Disagreement => "disagreement",
        }
    }
}

/// What a review queue holds and in which order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReviewSelection {
    /// Review this many items drawn at random instead of all.
    pub sample: Option<usize>,
    /// The seed of the sample.
    pub seed: u64,
    /// Draw the sample in proportion to these strata.
    pub stratify: Option<Stratum>,
    /// Also the answers of iterations the critic rejected.
    pub include_rejected: bool,
    /// The queue's order.
    pub order: ReviewOrder,
}

/// `value` with every object's keys sorted and integral floats written as
/// integers, recursively: equal answers hash alike whatever their key order.
pub fn canonical_json(value: &Value) -> Value {
    match value {
        Value::Number(n) if n.is_f64() => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Value::from(f as i64),
            _ => value.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(canonical_json).collect()),
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(keys.into_iter().map(|k| (k.clone(), canonical_json(&map[k]))).collect())
        }
        other => other.clone(),
    }
}

/// The SHA-256 of what a reviewer judged: the question's text, the dataset's
/// hash and the canonical answer (none: `null`), as one JSON array.
pub fn shown_sha256(question: &str, dataset_hash: &str, answer: Option<&Value>) -> String {
    let answer = answer.map_or(Value::Null, canonical_json);
    let shown = serde_json::json!([question, dataset_hash, answer]);
    sha256_hex(shown.to_string().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reviewer_names_are_file_names_and_nothing_more() {
        for good in ["ana", "reviewer.2", "A-b_c", &"x".repeat(64)] {
            assert!(good.parse::<ReviewerName>().is_ok(), "{good}");
        }
        for bad in ["", ".", "..", "a/b", "../x", "a b", "é", &"x".repeat(65), "a\nb"] {
            let err = bad.parse::<ReviewerName>().unwrap_err();
            assert!(!err.contains('\n') || bad.contains('\n'), "{err}");
        }
        let line: Result<Review, _> = serde_json::from_value(json!({"version": 1, "reviewer": "../etc",
            "at": "2026-12-05T00:00:00Z", "item": {"question_id": "q1", "epoch": 1, "draft": 1},
            "kind": "answer", "verdict": "right", "shown_sha256": "0"}));
        assert!(line.is_err(), "a name with `/` is refused when read too");
    }

    #[test]
    fn what_was_shown_hashes_alike_whatever_the_key_order_and_otherwise_differs() {
        let a = shown_sha256("q?", "h", Some(&json!({"b": 1, "a": [2.0, {"d": 1, "c": 2}]})));
        let b = shown_sha256("q?", "h", Some(&json!({"a": [2, {"c": 2, "d": 1}], "b": 1.0})));
        assert_eq!(a, b);
        assert_ne!(a, shown_sha256("q?", "other data", Some(&json!({"a": [2, {"c": 2, "d": 1}], "b": 1}))));
        assert_eq!(shown_sha256("q?", "h", None), shown_sha256("q?", "h", Some(&json!(null))), "no answer is null");
        assert_eq!(Verdict::of(ReviewKind::Answer).len(), 3);
        assert_eq!(serde_json::to_value(Verdict::RightSide).unwrap(), json!("right_side"));
    }
}
