//! The user's questions file (`run --questions-file FILE`): JSON Lines, one
//! question per line.
//!
//! Each line is an object with `question` (or `text`), `difficulty` (`easy`,
//! `medium`, `hard` or an integer 1-10), and optionally `id` (unique), `expected_answer`
//! (`null` means unknown), `match` (overrides of the global [`MatchOptions`]),
//! `reasoning` and `relevant_data_keys`; for a question set over several
//! datasets or imported from a benchmark, `dataset`, `source_id`,
//! `answer_format`, `constraints` and `scorer` (`builtin`, `infiagent`,
//! `dabstep`). Fields it does not know are kept with the question and
//! otherwise ignored. Blank lines are skipped. The file's order is the
//! difficulty ranking; missing ids become `q_NN`.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::error::{GradeError, QuestionsFileError};
use super::matching::MatchOptions;
use crate::domain::{DifficultyLevel, Question, Scorer};

/// A question read from a questions file, with its own matching overrides.
#[derive(Debug, Clone, PartialEq)]
pub struct QuestionSpec {
    /// The question, ranked by its position in the file.
    pub question: Question,
    /// 1-based line of the file the question came from.
    pub line: usize,
}

impl QuestionSpec {
    /// The options for this question: `global` with this question's overrides.
    pub fn match_options(&self, global: &MatchOptions) -> Result<MatchOptions, GradeError> {
        global.overridden(&self.question.match_overrides)
    }
}

#[derive(Deserialize)]
struct RawLine {
    #[serde(default)]
    id: Option<String>,
    #[serde(default, alias = "text")]
    question: Option<String>,
    #[serde(default)]
    difficulty: Option<Value>,
    #[serde(default)]
    expected_answer: Option<Value>,
    #[serde(default, rename = "match")]
    match_overrides: Option<Map<String, Value>>,
    #[serde(default)]
    reasoning: String,
    #[serde(default)]
    relevant_data_keys: Vec<String>,
    #[serde(default)]
    dataset: Option<String>,
    #[serde(default)]
    source_id: Option<String>,
    #[serde(default)]
    answer_format: Option<String>,
    #[serde(default)]
    constraints: Option<String>,
    #[serde(default)]
    data_description: Option<String>,
    #[serde(default)]
    scorer: Option<Scorer>,
    /// Fields this version does not know: kept, not refused.
    #[serde(flatten)]
    extra: Map<String, Value>,
}

/// Read a questions file; errors name the file and line.
pub fn read_questions_file(path: &Path) -> Result<Vec<QuestionSpec>, GradeError> {
    let text = std::fs::read_to_string(path)
        .map_err(|err| GradeError::File { path: path.display().to_string(), message: err.to_string() })?;
    parse_questions_jsonl(&text, &path.display().to_string())
}

/// Parse questions-file text; `origin` names the file in errors.
pub fn parse_questions_jsonl(text: &str, origin: &str) -> Result<Vec<QuestionSpec>, GradeError> {
    let error = |line: usize, problem| GradeError::QuestionsFile { path: origin.to_string(), line, problem };
    let mut specs: Vec<QuestionSpec> = Vec::new();
    let mut ids: HashMap<String, usize> = HashMap::new();
    for (index, line_text) in text.lines().enumerate() {
        let line = index + 1;
        if line_text.trim().is_empty() {
            continue;
        }
        let raw: RawLine = serde_json::from_str(line_text)
            .map_err(|source| error(line, QuestionsFileError::NotAnObject { source }))?;
        let question =
            raw.question.filter(|q| !q.trim().is_empty()).ok_or_else(|| error(line, QuestionsFileError::NoQuestion))?;
        let level = difficulty(raw.difficulty).map_err(|problem| error(line, problem))?;
        let match_overrides = raw.match_overrides.unwrap_or_default();
        MatchOptions::default()
            .overridden(&match_overrides)
            .map_err(|err| error(line, QuestionsFileError::Match { source: Box::new(err) }))?;
        let id = raw.id.unwrap_or_default();
        if !id.is_empty() {
            if id.trim().is_empty() {
                return Err(error(line, QuestionsFileError::BlankId));
            }
            if let Some(first) = ids.insert(id.clone(), line) {
                return Err(error(line, QuestionsFileError::DuplicateId { id, first }));
            }
        }
        specs.push(QuestionSpec {
            question: Question {
                id: id.into(),
                question,
                difficulty_rank: specs.len() + 1,
                difficulty_level: level,
                reasoning: raw.reasoning,
                relevant_data_keys: raw.relevant_data_keys,
                expected_answer: raw.expected_answer,
                match_overrides,
                dataset: raw.dataset,
                source_id: raw.source_id,
                answer_format: raw.answer_format,
                constraints: raw.constraints,
                data_description: raw.data_description,
                scorer: raw.scorer,
                extra: raw.extra,
            },
            line,
        });
    }
    if specs.is_empty() {
        return Err(GradeError::File { path: origin.to_string(), message: "the file holds no questions".into() });
    }
    let mut used: HashSet<String> = ids.into_keys().collect();
    for spec in specs.iter_mut().filter(|s| s.question.id.is_empty()) {
        spec.question.id = fresh_id(spec.question.difficulty_rank, &mut used).into();
    }
    Ok(specs)
}

/// `q_NN`, with a suffix when the file already uses that id.
fn fresh_id(rank: usize, used: &mut HashSet<String>) -> String {
    let base = format!("q_{rank:02}");
    let id = std::iter::once(base.clone())
        .chain((2..).map(|n| format!("{base}_{n}")))
        .find(|candidate| !used.contains(candidate))
        .unwrap_or(base);
    used.insert(id.clone());
    id
}

/// The level of a `difficulty` field.
fn difficulty(value: Option<Value>) -> Result<DifficultyLevel, QuestionsFileError> {
    let Some(given) = value else {
        return Err(QuestionsFileError::NoDifficulty);
    };
    let level = match &given {
        Value::String(word) => match word.trim().to_lowercase().as_str() {
            "easy" => Some(DifficultyLevel::Easy),
            "medium" => Some(DifficultyLevel::Medium),
            "hard" => Some(DifficultyLevel::Hard),
            _ => None,
        },
        Value::Number(n) => match n.as_u64() {
            Some(score @ 1..=10) => Some(DifficultyLevel::from_score(score as u32)),
            _ => None,
        },
        _ => None,
    };
    level.ok_or(QuestionsFileError::BadDifficulty { given })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn benchmark_fields_are_read_and_unknown_fields_kept_not_refused() {
        let text = r#"{"id": "7", "question": "Mean fare?", "difficulty": "hard", "dataset": "titanic",
            "source_id": "0", "answer_format": "@mean_fare[value]", "constraints": "round to 2 decimals",
            "scorer": "infiagent", "concepts": ["Summary Statistics"], "level": "hard"}"#
            .replace('\n', " ");
        let specs = parse_questions_jsonl(&text, "q.jsonl").unwrap();
        let q = &specs[0].question;
        assert_eq!(q.dataset.as_deref(), Some("titanic"));
        assert_eq!((q.source_id.as_deref(), q.scorer), (Some("0"), Some(Scorer::Infiagent)));
        assert_eq!(q.answer_format.as_deref(), Some("@mean_fare[value]"));
        assert_eq!(q.constraints.as_deref(), Some("round to 2 decimals"));
        assert_eq!(q.extra.keys().collect::<Vec<_>>(), ["concepts", "level"]);
        assert_eq!(q.extra["concepts"], json!(["Summary Statistics"]));
        let round_trip: Question = serde_json::from_value(serde_json::to_value(q).unwrap()).unwrap();
        assert_eq!(&round_trip, q, "a question keeps every field through the trace");
        let err = parse_questions_jsonl(r#"{"question": "?", "difficulty": 1, "scorer": "exact"}"#, "q.jsonl");
        let message = err.unwrap_err().to_string();
        assert!(message.contains("q.jsonl") && message.contains("unknown variant `exact`"), "{message}");
    }

    #[test]
    fn difficulty_errors_show_what_was_given() {
        let message = |value: Option<Value>| difficulty(value).unwrap_err().to_string();
        assert_eq!(message(None), "missing \"difficulty\" must be easy, medium, hard or an integer 1-10");
        let bad = "\"difficulty\" must be easy, medium, hard or an integer 1-10, got";
        assert_eq!(message(Some(json!(" tricky\n"))), format!("{bad} \" tricky\\n\""));
        assert_eq!(message(Some(json!(11))), format!("{bad} 11"));
        assert_eq!(message(Some(json!(2.5))), format!("{bad} 2.5"));
        assert_eq!(message(Some(json!([1]))), format!("{bad} [1]"));
        assert_eq!(difficulty(Some(json!(" Hard "))).unwrap(), DifficultyLevel::Hard);
    }
}
