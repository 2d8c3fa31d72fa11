//! OpenAI's Batch API on the OpenAI-compatible client: the batch's lines as a
//! JSONL file (`POST /files`, purpose `batch`), `POST /batches` for
//! `/v1/chat/completions` within 24 hours, `GET /batches/{id}` until it ends,
//! then its output and error files (`GET /files/{id}/content`);
//! `POST /batches/{id}/cancel` ends it early (`cancelling`, then
//! `cancelled` with the output file of the lines it finished).

use std::collections::HashMap;

use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::api::{BatchApi, BatchLimits, LineOutcome, Polled};
use crate::domain::{BatchId, BatchStatus};
use crate::llm::http::{Failure, error_detail, retry_after, send_failure};
use crate::llm::openai::{Sent, finish_reason_of, usage_of};
use crate::llm::{LlmError, LlmErrorKind, LlmRequest, LlmResponse, OpenAiClient};

/// <https://platform.openai.com/docs/guides/batch>: "up to 50,000 requests, and a batch input file can be up to 200 MB".
const LIMITS: BatchLimits = BatchLimits { requests: 50_000, bytes: 200 * 1024 * 1024 };

/// The reply limit a waiting call's estimate counts when the role sets no `max_tokens`.
const UNSET_MAX_TOKENS: u32 = 4096;

/// The endpoint every line is for.
const ENDPOINT: &str = "/v1/chat/completions";

impl OpenAiClient {
    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.settings.base_url)
    }

    /// `GET`/`POST` `request` with the key; the body on success, else the failure as a live call classifies it.
    async fn send_for(&self, request: reqwest::RequestBuilder, url: &str) -> Result<String, Failure> {
        let request = match &self.settings.api_key {
            Some(key) => request.bearer_auth(key),
            None => request,
        };
        let response = request
            .timeout(self.settings.timeout)
            .send()
            .await
            .map_err(|e| send_failure(&e, url, self.settings.timeout))?;
        let status = response.status();
        let after = retry_after(response.headers());
        let body = response.text().await.map_err(|e| send_failure(&e, url, self.settings.timeout))?;
        match status.is_success() {
            true => Ok(body),
            false => Err(self.classify(status.as_u16(), &body, after, Sent::default(), url)),
        }
    }

    /// Upload `lines` as a batch input file; its id.
    async fn upload(&self, lines: &[Value]) -> Result<String, LlmError> {
        let url = self.url("/files");
        let boundary = format!("eval-dag-{:016x}", rand::random::<u64>());
        let mut body = format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n--{boundary}\r\n\
             Content-Disposition: form-data; name=\"file\"; filename=\"batch.jsonl\"\r\n\
             Content-Type: application/jsonl\r\n\r\n"
        );
        lines.iter().for_each(|line| body.push_str(&format!("{line}\n")));
        body.push_str(&format!("\r\n--{boundary}--\r\n"));
        let request = self
            .http
            .post(&url)
            .header(reqwest::header::CONTENT_TYPE, format!("multipart/form-data; boundary={boundary}"))
            .body(body);
        let answer = self.send_for(request, &url).await.map_err(|failure| refused_file(failure.error))?;
        let file: Value = serde_json::from_str(&answer).map_err(|e| unreadable(&url, &e).error)?;
        id_of(&file, &url)
    }
}

/// A refused upload, said as such.
fn refused_file(error: LlmError) -> LlmError {
    LlmError { message: format!("the batch file was refused: {}", error.message), ..error }
}

fn unreadable(url: &str, error: &dyn std::fmt::Display) -> Failure {
    Failure::retry(LlmErrorKind::BadResponse, format!("unreadable answer from {url}: {error}"), None)
}

fn id_of(value: &Value, url: &str) -> Result<String, LlmError> {
    value["id"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| LlmError::new(LlmErrorKind::BadResponse, format!("{url} gave no id")))
}

/// Why a batch failed validation, naming the first line refused.
fn refusal(id: &BatchId, batch: &Value) -> String {
    let first = &batch["errors"]["data"][0];
    let line = first["line"].as_u64().map(|n| format!("line {n}: ")).unwrap_or_default();
    let message = first["message"].as_str().unwrap_or("no reason given");
    format!("batch {id} was refused: {line}{message}")
}

/// The outcomes of a results file's lines, by `custom_id`.
fn outcomes(text: &str) -> HashMap<String, LineOutcome> {
    let mut found = HashMap::new();
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        let Ok(value) = serde_json::from_str::<Value>(line) else { continue };
        let Some(id) = value["custom_id"].as_str() else { continue };
        let response = &value["response"];
        let outcome = match (response["status_code"].as_u64(), value["error"]["code"].as_str()) {
            (_, Some("batch_expired" | "batch_cancelled")) => LineOutcome::Unprocessed,
            (Some(200), _) => LineOutcome::Reply(response["body"].clone()),
            (Some(status), _) => LineOutcome::Failed(status as u16, response["body"].to_string()),
            (None, _) => LineOutcome::Failed(500, value["error"].to_string()),
        };
        found.insert(id.to_string(), outcome);
    }
    found
}

impl BatchApi for OpenAiClient {
    fn limits(&self) -> BatchLimits {
        LIMITS
    }

    fn probe(&self) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(async move {
            let url = self.url("/batches?limit=1");
            match self.send_for(self.http.get(&url), &url).await {
                Ok(_) => Ok(()),
                Err(failure) => Err(format!("{} has no batch API ({})", self.settings.base_url, failure.error.message)),
            }
        })
    }

    fn line(&self, custom_id: &str, request: &LlmRequest) -> Value {
        let (mut body, _) = self.body(request);
        if let Some(fields) = body.as_object_mut() {
            fields.remove("stream");
            fields.remove("stream_options");
        }
        json!({"custom_id": custom_id, "method": "POST", "url": ENDPOINT, "body": body})
    }

    fn submit<'a>(&'a self, lines: &'a [Value]) -> BoxFuture<'a, Result<BatchId, LlmError>> {
        Box::pin(async move {
            let file = self.upload(lines).await?;
            let url = self.url("/batches");
            let body = json!({"input_file_id": file, "endpoint": ENDPOINT, "completion_window": "24h"});
            let answer = self.send_for(self.http.post(&url).json(&body), &url).await.map_err(|f| f.error)?;
            let batch: Value = serde_json::from_str(&answer).map_err(|e| unreadable(&url, &e).error)?;
            Ok(BatchId(id_of(&batch, &url)?))
        })
    }

    fn cancel<'a>(&'a self, id: &'a BatchId) -> BoxFuture<'a, Result<(), Failure>> {
        Box::pin(async move {
            let url = self.url(&format!("/batches/{id}/cancel"));
            self.send_for(self.http.post(&url), &url).await.map(drop)
        })
    }

    fn poll<'a>(&'a self, id: &'a BatchId) -> BoxFuture<'a, Result<Polled, Failure>> {
        Box::pin(async move {
            let url = self.url(&format!("/batches/{id}"));
            let request = match &self.settings.api_key {
                Some(key) => self.http.get(&url).bearer_auth(key),
                None => self.http.get(&url),
            };
            let response = request.send().await.map_err(|e| send_failure(&e, &url, self.settings.timeout))?;
            let (status, after) = (response.status(), retry_after(response.headers()));
            let body = response.text().await.map_err(|e| send_failure(&e, &url, self.settings.timeout))?;
            if !status.is_success() {
                return Err(self.classify(status.as_u16(), &body, after, Sent::default(), &url));
            }
            let batch: Value = serde_json::from_str(&body).map_err(|e| unreadable(&url, &e))?;
            let files = ["output_file_id", "error_file_id"].iter().filter_map(|f| batch[*f].as_str());
            let files: Vec<String> = files.map(str::to_string).collect();
            Ok(match batch["status"].as_str().unwrap_or_default() {
                "completed" => Polled::Ended(BatchStatus::Completed, files),
                "expired" => Polled::Ended(BatchStatus::Expired, files),
                "cancelled" => Polled::Ended(BatchStatus::Cancelled, files),
                "failed" if batch["errors"]["data"].as_array().is_some_and(|e| !e.is_empty()) => {
                    Polled::Refused(refusal(id, &batch))
                }
                "failed" => Polled::Ended(BatchStatus::Failed, files),
                _ => Polled::Running(after),
            })
        })
    }

    fn results<'a>(&'a self, places: &'a [String]) -> BoxFuture<'a, Result<HashMap<String, LineOutcome>, Failure>> {
        Box::pin(async move {
            let mut found = HashMap::new();
            for file in places {
                let url = self.url(&format!("/files/{file}/content"));
                found.extend(outcomes(&self.send_for(self.http.get(&url), &url).await?));
            }
            Ok(found)
        })
    }

    fn reply(&self, request: &LlmRequest, body: &Value) -> Result<LlmResponse, LlmError> {
        let text = body.pointer("/choices/0/message/content").and_then(Value::as_str).unwrap_or_default();
        let usage = body.get("usage").filter(|u| !u.is_null()).map(|_| usage_of(body));
        Ok(OpenAiClient::reply(
            self,
            request,
            text.to_string(),
            usage,
            finish_reason_of(body),
            &self.url("/chat/completions"),
        ))
    }

    fn max_tokens(&self) -> u32 {
        self.settings.max_tokens.unwrap_or(UNSET_MAX_TOKENS)
    }

    fn line_failure(&self, status: u16, body: &str) -> Failure {
        let sent = Sent { response_format: Some(self.formats.current()), stream_options: false };
        let failure = self.classify(status, body, None, sent, &self.url("/chat/completions"));
        tracing::debug!("a batched line failed: {status} {}", error_detail(body));
        failure
    }
}
