//! The rubric judge: one prompt describing integer score levels; the model
//! replies with a number (plain, or tagged `[RESULT] x [END]` after an optional
//! `[FEEDBACK] …`), normalised onto 0-1 by `(raw − min) / (max − min)`,
//! clamped. A reply that holds no score is an error, never a zero.

use std::sync::LazyLock;

use minijinja::{context, value::Serde};
use regex::Regex;
use serde::{Deserialize, Serialize};

use super::Outcome;
use super::judge_prompts::{JudgeCall, JudgeError, JudgeInput, one_line};

/// The whole reply is a number; a comma may be the decimal point.
#[allow(clippy::expect_used, reason = "a literal pattern, which clippy's invalid_regex checks")]
static PLAIN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\s*([-+]?\d+(?:[.,]\d+)?)\s*$").expect("valid pattern"));
/// `[RESULT] x [END]`, anywhere in the reply.
#[allow(clippy::expect_used, reason = "a literal pattern, which clippy's invalid_regex checks")]
static TAGGED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?is)\[RESULT\]\s*([-+]?\d+(?:[.,]\d+)?)\s*\[END\]").expect("valid pattern"));
/// `[FEEDBACK] … [RESULT]`.
#[allow(clippy::expect_used, reason = "a literal pattern, which clippy's invalid_regex checks")]
static FEEDBACK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?is)\[FEEDBACK\](.*?)\[RESULT\]").expect("valid pattern"));

/// How the model is asked to write its score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RubricOutput {
    /// The reply is the number alone.
    #[default]
    Plain,
    /// `[FEEDBACK] text [RESULT] number [END]`.
    Tagged,
}

impl RubricOutput {
    /// How a score looks in this format, for error messages.
    fn shape(self) -> &'static str {
        match self {
            Self::Plain => "a number alone",
            Self::Tagged => "[RESULT] <number> [END]",
        }
    }
}

/// One score level of a rubric.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RubricLevel {
    /// The integer score.
    pub score: i64,
    /// What an answer at this level looks like.
    pub description: String,
}

/// A validated rubric (built by [`super::judge_file`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Rubric {
    /// What is judged.
    pub criteria: String,
    /// At least two levels with distinct scores, lowest first.
    pub levels: Vec<RubricLevel>,
    /// Reply format.
    pub output: RubricOutput,
    /// What the prompt shows.
    pub inputs: Vec<JudgeInput>,
}

/// Characters of a reply quoted when it holds no score.
const QUOTED_CHARS: usize = 80;

/// Why a rubric reply cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RubricError {
    /// The reply holds no score in the format asked for.
    #[error("the reply holds no score (expected {}): {:?}", format.shape(), one_line(reply, QUOTED_CHARS))]
    NoScore {
        /// The format asked for.
        format: RubricOutput,
        /// The whole reply.
        reply: String,
    },
}

/// A parsed rubric reply.
#[derive(Debug, Clone, PartialEq)]
pub struct RubricReply {
    /// The number the model gave.
    pub raw: f64,
    /// Its feedback, in the tagged format.
    pub feedback: Option<String>,
}

/// Read the score from a reply in `format`.
pub fn parse_rubric_reply(reply: &str, format: RubricOutput) -> Result<RubricReply, RubricError> {
    let pattern = match format {
        RubricOutput::Plain => &PLAIN,
        RubricOutput::Tagged => &TAGGED,
    };
    let number = pattern
        .captures(reply)
        .and_then(|c| c.get(1))
        .and_then(|m| m.as_str().replace(',', ".").parse::<f64>().ok())
        .ok_or_else(|| RubricError::NoScore { format, reply: reply.to_string() })?;
    let feedback = match format {
        RubricOutput::Plain => None,
        RubricOutput::Tagged => FEEDBACK
            .captures(reply)
            .and_then(|c| c.get(1))
            .map(|m| m.as_str().trim().to_string())
            .filter(|f| !f.is_empty()),
    };
    Ok(RubricReply { raw: number, feedback })
}

/// `(raw − min) / (max − min)`, clamped to 0-1 (0 when the scale is empty).
pub fn normalise_score(raw: f64, min: f64, max: f64) -> f64 {
    if max <= min {
        return 0.0;
    }
    ((raw - min) / (max - min)).clamp(0.0, 1.0)
}

impl Rubric {
    fn bounds(&self) -> (i64, i64) {
        let min = self.levels.first().map_or(0, |l| l.score);
        let max = self.levels.last().map_or(0, |l| l.score);
        (min, max)
    }

    /// Ask for a score and normalise it.
    pub(crate) async fn run(&self, call: &JudgeCall<'_>) -> Result<Outcome, JudgeError> {
        let (min, max) = self.bounds();
        let tagged = self.output == RubricOutput::Tagged;
        let ctx = context! {
            criteria => &self.criteria, levels => Serde(&self.levels), min => min, max => max,
            tagged => tagged, ..call.inputs(&self.inputs)
        };
        let reply = call.ask(0, "rubric.j2", &ctx, None).await?;
        let parsed = parse_rubric_reply(&reply, self.output)?;
        let score = normalise_score(parsed.raw, min as f64, max as f64);
        let mut reason = format!("{} on {min}-{max}", parsed.raw);
        if parsed.raw < min as f64 || parsed.raw > max as f64 {
            reason.push_str(" (outside the scale, clamped)");
        } else if let Some(level) = self.levels.iter().find(|l| l.score as f64 == parsed.raw) {
            reason.push_str(&format!(": {}", one_line(&level.description, 80)));
        }
        if let Some(feedback) = parsed.feedback {
            reason.push_str(&format!(" — {}", one_line(&feedback, 160)));
        }
        Ok(Outcome { score, reason })
    }
}
