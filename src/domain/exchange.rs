//! The records of an LLM exchange, whatever the provider: the messages of a
//! prompt, what a call is for and its key within a run, and token counts.

use serde::{Deserialize, Serialize};

use super::location::{is_one, is_zero, one};
use super::{IterationAt, QuestionId};

/// Who speaks a chat message (`system`, `user` or `assistant` in the trace and the providers' requests).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageRole {
    /// The instructions.
    System,
    /// The asker.
    User,
    /// The model (an earlier reply, quoted back to it).
    Assistant,
}

impl MessageRole {
    /// The role as the trace and the providers write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::System => "system",
            Self::User => "user",
            Self::Assistant => "assistant",
        }
    }
}

impl std::fmt::Display for MessageRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// Who speaks it.
    pub role: MessageRole,
    /// Message text.
    pub content: String,
}

impl ChatMessage {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self { role: MessageRole::System, content: content.into() }
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self { role: MessageRole::User, content: content.into() }
    }

    /// A message the model wrote (an earlier reply, quoted back to it).
    pub fn assistant(content: impl Into<String>) -> Self {
        Self { role: MessageRole::Assistant, content: content.into() }
    }
}

/// What an LLM call is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LlmRole {
    /// Generate the ranked questions.
    QuestionGeneration,
    /// Build (or rebuild) a question's DAG.
    DagBuild,
    /// Review one layer of a DAG.
    LayerReview,
    /// Grade an answer (judges and answer faithfulness).
    Judge,
    /// Explain an executed DAG's answer in one sentence (for answer faithfulness).
    Narrative,
    /// Answer a question directly, without the critic loop (`run --baselines`).
    Baseline,
}

impl LlmRole {
    /// Every role, in the order a run first calls them.
    pub const ALL: [Self; 6] =
        every_variant!(Self: QuestionGeneration, DagBuild, LayerReview, Narrative, Judge, Baseline);

    /// The role's name in the config file (`[roles.<name>]`) and in its flags
    /// (`--<name>-model`).
    pub fn setting_name(self) -> &'static str {
        match self {
            Self::QuestionGeneration => "questions",
            Self::DagBuild => "builder",
            Self::LayerReview => "critic",
            Self::Judge => "judge",
            Self::Narrative => "narrative",
            Self::Baseline => "baseline",
        }
    }

    /// Human name.
    pub fn label(self) -> &'static str {
        match self {
            Self::QuestionGeneration => "questions",
            Self::DagBuild => "build",
            Self::LayerReview => "review",
            Self::Judge => "judge",
            Self::Narrative => "narrative",
            Self::Baseline => "baseline",
        }
    }
}

/// Who plays a role in a run: provider, model and server (never a key).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RoleModel {
    /// The provider (`openai`, `offline`, …).
    pub provider: super::Provider,
    /// Model name.
    pub model: String,
    /// The server's base URL, for a provider that has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
}

/// Who played each role of a run.
pub type RoleModels = std::collections::BTreeMap<LlmRole, RoleModel>;

/// Identifies an LLM call within a run: replay matches recorded responses by it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CallKey {
    /// Question the call is about (none for question generation).
    pub question_id: Option<QuestionId>,
    /// Purpose of the call.
    pub role: LlmRole,
    /// Attempt number (1-based; reruns add attempts).
    pub attempt: u32,
    /// Iteration number within the attempt (1-based; 0 for question generation).
    pub iteration: u32,
    /// Layer under review, for layer reviews (a judge's step, for judge calls).
    pub layer: Option<usize>,
    /// For a judge's call on a rejected iteration's answer: the judge's
    /// 1-based place in the panel (`iteration` is then the iteration judged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<u32>,
    /// Repeat of the question the call is for, 1-based (written when not 1).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub epoch: u32,
    /// Independent DAG of the epoch the call is for, 1-based (written when not 1).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub draft: u32,
    /// A repair exchange asking again for a reply the call before it could not
    /// be read: its 1-based number (0, unwritten, for the call itself).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub repair: u32,
    /// For a judge call: which judgement of the same answer it is, 1-based
    /// (`grade --repeat-judges`; written when not 1).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub judge_repeat: u32,
    /// For a baseline call (`run --baselines`): which baseline it answers
    /// (`iteration` is then 0; written only when set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<super::BaselineCall>,
}

impl CallKey {
    /// The key of a call made for iteration `at` (`layer`: the layer a review is of).
    pub fn for_iteration(at: &IterationAt, role: LlmRole, layer: Option<usize>) -> Self {
        Self {
            question_id: Some(at.question_id.clone()),
            role,
            attempt: at.attempt,
            iteration: at.iteration,
            layer,
            judge: None,
            epoch: at.epoch,
            draft: at.draft,
            repair: 0,
            judge_repeat: 1,
            baseline: None,
        }
    }

    /// The key of a run-wide call of `role` (question generation): no question,
    /// attempt 1, iteration 0.
    pub fn run_wide(role: LlmRole) -> Self {
        Self {
            question_id: None,
            role,
            attempt: 1,
            iteration: 0,
            layer: None,
            judge: None,
            epoch: 1,
            draft: 1,
            repair: 0,
            judge_repeat: 1,
            baseline: None,
        }
    }

    /// The key of question `question_id`'s `baseline` call: role `baseline`,
    /// attempt 1, iteration 0, epoch 1 and draft 1 (a question asks each baseline once).
    pub fn for_baseline(question_id: QuestionId, baseline: super::BaselineCall) -> Self {
        Self { question_id: Some(question_id), baseline: Some(baseline), ..Self::run_wide(LlmRole::Baseline) }
    }

    /// The key of repair exchange `repair` (1-based) of this call.
    pub fn repair(&self, repair: u32) -> Self {
        Self { repair, ..self.clone() }
    }
}

/// Why a model stopped writing, as the provider said (`finish_reason`,
/// Anthropic's `stop_reason`), in one vocabulary.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum FinishReason {
    /// The reply is complete (`stop`, `end_turn`, `stop_sequence`).
    Stop,
    /// The reply was cut at the token limit (`length`, `max_tokens`).
    Length,
    /// The model called a tool (`tool_calls`, `tool_use`): a forced tool's input is the reply.
    ToolCalls,
    /// The provider withheld the reply (`content_filter`, `refusal`).
    ContentFilter,
    /// Any other reason, as given.
    Other(String),
}

impl FinishReason {
    /// Whether the reply ended because the model finished it (not cut off or withheld).
    pub fn is_complete(&self) -> bool {
        matches!(self, Self::Stop | Self::ToolCalls)
    }
}

impl From<String> for FinishReason {
    fn from(reason: String) -> Self {
        match reason.as_str() {
            "stop" | "end_turn" | "stop_sequence" => Self::Stop,
            "length" | "max_tokens" => Self::Length,
            "tool_calls" | "tool_use" | "function_call" => Self::ToolCalls,
            "content_filter" | "refusal" => Self::ContentFilter,
            _ => Self::Other(reason),
        }
    }
}

impl From<FinishReason> for String {
    fn from(reason: FinishReason) -> Self {
        match reason {
            FinishReason::Stop => "stop".into(),
            FinishReason::Length => "length".into(),
            FinishReason::ToolCalls => "tool_calls".into(),
            FinishReason::ContentFilter => "content_filter".into(),
            FinishReason::Other(reason) => reason,
        }
    }
}

/// Token counts of one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TokenUsage {
    /// Tokens in the prompt.
    pub prompt_tokens: u64,
    /// Tokens generated.
    pub completion_tokens: u64,
    /// Of the prompt tokens, those the provider served from its prompt cache
    /// (`usage.prompt_tokens_details.cached_tokens`; 0 when not reported, and
    /// in traces written before version 4).
    #[serde(default)]
    pub cached_tokens: u64,
    /// Of the prompt tokens, those written to the provider's prompt cache
    /// (Anthropic's `cache_creation_input_tokens`; 0 for other providers and
    /// in traces written before it was recorded; not written when 0, so the
    /// other providers' traces read as before).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_write_tokens: u64,
}

impl TokenUsage {
    /// Prompt + completion.
    pub fn total(self) -> u64 {
        self.prompt_tokens + self.completion_tokens
    }

    /// Share of prompt tokens served from the provider's cache (none without prompt tokens).
    pub fn cache_hit_rate(self) -> Option<f64> {
        (self.prompt_tokens > 0).then(|| self.cached_tokens as f64 / self.prompt_tokens as f64)
    }
}

impl std::ops::AddAssign for TokenUsage {
    fn add_assign(&mut self, other: Self) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.cached_tokens += other.cached_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_messages_role_is_written_lowercase_as_before_and_read_back() {
        let messages = [ChatMessage::system("s"), ChatMessage::user("u"), ChatMessage::assistant("a")];
        let text = serde_json::to_string(&messages).unwrap();
        assert_eq!(
            text,
            r#"[{"role":"system","content":"s"},{"role":"user","content":"u"},{"role":"assistant","content":"a"}]"#
        );
        assert_eq!(serde_json::from_str::<Vec<ChatMessage>>(&text).unwrap(), messages);
        assert!(serde_json::from_str::<ChatMessage>(r#"{"role":"tool","content":"t"}"#).is_err());
        assert_eq!(messages.map(|m| m.role.to_string()), ["system", "user", "assistant"]);
    }
}
