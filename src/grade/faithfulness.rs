//! Answer faithfulness: are the answer's claims backed by what the DAG's nodes
//! actually produced?
//!
//! Claims are extracted from the answer and truths from the node outputs (two
//! concurrent LLM calls), then every claim gets a verdict against the truths.
//! Score = claims not contradicted ÷ claims (or supported ÷ claims when unknown
//! claims are penalised); an answer without claims scores 1.

use minijinja::context;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::judge_prompts::{JudgeCall, JudgeError, JudgeInput};
use super::judged::Outcome;
use crate::domain::ReplySchema;
use crate::text::one_line;

/// Options of a faithfulness judge.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Faithfulness {
    /// Count claims the truths neither support nor contradict as wrong.
    pub penalize_unknown: bool,
    /// Keep at most this many truths.
    pub truths_limit: Option<usize>,
}

/// How a claim stands against the truths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClaimVerdict {
    /// A truth supports the claim.
    Supported,
    /// A truth contradicts the claim.
    Contradicted,
    /// The truths say nothing about the claim.
    Unknown,
}

impl ClaimVerdict {
    fn parse(value: &Value) -> Option<Self> {
        match value.as_str()?.trim().to_lowercase().as_str() {
            "supported" | "yes" => Some(Self::Supported),
            "contradicted" | "no" => Some(Self::Contradicted),
            "unknown" | "idk" => Some(Self::Unknown),
            _ => None,
        }
    }
}

/// The claims step's reply.
#[derive(JsonSchema)]
#[allow(dead_code, reason = "the reply's shape, for its schema; the reply is read leniently")]
struct ClaimsReply {
    /// Each claim the answer makes, as a short sentence.
    claims: Vec<String>,
}

/// The truths step's reply.
#[derive(JsonSchema)]
#[allow(dead_code, reason = "the reply's shape, for its schema; the reply is read leniently")]
struct TruthsReply {
    /// Each fact the node outputs establish, as a short sentence.
    truths: Vec<String>,
}

/// The verdicts step's reply.
#[derive(JsonSchema)]
#[allow(dead_code, reason = "the reply's shape, for its schema; the reply is read leniently")]
struct VerdictsReply {
    /// One verdict per claim, in the claims' order.
    verdicts: Vec<ClaimVerdictReply>,
}

/// The verdict on one claim.
#[derive(JsonSchema)]
#[allow(dead_code, reason = "the reply's shape, for its schema; the reply is read leniently")]
struct ClaimVerdictReply {
    /// How the claim stands against the truths.
    verdict: ClaimVerdict,
    /// Why.
    reason: String,
}

/// The score of a list of claim verdicts (1 when there are none).
pub fn faithfulness_score(verdicts: &[ClaimVerdict], penalize_unknown: bool) -> f64 {
    if verdicts.is_empty() {
        return 1.0;
    }
    let count = |v: ClaimVerdict| verdicts.iter().filter(|x| **x == v).count();
    let good = if penalize_unknown {
        count(ClaimVerdict::Supported)
    } else {
        verdicts.len() - count(ClaimVerdict::Contradicted)
    };
    good as f64 / verdicts.len() as f64
}

/// The strings of list `field` in a reply.
fn string_list(reply: &Value, field: &'static str) -> Result<Vec<String>, JudgeError> {
    reply
        .get(field)
        .and_then(Value::as_array)
        .ok_or(JudgeError::MissingList { field })?
        .iter()
        .map(|item| match item {
            Value::String(s) => Ok(s.clone()),
            other => Err(JudgeError::NonStringItem { field, item: other.clone() }),
        })
        .collect()
}

impl Faithfulness {
    /// Extract claims and truths, judge every claim, score.
    pub(crate) async fn run(&self, call: &JudgeCall<'_>) -> Result<Outcome, JudgeError> {
        const TEMPLATE: &str = "faithfulness.j2";
        // A narrative answer makes the claims; a bare value is its own claim.
        let answer = call.narrative.map_or_else(|| call.answer_text(), str::to_string);
        let claims_ctx = context! {
            step => "claims", answer => answer, ..call.inputs(&[JudgeInput::Question])
        };
        let truths_ctx = context! {
            step => "truths", limit => self.truths_limit, ..call.inputs(&[JudgeInput::NodeOutputs])
        };
        let (claims, truths) = futures::join!(
            call.ask_json(0, TEMPLATE, &claims_ctx, ReplySchema::of::<ClaimsReply>("claims")),
            call.ask_json(1, TEMPLATE, &truths_ctx, ReplySchema::of::<TruthsReply>("truths"))
        );
        let claims = string_list(&claims?, "claims")?;
        let mut truths = string_list(&truths?, "truths")?;
        if let Some(limit) = self.truths_limit {
            truths.truncate(limit);
        }
        if claims.is_empty() {
            return Ok(Outcome { score: 1.0, reason: "the answer makes no claims".into() });
        }
        let verdicts_ctx = context! { step => "verdicts", claims => &claims, truths => &truths };
        let reply = call.ask_json(2, TEMPLATE, &verdicts_ctx, ReplySchema::of::<VerdictsReply>("verdicts")).await?;
        let items =
            reply.get("verdicts").and_then(Value::as_array).ok_or(JudgeError::MissingList { field: "verdicts" })?;
        if items.len() != claims.len() {
            return Err(JudgeError::VerdictCount { verdicts: items.len(), claims: claims.len() });
        }
        let mut verdicts = Vec::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            let verdict = item
                .get("verdict")
                .and_then(ClaimVerdict::parse)
                .ok_or(JudgeError::BadClaimVerdict { number: index + 1 })?;
            verdicts.push(verdict);
        }
        let count = |v: ClaimVerdict| verdicts.iter().filter(|x| **x == v).count();
        let mut reason = format!(
            "{} of {} claims supported, {} contradicted, {} unknown",
            count(ClaimVerdict::Supported),
            claims.len(),
            count(ClaimVerdict::Contradicted),
            count(ClaimVerdict::Unknown)
        );
        if let Some(index) = verdicts.iter().position(|v| *v == ClaimVerdict::Contradicted) {
            let why = items[index].get("reason").and_then(Value::as_str).unwrap_or_default();
            reason.push_str(&format!("; contradicted: {:?} ({})", one_line(&claims[index], 100), one_line(why, 120)));
        }
        Ok(Outcome { score: faithfulness_score(&verdicts, self.penalize_unknown), reason })
    }
}
