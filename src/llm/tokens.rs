//! Token counts computed locally, for servers that send none in their
//! replies (llama.cpp's server streams without usage, for one).
//!
//! The rule: a model whose family has a known tokenizer (OpenAI's models, by
//! name, through `tiktoken-rs`, which carries its BPE tables) is counted with
//! it; any other model gets an estimate of one token per four bytes of text,
//! rounded up. Both add [`TOKENS_PER_MESSAGE`] per prompt message and
//! [`REPLY_PRIMING_TOKENS`] for the reply's start, as OpenAI's chat format
//! does. Every such figure is marked estimated where it is shown.

use tiktoken_rs::CoreBPE;

use crate::domain::{ChatMessage, TokenUsage};

/// Tokens each prompt message adds around its text (role and separators).
pub(super) const TOKENS_PER_MESSAGE: u64 = 3;
/// Tokens that start the reply.
pub(super) const REPLY_PRIMING_TOKENS: u64 = 3;
/// Bytes per token of the estimate for models without a known tokenizer.
pub(super) const BYTES_PER_TOKEN: u64 = 4;

/// How a model's text is counted.
#[derive(Clone, Copy)]
enum Counter {
    /// The model family's own tokenizer.
    Exact(&'static CoreBPE),
    /// [`BYTES_PER_TOKEN`] bytes a token.
    Estimate,
}

impl Counter {
    fn for_model(model: &str) -> Self {
        tiktoken_rs::bpe_for_model(model).map_or(Self::Estimate, Self::Exact)
    }

    fn count(self, text: &str) -> u64 {
        match self {
            Self::Exact(bpe) => bpe.encode_ordinary(text).len() as u64,
            Self::Estimate => (text.len() as u64).div_ceil(BYTES_PER_TOKEN),
        }
    }
}

/// The usage of a call to `model` with `messages` that replied `reply`,
/// counted here (see the module's rule).
pub(super) fn count_locally(model: &str, messages: &[ChatMessage], reply: &str) -> TokenUsage {
    let counter = Counter::for_model(model);
    let prompt: u64 = messages.iter().map(|m| TOKENS_PER_MESSAGE + counter.count(&m.content)).sum();
    TokenUsage {
        prompt_tokens: prompt + REPLY_PRIMING_TOKENS,
        completion_tokens: counter.count(reply),
        cached_tokens: 0,
        cache_write_tokens: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_models_are_counted_with_their_tokenizer() {
        // "hello world" is two tokens in o200k_base; its 11 bytes would estimate 3.
        let usage = count_locally("gpt-4o-mini", &[ChatMessage::user("hi")], "hello world");
        assert_eq!(usage.completion_tokens, 2);
        assert_eq!(usage.prompt_tokens, TOKENS_PER_MESSAGE + 1 + REPLY_PRIMING_TOKENS);
    }

    #[test]
    fn other_models_are_estimated_at_four_bytes_a_token() {
        let messages = [ChatMessage::system("12345678"), ChatMessage::user("123456789")];
        let usage = count_locally("smollm2-135m-instruct", &messages, "hello world");
        assert_eq!(usage.completion_tokens, 3, "11 bytes, rounded up");
        assert_eq!(usage.prompt_tokens, (3 + 2) + (3 + 3) + REPLY_PRIMING_TOKENS);
        assert_eq!(count_locally("m", &[], "").completion_tokens, 0);
    }
}
