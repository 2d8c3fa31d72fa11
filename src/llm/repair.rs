//! Repair exchanges: a JSON reply that cannot be read — empty, cut off at the
//! token limit, not JSON, the wrong shape — is asked for again in the same
//! exchange, up to a limit, each time told what was wrong and what is expected.
//! A repair is a call of the same key with `repair: n`, so replay, the
//! response cache and resume treat it like any other call.

use std::sync::Arc;

use super::{LlmClient, LlmError, LlmRequest, LlmResponse, ignore_stream};
use crate::domain::{ChatMessage, FinishReason};
use crate::prompts::{Prompts, RepairNote};

/// Repair exchanges per unreadable reply unless `--repair` or `[llm] repair` says otherwise.
pub const DEFAULT_REPAIRS: u32 = 2;

/// How often, and with which prompt, an unreadable reply is asked for again.
#[derive(Debug, Clone)]
pub struct Repairs {
    limit: u32,
    prompts: Arc<Prompts>,
}

/// A reply still unreadable after every repair: why, in one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable(pub String);

impl Repairs {
    /// Up to `limit` repairs per reply, asked with `prompts`' `repair.j2`.
    pub fn new(limit: u32, prompts: Arc<Prompts>) -> Self {
        Self { limit, prompts }
    }

    /// Repair exchanges per unreadable reply.
    pub fn limit(&self) -> u32 {
        self.limit
    }

    /// The messages of a repair of `request` whose `reply` could not be read:
    /// the request's own, the reply as the model's message (when it had
    /// text), then what `note` says was wrong and what is expected.
    pub fn messages(&self, request: &LlmRequest, reply: &LlmResponse, mut note: RepairNote) -> Vec<ChatMessage> {
        note.empty = reply.text.trim().is_empty();
        note.cut_off = reply.finish_reason == Some(FinishReason::Length);
        if let Some(schema) = &request.schema {
            note.expected = serde_json::to_string(schema.schema()).unwrap_or_default();
        }
        let mut messages = request.messages.clone();
        if !note.empty {
            messages.push(ChatMessage::assistant(reply.text.clone()));
        }
        messages.push(self.prompts.repair(&note));
        messages
    }

    /// Send `request` through `client` and read its reply with `read`; while
    /// `read` refuses it, ask again (the same key with `repair: n`) up to the
    /// limit. `Ok(Err(_))` is a reply still unreadable after every repair; a
    /// call that fails for good is the error.
    pub async fn complete<T>(
        &self,
        client: &dyn LlmClient,
        request: &LlmRequest,
        read: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Result<T, Unreadable>, LlmError> {
        let mut reply = client.complete(request, ignore_stream()).await?;
        let mut repair = 0;
        loop {
            let problem = match read(&reply.text) {
                Ok(value) => return Ok(Ok(value)),
                Err(problem) => problem,
            };
            let problem = describe(&reply, problem);
            if repair == self.limit {
                return Ok(Err(Unreadable(problem)));
            }
            repair += 1;
            let note = RepairNote { problems: vec![problem], ..RepairNote::default() };
            let again = LlmRequest {
                key: request.key.repair(repair),
                messages: self.messages(request, &reply, note),
                schema: request.schema.clone(),
            };
            reply = client.complete(&again, ignore_stream()).await?;
        }
    }
}

/// `problem` with the reply's state put first: empty, or cut off at the token limit.
pub fn describe(reply: &LlmResponse, problem: String) -> String {
    if reply.text.trim().is_empty() {
        format!("the reply was empty ({problem})")
    } else if reply.finish_reason == Some(FinishReason::Length) {
        format!("the reply was cut off at the token limit ({problem})")
    } else {
        problem
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use futures::future::BoxFuture;

    use super::*;
    use crate::domain::{CallKey, LlmRole, Provider};
    use crate::llm::DeltaSink;

    /// Answers with `replies` in order, keeping every request.
    struct Scripted {
        replies: Mutex<Vec<LlmResponse>>,
        seen: Mutex<Vec<LlmRequest>>,
    }

    impl LlmClient for Scripted {
        fn provider(&self) -> Provider {
            "scripted".into()
        }

        fn model(&self) -> &str {
            "scripted"
        }

        fn complete<'a>(
            &'a self,
            request: &'a LlmRequest,
            _sink: DeltaSink,
        ) -> BoxFuture<'a, Result<LlmResponse, LlmError>> {
            self.seen.lock().unwrap().push(request.clone());
            let reply = self.replies.lock().unwrap().remove(0);
            Box::pin(async move { Ok(reply) })
        }
    }

    fn reply(text: &str, finish: FinishReason) -> LlmResponse {
        LlmResponse { text: text.into(), finish_reason: Some(finish), ..LlmResponse::default() }
    }

    fn number(text: &str) -> Result<u32, String> {
        text.trim().parse().map_err(|_| format!("{text:?} is not a number"))
    }

    async fn ask(limit: u32, replies: Vec<LlmResponse>) -> (Result<u32, Unreadable>, Vec<LlmRequest>) {
        let client = Scripted { replies: Mutex::new(replies), seen: Mutex::new(Vec::new()) };
        let repairs = Repairs::new(limit, Arc::new(Prompts::load(None).unwrap()));
        let request = LlmRequest {
            key: CallKey::run_wide(LlmRole::Judge),
            messages: vec![ChatMessage::user("n?")],
            schema: None,
        };
        let read = repairs.complete(&client, &request, number).await.unwrap();
        (read, client.seen.into_inner().unwrap())
    }

    #[tokio::test]
    async fn an_unreadable_reply_is_repaired_under_the_same_key() {
        let (read, seen) = ask(
            2,
            vec![reply("", FinishReason::Stop), reply("12", FinishReason::Length), reply("7", FinishReason::Stop)],
        )
        .await;
        assert_eq!(read, Ok(12), "a cut-off reply that reads is kept");
        let repairs: Vec<u32> = seen.iter().map(|r| r.key.repair).collect();
        assert_eq!(repairs, vec![0, 1]);
        let roles: Vec<&str> = seen[1].messages.iter().map(|m| m.role.as_str()).collect();
        assert_eq!(roles, vec!["user", "user"], "an empty reply is not quoted back");
        assert!(seen[1].messages[1].content.starts_with("Your reply was empty."), "{:?}", seen[1].messages);
    }

    #[tokio::test]
    async fn a_reply_still_unreadable_after_the_limit_says_why() {
        let replies = vec![reply("many", FinishReason::Stop), reply("[1, 2", FinishReason::Length)];
        let (read, seen) = ask(1, replies).await;
        assert_eq!(
            read,
            Err(Unreadable("the reply was cut off at the token limit (\"[1, 2\" is not a number)".into()))
        );
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[1].messages[1], ChatMessage::assistant("many"), "the bad reply is quoted back");
        let (read, seen) = ask(0, vec![reply("x", FinishReason::Stop)]).await;
        assert!(read.is_err() && seen.len() == 1, "no repair with a limit of 0");
    }
}
