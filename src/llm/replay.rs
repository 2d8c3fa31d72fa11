//! Answers LLM calls with the responses recorded in a trace, matched by
//! question, role, attempt, iteration and layer, so a run can be reproduced
//! exactly or forked without spending tokens.

use std::collections::HashMap;

use futures::future::BoxFuture;

use super::{
    CallKey, DeltaSink, LlmClient, LlmError, LlmErrorKind, LlmRequest, LlmResponse, TokenUsage,
};
use crate::engine::EngineEvent;
use crate::trace::Trace;

/// Serves recorded responses.
#[derive(Debug, Clone)]
pub struct ReplayClient {
    model: String,
    recorded: HashMap<CallKey, (String, TokenUsage)>,
}

impl ReplayClient {
    /// Every successful response of `trace`; a later call with the same key wins.
    pub fn from_trace(trace: &Trace) -> Self {
        let mut recorded = HashMap::new();
        for record in &trace.records {
            if let EngineEvent::LlmCallFinished {
                key,
                response: Some(text),
                usage,
                error: None,
                ..
            } = &record.event
            {
                recorded.insert(key.clone(), (text.clone(), *usage));
            }
        }
        Self {
            model: trace.header.settings.model.clone(),
            recorded,
        }
    }

    /// Number of recorded responses.
    pub fn len(&self) -> usize {
        self.recorded.len()
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.recorded.is_empty()
    }
}

impl LlmClient for ReplayClient {
    fn provider(&self) -> &str {
        "replay"
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn complete<'a>(
        &'a self,
        request: &'a LlmRequest,
        sink: DeltaSink,
    ) -> BoxFuture<'a, Result<LlmResponse, LlmError>> {
        Box::pin(async move {
            let Some((text, usage)) = self.recorded.get(&request.key) else {
                let key = &request.key;
                return Err(LlmError::new(
                    LlmErrorKind::NotRecorded,
                    format!(
                        "the trace has no recorded {} response for {} attempt {} iteration {}{}",
                        key.role.label(),
                        key.question_id.as_deref().unwrap_or("the run"),
                        key.attempt,
                        key.iteration,
                        key.layer.map(|l| format!(" layer {l}")).unwrap_or_default()
                    ),
                ));
            };
            sink(text);
            Ok(LlmResponse {
                text: text.clone(),
                usage: *usage,
                retries: 0,
            })
        })
    }
}
