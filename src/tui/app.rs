//! The TUI's global state: the run (folded by the shared reducer), the
//! connection to its engine, the theme and keys, the overlays, and a stack of
//! screens (`tui::screens`), each owning its state and its actions. A key
//! goes to the screen on top; what it leaves is the app's (quit, help, back,
//! run control, work by hand, replay). Keys never render; screens draw and
//! change nothing but what a frame measures (a pane's length, in `tui::scroll`).

use std::any::Any;
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use super::comparison::Comparison;
use super::editing::{AfterEdit, EditRequest};
use super::hand_work::Deriver;
use super::keymap::{Action, Keymap};
use super::replay::Replay;
use super::runs_matrix::RunsMatrix;
use super::screens::Screen;
use super::screens::compare::CompareScreen;
use super::screens::compare_detail::CompareDetailScreen;
use super::screens::dashboard::Dashboard;
use super::screens::help::Help;
use super::screens::inspector::{InspectorScreen, LoadedDataset};
use super::screens::matrix::MatrixScreen;
use super::screens::question::QuestionScreen;
use super::screens::{Component, Handled, Overlay, OverlayKey};
use super::text_box::TextBox;
use super::theme::Theme;
use crate::run::{Command, EngineEvent, QuestionState, QuestionStatus, RunState};

/// Everything the TUI knows.
pub struct App {
    /// The run as of now.
    pub state: RunState,
    /// The screens shown, the first at the bottom (the dashboard, or a
    /// comparison's table), the one on top drawn and taking keys; never empty
    /// but while the top one handles an action.
    stack: Vec<Box<dyn Component>>,
    /// The overlay shown over the screen (the help, the text box), taking keys first.
    pub(super) overlay: Option<Box<dyn Overlay>>,
    /// Replay controls, when replaying.
    pub replay: Option<Replay>,
    /// Where commands go, in a live run.
    pub commands: Option<UnboundedSender<Command>>,
    /// One-line status message.
    pub message: Option<String>,
    /// Animation frame of spinners.
    pub spinner: usize,
    /// Set when the user quits.
    pub quit: bool,
    /// Whether quitting waits for the user to confirm (`y`): a live run's
    /// questions are still working.
    pub confirm_quit: bool,
    /// The command that continues this live run later, shown when quitting.
    pub resume: Option<String>,
    /// The moment the loop last woke: playback is scheduled against it.
    pub now: Instant,
    /// A fault met while drawing (contained and logged), until a frame draws.
    pub fault: Option<String>,
    /// Colours.
    pub theme: Theme,
    /// The keys: the defaults with the user's rebindings.
    pub keys: Keymap,
    /// How a replay turns into a derived live run when the user acts on it.
    pub deriver: Option<Deriver>,
    /// Whether an LLM answers commands (a live run's does; a derived run's may not).
    pub llm: bool,
    /// A derived run's events, for the loop to listen to from now on.
    pub new_events: Option<UnboundedReceiver<(u64, EngineEvent)>>,
    /// The derived run's directory, where new work is recorded.
    pub recording: Option<std::path::PathBuf>,
    /// An edit asked for: the loop lets go of the terminal and the editor opens.
    pub edit: Option<EditRequest>,
    /// `(question, attempt)`: select this attempt (or a later one) when it appears.
    pub awaiting_attempt: Option<(crate::domain::QuestionId, u32)>,
    /// The run's dataset, once the inspector needed it (or why it is not there).
    pub dataset: Option<LoadedDataset>,
    /// Whether the inspector may read a dataset outside the run's benchmark
    /// folder (`--allow-outside-datasets`).
    pub allow_outside_datasets: bool,
}

impl App {
    /// An app showing `state`.
    pub fn new(
        state: RunState,
        theme: Theme,
        replay: Option<Replay>,
        commands: Option<UnboundedSender<Command>>,
    ) -> Self {
        let mut app = Self {
            state,
            stack: vec![Box::<Dashboard>::default()],
            overlay: None,
            replay,
            llm: commands.is_some(),
            commands,
            message: None,
            spinner: 0,
            quit: false,
            confirm_quit: false,
            resume: None,
            now: Instant::now(),
            fault: None,
            theme,
            keys: Keymap::default(),
            deriver: None,
            new_events: None,
            recording: None,
            edit: None,
            awaiting_attempt: None,
            dataset: None,
            allow_outside_datasets: false,
        };
        app.refresh();
        app
    }

    /// This app with the user's `keys` instead of the defaults.
    pub fn with_keys(mut self, keys: Keymap) -> Self {
        self.keys = keys;
        self
    }

    /// An app showing `comparison` (no run).
    pub fn comparing(comparison: Comparison, theme: Theme) -> Self {
        Self::over(Box::new(CompareScreen { comparison }), theme)
    }

    /// An app showing `matrix` (no run).
    pub fn comparing_runs(matrix: RunsMatrix, theme: Theme) -> Self {
        Self::over(Box::new(MatrixScreen { runs: matrix }), theme)
    }

    /// An app with no run whose first screen is `first`.
    fn over(first: Box<dyn Component>, theme: Theme) -> Self {
        let mut app = Self::new(RunState::default(), theme, None, None);
        app.stack = vec![first];
        app
    }

    /// The screen on top (drawn, taking keys).
    pub fn screen(&self) -> Screen {
        self.stack.last().map_or(Screen::Dashboard, |top| top.screen())
    }

    /// The screen of type `T` nearest the top of the stack.
    pub fn find<T: Component>(&self) -> Option<&T> {
        self.stack.iter().rev().find_map(|screen| (screen.as_ref() as &dyn Any).downcast_ref::<T>())
    }

    /// The screen of type `T` nearest the top of the stack, to change.
    pub fn find_mut<T: Component>(&mut self) -> Option<&mut T> {
        self.stack.iter_mut().rev().find_map(|screen| (screen.as_mut() as &mut dyn Any).downcast_mut::<T>())
    }

    /// The dashboard, in an app of a run.
    pub fn dashboard(&self) -> Option<&Dashboard> {
        self.find()
    }

    /// The question screen, while a question is open.
    pub fn question(&self) -> Option<&QuestionScreen> {
        self.find()
    }

    /// The node inspector, while open.
    pub fn inspector(&self) -> Option<&InspectorScreen> {
        self.find()
    }

    /// The matrix of several runs, in an app of a matrix.
    pub fn matrix(&self) -> Option<&RunsMatrix> {
        self.find::<MatrixScreen>().map(|screen| &screen.runs)
    }

    /// The two runs compared on screen: the detail's, else the comparison table's.
    pub fn comparison(&self) -> Option<&Comparison> {
        match self.find::<CompareDetailScreen>() {
            Some(detail) => detail.comparison(self),
            None => self.find::<CompareScreen>().map(|screen| &screen.comparison),
        }
    }

    /// Draw the screen on top into `area`.
    pub(super) fn draw_screen(&self, frame: &mut ratatui::Frame, area: ratatui::layout::Rect) {
        if let Some(top) = self.stack.last() {
            top.draw(frame, area, self);
        }
    }

    /// Draw the overlay, if one is shown, over `area`.
    pub(super) fn draw_overlay(&self, frame: &mut ratatui::Frame, area: ratatui::layout::Rect) {
        if let Some(overlay) = &self.overlay {
            overlay.draw(frame, area, self);
        }
    }

    /// Whether the help is shown.
    pub fn help_open(&self) -> bool {
        self.overlay.as_ref().is_some_and(|overlay| (overlay.as_ref() as &dyn Any).is::<Help>())
    }

    /// Whether the text box is open (a note, a label, or the in-app editor).
    pub fn text_box_open(&self) -> bool {
        self.overlay.as_ref().is_some_and(|overlay| (overlay.as_ref() as &dyn Any).is::<TextBox>())
    }

    /// A click at terminal row `y` on the dashboard drawn in `area`: select the row there.
    pub(super) fn click_row(&mut self, area: ratatui::layout::Rect, y: u16) {
        let state = &self.state;
        let Some(dashboard) =
            self.stack.last_mut().and_then(|top| (top.as_mut() as &mut dyn Any).downcast_mut::<Dashboard>())
        else {
            return;
        };
        if let Some(row) = dashboard.row_at(state, area, y) {
            dashboard.row = row;
            self.refresh();
        }
    }

    /// Question indices in the dashboard's order (none without a dashboard).
    pub fn visible(&self) -> Vec<usize> {
        self.dashboard().map(|d| d.visible(&self.state)).unwrap_or_default()
    }

    /// The question open, else the one under the dashboard's cursor.
    pub fn current_question(&self) -> Option<&QuestionState> {
        match self.question() {
            Some(open) => open.question(&self.state),
            None => self.dashboard()?.selected(&self.state),
        }
    }

    /// Questions queued or under way in a live run (a replay's and a
    /// comparison's are only records).
    pub fn work_in_progress(&self) -> usize {
        if self.commands.is_none() {
            return 0;
        }
        self.state.count(|s| s.is_active() || s == QuestionStatus::Queued)
    }

    /// Whether something on screen moves with time (spinners, playback).
    pub fn animating(&self) -> bool {
        self.replay.as_ref().is_some_and(Replay::playing) || self.state.count(QuestionStatus::is_active) > 0
    }

    /// Feed one engine event; the app owns it from now on, so its prompts,
    /// responses and DAGs move into the state without a copy.
    pub fn apply(&mut self, t_ms: u64, event: EngineEvent) {
        self.state.apply_owned(t_ms, event);
    }

    /// Bring every screen's derived state (clamped selections, highlighted code) up to date.
    pub fn refresh(&mut self) {
        let mut stack = std::mem::take(&mut self.stack);
        for screen in &mut stack {
            screen.refresh(self);
        }
        self.stack = stack;
    }

    /// Send `command` to the engine (see [`Self::connect`] first) and say `what` it does.
    pub(crate) fn send(&mut self, command: Command, what: &str) {
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

    fn replay_action(&mut self, action: Action) {
        let Some(replay) = &mut self.replay else { return };
        let now = self.now;
        match action {
            Action::Play => replay.toggle(&mut self.state, now),
            Action::Forward => replay.jump(&mut self.state, now),
            Action::Backward => {
                replay.pause();
                let target = replay.position.saturating_sub(1);
                self.state = replay.seek(target, now);
            }
            Action::Start => self.state = replay.seek(0, now),
            Action::End => self.state = replay.seek(usize::MAX, now),
            Action::Faster => replay.scale_speed(2.0, now),
            Action::Slower => replay.scale_speed(0.5, now),
            _ => {}
        }
    }

    /// The answer to "quit now?": `y` (or Ctrl-C, or a key of quit-now) quits, anything else stays.
    fn answer_quit(&mut self, key: KeyEvent) {
        self.confirm_quit = false;
        let ctrl_c = key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c');
        let quit_now = self.keys.action_for(key, self.screen(), self.replay.is_some()) == Some(Action::QuitNow);
        if ctrl_c || quit_now || matches!(key.code, KeyCode::Char('y' | 'Y')) {
            self.quit = true;
        } else {
            self.message = Some("still watching: the run goes on".into());
        }
    }

    /// Handle one key press.
    pub fn handle_key(&mut self, key: KeyEvent) {
        if self.confirm_quit {
            return self.answer_quit(key);
        }
        if let Some(mut overlay) = self.overlay.take() {
            match overlay.key(key, self) {
                OverlayKey::Kept => self.overlay = Some(overlay),
                OverlayKey::Closed => {}
                OverlayKey::Passed => {
                    self.overlay = Some(overlay);
                    let action = self.keys.action_for(key, self.screen(), self.replay.is_some());
                    return self.act(action);
                }
            }
            return self.refresh();
        }
        // Ctrl-C quits from the filter and the search too (it is not the letter c).
        let ctrl_c = key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c');
        if self.stack.last().is_some_and(|top| top.typing())
            && !ctrl_c
            && let Some(mut top) = self.stack.pop()
        {
            top.type_key(key.code, self);
            self.stack.push(top);
            return self.refresh();
        }
        let action = self.keys.action_for(key, self.screen(), self.replay.is_some());
        self.act(action);
    }

    /// The mouse wheel: down or up in what takes keys now, whatever keys those are bound to.
    pub fn wheel(&mut self, down: bool) {
        let typing = self.confirm_quit || self.overlay.is_some() || self.stack.last().is_some_and(|top| top.typing());
        match (typing, down) {
            (true, true) => self.handle_key(KeyCode::Down.into()),
            (true, false) => self.handle_key(KeyCode::Up.into()),
            (false, true) => self.act(Some(Action::Down)),
            (false, false) => self.act(Some(Action::Up)),
        }
    }

    /// Do what `action` (of a key, or none) asks.
    fn act(&mut self, action: Option<Action>) {
        let Some(action) = action else { return };
        self.message = None;
        // A screen is always shown; with none, no screen could take the action.
        let Some(mut top) = self.stack.pop() else { return };
        let handled = top.handle(action, self);
        self.stack.push(top);
        match handled {
            Handled::Done => {}
            Handled::Open(screen) => self.stack.push(screen),
            Handled::Back => self.back(),
            Handled::Home => self.stack.truncate(1),
            Handled::Ignored => self.act_globally(action),
        }
        self.refresh();
    }

    /// Back to the screen below, if there is one.
    fn back(&mut self) {
        if self.stack.len() > 1 {
            self.stack.pop();
        }
    }

    /// What an action no screen took does: the same on every screen it is bound on.
    fn act_globally(&mut self, action: Action) {
        match action {
            Action::Quit if self.work_in_progress() > 0 => self.confirm_quit = true,
            Action::Quit | Action::QuitNow => self.quit = true,
            Action::Help => self.overlay = Some(Box::new(Help)),
            Action::Back => self.back(),
            Action::Pause => {
                let command = if self.state.paused { Command::Resume } else { Command::Pause };
                let what = if self.state.paused { "resuming" } else { "pausing at the next stage boundary" };
                self.send(command, what);
            }
            Action::Step => {
                let question_id = (self.screen() != Screen::Dashboard).then(|| self.question().map(|q| q.id.clone()));
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
                    self.question().and_then(|q| q.current_iteration(&self.state)).map(|(a, _)| (a.epoch, a.draft));
                if let Some(id) = self.current_question().map(|q| q.question.id.clone()) {
                    let (epoch, draft) = on_screen.unwrap_or((1, 1));
                    let place = crate::domain::epoch_draft_prefix(epoch, draft);
                    let what = format!("rerunning {id} {place}from scratch");
                    self.send_to_llm(Command::Rerun { question_id: id, epoch, draft }, &what);
                }
            }
            Action::Fork => {
                let target = self.question().and_then(|q| {
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
