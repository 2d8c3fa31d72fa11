//! One LLM call of a run as the reducer has seen it so far: what was asked,
//! by whom, and what came back. A run's prompts mostly repeat the one before
//! (the static part comes first, for providers' prompt caches), so each
//! prompt message keeps the head it shares with an earlier call of its role
//! as one shared text and only its own tail: a replay of 10,000 questions
//! holds its prompts in a fraction of the trace's size.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use crate::domain::{CallKey, ChatMessage, FinishReason, LlmRole, TokenUsage};

/// Shortest head worth sharing, in bytes.
const MIN_SHARED: usize = 256;

/// One message of a call's prompt: its role and its text, whose first
/// `head_len` bytes are those of a text shared with other calls.
#[derive(Debug, Clone)]
pub struct PromptMessage {
    /// Who speaks it.
    pub role: crate::domain::MessageRole,
    head: Arc<str>,
    head_len: usize,
    tail: Box<str>,
}

impl PromptMessage {
    /// The message's whole text.
    pub fn text(&self) -> Cow<'_, str> {
        let head = &self.head[..self.head_len];
        match self.tail.is_empty() {
            true => Cow::Borrowed(head),
            false => Cow::Owned([head, &self.tail].concat()),
        }
    }
}

impl PartialEq for PromptMessage {
    fn eq(&self, other: &Self) -> bool {
        self.role == other.role && self.text() == other.text()
    }
}

/// The last unshared text of each role's message at each place: what the
/// next call of that role shares its head with.
#[derive(Debug, Clone, Default)]
pub(super) struct PromptHeads(HashMap<(LlmRole, usize), Arc<str>>);

impl PromptHeads {
    /// `messages` of a call of `role`, each sharing the head it has in common
    /// with the latest message of that role and place (at least
    /// [`MIN_SHARED`] bytes); a message that shares less becomes the new head.
    pub(super) fn share(&mut self, role: LlmRole, messages: Vec<ChatMessage>) -> Vec<PromptMessage> {
        messages
            .into_iter()
            .enumerate()
            .map(|(place, ChatMessage { role: speaker, content })| {
                let common = self.0.get(&(role, place)).map_or(0, |head| common_prefix(head, &content));
                match self.0.get(&(role, place)).filter(|_| common >= MIN_SHARED) {
                    Some(head) => PromptMessage {
                        role: speaker,
                        head: head.clone(),
                        head_len: common,
                        tail: content[common..].into(),
                    },
                    None => {
                        let head: Arc<str> = Arc::from(content);
                        self.0.insert((role, place), head.clone());
                        PromptMessage { role: speaker, head_len: head.len(), head, tail: Box::default() }
                    }
                }
            })
            .collect()
    }
}

/// Bytes `a` and `b` begin with in common, ending on a character boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !b.is_char_boundary(n) {
        n -= 1;
    }
    n
}

/// One LLM call as seen so far.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmCall {
    /// Unique id.
    pub call_id: u64,
    /// What it was for.
    pub key: CallKey,
    /// Provider that served it.
    pub provider: crate::domain::Provider,
    /// Model asked.
    pub model: String,
    /// Prompt.
    pub messages: Arc<Vec<PromptMessage>>,
    /// Text streamed so far, or the full response once finished.
    pub response: String,
    /// Whether the call has ended.
    pub finished: bool,
    /// Failure, if any.
    pub error: Option<String>,
    /// Tokens.
    pub usage: TokenUsage,
    /// Estimated cost in USD, by the client that served it.
    pub cost_usd: f64,
    /// Wall time.
    pub latency_ms: u64,
    /// Retries spent.
    pub retries: u32,
    /// Why the model stopped writing, when the provider said.
    pub finish_reason: Option<FinishReason>,
    /// Whether the response cache served it.
    pub from_cache: bool,
    /// Whether its token counts were computed locally.
    pub estimated: bool,
    /// The provider batch it was sent in (`run --batch`): it waits there
    /// until it finishes; none for a live call.
    pub batch_id: Option<crate::domain::BatchId>,
}

impl LlmCall {
    /// A call just sent: nothing answered yet.
    pub(super) fn sent(
        call_id: u64,
        key: CallKey,
        provider: crate::domain::Provider,
        model: String,
        messages: Arc<Vec<PromptMessage>>,
    ) -> Self {
        Self {
            call_id,
            key,
            provider,
            model,
            messages,
            response: String::new(),
            finished: false,
            error: None,
            usage: TokenUsage::default(),
            cost_usd: 0.0,
            latency_ms: 0,
            retries: 0,
            finish_reason: None,
            from_cache: false,
            estimated: false,
            batch_id: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_share_their_common_head_and_read_back_whole() {
        let mut heads = PromptHeads::default();
        let stat = "é".repeat(400);
        let first = vec![ChatMessage::system("rules"), ChatMessage::user(format!("{stat} question 1"))];
        let second = vec![ChatMessage::system("rules"), ChatMessage::user(format!("{stat} question 22"))];
        let a = heads.share(LlmRole::DagBuild, first.clone());
        let b = heads.share(LlmRole::DagBuild, second.clone());
        let review = heads.share(LlmRole::LayerReview, second.clone());
        for (shared, original) in [(&a, &first), (&b, &second), (&review, &second)] {
            let texts: Vec<String> = shared.iter().map(|m| m.text().into_owned()).collect();
            let wanted: Vec<String> = original.iter().map(|m| m.content.clone()).collect();
            assert_eq!(texts, wanted);
            assert_eq!(shared[1].role, crate::domain::MessageRole::User);
        }
        assert!(Arc::ptr_eq(&a[1].head, &b[1].head), "the second build shares the first's head");
        assert_eq!((b[1].head_len, &*b[1].tail), (800 + " question ".len(), "22"), "cut on a character boundary");
        assert!(!Arc::ptr_eq(&b[1].head, &review[1].head), "roles do not share");
        assert_eq!((a[0].head_len, b[0].head_len), (5, 5), "short texts stand alone");
        assert_eq!(common_prefix("aé", "aè"), 1, "never inside a character");
    }
}
