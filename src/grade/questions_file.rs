//! The user's questions file (`run --questions-file FILE`): JSON Lines, one
//! question per line.
//!
//! Each line is an object with `question` (or `text`), `difficulty` (`easy`,
//! `medium`, `hard` or an integer 1-10), and optionally `id` (unique), `expected_answer`
//! (`null` means unknown), `match` (overrides of the global [`MatchOptions`]),
//! `reasoning` and `relevant_data_keys`. Blank lines are skipped. The file's
//! order is the difficulty ranking; missing ids become `q_NN`.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::GradeError;
use super::matching::MatchOptions;
use crate::domain::{DifficultyLevel, Question};

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
#[serde(deny_unknown_fields)]
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
}

/// Read a questions file; errors name the file and line.
pub fn read_questions_file(path: &Path) -> Result<Vec<QuestionSpec>, GradeError> {
    let text = std::fs::read_to_string(path)
        .map_err(|err| GradeError::File { path: path.display().to_string(), message: err.to_string() })?;
    parse_questions_jsonl(&text, &path.display().to_string())
}

/// Parse questions-file text; `origin` names the file in errors.
pub fn parse_questions_jsonl(text: &str, origin: &str) -> Result<Vec<QuestionSpec>, GradeError> {
    let error = |line: usize, message: String| GradeError::QuestionsFile { path: origin.to_string(), line, message };
    let mut specs: Vec<QuestionSpec> = Vec::new();
    let mut ids: HashMap<String, usize> = HashMap::new();
    for (index, line_text) in text.lines().enumerate() {
        let line = index + 1;
        if line_text.trim().is_empty() {
            continue;
        }
        let raw: RawLine = serde_json::from_str(line_text)
            .map_err(|err| error(line, format!("not a valid question object: {err}")))?;
        let question = raw
            .question
            .filter(|q| !q.trim().is_empty())
            .ok_or_else(|| error(line, "missing \"question\" (or \"text\")".into()))?;
        let level = difficulty(raw.difficulty.as_ref()).map_err(|msg| error(line, msg))?;
        let match_overrides = raw.match_overrides.unwrap_or_default();
        MatchOptions::default().overridden(&match_overrides).map_err(|err| error(line, format!("\"match\": {err}")))?;
        let id = raw.id.unwrap_or_default();
        if !id.is_empty() {
            if id.trim().is_empty() {
                return Err(error(line, "\"id\" is blank".into()));
            }
            if let Some(first) = ids.insert(id.clone(), line) {
                return Err(error(line, format!("id {id:?} is already used on line {first}")));
            }
        }
        specs.push(QuestionSpec {
            question: Question {
                id,
                question,
                difficulty_rank: specs.len() + 1,
                difficulty_level: level,
                reasoning: raw.reasoning,
                relevant_data_keys: raw.relevant_data_keys,
                expected_answer: raw.expected_answer,
                match_overrides,
            },
            line,
        });
    }
    if specs.is_empty() {
        return Err(GradeError::File { path: origin.to_string(), message: "the file holds no questions".into() });
    }
    let mut used: HashSet<String> = ids.into_keys().collect();
    for spec in specs.iter_mut().filter(|s| s.question.id.is_empty()) {
        spec.question.id = fresh_id(spec.question.difficulty_rank, &mut used);
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
fn difficulty(value: Option<&Value>) -> Result<DifficultyLevel, String> {
    let help = "\"difficulty\" must be easy, medium, hard or an integer 1-10";
    match value {
        None => Err(format!("missing {help}")),
        Some(Value::String(word)) => match word.trim().to_lowercase().as_str() {
            "easy" => Ok(DifficultyLevel::Easy),
            "medium" => Ok(DifficultyLevel::Medium),
            "hard" => Ok(DifficultyLevel::Hard),
            _ => Err(format!("{help}, got {word:?}")),
        },
        Some(Value::Number(n)) => match n.as_u64() {
            Some(score @ 1..=10) => Ok(DifficultyLevel::from_score(score as u32)),
            _ => Err(format!("{help}, got {n}")),
        },
        Some(other) => Err(format!("{help}, got {other}")),
    }
}
