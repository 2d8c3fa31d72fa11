//! OTLP/HTTP with protobuf bodies (<https://opentelemetry.io/docs/specs/otlp/#otlphttp>):
//! the encoding every receiver takes (Arize Phoenix answers 415 to JSON).

use std::time::Duration;

use opentelemetry_proto::tonic::collector::trace::v1::{ExportTraceServiceRequest, ExportTraceServiceResponse};
use prost::Message;
use reqwest::Url;
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};

/// How long one request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// The path of the traces endpoint under a receiver's base URL.
const TRACES_PATH: &str = "v1/traces";

/// What can go wrong exporting a run.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The trace header's start time does not parse.
    #[error("the trace's start time {value:?} is not an RFC 3339 time: {source}")]
    StartTime {
        /// The header's `created_at`.
        value: String,
        /// The cause.
        source: chrono::ParseError,
    },
    /// The receiver's URL is not an http(s) URL.
    #[error("--otlp {url:?} is not an http:// or https:// URL")]
    Url {
        /// As given.
        url: String,
    },
    /// A `--header` is not a valid HTTP header.
    #[error("--header {name:?}: not a valid HTTP header name and value")]
    Header {
        /// The header's name.
        name: String,
    },
    /// The request did not get an answer.
    #[error("cannot send spans to {url}: {source}")]
    Send {
        /// The traces endpoint.
        url: Url,
        /// The cause.
        source: reqwest::Error,
    },
    /// The receiver answered with an error status.
    #[error("the OTLP receiver at {url} answered {status}{detail}")]
    Status {
        /// The traces endpoint.
        url: Url,
        /// The status.
        status: reqwest::StatusCode,
        /// The start of the answer's body, after a colon, when it has one.
        detail: String,
    },
    /// The receiver took the request but refused some spans.
    #[error("the OTLP receiver at {url} rejected {rejected} spans: {message}")]
    Rejected {
        /// The traces endpoint.
        url: Url,
        /// Spans refused.
        rejected: i64,
        /// The receiver's reason.
        message: String,
    },
}

/// Where spans go: a receiver's traces endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtlpEndpoint(pub Url);

impl OtlpEndpoint {
    /// The traces endpoint of `url`: `url` itself when its path ends in
    /// `/v1/traces`, else `/v1/traces` under it (as `OTEL_EXPORTER_OTLP_ENDPOINT`
    /// is read: `http://localhost:6006` → `http://localhost:6006/v1/traces`,
    /// `https://cloud.langfuse.com/api/public/otel` → `…/api/public/otel/v1/traces`).
    pub fn parse(url: &str) -> Result<Self, ExportError> {
        let bad = || ExportError::Url { url: url.to_string() };
        let mut parsed = Url::parse(url).map_err(|_| bad())?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
            return Err(bad());
        }
        let path = parsed.path().trim_end_matches('/').to_string();
        if !path.ends_with(&format!("/{TRACES_PATH}")) {
            parsed.set_path(&format!("{path}/{TRACES_PATH}"));
        }
        Ok(Self(parsed))
    }
}

/// Sends export requests to one endpoint.
#[derive(Debug)]
pub struct Sender {
    client: reqwest::Client,
    endpoint: OtlpEndpoint,
}

impl Sender {
    /// A sender to `endpoint` adding `headers` (name, value) to every request.
    pub fn new(endpoint: OtlpEndpoint, headers: &[(String, String)]) -> Result<Self, ExportError> {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            let bad = || ExportError::Header { name: name.clone() };
            let header = HeaderName::from_bytes(name.as_bytes()).map_err(|_| bad())?;
            let mut value = HeaderValue::from_str(value).map_err(|_| bad())?;
            value.set_sensitive(true);
            map.insert(header, value);
        }
        map.insert(CONTENT_TYPE, HeaderValue::from_static("application/x-protobuf"));
        let client = reqwest::Client::builder()
            .default_headers(map)
            .timeout(REQUEST_TIMEOUT)
            .build()
            .map_err(|source| ExportError::Send { url: endpoint.0.clone(), source })?;
        Ok(Self { client, endpoint })
    }

    /// Where requests go.
    pub fn endpoint(&self) -> &OtlpEndpoint {
        &self.endpoint
    }

    /// POST `request` as protobuf; a non-2xx answer or refused spans are errors.
    pub async fn send(&self, request: &ExportTraceServiceRequest) -> Result<(), ExportError> {
        let url = self.endpoint.0.clone();
        let send_error = |source| ExportError::Send { url: url.clone(), source };
        let response = self.client.post(url.clone()).body(request.encode_to_vec()).send().await.map_err(send_error)?;
        let status = response.status();
        let protobuf =
            response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.contains("protobuf"));
        let body = response.bytes().await.map_err(send_error)?;
        if !status.is_success() {
            let text = String::from_utf8_lossy(&body);
            let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or_default();
            let detail = if first.is_empty() || protobuf {
                String::new()
            } else {
                format!(": {}", crate::text::preview(&serde_json::Value::String(first.to_string()), 200))
            };
            return Err(ExportError::Status { url, status, detail });
        }
        if protobuf
            && let Ok(answer) = ExportTraceServiceResponse::decode(body.as_ref())
            && let Some(partial) = answer.partial_success.filter(|p| p.rejected_spans > 0)
        {
            return Err(ExportError::Rejected {
                url,
                rejected: partial.rejected_spans,
                message: partial.error_message,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoint(url: &str) -> String {
        OtlpEndpoint::parse(url).unwrap().0.to_string()
    }

    #[test]
    fn the_traces_path_is_added_unless_given() {
        assert_eq!(endpoint("http://localhost:6006"), "http://localhost:6006/v1/traces");
        assert_eq!(endpoint("http://localhost:4318/"), "http://localhost:4318/v1/traces");
        assert_eq!(endpoint("http://localhost:4318/v1/traces"), "http://localhost:4318/v1/traces");
        assert_eq!(
            endpoint("https://cloud.langfuse.com/api/public/otel"),
            "https://cloud.langfuse.com/api/public/otel/v1/traces"
        );
    }

    #[test]
    fn only_http_urls_with_a_host_are_receivers() {
        for url in ["ftp://localhost", "localhost:4318", "http://", "not a url"] {
            assert!(matches!(OtlpEndpoint::parse(url), Err(ExportError::Url { .. })), "{url}");
        }
    }
}
