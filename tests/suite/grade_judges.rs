//! Judges: judge-file validation, DAG traversal, rubric and faithfulness, run
//! through `grade_answer` against a scripted LLM that answers by matching the
//! prompt (the LLM boundary, not the thing under test).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use eval_dag::domain::Grade;
use eval_dag::domain::{AttemptAt, DifficultyLevel, NodeId, Question};
use eval_dag::domain::{CallKey, LlmRole, Provider};
use eval_dag::grade::{
    ClaimVerdict, GradeError, GradeInput, Judge, JudgeKind, JudgePanel, JudgedAt, MatchOptions, RubricOutput,
    built_in_judges, faithfulness_score, grade_answer, normalise_score, parse_rubric_reply,
};
use eval_dag::llm::{DeltaSink, LlmClient, LlmError, LlmErrorKind, LlmRequest, LlmResponse};
use futures::future::BoxFuture;
use indexmap::IndexMap;
use serde_json::{Value, json};

#[path = "grade_judges/dag.rs"]
mod dag;
#[path = "grade_judges/faithfulness.rs"]
mod faithfulness;
#[path = "grade_judges/files.rs"]
mod files;
#[path = "grade_judges/panel.rs"]
mod panel;
#[path = "grade_judges/rubric.rs"]
mod rubric;

// ---------------------------------------------------------------- scripted LLM

struct Rule {
    needle: String,
    reply: String,
    delay_ms: u64,
}

/// Replies with the first rule whose needle occurs in the user prompt.
#[derive(Default)]
struct Script {
    rules: Vec<Rule>,
    calls: Mutex<Vec<LlmRequest>>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
}

impl Script {
    fn on(self, needle: &str, reply: Value) -> Self {
        self.on_delayed(needle, reply, 0)
    }

    fn on_text(mut self, needle: &str, reply: &str) -> Self {
        self.rules.push(Rule { needle: needle.into(), reply: reply.into(), delay_ms: 0 });
        self
    }

    fn on_delayed(mut self, needle: &str, reply: Value, delay_ms: u64) -> Self {
        self.rules.push(Rule { needle: needle.into(), reply: reply.to_string(), delay_ms });
        self
    }

    fn prompts(&self) -> Vec<String> {
        self.calls.lock().unwrap().iter().map(user_prompt).collect()
    }

    fn keys(&self) -> Vec<CallKey> {
        self.calls.lock().unwrap().iter().map(|r| r.key.clone()).collect()
    }

    /// Index of the (single) call whose prompt holds `needle`.
    fn call_index(&self, needle: &str) -> usize {
        let prompts = self.prompts();
        let hits: Vec<usize> = (0..prompts.len()).filter(|i| prompts[*i].contains(needle)).collect();
        assert_eq!(hits.len(), 1, "{needle:?} was asked {} times", hits.len());
        hits[0]
    }
}

fn user_prompt(request: &LlmRequest) -> String {
    request
        .messages
        .iter()
        .filter(|m| m.role == eval_dag::domain::MessageRole::User)
        .map(|m| m.content.clone())
        .collect()
}

impl LlmClient for Script {
    fn provider(&self) -> Provider {
        "script".into()
    }

    fn model(&self) -> &str {
        "script"
    }

    fn complete<'a>(
        &'a self,
        request: &'a LlmRequest,
        _sink: DeltaSink,
    ) -> BoxFuture<'a, Result<LlmResponse, LlmError>> {
        Box::pin(async move {
            self.calls.lock().unwrap().push(request.clone());
            let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            self.max_in_flight.fetch_max(now, Ordering::SeqCst);
            let prompt = user_prompt(request);
            let result = match self.rules.iter().find(|r| prompt.contains(&r.needle)) {
                Some(rule) => {
                    tokio::time::sleep(Duration::from_millis(rule.delay_ms)).await;
                    Ok(LlmResponse { text: rule.reply.clone(), ..LlmResponse::default() })
                }
                None => Err(LlmError::new(LlmErrorKind::BadRequest, "no scripted reply")),
            };
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
            result
        })
    }
}

// ---------------------------------------------------------------- helpers

fn question(expected: Option<Value>) -> Question {
    Question {
        expected_answer: expected,
        ..Question::new("q_01", "What share of transactions is fraudulent?", 1, DifficultyLevel::Easy)
    }
}

async fn grade_with(judges: Vec<Judge>, script: &Script, answer: Option<Value>) -> Vec<Grade> {
    let question = question(None);
    let outputs: IndexMap<NodeId, Value> = [("step_1".into(), json!(0.0058))].into();
    let panel = JudgePanel::new(judges).unwrap();
    let options = MatchOptions::default();
    let input = GradeInput {
        question: &question,
        options: &options,
        final_answer: answer.as_ref(),
        narrative: None,
        node_outputs: &outputs,
        at: &JudgedAt::final_answer(AttemptAt::new("q_01", 3)),
    };
    grade_answer(&input, &panel, script).await
}

async fn grade_one(judge: Judge, script: &Script) -> Grade {
    let mut grades = grade_with(vec![judge], script, Some(json!(0.0058))).await;
    assert_eq!(grades.len(), 1);
    grades.remove(0)
}

fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/judges").join(name)
}

fn fixture(name: &str) -> Judge {
    Judge::load(&fixture_path(name)).unwrap()
}

fn dag(nodes: &[&str]) -> Judge {
    let text = format!("name = \"test\"\nkind = \"dag\"\nnode = [\n{}\n]\n", nodes.join(",\n"));
    Judge::parse(&text, "inline").unwrap()
}

fn task(id: &str, label: &str, children: &[&str]) -> String {
    format!(
        r#"{{ id = "{id}", kind = "task", instructions = "do {id}", output_label = "{label}", children = {children:?} }}"#
    )
}

fn binary(id: &str, yes: &str, no: &str) -> String {
    format!(r#"{{ id = "{id}", kind = "binary_judgement", criteria = "is {id}?", children = ["{yes}", "{no}"] }}"#)
}

fn verdict(id: &str, verdict: bool, score: u8) -> String {
    format!(r#"{{ id = "{id}", kind = "verdict", verdict = {verdict}, score = {score} }}"#)
}

fn said(verdict: Value, reason: &str) -> Value {
    json!({"reason": reason, "verdict": verdict})
}
