//! The rubric judge: one prompt describing integer score levels; the model
//! replies with a number (plain, or tagged `[RESULT] x [END]` after an optional
//! `[FEEDBACK] …`), normalised onto 0-1 by `(raw − min) / (max − min)`,
//! clamped. A reply that holds no score is an error, never a zero.

use minijinja::{context, value::Serde};
use serde::{Deserialize, Serialize};

use super::judge_prompts::{JudgeCall, JudgeError, JudgeInput};
use super::judged::Outcome;
use super::rubric_reply::{RubricOutput, normalise_score, parse_rubric_reply};
use crate::text::one_line;

/// One score level of a rubric.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RubricLevel {
    /// The integer score.
    pub score: i64,
    /// What an answer at this level looks like.
    pub description: String,
}

/// A validated rubric (built by `judge_file`).
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
