//! Question generation: reading the generator's reply, keeping every
//! well-formed question of its list and asking again (repair exchanges) for
//! the ones that could not be read.

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::context::RunContext;
use crate::domain::{CallKey, LlmRole};
use crate::domain::{DifficultyLevel, Question, ReplySchema};
use crate::llm::{LlmClient, LlmError, LlmRequest, describe_unreadable, ignore_stream};
use crate::prompts::{ExtractError, RepairNote, extract_json_object};

/// Repair exchanges a question list gets at most, whatever the run's limit.
const QUESTION_LIST_REPAIRS: u32 = 2;

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

/// What one reply's question list held: its well-formed questions in rank
/// order, and why each other entry was dropped.
struct QuestionBatch {
    questions: Vec<RawQuestion>,
    dropped: Vec<QuestionsReplyError>,
}

/// The question list in `reply`, entry by entry: a malformed entry is dropped
/// (and said why), the others kept. An error when no list can be read at all.
fn read_questions(reply: &str) -> Result<QuestionBatch, QuestionsReplyError> {
    let value = extract_json_object(reply)?;
    let items = value.get("questions").and_then(Value::as_array).ok_or(QuestionsReplyError::NoList)?;
    if items.is_empty() {
        return Err(QuestionsReplyError::Empty);
    }
    let mut batch = QuestionBatch { questions: Vec::new(), dropped: Vec::new() };
    let mut ranked = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let number = index + 1;
        match serde_json::from_value::<RawQuestion>(item.clone()) {
            Err(source) => batch.dropped.push(QuestionsReplyError::Malformed { number, source }),
            Ok(question) if question.question.trim().is_empty() => {
                batch.dropped.push(QuestionsReplyError::NoText { number })
            }
            Ok(question) => ranked.push((question.difficulty_rank.unwrap_or(number), index, question)),
        }
    }
    ranked.sort_by_key(|(rank, index, _)| (*rank, *index));
    batch.questions = ranked.into_iter().map(|(_, _, question)| question).collect();
    Ok(batch)
}

/// `raw` (in rank order) as the run's questions, at most `limit`: missing
/// levels follow the rank, missing or repeated ids are replaced by `q_NN`.
fn rank_questions(mut raw: Vec<RawQuestion>, limit: usize) -> Vec<Question> {
    raw.truncate(limit);
    let total = raw.len();
    let mut seen = HashSet::new();
    raw.into_iter()
        .enumerate()
        .map(|(position, q)| {
            let rank = position + 1;
            let id = q.id.filter(|id| !id.trim().is_empty() && seen.insert(id.clone())).unwrap_or_else(|| {
                let id = (rank..).map(|n| format!("q_{n:02}")).find(|id| !seen.contains(id)).unwrap_or_default();
                seen.insert(id.clone());
                id
            });
            let level = q.difficulty_level.unwrap_or_else(|| DifficultyLevel::from_rank(rank, total));
            Question {
                reasoning: q.reasoning,
                relevant_data_keys: q.relevant_data_keys,
                expected_answer: q.expected_answer,
                ..Question::new(id, q.question, rank, level)
            }
        })
        .collect()
}

/// The questions in `reply`, ranked easy → hard, at most `limit`. Missing ranks
/// follow reply order, missing levels follow the rank, and missing or repeated
/// ids are replaced by `q_NN`; a malformed question is left out, and the reply
/// is an error only when no question is left.
pub fn parse_questions(reply: &str, limit: usize) -> Result<Vec<Question>, QuestionsReplyError> {
    let QuestionBatch { questions, dropped } = read_questions(reply)?;
    match dropped.into_iter().next() {
        Some(first) if questions.is_empty() => Err(first),
        _ => Ok(rank_questions(questions, limit)),
    }
}

/// Why a run has no questions (the text of its failure, one line).
#[derive(Debug, thiserror::Error)]
pub enum GenerationError {
    /// The LLM call failed for good.
    #[error("question generation failed: {0}")]
    Call(LlmError),
    /// No reply, repairs included, held a usable question.
    #[error("question generation gave no usable question ({0})")]
    NoQuestions(String),
}

/// Ask for `count` questions. Every well-formed question of the list is kept;
/// when entries were malformed (or the reply unreadable), the generator is
/// asked again for the missing ones — at most twice, never more than the
/// run's repair limit — told what was wrong and which questions it already has.
pub(super) async fn generate_questions(ctx: &RunContext, count: u32) -> Result<Vec<Question>, GenerationError> {
    let request = LlmRequest {
        key: CallKey::run_wide(LlmRole::QuestionGeneration),
        messages: ctx.parts.prompts.question_generation(&ctx.parts.dataset, count),
        schema: Some(questions_schema()),
    };
    let repairs = ctx.repairs.limit().min(QUESTION_LIST_REPAIRS);
    let llm = ctx.recorded_llm();
    let mut kept: Vec<RawQuestion> = Vec::new();
    let mut texts = HashSet::new();
    let mut asking = request.clone();
    let mut repair = 0;
    loop {
        let reply = llm.complete(&asking, ignore_stream()).await.map_err(GenerationError::Call)?;
        let problems: Vec<String> = match read_questions(&reply.text) {
            Ok(batch) => {
                let fresh = batch.questions.into_iter().filter(|q| texts.insert(q.question.trim().to_lowercase()));
                kept.extend(fresh);
                batch.dropped.iter().map(ToString::to_string).collect()
            }
            Err(err) => vec![err.to_string()],
        };
        let problems: Vec<String> = problems.into_iter().map(|p| describe_unreadable(&reply, p)).collect();
        let missing = (count as usize).saturating_sub(kept.len());
        if problems.is_empty() || missing == 0 || repair == repairs {
            if kept.is_empty() {
                return Err(GenerationError::NoQuestions(one_line(&problems.join("; "))));
            }
            if !problems.is_empty() {
                tracing::warn!("question generation: left out after {repair} repairs: {}", problems.join("; "));
            }
            return Ok(rank_questions(kept, count as usize));
        }
        let note = RepairNote {
            problems,
            kept: kept.iter().map(|q| q.question.clone()).collect(),
            missing,
            ..RepairNote::default()
        };
        repair += 1;
        asking = LlmRequest {
            key: request.key.repair(repair),
            messages: ctx.repairs.messages(&request, &reply, note),
            schema: request.schema.clone(),
        };
    }
}

/// `text` on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
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
        assert!(error("Here are some questions.").starts_with("the reply holds no JSON object"));
        assert_eq!(error(r#"{"questions": []}"#), "the reply's \"questions\" list is empty");
        assert_eq!(error(r#"{"questions": [{"question": " "}]}"#), "question 1 has no text");
    }

    #[test]
    fn a_malformed_entry_is_left_out_and_the_others_kept() {
        let reply = r#"{"questions": [
            {"id": "q_01", "question": "first"},
            {"id": "q_02", "question": {"text": "an object where a string belongs"}},
            {"question": " "},
            {"id": "q_01", "question": "third"}]}"#;
        let QuestionBatch { questions, dropped } = read_questions(reply).unwrap();
        let dropped: Vec<String> = dropped.iter().map(ToString::to_string).collect();
        assert!(dropped[0].starts_with("question 2 is malformed: "), "{dropped:?}");
        assert_eq!(dropped[1], "question 3 has no text");
        let ids: Vec<String> = rank_questions(questions, 5).into_iter().map(|q| q.id.into()).collect();
        assert_eq!(ids, vec!["q_01", "q_02"], "a repeated id takes the first free q_NN");
        assert_eq!(parse_questions(reply, 5).unwrap().len(), 2);
    }
}
