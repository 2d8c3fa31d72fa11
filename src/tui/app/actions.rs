//! What the app does with the effects a screen or an overlay hands back,
//! and with the actions no screen took (the same on every screen: quit,
//! help, back, run control, work by hand, replay).

use std::any::Any;

use super::App;
use crate::run::Command;
use crate::tui::component::Effect;
use crate::tui::editing::AfterEdit;
use crate::tui::keymap::{Action, Screen};
use crate::tui::palette::Palette;
use crate::tui::screens::dashboard::Dashboard;
use crate::tui::screens::help::Help;

impl App {
    /// Send `command` to the engine (see [`Self::connect`] first) and say `what` it does.
    pub(super) fn send(&mut self, command: Command, what: &str) {
        match &self.commands {
            Some(sender) if sender.send(command).is_ok() => self.message = Some(what.to_string()),
            Some(_) => self.message = Some("the run is over: start a new run to rerun questions".into()),
            None => self.message = Some("no engine is connected here".into()),
        }
    }

    /// [`Self::send`] a command that needs an LLM, connecting first.
    fn send_to_llm(&mut self, command: Command, what: &str) {
        match self.connect(true) {
            Ok(()) => self.send(command, what),
            Err(why) => self.message = Some(why.to_string()),
        }
    }

    /// Carry out what a screen or an overlay asked for, in order.
    pub(super) fn apply_effects(&mut self, effects: Vec<Effect>) {
        for effect in effects {
            match effect {
                Effect::Open(screen) => {
                    self.stack.push(screen);
                    self.refreshed.push(None);
                }
                Effect::Perform(action) => self.act(Some(action)),
                Effect::Back => self.back(),
                Effect::Home => {
                    self.stack.truncate(1);
                    self.refreshed.truncate(1);
                }
                Effect::Message(text) => self.message = Some(text),
                Effect::Send { command, what } => match self.connect(false) {
                    Ok(()) => self.send(command, &what),
                    Err(why) => self.message = Some(why.to_string()),
                },
                Effect::Edit { whole, then } => self.request_edit(whole, then),
                Effect::Select(selection) => {
                    if let Some(owner) = self.stack.iter_mut().rev().find(|screen| screen.selection().is_some()) {
                        owner.follow(&selection);
                    }
                }
                Effect::MoveComparison { down } => {
                    if let Some(comparison) = self.stack.iter_mut().rev().find_map(|screen| screen.comparison_mut()) {
                        comparison.move_selection(down);
                    }
                }
                Effect::Narrow(questions) => {
                    if let Some(dashboard) = self
                        .stack
                        .iter_mut()
                        .find_map(|screen| (screen.as_mut() as &mut dyn Any).downcast_mut::<Dashboard>())
                    {
                        dashboard.narrow(questions);
                    }
                }
                Effect::KeepDataset(loaded) => self.dataset = Some(loaded),
                Effect::Closed(closed) => self.text_box_closed(closed),
                Effect::Leave(choice) => self.end(super::Ended::Chose(choice)),
            }
        }
    }

    /// What an action no screen took does: the same on every screen it is bound on.
    pub(super) fn act_globally(&mut self, action: Action) {
        match action {
            Action::Quit if self.work_in_progress() > 0 => self.confirm_quit = true,
            Action::Quit | Action::QuitNow => self.quit = true,
            Action::Help => self.overlay = Some(Box::new(Help)),
            Action::Palette => self.overlay = Some(Box::new(Palette::open(&self.ctx()))),
            // The dashboard's esc with no findings group to clear: back, as esc elsewhere.
            Action::Back | Action::ClearQuestions => self.back(),
            Action::Pause => {
                let command = if self.state.paused { Command::Resume } else { Command::Pause };
                let what = if self.state.paused { "resuming" } else { "pausing at the next stage boundary" };
                self.send(command, what);
            }
            Action::Step => {
                let question_id = (self.screen() != Screen::Dashboard).then(|| self.selected().map(|q| q.id.clone()));
                let question_id = question_id.flatten();
                let what = match &question_id {
                    Some(id) => format!("step: one stage of {id}"),
                    None => "step: the next stage anywhere".into(),
                };
                self.send(Command::Step { question_id }, &what);
            }
            Action::Rerun => {
                // The epoch and draft on screen start again; from the dashboard, the first.
                let on_screen =
                    self.selected().and_then(|q| q.current_iteration(&self.state)).map(|(a, _)| (a.epoch, a.draft));
                if let Some(id) = self.current_question().map(|q| q.question.id.clone()) {
                    let (epoch, draft) = on_screen.unwrap_or((1, 1));
                    let place = crate::domain::epoch_draft_prefix(epoch, draft);
                    let what = format!("rerunning {id} {place}from scratch");
                    self.send_to_llm(Command::Rerun { question_id: id, epoch, draft }, &what);
                }
            }
            Action::Fork => {
                let target = self.selected().and_then(|q| {
                    let (attempt, it) = q.current_iteration(&self.state)?;
                    Some(attempt.at(&q.id).iteration(it.number))
                });
                if let Some(from) = target {
                    let what = format!("forking {} from {}", from.question_id, from.label());
                    self.send_to_llm(Command::Fork { from }, &what);
                }
            }
            Action::EditNode => self.request_edit(false, AfterEdit::TryDag),
            Action::EditDag => self.request_edit(true, AfterEdit::TryDag),
            Action::Accept => self.accept(),
            Action::Note => self.open_note(),
            Action::Label => self.open_label(),
            Action::ReviewRun => self.open_review(),
            Action::Agreement => self.open_agreement(),
            Action::Play
            | Action::Forward
            | Action::Backward
            | Action::Start
            | Action::End
            | Action::Faster
            | Action::Slower => self.replay_action(action),
            // The rest belong to screens: on one that does not take them they do nothing.
            _ => {}
        }
    }
}
