//! Reading the question generator's reply.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::domain::{DifficultyLevel, Question, ReplySchema};
use crate::prompts::{ExtractError, extract_json_object};

/// Why the question generator's reply yields no questions.
#[derive(Debug, thiserror::Error)]
pub enum QuestionsReplyError {
    /// No JSON object could be read from the reply.
    #[error(transparent)]
    Unreadable(#[from] ExtractError),
    /// The object has no `questions` list.
    #[error("the reply has no \"questions\" list")]
    NoList,
    /// The list is empty.
    #[error("the reply's \"questions\" list is empty")]
    Empty,
    /// A question does not have the question shape.
    #[error("question {number} is malformed: {source}")]
    Malformed {
        /// 1-based position in the list.
        number: usize,
        /// What serde found wrong.
        source: serde_json::Error,
    },
    /// A question has no text.
    #[error("question {number} has no text")]
    NoText {
        /// 1-based position in the list.
        number: usize,
    },
}

/// The question generator's reply: the shape its schema asks for (read item
/// by item, so a malformed question is named by its number).
#[derive(JsonSchema)]
#[allow(dead_code, reason = "the reply's shape, for its schema; the reply is read item by item")]
struct QuestionsReply {
    /// The questions, easiest first.
    questions: Vec<RawQuestion>,
}

/// One generated question as the generator writes it.
#[derive(Deserialize, JsonSchema)]
struct RawQuestion {
    /// A short unique id, e.g. `q_01`.
    #[serde(default, alias = "question_id")]
    id: Option<String>,
    /// The question.
    #[serde(alias = "text")]
    question: String,
    /// 1 for the easiest.
    #[serde(default)]
    difficulty_rank: Option<usize>,
    /// easy, medium or hard.
    #[serde(default)]
    difficulty_level: Option<DifficultyLevel>,
    /// Why the question is worth asking and how hard it is.
    #[serde(default)]
    reasoning: String,
    /// The dataset keys the answer needs.
    #[serde(default)]
    relevant_data_keys: Vec<String>,
    /// The answer, when known.
    #[serde(default)]
    expected_answer: Option<Value>,
}

/// The schema of the question generator's reply ([`QuestionsReply`]).
pub fn questions_schema() -> ReplySchema {
    ReplySchema::of::<QuestionsReply>("questions")
}

/// The questions in `reply`, ranked easy → hard, at most `limit`. Missing ranks
/// follow reply order, missing levels follow the rank, and missing or repeated
/// ids are replaced by `q_NN`.
pub fn parse_questions(reply: &str, limit: usize) -> Result<Vec<Question>, QuestionsReplyError> {
    let value = extract_json_object(reply)?;
    let items = value.get("questions").and_then(Value::as_array).ok_or(QuestionsReplyError::NoList)?;
    let mut raw = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let number = index + 1;
        let question: RawQuestion =
            serde_json::from_value(item.clone()).map_err(|source| QuestionsReplyError::Malformed { number, source })?;
        if question.question.trim().is_empty() {
            return Err(QuestionsReplyError::NoText { number });
        }
        raw.push((question.difficulty_rank.unwrap_or(number), index, question));
    }
    if raw.is_empty() {
        return Err(QuestionsReplyError::Empty);
    }
    raw.sort_by_key(|(rank, index, _)| (*rank, *index));
    raw.truncate(limit);
    let total = raw.len();
    let mut seen = std::collections::HashSet::new();
    Ok(raw
        .into_iter()
        .enumerate()
        .map(|(position, (_, _, q))| {
            let rank = position + 1;
            let id = q.id.filter(|id| !id.trim().is_empty() && seen.insert(id.clone())).unwrap_or_else(|| {
                let id = format!("q_{rank:02}");
                seen.insert(id.clone());
                id
            });
            Question {
                id,
                question: q.question,
                difficulty_rank: rank,
                difficulty_level: q.difficulty_level.unwrap_or_else(|| DifficultyLevel::from_rank(rank, total)),
                reasoning: q.reasoning,
                relevant_data_keys: q.relevant_data_keys,
                expected_answer: q.expected_answer,
                match_overrides: Default::default(),
                dataset: None,
                source_id: None,
                answer_format: None,
                constraints: None,
                scorer: None,
                extra: Default::default(),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_levels_and_ids_are_normalised() {
        let reply = r#"{"questions": [
            {"question": "hard one", "difficulty_rank": 3},
            {"id": "a", "question": "easy one", "difficulty_rank": 1, "difficulty_level": "easy"},
            {"id": "a", "question": "middle", "difficulty_rank": 2}]}"#;
        let qs = parse_questions(reply, 10).unwrap();
        let ids: Vec<&str> = qs.iter().map(|q| q.id.as_str()).collect();
        assert_eq!(ids, vec!["a", "q_02", "q_03"]);
        assert_eq!(qs[2].difficulty_level, DifficultyLevel::Hard);
        assert_eq!(parse_questions(reply, 2).unwrap().len(), 2);
    }

    #[test]
    fn bad_replies_say_why() {
        let error = |reply: &str| parse_questions(reply, 3).unwrap_err().to_string();
        assert_eq!(error("{}"), "the reply has no \"questions\" list");
        assert!(error(r#"{"questions": [{"id": 1}]}"#).starts_with("question 1 is malformed: "));
        assert_eq!(error(r#"{"questions": []}"#), "the reply's \"questions\" list is empty");
        assert_eq!(error(r#"{"questions": [{"question": " "}]}"#), "question 1 has no text");
    }
}
