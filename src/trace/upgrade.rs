//! Reading traces written by earlier versions: each older event line is
//! rewritten into the current shape before it is parsed.
//!
//! - Version 1 repeated `question_id`, `attempt` (and `iteration`) in every
//!   event about a question; version 2 groups them under `at`.
//! - Version 1 recorded a carried-out command as `{"action": "paused"}`
//!   (`paused`, `resumed`, `stepped`, …); version 2 records the command itself,
//!   `{"command": "pause"}`, and a fork's `from` location.
//! - Version 3 added, and changed nothing: attempts by hand (`by_hand` on
//!   `question_started`; the `drafted` and `fixed_by_hand` outcomes; the
//!   `try_dag` and `accept` commands) and the header's `derived_from`. A
//!   version-2 line reads as it is.
//! - Version 4 added, and changed nothing: `cached_tokens` in every `usage`
//!   (prompt tokens the provider served from its cache; 0 when read from
//!   version 3), the judges' grades of a rejected iteration's answer
//!   (`iteration_graded`, `run --judge-rejected`), the grading setting
//!   `judge_rejected` and the `judge` of a call key made on such an answer.
//!   A version-3 line reads as it is.
//! - Version 5 records who plays each role: the run settings' `roles` (role →
//!   provider, model, base URL) and the `provider` of every `llm_call_started`.
//!   An earlier run had one provider and model for every role: its settings
//!   read with every role played by them, and each call with the run's provider.
//! - Version 6 added, and changed nothing: `epoch` and `draft` on every
//!   location (`at`) and call key (1 when absent, written only when not 1),
//!   `repair` on a call key (0 when absent), `finish_reason`, `from_cache` and
//!   `estimated` on a finished call, the `budget` outcome, the benchmark fields
//!   of a question (`dataset`, `source_id`, `answer_format`, `constraints`,
//!   `scorer`, `extra`), the settings' `datasets` and the summary's `budget`.
//!   A version-5 line reads as it is.
//! - Version 7 added, and changed nothing: the `batch_submitted` and
//!   `batch_ended` events and `batch_id` on a finished call (`run --batch`),
//!   the settings' `shard` and a merged run's header `merged_from` (`run
//!   --shard`, `eval-dag merge`), the settings' `baselines`, the `baseline`
//!   role and `baseline` on a call key (`run --baselines`). A version-6 line
//!   reads as it is.

use serde_json::{Map, Value, json};

use crate::domain::{LlmRole, Provider};

/// The roles a run played before version 5 recorded them: a version-4 run's
/// one model played each (the `baseline` role came later and is listed only
/// in a run with baselines).
const V4_ROLES: [LlmRole; 5] =
    [LlmRole::QuestionGeneration, LlmRole::DagBuild, LlmRole::LayerReview, LlmRole::Narrative, LlmRole::Judge];

/// Events that name one attempt.
const ATTEMPT_EVENTS: [&str; 3] = ["question_started", "question_finished", "graded"];
/// Events that name one iteration.
const ITERATION_EVENTS: [&str; 5] = ["stage_started", "stage_finished", "dag_built", "critic_verdict", "executed"];

/// Rewrite one version-1 record (`{seq, t_ms, event}`) into the current shape.
pub fn from_v1(record: &mut Value) {
    let Some(event) = record.get_mut("event").and_then(Value::as_object_mut) else { return };
    let kind = event.get("type").and_then(Value::as_str).unwrap_or_default().to_string();
    if ATTEMPT_EVENTS.contains(&kind.as_str()) {
        group_location(event, &["question_id", "attempt"]);
    } else if ITERATION_EVENTS.contains(&kind.as_str()) {
        group_location(event, &["question_id", "attempt", "iteration"]);
    } else if kind == "control" {
        control_from_v1(event);
    }
}

/// Move `fields` from `event` into `event.at` (an event already grouped is left as it is).
fn group_location(event: &mut Map<String, Value>, fields: &[&str]) {
    if !event.contains_key(fields[0]) {
        return;
    }
    let at: Map<String, Value> = fields.iter().filter_map(|f| event.remove(*f).map(|v| (f.to_string(), v))).collect();
    event.insert("at".into(), Value::Object(at));
}

/// `{"action": "stepped", …}` → `{"command": "step", …}`.
fn control_from_v1(event: &mut Map<String, Value>) {
    let Some(Value::String(action)) = event.remove("action") else { return };
    let command = match action.as_str() {
        "paused" => "pause",
        "resumed" => "resume",
        "stepped" => "step",
        other => other,
    };
    if command == "fork" {
        group_location(event, &["question_id", "attempt", "iteration"]);
        let from = event.remove("at").unwrap_or_default();
        event.insert("from".into(), from);
    }
    event.insert("command".into(), Value::String(command.into()));
}

/// Fill in a version-4 (or earlier) `settings` object's `roles`: every role
/// is played by the run's one provider and model.
pub fn settings_from_v4(settings: &mut Value) {
    let Some(settings) = settings.as_object_mut() else { return };
    if settings.contains_key("roles") {
        return;
    }
    let played = json!({"provider": settings.get("provider"), "model": settings.get("model")});
    let roles: Map<String, Value> = V4_ROLES
        .iter()
        .map(|role| {
            (
                serde_json::to_value(role).ok().and_then(|name| name.as_str().map(str::to_string)).unwrap_or_default(),
                played.clone(),
            )
        })
        .collect();
    settings.insert("roles".into(), Value::Object(roles));
}

/// Rewrite one version-4 (or earlier, already upgraded to version 4) record
/// into version 5: `provider` is the provider of a run's every call.
pub fn from_v4(record: &mut Value, provider: &Provider) {
    let Some(event) = record.get_mut("event").and_then(Value::as_object_mut) else { return };
    match event.get("type").and_then(Value::as_str) {
        Some("run_started") => {
            if let Some(settings) = event.get_mut("settings") {
                settings_from_v4(settings);
            }
        }
        Some("llm_call_started") if !event.contains_key("provider") => {
            event.insert("provider".into(), Value::String(provider.name().into()));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{Command, EngineEvent};
    use crate::trace::TraceRecord;
    use serde_json::json;

    fn upgraded(event: Value) -> EngineEvent {
        let mut record = json!({"seq": 0, "t_ms": 0, "event": event});
        from_v1(&mut record);
        serde_json::from_value::<TraceRecord>(record).unwrap().event
    }

    #[test]
    fn every_version_1_control_action_reads_as_the_command_it_was() {
        let cases = [
            (json!({"action": "paused"}), Command::Pause),
            (json!({"action": "resumed"}), Command::Resume),
            (json!({"action": "stepped", "question_id": null}), Command::Step { question_id: None }),
            (json!({"action": "stepped", "question_id": "q_01"}), Command::Step { question_id: Some("q_01".into()) }),
            (
                json!({"action": "rerun", "question_id": "q_01"}),
                Command::Rerun { question_id: "q_01".into(), epoch: 1, draft: 1 },
            ),
            (
                json!({"action": "fork", "question_id": "q_01", "attempt": 1, "iteration": 2}),
                Command::Fork { from: crate::domain::AttemptAt::new("q_01", 1).iteration(2) },
            ),
            (
                json!({"action": "cancel_question", "question_id": "q_01"}),
                Command::CancelQuestion { question_id: "q_01".into() },
            ),
            (json!({"action": "cancel_run"}), Command::CancelRun),
        ];
        for (mut action, command) in cases {
            action["type"] = json!("control");
            assert_eq!(upgraded(action), EngineEvent::Control(command));
        }
    }

    #[test]
    fn version_1_locations_are_grouped_and_other_fields_kept() {
        let event = upgraded(json!({"type": "stage_finished", "question_id": "q_02", "attempt": 3, "iteration": 4,
            "stage": "trial_run", "ok": false, "duration_ms": 12}));
        let at = crate::domain::AttemptAt::new("q_02", 3).iteration(4);
        let expected =
            EngineEvent::StageFinished { at, stage: crate::run::Stage::TrialRun, ok: false, duration_ms: 12 };
        assert_eq!(event, expected);
        let event = upgraded(json!({"type": "question_started", "question_id": "q_02", "attempt": 2,
            "forked_from": [1, 3]}));
        let at = crate::domain::AttemptAt::new("q_02", 2);
        assert_eq!(event, EngineEvent::QuestionStarted { at, forked_from: Some((1, 3).into()), by_hand: false });
    }
}
