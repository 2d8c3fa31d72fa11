//! The settings of an HTTP provider's client, one type for the
//! OpenAI-compatible client and Anthropic's: the server, the key, the model,
//! an attempt's limits and retries, prices, structured outputs and sampling.
//! What differs stays small: Anthropic requires `max_tokens` (its client
//! asks for 4,096 unless set) and names the variable its key came from when
//! the key is refused (`api_key_env`).

use std::time::Duration;

use super::price::ModelPrice;
use crate::domain::StructuredOutput;

/// Anthropic's limit of generated tokens per call unless `max_tokens` is set (the API requires one).
pub(super) const ANTHROPIC_DEFAULT_MAX_TOKENS: u32 = 4096;

/// The base URL requests go under (`{base}/chat/completions`): trailing slashes
/// and a trailing `/chat/completions` are dropped, and a bare host (no path, as
/// Ollama's `http://localhost:11434` is often given) gets `/v1`. A URL with
/// another path is kept as written.
pub fn normalise_base_url(raw: &str) -> String {
    let mut base = raw.trim().trim_end_matches('/');
    if let Some(stripped) = base.strip_suffix("/chat/completions") {
        base = stripped.trim_end_matches('/');
    }
    let bare_host = reqwest::Url::parse(base).is_ok_and(|url| url.has_host() && url.path() == "/");
    if bare_host { format!("{base}/v1") } else { base.to_string() }
}

/// The server root requests go under (`{root}/v1/messages`): trailing
/// slashes, a trailing `/messages` and a trailing `/v1` are dropped, so the
/// URL may be given with or without `/v1`.
pub fn normalise_anthropic_url(raw: &str) -> String {
    let base = raw.trim().trim_end_matches('/');
    let base = base.strip_suffix("/messages").unwrap_or(base).trim_end_matches('/');
    base.strip_suffix("/v1").unwrap_or(base).trim_end_matches('/').to_string()
}

/// Connection settings of an HTTP provider's client (their `Debug` form hides the key).
#[derive(Clone, PartialEq)]
pub struct HttpSettings {
    /// The OpenAI-compatible client's base URL ending before `/chat/completions`
    /// (see [`normalise_base_url`]); Anthropic's server root, without `/v1`
    /// (see [`normalise_anthropic_url`]).
    pub base_url: String,
    /// The key (bearer or `x-api-key`), if the server needs one.
    pub api_key: Option<String>,
    /// The environment variable the key came from, named when it is refused (Anthropic).
    pub api_key_env: Option<String>,
    /// Model name.
    pub model: String,
    /// Limit per attempt, from sending the request to the end of the answer.
    pub timeout: Duration,
    /// Longest silence within a streamed answer before the attempt is given up.
    pub stall_timeout: Duration,
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// First backoff delay.
    pub base_delay: Duration,
    /// Prices by model name (or name prefix), over the built-in ones.
    pub prices: Vec<(String, ModelPrice)>,
    /// How replies that must be JSON objects are asked for (`response_format`, or a forced tool).
    pub structured: StructuredOutput,
    /// Sampling temperature, when not the server's default.
    pub temperature: Option<f32>,
    /// Longest reply in tokens (`max_tokens`), when not the server's default.
    pub max_tokens: Option<u32>,
}

impl std::fmt::Debug for HttpSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpSettings")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("api_key_env", &self.api_key_env)
            .field("model", &self.model)
            .field("timeout", &self.timeout)
            .field("stall_timeout", &self.stall_timeout)
            .field("max_retries", &self.max_retries)
            .field("base_delay", &self.base_delay)
            .field("prices", &self.prices)
            .field("structured", &self.structured)
            .field("temperature", &self.temperature)
            .field("max_tokens", &self.max_tokens)
            .finish()
    }
}

impl HttpSettings {
    /// An OpenAI-compatible server's settings for `model` at `base_url` with
    /// default limits, asking for replies' schemas.
    pub fn openai(base_url: impl Into<String>, api_key: Option<String>, model: impl Into<String>) -> Self {
        Self::with_defaults(normalise_base_url(&base_url.into()), api_key, model.into())
    }

    /// Anthropic's settings for `model` at `base_url` with the key `api_key`
    /// (read from `api_key_env`) and default limits.
    pub fn anthropic(
        base_url: &str,
        api_key: Option<String>,
        api_key_env: impl Into<String>,
        model: impl Into<String>,
    ) -> Self {
        Self {
            api_key_env: Some(api_key_env.into()),
            max_tokens: Some(ANTHROPIC_DEFAULT_MAX_TOKENS),
            ..Self::with_defaults(normalise_anthropic_url(base_url), api_key, model.into())
        }
    }

    fn with_defaults(base_url: String, api_key: Option<String>, model: String) -> Self {
        Self {
            base_url,
            api_key,
            api_key_env: None,
            model,
            timeout: Duration::from_secs(180),
            stall_timeout: Duration::from_secs(60),
            max_retries: 4,
            base_delay: Duration::from_millis(500),
            prices: Vec::new(),
            structured: StructuredOutput::default(),
            temperature: None,
            max_tokens: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_provider_gets_its_defaults_and_debug_hides_the_key() {
        let openai = HttpSettings::openai("http://localhost:11434", Some("sk-secret".into()), "m");
        assert_eq!(
            (openai.base_url.as_str(), openai.max_tokens, openai.api_key_env.as_deref()),
            ("http://localhost:11434/v1", None, None)
        );
        let anthropic = HttpSettings::anthropic("https://api.anthropic.com/v1/", None, "MY_KEY", "c");
        assert_eq!(anthropic.base_url, "https://api.anthropic.com");
        assert_eq!((anthropic.max_tokens, anthropic.api_key_env.as_deref()), (Some(4096), Some("MY_KEY")));
        assert_eq!((anthropic.timeout, anthropic.max_retries), (openai.timeout, openai.max_retries));
        let shown = format!("{openai:?}");
        assert!(shown.contains("<set>") && !shown.contains("sk-secret"), "{shown}");
    }
}
