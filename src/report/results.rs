//! `eval_results.json`: the reference design's schema (summary,
//! difficulty_breakdown, detailed_results, failure_analysis, question_traces)
//! plus attempts, findings, tokens, cost and timings.

use serde_json::{Value, json};

use crate::domain::DifficultyLevel;
use crate::llm::LlmRole;
use crate::run::conversation::{Entry, entries, user_prompt};
use crate::run::{Outcome, QuestionState, QuestionStatus, RunState};

/// How many of `questions` were graded, and how many of those were right.
pub fn graded_tally<'a>(questions: impl IntoIterator<Item = &'a QuestionState>) -> (usize, usize) {
    let graded: Vec<bool> = questions.into_iter().filter_map(QuestionState::correct).collect();
    (graded.len(), graded.iter().filter(|c| **c).count())
}

/// Graded questions and how many were right.
fn accuracy<'a>(questions: impl Iterator<Item = &'a QuestionState>) -> Value {
    let (graded, right) = graded_tally(questions);
    json!({"graded": graded, "correct": right, "accuracy": if graded == 0 { Value::Null } else { json!(rate(right, graded)) }})
}

fn rate(passed: usize, total: usize) -> f64 {
    if total == 0 { 0.0 } else { passed as f64 / total as f64 }
}

fn passed(q: &QuestionState) -> bool {
    q.status == QuestionStatus::Done(Outcome::Passed)
}

fn conversation_log(state: &RunState, q: &QuestionState) -> Vec<Value> {
    let mut log = Vec::new();
    for entry in entries(state, q) {
        let Entry::Call { call, .. } = entry else { continue };
        let key = &call.key;
        let meta = match key.role {
            LlmRole::Judge => {
                json!({"attempt": key.attempt, "judge": key.iteration, "call": key.role, "step": key.layer})
            }
            _ => json!({"attempt": key.attempt, "iteration": key.iteration, "call": key.role, "layer": key.layer}),
        };
        if let Some(prompt) = user_prompt(call) {
            log.push(json!({"role": "user", "content": prompt, "meta": meta}));
        }
        let content = match &call.error {
            Some(error) => format!("(call failed: {error})"),
            None => call.response.clone(),
        };
        log.push(json!({"role": "assistant", "content": content, "meta": meta}));
    }
    log
}

fn detailed(q: &QuestionState) -> Value {
    let latest = q.latest();
    let execution = latest.and_then(|a| a.execution.as_ref());
    json!({
        "question_id": q.question.id,
        "question": q.question.question,
        "difficulty_rank": q.question.difficulty_rank,
        "difficulty_level": q.question.difficulty_level,
        "success": passed(q),
        "status": q.status.label(),
        "final_answer": latest.and_then(|a| a.final_answer.clone()),
        "narrative": latest.and_then(|a| a.narrative.clone()),
        "expected_answer": q.question.expected_answer,
        "correct": q.correct(),
        "grades": latest.map(|a| a.grades.clone()).unwrap_or_default(),
        "error": latest.and_then(|a| a.reason.clone()),
        "iterations": latest.map_or(0, |a| a.iterations.len()),
        "attempts": q.attempts.len(),
        "execution_time_ms": execution.map(|e| e.execution_time_ms),
        "node_timings_ms": execution.map(|e| &e.node_timings_ms),
        "findings_per_iteration": q.findings_per_iteration(),
        "tokens": {"prompt": q.usage.prompt_tokens, "completion": q.usage.completion_tokens, "total": q.usage.total()},
        "cost_usd": q.cost_usd,
        "elapsed_ms": q.started_ms.zip(q.finished_ms).map(|(s, f)| f.saturating_sub(s)),
    })
}

fn failure(q: &QuestionState) -> Value {
    let latest = q.latest();
    let last_feedback = latest.and_then(|a| a.iterations.iter().rev().find_map(|i| i.feedback.as_ref()));
    json!({
        "question_id": q.question.id,
        "question": q.question.question,
        "difficulty_level": q.question.difficulty_level,
        "status": q.status.label(),
        "reason": latest.and_then(|a| a.reason.clone()),
        "last_errors": last_feedback.map(|f| f.specific_errors.clone()).unwrap_or_default(),
        "last_findings": last_feedback.map(|f| f.findings.clone()).unwrap_or_default(),
    })
}

fn trace(state: &RunState, q: &QuestionState) -> Value {
    let attempts: Vec<Value> = q
        .attempts
        .iter()
        .map(|a| {
            json!({
                "attempt": a.number,
                "forked_from": a.forked_from,
                "outcome": a.outcome,
                "reason": a.reason,
                "final_answer": a.final_answer,
                "iterations": a.iterations.iter().map(|i| json!({
                    "iteration": i.number,
                    "dag": i.dag,
                    "critic_feedback": i.feedback,
                    "trial_run": i.trial,
                    "stages": i.stages.iter().map(|s| json!({"stage": s.stage, "started_ms": s.started_ms,
                        "ok": s.finished.map(|f| f.0), "duration_ms": s.finished.map(|f| f.1)})).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let latest_iterations = attempts.last().and_then(|a| a.get("iterations").cloned()).unwrap_or(json!([]));
    json!({
        "question_id": q.question.id,
        "question": q.question.question,
        "iterations": latest_iterations,
        "attempts": attempts,
        "conversation_log": conversation_log(state, q),
    })
}

/// The results document of `state`, stamped `generated_at` (RFC 3339).
pub fn results_json(state: &RunState, generated_at: &str) -> Value {
    let total = state.questions.len();
    let passed_count = state.questions.iter().filter(|q| passed(q)).count();
    let mut breakdown = serde_json::Map::new();
    for level in DifficultyLevel::ALL {
        let of_level: Vec<&QuestionState> =
            state.questions.iter().filter(|q| q.question.difficulty_level == level).collect();
        let level_passed = of_level.iter().filter(|q| passed(q)).count();
        breakdown.insert(
            level.as_str().into(),
            json!({"total": of_level.len(), "passed": level_passed, "failed": of_level.len() - level_passed,
                   "pass_rate": rate(level_passed, of_level.len()), "grading": accuracy(of_level.iter().copied())}),
        );
    }
    let count = |outcome| state.count(|s| s == QuestionStatus::Done(outcome));
    json!({
        "summary": {
            "total_questions": total,
            "passed": passed_count,
            "failed": total - passed_count,
            "pass_rate": rate(passed_count, total),
            "generated_at": generated_at,
            "exhausted": count(Outcome::Exhausted),
            "execution_failed": count(Outcome::Failed),
            "cancelled": count(Outcome::Cancelled),
            "grading": accuracy(state.questions.iter()),
            "tokens": {"prompt": state.usage.prompt_tokens, "completion": state.usage.completion_tokens, "total": state.usage.total()},
            "cost_usd": state.cost_usd,
            "elapsed_ms": state.summary.as_ref().map(|s| s.elapsed_ms),
            "run_failure": state.failure,
            "settings": state.settings,
        },
        "difficulty_breakdown": breakdown,
        "detailed_results": state.questions.iter().map(detailed).collect::<Vec<_>>(),
        "failure_analysis": state.questions.iter().filter(|q| !passed(q)).map(failure).collect::<Vec<_>>(),
        "question_traces": state.questions.iter().map(|q| trace(state, q)).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::test_run::run_with_one_pass_and_one_exhausted;

    #[test]
    fn results_follow_the_schema_and_count_right() {
        let state = run_with_one_pass_and_one_exhausted();
        let doc = results_json(&state, "2026-01-01T00:00:00Z");
        let schema: Value = serde_json::from_str(include_str!("eval_results.schema.json")).unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        let errors: Vec<String> =
            validator.iter_errors(&doc).map(|e| format!("{} at {}", e, e.instance_path())).collect();
        assert!(errors.is_empty(), "{errors:#?}");
        assert_eq!(doc["summary"]["passed"], 1);
        assert_eq!(doc["summary"]["failed"], 1);
        assert_eq!(doc["summary"]["exhausted"], 1);
        assert_eq!(doc["summary"]["tokens"]["total"], 15);
        assert_eq!(doc["failure_analysis"][0]["question_id"], "q_02");
        assert_eq!(doc["question_traces"][0]["conversation_log"][1]["content"], "{}");
        let broken = json!({"summary": {}});
        assert!(!validator.is_valid(&broken), "the schema rejects a document without the required parts");
    }
}
