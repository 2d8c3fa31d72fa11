//! What the HTTP providers share: the retry policy (jittered exponential
//! backoff honouring `retry-after-ms` / `retry-after`), the classification of
//! failed sends and broken streams, and reading an SSE stream with a stall limit.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use eventsource_stream::{Event, EventStreamError, Eventsource};
use futures::{Stream, StreamExt};
use rand::RngExt;
use serde_json::Value;

use super::{DeltaSink, LlmError, LlmErrorKind, LlmResponse, StreamUpdate};

/// The longest wait between attempts, whatever the server asks.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// What to do after a failed attempt.
pub(super) enum Next {
    /// Give up.
    Fatal,
    /// Try again after the given wait, or the backoff.
    Retry(Option<Duration>),
    /// Try again at once, without a request field the server refused.
    Without,
}

/// One failed attempt: the error and what to do next.
pub(super) struct Failure {
    pub error: LlmError,
    pub next: Next,
}

impl Failure {
    /// A failure not worth another attempt.
    pub fn fatal(kind: LlmErrorKind, message: String) -> Self {
        Self { error: LlmError::new(kind, message), next: Next::Fatal }
    }

    /// A failure retried after `after`, or the backoff when `None`.
    pub fn retry(kind: LlmErrorKind, message: String, after: Option<Duration>) -> Self {
        Self { error: LlmError::new(kind, message), next: Next::Retry(after) }
    }
}

/// How often and how patiently failed attempts are repeated.
#[derive(Debug, Clone, Copy)]
pub(super) struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// First backoff delay.
    pub base_delay: Duration,
}

impl RetryPolicy {
    /// base × 2^attempt with jitter, capped.
    fn backoff(self, attempt: u32) -> Duration {
        let base = self.base_delay.as_secs_f64() * 2f64.powi(attempt as i32);
        let jitter = rand::rng().random_range(0.5..1.0);
        Duration::from_secs_f64((base * jitter).min(MAX_BACKOFF.as_secs_f64()))
    }

    /// Run `attempt` until it succeeds or fails for good, telling `sink` of
    /// every retry; the reply's `retries` are set here. A [`Next::Without`]
    /// failure is repeated at once and does not count against `max_retries`.
    pub async fn run<F, Fut>(self, sink: &DeltaSink, mut attempt: F) -> Result<LlmResponse, LlmError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<LlmResponse, Failure>>,
    {
        let mut retries = 0u32;
        loop {
            match attempt().await {
                Ok(reply) => return Ok(LlmResponse { retries, ..reply }),
                Err(Failure { mut error, next: Next::Without }) => {
                    tracing::warn!("{}", error.message);
                    error.retries = retries;
                    retries += 1;
                    sink(StreamUpdate::Retrying { retry: retries, error: &error, wait: Duration::ZERO });
                }
                Err(Failure { mut error, next: Next::Retry(after) }) if retries < self.max_retries => {
                    tracing::warn!("LLM call retried: {}", error.message);
                    error.retries = retries;
                    retries += 1;
                    let wait = after.map_or_else(|| self.backoff(retries - 1), |d| d.min(MAX_BACKOFF));
                    sink(StreamUpdate::Retrying { retry: retries, error: &error, wait });
                    tokio::time::sleep(wait).await;
                }
                Err(Failure { mut error, .. }) => {
                    error.retries = retries;
                    return Err(error);
                }
            }
        }
    }
}

/// The wait a response asks for: `retry-after-ms`, else `retry-after` in
/// seconds or as an HTTP date.
pub(super) fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return Some(Duration::from_secs_f64((ms / 1000.0).max(0.0)));
    }
    let value = text("retry-after")?;
    if let Ok(seconds) = value.parse::<f64>() {
        return Some(Duration::from_secs_f64(seconds.max(0.0)));
    }
    let when = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    (when.with_timezone(&chrono::Utc) - chrono::Utc::now()).to_std().ok()
}

/// The HTTP client of a provider.
pub(super) fn http_client() -> Result<reqwest::Client, LlmError> {
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(15))
        .build()
        .map_err(|e| LlmError::new(LlmErrorKind::Connection, format!("cannot build the HTTP client: {e}")))
}

/// A request to `url` that got no response within `timeout`, or none at all.
pub(super) fn send_failure(error: &reqwest::Error, url: &str, timeout: Duration) -> Failure {
    if error.is_timeout() {
        Failure::retry(LlmErrorKind::Timeout, format!("no answer from {url} within {timeout:?}"), None)
    } else {
        Failure::retry(LlmErrorKind::Connection, format!("cannot reach {url}: {error}"), None)
    }
}

/// The one-line detail of an error body: its `error.message` when it is JSON
/// (both OpenAI and Anthropic put it there), else its first 200 characters.
pub(super) fn error_detail(body: &str) -> String {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| v.pointer("/error/message").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| body.chars().take(200).collect::<String>().replace('\n', " "))
}

type Events = Pin<Box<dyn Stream<Item = Result<Event, EventStreamError<reqwest::Error>>> + Send>>;

/// The SSE events of a streamed answer, each awaited at most `stall`.
pub(super) struct SseReader {
    events: Events,
    url: String,
    stall: Duration,
    timeout: Duration,
}

impl SseReader {
    /// Read `response` from `url`; `timeout` is the attempt's limit (named in errors).
    pub fn new(response: reqwest::Response, url: &str, stall: Duration, timeout: Duration) -> Self {
        Self { events: Box::pin(response.bytes_stream().eventsource()), url: url.to_string(), stall, timeout }
    }

    /// The next event, `None` at the end of the stream.
    pub async fn next(&mut self) -> Result<Option<Event>, Failure> {
        let (url, stall) = (&self.url, self.stall);
        match tokio::time::timeout(stall, self.events.next()).await {
            Err(_) => {
                let message = format!("the stream from {url} stalled: nothing received for {stall:?}");
                Err(Failure::retry(LlmErrorKind::Timeout, message, None))
            }
            Ok(None) => Ok(None),
            Ok(Some(Ok(event))) => Ok(Some(event)),
            Ok(Some(Err(EventStreamError::Transport(e)))) if e.is_timeout() => Err(Failure::retry(
                LlmErrorKind::Timeout,
                format!("no complete answer from {url} within {:?}", self.timeout),
                None,
            )),
            Ok(Some(Err(EventStreamError::Transport(e)))) => {
                let cause = std::error::Error::source(&e).map_or_else(|| e.to_string(), |c| format!("{e} ({c})"));
                Err(Failure::retry(
                    LlmErrorKind::Connection,
                    format!("the connection to {url} broke mid-answer: {cause}"),
                    None,
                ))
            }
            Ok(Some(Err(other))) => {
                Err(Failure::retry(LlmErrorKind::BadResponse, format!("unreadable stream from {url}: {other}"), None))
            }
        }
    }
}

/// The failure of a stream that ended before the answer did.
pub(super) fn cut_off() -> Failure {
    Failure::retry(LlmErrorKind::BadResponse, "the stream was cut off before the answer ended".into(), None)
}

/// Unfinished streams after which a server is said to keep interrupting them.
pub(super) const INTERRUPTIONS_TOLD_AT: u32 = 3;

/// Counts a client's streams that ended without a finish reason (a server
/// that interrupts a stream when another request arrives, as
/// llama-cpp-python's does by default, ends it that way), and says once what
/// to do about it.
#[derive(Debug, Default)]
pub(super) struct Interruptions {
    count: AtomicU32,
}

impl Interruptions {
    /// The failure of a stream from `url` that ended without a finish reason:
    /// retried like a cut connection. The [`INTERRUPTIONS_TOLD_AT`]-th one's
    /// message (a retry line in the feed) also names the fix.
    pub fn unfinished(&self, url: &str) -> Failure {
        let count = self.count.fetch_add(1, Ordering::Relaxed) + 1;
        let mut message = format!("the stream from {url} ended without a finish reason: the reply is unfinished");
        if count == INTERRUPTIONS_TOLD_AT {
            message.push_str(&format!(
                "; {url} has interrupted {count} streams in this run (a server that serves one request at a time \
                 cuts a stream when another arrives): run with --concurrency 1, or start llama-cpp-python's \
                 server with --interrupt_requests false"
            ));
            tracing::warn!("{message}");
        }
        Failure::retry(LlmErrorKind::BadResponse, message, None)
    }
}
