//! A rubric judge's reply read: the formats a score may be written in, the
//! number and feedback taken from a reply, the error of a reply that holds
//! none, and the score normalised onto 0-1.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::text::one_line;

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
    pub(super) fn shape(self) -> &'static str {
        match self {
            Self::Plain => "a number alone",
            Self::Tagged => "[RESULT] <number> [END]",
        }
    }
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
