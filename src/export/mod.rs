//! A recorded run as OpenTelemetry traces (OTLP): one trace per run, with a
//! span per question, attempt, iteration, stage and model call
//! (`spans::SpanTree`), attributes by the GenAI and OpenInference
//! conventions (`attributes`), sent over OTLP/HTTP as protobuf (`http`)
//! or written in the OTLP JSON encoding.
//!
//! Trace and span ids are derived from the trace's header and each span's
//! place in the run, so exporting the same run again sends the same ids, and a
//! receiver that keeps spans by id (Arize Phoenix does) holds one copy.
//!
//! Parts:
//! - `spans.rs`: the trace's events folded into run → question → attempt →
//!   iteration → stage → model call. Ids are derived from the trace's header, so a
//!   second export replaces the first; each span knows when it is over, for a live
//!   export.
//! - `attributes.rs`: the GenAI and OpenInference conventions, and eval-dag's own
//!   `eval_dag.*`.
//! - `http.rs`: OTLP/HTTP as protobuf in bounded batches; the same request may be
//!   written as OTLP JSON instead.
//!
//! Only `commands` uses it.

use std::collections::HashSet;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::InstrumentationScope;
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::span::{Event, SpanKind as ProtoSpanKind};
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span, Status};
use prost::Message;
use sha2::{Digest, Sha256};

use crate::trace::Trace;

mod attributes;
mod http;
mod spans;

pub use http::{ExportError, OtlpEndpoint};

use http::Sender;

use attributes::Attributes;
use spans::SpanTree;

/// The encoded spans one request carries at most, when they are smaller:
/// receivers limit a request's body (4 MiB is a common default).
pub const MAX_REQUEST_BYTES: usize = 3 * 1024 * 1024;

/// A run's spans, ready to send.
#[derive(Debug, Clone)]
pub struct RunExport {
    /// The run's trace id.
    pub trace_id: [u8; 16],
    /// The resource (service and project) every span belongs to.
    resource: Resource,
    /// Every span, parents first.
    pub spans: Vec<Span>,
    /// Per span, whether it is over (see [`spans::Node::closed`]).
    closed: Vec<bool>,
}

impl RunExport {
    /// The spans of `trace`, in Phoenix project `project`.
    pub fn from_trace(trace: &Trace, project: &str) -> Result<Self, ExportError> {
        let started = chrono::DateTime::parse_from_rfc3339(&trace.header.created_at)
            .map_err(|source| ExportError::StartTime { value: trace.header.created_at.clone(), source })?;
        let epoch_ns = started.timestamp_nanos_opt().and_then(|ns| u64::try_from(ns).ok()).unwrap_or(0);
        let at = |t_ms: u64| epoch_ns.saturating_add(t_ms.saturating_mul(1_000_000));
        let trace_id = trace_id(trace);
        let tree = SpanTree::build(trace);
        let ids: Vec<[u8; 8]> = tree.nodes.iter().map(|node| span_id(&trace_id, &node.key)).collect();
        let closed = tree.nodes.iter().map(|node| node.closed).collect();
        let spans = tree
            .nodes
            .into_iter()
            .enumerate()
            .map(|(index, node)| {
                let status = match &node.error {
                    Some(message) => Status { message: message.clone(), code: StatusCode::Error as i32 },
                    None => Status::default(),
                };
                let kind = if node.client { ProtoSpanKind::Client } else { ProtoSpanKind::Internal };
                let events = node
                    .events
                    .into_iter()
                    .map(|e| Event {
                        time_unix_nano: at(e.t_ms),
                        name: e.name,
                        attributes: e.attributes.0,
                        dropped_attributes_count: 0,
                    })
                    .collect();
                Span {
                    trace_id: trace_id.to_vec(),
                    span_id: ids[index].to_vec(),
                    parent_span_id: node.parent.map(|p| ids[p].to_vec()).unwrap_or_default(),
                    name: node.name,
                    kind: kind as i32,
                    start_time_unix_nano: at(node.start_ms),
                    end_time_unix_nano: at(node.end_ms.unwrap_or(node.start_ms)),
                    attributes: node.attributes.0,
                    events,
                    status: Some(status),
                    ..Default::default()
                }
            })
            .collect();
        let mut resource = Attributes::default();
        resource
            .text("service.name", "eval-dag")
            .text("service.version", env!("CARGO_PKG_VERSION"))
            .text("openinference.project.name", project);
        let resource = Resource { attributes: resource.0, ..Default::default() };
        Ok(Self { trace_id, resource, spans, closed })
    }

    /// The trace id as the 32 hex digits tools show.
    pub fn trace_id_hex(&self) -> String {
        self.trace_id.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The export requests carrying `spans`, in order: at most `batch` spans
    /// and about [`MAX_REQUEST_BYTES`] each (a larger span goes alone).
    fn requests_of<'a>(&self, spans: impl Iterator<Item = &'a Span>, batch: usize) -> Vec<ExportTraceServiceRequest> {
        let mut requests = Vec::new();
        let (mut chunk, mut bytes) = (Vec::new(), 0);
        for span in spans {
            let size = span.encoded_len();
            if !chunk.is_empty() && (chunk.len() >= batch.max(1) || bytes + size > MAX_REQUEST_BYTES) {
                requests.push(self.request(std::mem::take(&mut chunk)));
                bytes = 0;
            }
            chunk.push(span.clone());
            bytes += size;
        }
        if !chunk.is_empty() {
            requests.push(self.request(chunk));
        }
        requests
    }

    /// One request of every span, in the OTLP JSON encoding
    /// (<https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding>).
    pub fn to_json(&self) -> serde_json::Result<String> {
        serde_json::to_string(&self.request(self.spans.clone()))
    }

    fn request(&self, spans: Vec<Span>) -> ExportTraceServiceRequest {
        let scope = InstrumentationScope {
            name: "eval-dag".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            ..Default::default()
        };
        ExportTraceServiceRequest {
            resource_spans: vec![ResourceSpans {
                resource: Some(self.resource.clone()),
                scope_spans: vec![ScopeSpans { scope: Some(scope), spans, schema_url: String::new() }],
                schema_url: String::new(),
            }],
        }
    }
}

/// What an [`Exporter`] has sent so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    /// The run's trace id in hex.
    pub trace_id: String,
    /// Spans sent.
    pub spans: usize,
    /// Requests they took.
    pub requests: usize,
}

/// Sends a run's spans to a receiver, each span once: after the run, all of
/// them; while it runs, those that are over, as they end.
#[derive(Debug)]
pub struct Exporter {
    sender: Sender,
    project: String,
    batch: usize,
    sent: HashSet<Vec<u8>>,
    requests: usize,
}

impl Exporter {
    /// An exporter to `endpoint` with extra `headers`, spans in Phoenix project
    /// `project`, at most `batch` spans a request.
    pub fn new(
        endpoint: OtlpEndpoint,
        headers: &[(String, String)],
        project: String,
        batch: usize,
    ) -> Result<Self, ExportError> {
        Ok(Self { sender: Sender::new(endpoint, headers)?, project, batch, sent: HashSet::new(), requests: 0 })
    }

    /// Where spans go.
    pub fn endpoint(&self) -> &OtlpEndpoint {
        self.sender.endpoint()
    }

    /// Send the spans of `trace` not sent yet: all of them with `everything`
    /// (the run is over), else only those that are over. Says what was sent
    /// in all, this time and before.
    pub async fn flush(&mut self, trace: &Trace, everything: bool) -> Result<Sent, ExportError> {
        let export = RunExport::from_trace(trace, &self.project)?;
        let fresh: Vec<&Span> = export
            .spans
            .iter()
            .zip(&export.closed)
            .filter(|(span, closed)| (everything || **closed) && !self.sent.contains(&span.span_id))
            .map(|(span, _)| span)
            .collect();
        let requests = export.requests_of(fresh.iter().copied(), self.batch);
        for request in &requests {
            self.sender.send(request).await?;
            self.requests += 1;
        }
        self.sent.extend(fresh.iter().map(|span| span.span_id.clone()));
        Ok(Sent { trace_id: export.trace_id_hex(), spans: self.sent.len(), requests: self.requests })
    }
}

/// The run's trace id: from its header less the version (a trace upgraded in
/// place keeps its id).
fn trace_id(trace: &Trace) -> [u8; 16] {
    let header = &trace.header;
    let mut hash = Sha256::new();
    hash.update(b"eval-dag trace\n");
    hash.update(header.created_at.as_bytes());
    hash.update(serde_json::to_string(&header.settings).unwrap_or_default().as_bytes());
    hash.update(serde_json::to_string(&header.derived_from).unwrap_or_default().as_bytes());
    let digest = hash.finalize();
    let mut id = [0u8; 16];
    id.copy_from_slice(&digest[..16]);
    id
}

/// The id of the span named `key` in trace `trace_id`.
fn span_id(trace_id: &[u8; 16], key: &str) -> [u8; 8] {
    let mut hash = Sha256::new();
    hash.update(trace_id);
    hash.update(key.as_bytes());
    let digest = hash.finalize();
    let mut id = [0u8; 8];
    id.copy_from_slice(&digest[..8]);
    if id == [0; 8] {
        id[7] = 1;
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{EngineEvent, RunSettings};
    use crate::trace::{TraceHeader, TraceRecord};

    /// A trace of `n` questions generated and nothing else.
    fn trace_with_calls(n: u64, prompt: &str) -> Trace {
        let mut header = TraceHeader::new(RunSettings::default());
        header.created_at = "2026-01-02T03:04:05Z".into();
        let key = crate::domain::CallKey::run_wide(crate::domain::LlmRole::QuestionGeneration);
        let records = (0..n)
            .map(|seq| TraceRecord {
                seq,
                t_ms: seq,
                event: EngineEvent::LlmCallStarted {
                    call_id: seq,
                    key: key.clone(),
                    provider: "openai".into(),
                    model: "m".into(),
                    messages: vec![crate::domain::ChatMessage::user(prompt)],
                },
            })
            .collect::<Vec<_>>();
        crate::trace::written_trace(&header, &records)
    }

    #[test]
    fn requests_hold_a_bounded_number_of_spans_and_bytes() {
        let export = RunExport::from_trace(&trace_with_calls(9, "hi"), "p").unwrap();
        assert_eq!(export.spans.len(), 10, "the run and nine calls");
        let sizes: Vec<usize> = export
            .requests_of(export.spans.iter(), 4)
            .iter()
            .map(|r| r.resource_spans[0].scope_spans[0].spans.len())
            .collect();
        assert_eq!(sizes, [4, 4, 2]);

        let big = "x".repeat(MAX_REQUEST_BYTES / 4);
        let export = RunExport::from_trace(&trace_with_calls(3, &big), "p").unwrap();
        let sizes: Vec<usize> = export
            .requests_of(export.spans.iter(), 512)
            .iter()
            .map(|r| r.resource_spans[0].scope_spans[0].spans.len())
            .collect();
        assert_eq!(sizes, [2, 1, 1], "a call carries its prompt three times: two spans fill a request");
    }

    #[test]
    fn an_unfinished_call_ends_with_the_trace_and_says_so() {
        let export = RunExport::from_trace(&trace_with_calls(2, "hi"), "p").unwrap();
        let call = &export.spans[1];
        assert_eq!(call.start_time_unix_nano, 1_767_323_045_000_000_000);
        assert_eq!(call.end_time_unix_nano, 1_767_323_045_001_000_000, "the last record's time");
        assert!(call.attributes.iter().any(|kv| kv.key == "eval_dag.unfinished"));
        assert_eq!(export.spans[0].end_time_unix_nano, call.end_time_unix_nano, "the run spans its calls");
    }

    #[test]
    fn a_start_time_that_is_not_rfc_3339_is_an_error() {
        let mut trace = trace_with_calls(1, "hi");
        trace.header.created_at = "yesterday".into();
        assert!(matches!(RunExport::from_trace(&trace, "p"), Err(ExportError::StartTime { .. })));
    }
}
