//! Anthropic's Message Batches on the Messages client: `POST
//! /v1/messages/batches` with every request's params, `GET
//! /v1/messages/batches/{id}` until its `processing_status` is `ended`, then
//! the JSONL at its `results_url`; `POST /v1/messages/batches/{id}/cancel`
//! ends it early (its unprocessed requests `canceled` in the results).

use std::collections::HashMap;

use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::api::{BatchApi, BatchLimits, LineOutcome, Polled};
use crate::domain::{BatchId, BatchStatus, FinishReason};
use crate::llm::anthropic::Usage;
use crate::llm::http::{Failure, retry_after, send_failure};
use crate::llm::{AnthropicClient, LlmError, LlmErrorKind, LlmRequest, LlmResponse};

/// <https://docs.anthropic.com/en/docs/build-with-claude/batch-processing>:
/// "limited to either 100,000 Message requests or 256 MB in size, whichever is reached first".
const LIMITS: BatchLimits = BatchLimits { requests: 100_000, bytes: 256 * 1024 * 1024 };

impl AnthropicClient {
    fn batches_url(&self, path: &str) -> String {
        format!("{}/v1/messages/batches{path}", self.settings.base_url)
    }

    /// Send `request` signed; the body on success, else the failure as a live call classifies it.
    async fn send_for(&self, request: reqwest::RequestBuilder, url: &str) -> Result<String, Failure> {
        let timeout = self.settings.timeout;
        let response =
            self.signed(request).timeout(timeout).send().await.map_err(|e| send_failure(&e, url, timeout))?;
        let (status, after) = (response.status(), retry_after(response.headers()));
        let body = response.text().await.map_err(|e| send_failure(&e, url, timeout))?;
        match status.is_success() {
            true => Ok(body),
            false => Err(self.classify(status.as_u16(), &body, after, url, false)),
        }
    }

    async fn json_of(&self, request: reqwest::RequestBuilder, url: &str) -> Result<Value, Failure> {
        let body = self.send_for(request, url).await?;
        serde_json::from_str(&body)
            .map_err(|e| Failure::retry(LlmErrorKind::BadResponse, format!("unreadable answer from {url}: {e}"), None))
    }
}

/// The outcomes of a results file's lines, by `custom_id`.
fn outcomes(text: &str) -> HashMap<String, LineOutcome> {
    let mut found = HashMap::new();
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        let Ok(value) = serde_json::from_str::<Value>(line) else { continue };
        let Some(id) = value["custom_id"].as_str() else { continue };
        let result = &value["result"];
        let outcome = match result["type"].as_str().unwrap_or_default() {
            "succeeded" => LineOutcome::Reply(result["message"].clone()),
            "errored" => {
                let status = match result.pointer("/error/error/type").and_then(Value::as_str) {
                    Some("invalid_request_error") => 400,
                    Some("rate_limit_error") => 429,
                    Some("overloaded_error") => 529,
                    _ => 500,
                };
                LineOutcome::Failed(status, result["error"].to_string())
            }
            _ => LineOutcome::Unprocessed,
        };
        found.insert(id.to_string(), outcome);
    }
    found
}

impl BatchApi for AnthropicClient {
    fn limits(&self) -> BatchLimits {
        LIMITS
    }

    fn probe(&self) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(async move {
            let url = self.batches_url("?limit=1");
            match self.send_for(self.http.get(&url), &url).await {
                Ok(_) => Ok(()),
                Err(failure) => Err(format!("{} has no batch API ({})", self.settings.base_url, failure.error.message)),
            }
        })
    }

    fn line(&self, custom_id: &str, request: &LlmRequest) -> Value {
        let (mut params, _) = self.with_tool(request, &self.body(request));
        if let Some(fields) = params.as_object_mut() {
            fields.remove("stream");
        }
        json!({"custom_id": custom_id, "params": params})
    }

    fn submit<'a>(&'a self, lines: &'a [Value]) -> BoxFuture<'a, Result<BatchId, LlmError>> {
        Box::pin(async move {
            let url = self.batches_url("");
            let request = self.http.post(&url).json(&json!({"requests": lines}));
            let batch = self.json_of(request, &url).await.map_err(|failure| LlmError {
                message: format!("the batch was refused: {}", failure.error.message),
                ..failure.error
            })?;
            let id = batch["id"].as_str().map(BatchId::from);
            id.ok_or_else(|| LlmError::new(LlmErrorKind::BadResponse, format!("{url} gave no batch id")))
        })
    }

    fn cancel<'a>(&'a self, id: &'a BatchId) -> BoxFuture<'a, Result<(), Failure>> {
        Box::pin(async move {
            let url = self.batches_url(&format!("/{id}/cancel"));
            self.send_for(self.http.post(&url), &url).await.map(drop)
        })
    }

    fn poll<'a>(&'a self, id: &'a BatchId) -> BoxFuture<'a, Result<Polled, Failure>> {
        Box::pin(async move {
            let url = self.batches_url(&format!("/{id}"));
            let batch = self.json_of(self.http.get(&url), &url).await?;
            if batch["processing_status"].as_str() != Some("ended") {
                return Ok(Polled::Running(None));
            }
            let counts = &batch["request_counts"];
            let status = match (counts["expired"].as_u64(), counts["canceled"].as_u64()) {
                (Some(expired), _) if expired > 0 => BatchStatus::Expired,
                (_, Some(canceled)) if canceled > 0 => BatchStatus::Cancelled,
                _ => BatchStatus::Completed,
            };
            Ok(Polled::Ended(status, batch["results_url"].as_str().map(str::to_string).into_iter().collect()))
        })
    }

    fn results<'a>(&'a self, places: &'a [String]) -> BoxFuture<'a, Result<HashMap<String, LineOutcome>, Failure>> {
        Box::pin(async move {
            let mut found = HashMap::new();
            for url in places {
                found.extend(outcomes(&self.send_for(self.http.get(url), url).await?));
            }
            Ok(found)
        })
    }

    fn reply(&self, request: &LlmRequest, message: &Value) -> Result<LlmResponse, LlmError> {
        let blocks = message["content"].as_array().map(Vec::as_slice).unwrap_or_default();
        let text: String = blocks
            .iter()
            .map(|block| match block["type"].as_str() {
                Some("tool_use") => block["input"].to_string(),
                _ => block["text"].as_str().unwrap_or_default().to_string(),
            })
            .collect();
        let mut usage = Usage::default();
        usage.update(&message["usage"]);
        let Some(reason) = message["stop_reason"].as_str() else {
            let message = "a batch reply without a stop_reason (unfinished)";
            return Err(LlmError::new(LlmErrorKind::BadResponse, message));
        };
        Ok(AnthropicClient::reply(self, request, text, &usage, FinishReason::from(reason.to_string())))
    }

    fn max_tokens(&self) -> u32 {
        AnthropicClient::max_tokens(self)
    }

    fn line_failure(&self, status: u16, body: &str) -> Failure {
        self.classify(status, body, None, &self.batches_url(""), true)
    }
}
