//! Which model played which role, in the TUI: the scripted sample run as if
//! its critic and judge were other models than its builder (header and
//! conversation tab, snapshotted), and unchanged when one model plays all.

use crate::common;

use common::press;
use common::tui::{SAMPLE, screen};
use eval_dag::domain::{LlmRole, RoleModel};
use eval_dag::run::{EngineEvent, RunState};
use eval_dag::trace::Trace;
use eval_dag::tui::{App, Theme};

/// The model that plays `role` in the reworked sample.
fn model_of(role: LlmRole) -> &'static str {
    match role {
        LlmRole::LayerReview => "critic-m",
        LlmRole::Judge => "judge-m",
        _ => "scripted-model",
    }
}

/// The sample run with its layer reviews served by `critic-m` at $0.0015 a call.
fn multi_model_state() -> RunState {
    let mut state = RunState::default();
    for mut record in Trace::read(&common::root().join(SAMPLE)).unwrap().records {
        match &mut record.event {
            EngineEvent::RunStarted { settings } => {
                for role in LlmRole::ALL {
                    let played = RoleModel { provider: "openai".into(), model: model_of(role).into(), base_url: None };
                    settings.roles.insert(role, played);
                }
            }
            EngineEvent::LlmCallStarted { key, model, .. } => *model = model_of(key.role).into(),
            EngineEvent::LlmCallFinished { key, cost_usd, .. } if key.role == LlmRole::LayerReview => {
                *cost_usd = 0.0015
            }
            _ => {}
        }
        state.apply(record.t_ms, &record.event);
    }
    state
}

#[test]
fn the_header_and_the_conversation_say_which_model_played_which_role() {
    let mut app = App::new(multi_model_state(), Theme::dark(), None, None);
    let dashboard = screen(&app, 160, 48);
    let header: Vec<&str> = dashboard.lines().take(3).collect();
    insta::assert_snapshot!("roles_header_160x48", header.join("\n"));
    assert!(header[0].contains("questions,builder,narrative scripted-model") && header[0].contains("critic critic-m"));
    press(&mut app, "j\ntt");
    let conversation = screen(&app, 160, 48);
    insta::assert_snapshot!("roles_conversation_160x48", conversation);
    assert!(conversation.contains("review layer 0 · critic-m ·") && conversation.contains("build · scripted-model ·"));
}

#[test]
fn one_model_for_every_role_keeps_the_header_as_it_was() {
    let mut state = RunState::default();
    for record in Trace::read(&common::root().join(SAMPLE)).unwrap().records {
        state.apply(record.t_ms, &record.event);
    }
    let app = App::new(state, Theme::dark(), None, None);
    let header = screen(&app, 160, 48);
    assert!(header.lines().next().unwrap().contains("openai/scripted-model"), "{header}");
}
