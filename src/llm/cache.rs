//! The response cache across runs: a client in front of an HTTP provider that
//! answers a call from the cache file when the same call was answered before,
//! and stores every successful reply of the provider.
//!
//! A call is the same when its provider, base URL, model, sampling parameters
//! (temperature, `max_tokens`), requested output format (JSON object or text),
//! messages, epoch, draft and repair index are: the SHA-256 of those, not of
//! the body sent on the wire (which changes when a server refuses an optional
//! field). A failed call is never stored, nor one dropped before it answered.
//! A reply served from the cache costs nothing and is reported with
//! [`LlmResponse::from_cache`].

use std::collections::BTreeMap;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::cache_store::{CachedResponse, ResponseCache};
use super::{DeltaSink, LlmClient, LlmError, LlmRequest, LlmResponse, StreamUpdate};
use crate::domain::StructuredOutput;
use crate::domain::{ChatMessage, LlmRole, TokenUsage};
use crate::domain::{Provider, ProviderKind};

/// Bumped when what goes into a key changes, so older entries stop matching.
const KEY_VERSION: u32 = 1;

/// What a client sends besides the prompt that changes its replies: part of every key.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CacheScope {
    /// `openai` or `anthropic`.
    pub provider: ProviderKind,
    /// The server.
    pub base_url: String,
    /// The model.
    pub model: String,
    /// Sampling temperature, when set.
    pub temperature: Option<f32>,
    /// Longest reply in tokens, when set.
    pub max_tokens: Option<u32>,
    /// How far the role asks for structured replies (`schema`, `json`, `off`);
    /// in the key through the requested output format.
    #[serde(skip)]
    pub structured: StructuredOutput,
}

/// What a key is the hash of.
#[derive(Serialize)]
struct KeyMaterial<'a> {
    version: u32,
    scope: &'a CacheScope,
    /// The requested output format: `text`, or how far the role asks for
    /// structure and the reply schema's name (`schema:dag`, `json:dag`).
    output: String,
    messages: &'a [ChatMessage],
    epoch: u32,
    draft: u32,
    repair: u32,
    /// Left out when 1, so keys from before repeated judgements stay the same.
    #[serde(skip_serializing_if = "crate::domain::is_one")]
    judge_repeat: u32,
}

/// A provider (a client per role, or one) behind the response cache.
pub struct CachedClient {
    inner: Arc<dyn LlmClient>,
    cache: Arc<ResponseCache>,
    /// The scope of each cached role; calls of other roles (offline) pass by.
    scopes: BTreeMap<LlmRole, CacheScope>,
}

impl CachedClient {
    /// `inner` behind `cache`, each role's calls keyed with its scope in `scopes`.
    pub fn new(inner: Arc<dyn LlmClient>, cache: Arc<ResponseCache>, scopes: BTreeMap<LlmRole, CacheScope>) -> Self {
        Self { inner, cache, scopes }
    }

    /// The key of `request` under `scope` (`None` if it cannot be written).
    fn key(scope: &CacheScope, request: &LlmRequest) -> Option<Vec<u8>> {
        let material = KeyMaterial {
            version: KEY_VERSION,
            scope,
            output: match (&request.schema, scope.structured) {
                (Some(schema), structured) if structured != StructuredOutput::Off => {
                    format!("{}:{}", structured.name(), schema.name())
                }
                _ => "text".to_string(),
            },
            messages: &request.messages,
            epoch: request.key.epoch,
            draft: request.key.draft,
            repair: request.key.repair,
            judge_repeat: request.key.judge_repeat,
        };
        let bytes = serde_json::to_vec(&material).ok()?;
        Some(Sha256::digest(bytes).to_vec())
    }
}

impl LlmClient for CachedClient {
    fn provider(&self) -> Provider {
        self.inner.provider()
    }

    fn model(&self) -> &str {
        self.inner.model()
    }

    fn complete<'a>(
        &'a self,
        request: &'a LlmRequest,
        sink: DeltaSink,
    ) -> BoxFuture<'a, Result<LlmResponse, LlmError>> {
        let Some(scope) = self.scopes.get(&request.key.role) else {
            return self.inner.complete(request, sink);
        };
        // A key that cannot be written leaves the call to pass by the cache.
        let Some(key) = Self::key(scope, request) else { return self.inner.complete(request, sink) };
        Box::pin(async move {
            let key = Arc::new(key);
            let (cache, lookup_key) = (self.cache.clone(), key.clone());
            // SQLite may wait on another run's write: off the async workers.
            let hit = tokio::task::spawn_blocking(move || cache.lookup(&lookup_key)).await.ok().flatten();
            if let Some(CachedResponse { text, usage: stored }) = hit {
                sink(StreamUpdate::Text(&text));
                // What the call cost when it was sent; counted here for entries stored without it.
                let list_usage = Some(
                    stored.unwrap_or_else(|| super::tokens::count_locally(&scope.model, &request.messages, &text)),
                );
                let usage = TokenUsage::default();
                return Ok(LlmResponse { text, usage, from_cache: true, list_usage, ..LlmResponse::default() });
            }
            let reply = self.inner.complete(request, sink).await?;
            let (cache, text, usage) = (self.cache.clone(), reply.text.clone(), reply.usage);
            let (provider, model) = (scope.provider, scope.model.clone());
            let _ = tokio::task::spawn_blocking(move || cache.store(&key, provider, &model, &text, usage)).await;
            Ok(reply)
        })
    }

    fn cost_usd(&self, usage: TokenUsage) -> f64 {
        self.inner.cost_usd(usage)
    }

    fn for_role(&self, role: LlmRole) -> Option<&dyn LlmClient> {
        self.inner.for_role(role)
    }

    fn batch_hub(&self) -> Option<&super::BatchHub> {
        self.inner.batch_hub()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::domain::CallKey;
    use crate::llm::{LlmErrorKind, ignore_stream};

    /// Answers `reply-<n>` for its n-th call, or fails every call.
    struct Counting {
        calls: AtomicUsize,
        fail: bool,
    }

    impl LlmClient for Counting {
        fn provider(&self) -> Provider {
            ProviderKind::Openai.into()
        }

        fn model(&self) -> &str {
            "m"
        }

        fn complete<'a>(&'a self, _: &'a LlmRequest, _: DeltaSink) -> BoxFuture<'a, Result<LlmResponse, LlmError>> {
            let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
            let fail = self.fail;
            Box::pin(async move {
                if fail {
                    return Err(LlmError::new(LlmErrorKind::Server, "down"));
                }
                let usage = TokenUsage { prompt_tokens: 10, completion_tokens: 5, ..TokenUsage::default() };
                Ok(LlmResponse { text: format!("reply-{n}"), usage, ..LlmResponse::default() })
            })
        }
    }

    fn scope() -> CacheScope {
        CacheScope {
            provider: ProviderKind::Openai,
            base_url: "http://x/v1".into(),
            model: "m".into(),
            temperature: None,
            max_tokens: None,
            structured: StructuredOutput::Schema,
        }
    }

    fn every_role(scope: CacheScope) -> BTreeMap<LlmRole, CacheScope> {
        LlmRole::ALL.into_iter().map(|role| (role, scope.clone())).collect()
    }

    #[tokio::test]
    async fn calls_of_a_role_without_a_scope_pass_by() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Arc::new(ResponseCache::open(&dir.path().join("c.sqlite")).unwrap());
        let inner = Arc::new(Counting { calls: AtomicUsize::new(0), fail: false });
        let client = CachedClient::new(inner.clone(), cache.clone(), BTreeMap::new());
        for _ in 0..2 {
            assert!(!client.complete(&request("q", 1), ignore_stream()).await.unwrap().from_cache);
        }
        assert_eq!((inner.calls.load(Ordering::SeqCst), cache.stats().unwrap().entries), (2, 0));
    }

    fn request(text: &str, epoch: u32) -> LlmRequest {
        let key = CallKey { epoch, ..CallKey::run_wide(LlmRole::QuestionGeneration) };
        let schema = Some(crate::domain::ReplySchema::of::<crate::domain::GeneratedDag>("dag"));
        LlmRequest { key, messages: vec![ChatMessage::user(text)], schema }
    }

    #[tokio::test]
    async fn a_repeated_call_is_served_from_the_file_and_anything_else_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Arc::new(ResponseCache::open(&dir.path().join("c.sqlite")).unwrap());
        let inner = Arc::new(Counting { calls: AtomicUsize::new(0), fail: false });
        let client = CachedClient::new(inner.clone(), cache.clone(), every_role(scope()));
        let first = client.complete(&request("q", 1), ignore_stream()).await.unwrap();
        assert_eq!((first.text.as_str(), first.from_cache, first.usage.total()), ("reply-1", false, 15));
        let again = client.complete(&request("q", 1), ignore_stream()).await.unwrap();
        assert_eq!((again.text.as_str(), again.from_cache, again.usage.total()), ("reply-1", true, 0));
        assert_eq!(inner.calls.load(Ordering::SeqCst), 1);
        // Another epoch, another prompt, another temperature: each is its own call.
        client.complete(&request("q", 2), ignore_stream()).await.unwrap();
        client.complete(&request("other", 1), ignore_stream()).await.unwrap();
        let warmer =
            CachedClient::new(inner.clone(), cache, every_role(CacheScope { temperature: Some(0.7), ..scope() }));
        warmer.complete(&request("q", 1), ignore_stream()).await.unwrap();
        assert_eq!(inner.calls.load(Ordering::SeqCst), 4);
    }

    #[tokio::test]
    async fn a_failed_call_is_not_stored() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Arc::new(ResponseCache::open(&dir.path().join("c.sqlite")).unwrap());
        let failing = Arc::new(Counting { calls: AtomicUsize::new(0), fail: true });
        let client = CachedClient::new(failing.clone(), cache.clone(), every_role(scope()));
        assert!(client.complete(&request("q", 1), ignore_stream()).await.is_err());
        assert!(client.complete(&request("q", 1), ignore_stream()).await.is_err());
        assert_eq!(failing.calls.load(Ordering::SeqCst), 2);
        assert_eq!(cache.stats().unwrap().entries, 0);
    }

    #[test]
    fn a_scope_goes_into_its_keys_as_its_strings_did_so_stored_replies_still_match() {
        let written = serde_json::to_value(scope()).unwrap();
        let before = serde_json::json!({
            "provider": "openai", "base_url": "http://x/v1", "model": "m", "temperature": null, "max_tokens": null
        });
        assert_eq!(written, before);
        let anthropic = CacheScope { provider: ProviderKind::Anthropic, ..scope() };
        assert_eq!(serde_json::to_value(anthropic).unwrap()["provider"], "anthropic");
    }
}
