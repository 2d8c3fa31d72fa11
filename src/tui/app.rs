//! The TUI's global state: the run (folded by the shared reducer), the
//! connection to its engine, the theme and keys, the overlays, and a stack of
//! screens (`tui::screens`), each a [`Component`] owning its state and its
//! actions. A key goes to the screen on top, which reads the app through a
//! read-only [`Ctx`] and answers with the [`Effect`](super::component::Effect)s the app carries out;
//! what it leaves is the app's (quit, help, back, run control, work by hand,
//! replay). Keys never render; screens draw from what their `refresh` worked
//! out, which the app asks for after every change and tells whether the run
//! changed (a revision counted here). Every field is private: the event loop,
//! the commands and the tests go through methods.

mod actions;
mod hand_work;
mod playback;
mod reviews;

use std::any::Any;
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use super::baselines::BaselinesCache;
use super::comparison::Comparison;
use super::component::{Component, Ctx, Handled, LoadedDataset, Overlay, OverlayKey};
use super::deriver::Deriver;
use super::editing::EditRequest;
use super::keymap::{Action, Keymap, Screen};
use super::replay::Replay;
use super::runs_matrix::RunsMatrix;
use super::screens::compare::CompareScreen;
use super::screens::dashboard::Dashboard;
use super::screens::help::Help;
use super::screens::inspector::InspectorScreen;
use super::screens::matrix::MatrixScreen;
use super::screens::question::QuestionScreen;
use super::selection::Selection;
use super::text_box::TextBox;
use super::theme::Theme;
use crate::run::{Command, EngineEvent, QuestionState, QuestionStatus, RunState};

/// Everything the TUI knows.
pub struct App {
    /// The run as of now.
    state: RunState,
    /// Counts the changes of [`Self::state`]: a screen works out its view again when it moved.
    revision: u64,
    /// The screens shown, the first at the bottom (the dashboard, or a
    /// comparison's table), the one on top drawn and taking keys; never empty
    /// but while the top one handles an action.
    stack: Vec<Box<dyn Component>>,
    /// The revision each screen of the stack last refreshed at (`None`: never).
    refreshed: Vec<Option<u64>>,
    /// The overlay shown over the screen (the help, the text box), taking keys first.
    overlay: Option<Box<dyn Overlay>>,
    /// Replay controls, when replaying.
    replay: Option<Replay>,
    /// Where commands go, in a live run.
    commands: Option<UnboundedSender<Command>>,
    /// One-line status message.
    message: Option<String>,
    /// Animation frame of spinners.
    spinner: usize,
    /// Set when the user quits.
    quit: bool,
    /// Whether quitting waits for the user to confirm (`y`): a live run's
    /// questions are still working.
    confirm_quit: bool,
    /// The command that continues this live run later, shown when quitting.
    resume: Option<String>,
    /// Set when the user quits cancelling the batches in flight (not leaving them for `--resume`).
    cancel_batches: bool,
    /// The moment the loop last woke: playback is scheduled against it.
    now: Instant,
    /// When the latest event was folded and its time in the run: a live
    /// run's clock moves on from there while it waits for the next.
    clock_anchor: Option<(Instant, u64)>,
    /// A fault met while drawing (contained and logged), until a frame draws.
    fault: Option<String>,
    /// Colours.
    theme: Theme,
    /// The keys: the defaults with the user's rebindings.
    keys: Keymap,
    /// How a replay turns into a derived live run when the user acts on it.
    deriver: Option<Deriver>,
    /// Whether an LLM answers commands (a live run's does; a derived run's may not).
    llm: bool,
    /// A derived run's events, for the loop to listen to from now on.
    new_events: Option<UnboundedReceiver<(u64, EngineEvent)>>,
    /// The derived run's directory, where new work is recorded.
    recording: Option<std::path::PathBuf>,
    /// An edit asked for: the loop lets go of the terminal and the editor opens.
    edit: Option<EditRequest>,
    /// `(question, attempt)`: select this attempt (or a later one) when it appears.
    awaiting_attempt: Option<(crate::domain::QuestionId, u32)>,
    /// The run's dataset, once the inspector needed it (or why it is not there).
    dataset: Option<LoadedDataset>,
    /// Whether the inspector may read a dataset outside the run's benchmark
    /// folder (`--allow-outside-datasets`).
    allow_outside_datasets: bool,
    /// The run's baselines as of the latest revision a screen asked at.
    baselines: BaselinesCache,
    /// Whether the run browser opened this app: back at the first screen returns to it.
    from_browser: bool,
    /// How the app ended, once it did through the browser's ways out.
    ended: Option<Ended>,
    /// Who reviews the run shown and what people said of it (none: no run directory).
    people: Option<super::people::People>,
}

/// How an app ended besides quitting: what the run browser (or its host) does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// Back at the first screen of an app the browser opened: the browser shows again.
    Back,
    /// The browser handed over what the user picked.
    Chose(super::choice::Choice),
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
            revision: 0,
            stack: vec![Box::<Dashboard>::default()],
            refreshed: vec![None],
            overlay: None,
            replay,
            llm: commands.is_some(),
            commands,
            message: None,
            spinner: 0,
            quit: false,
            confirm_quit: false,
            resume: None,
            cancel_batches: false,
            now: Instant::now(),
            clock_anchor: None,
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
            baselines: BaselinesCache::default(),
            from_browser: false,
            ended: None,
            people: None,
        };
        app.refresh();
        app
    }

    /// This app with the user's `keys` instead of the defaults.
    pub fn with_keys(mut self, keys: Keymap) -> Self {
        self.keys = keys;
        self
    }

    /// This app turning into a derived run through `deriver` when the user acts on its replay.
    pub fn with_deriver(mut self, deriver: Deriver) -> Self {
        self.deriver = Some(deriver);
        self
    }

    /// This app with `resume`, the command that continues its live run later.
    pub fn with_resume(mut self, resume: String) -> Self {
        self.resume = Some(resume);
        self
    }

    /// This app letting the inspector read datasets outside the run's
    /// benchmark folder when `allow` (`--allow-outside-datasets`).
    pub fn allowing_outside_datasets(mut self, allow: bool) -> Self {
        self.allow_outside_datasets = allow;
        self
    }

    /// This app recording new work in `dir` (a derived run's directory,
    /// where the inspector also writes what it exports).
    pub fn with_recording(mut self, dir: std::path::PathBuf) -> Self {
        self.recording = Some(dir);
        self
    }

    /// This app reviewing its run as `people` say (`V`, `L`, the agreement screen), their reviews read now.
    pub fn with_people(mut self, mut people: super::people::People) -> Self {
        people.read(&self.state);
        self.people = Some(people);
        self
    }

    /// This app opened from the run browser: back (esc) at its first screen returns there.
    pub fn from_browser(mut self) -> Self {
        self.from_browser = true;
        self
    }

    /// How the app ended, if not by quitting; the app goes on running after
    /// (the browser shows again).
    pub fn take_ended(&mut self) -> Option<Ended> {
        let ended = self.ended.take();
        self.quit = false;
        ended
    }

    /// An app whose first screen is the run browser over `dirs` (its scan started).
    pub fn browsing(dirs: Vec<std::path::PathBuf>, theme: Theme) -> Self {
        Self::over(Box::new(super::screens::runs::RunsScreen::new(dirs)), theme)
    }

    /// An app whose first screen is the run browser over `rows` already read
    /// (no scan): the README's picture and the tests.
    pub fn browsing_rows(dirs: Vec<std::path::PathBuf>, rows: Vec<crate::report::RunRow>, theme: Theme) -> Self {
        Self::over(Box::new(super::screens::runs::RunsScreen::with_rows(dirs, rows)), theme)
    }

    /// The run browser, when it is the first screen.
    pub fn browser(&self) -> Option<&super::screens::runs::RunsScreen> {
        self.find()
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
    /// The app on the review screen over `queue`.
    pub fn reviewing(queue: super::ReviewQueue, theme: Theme) -> Self {
        Self::over(Box::new(super::screens::review::ReviewScreen::new(queue)), theme)
    }

    /// An app showing the pairwise review screen over `queue`.
    pub fn pair_reviewing(queue: super::PairQueue, theme: Theme) -> Self {
        Self::over(Box::new(super::screens::pair_review::PairReviewScreen { queue }), theme)
    }

    fn over(first: Box<dyn Component>, theme: Theme) -> Self {
        let mut app = Self::new(RunState::default(), theme, None, None);
        app.stack = vec![first];
        app.refreshed = vec![None];
        app.refresh();
        app
    }

    /// The run as of now.
    pub fn state(&self) -> &RunState {
        &self.state
    }

    /// The run, to change: the screens work out their views again.
    fn state_mut(&mut self) -> &mut RunState {
        self.revision += 1;
        &mut self.state
    }

    /// The run as last shown, the app done with.
    pub fn into_state(self) -> RunState {
        self.state
    }

    /// The replay's controls, when replaying.
    pub fn replay(&self) -> Option<&Replay> {
        self.replay.as_ref()
    }

    /// The replay, the app done with.
    pub fn into_replay(self) -> Option<Replay> {
        self.replay
    }

    /// The status line's message.
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// Say `text` on the status line (none: clear it).
    pub fn say(&mut self, text: Option<String>) {
        self.message = text;
    }

    /// Whether the user quit.
    pub fn quitting(&self) -> bool {
        self.quit
    }

    /// Whether the user quit cancelling the batches in flight (else they are left for `--resume`).
    pub fn cancelling_batches(&self) -> bool {
        self.cancel_batches
    }

    /// Whether the app waits for the user to confirm quitting.
    pub fn confirming_quit(&self) -> bool {
        self.confirm_quit
    }

    /// The derived run's directory, once a replay turned live.
    pub fn recording(&self) -> Option<&std::path::Path> {
        self.recording.as_deref()
    }

    /// What screens and widgets read, `run_changed` told, over `stack`.
    fn ctx_over<'a>(&'a self, stack: &'a [Box<dyn Component>], run_changed: bool) -> Ctx<'a> {
        Ctx {
            state: &self.state,
            theme: &self.theme,
            keys: &self.keys,
            screen: self.screen(),
            replay: self.replay.as_ref(),
            message: self.message.as_deref(),
            spinner: self.spinner,
            now: self.now,
            recording: self.recording.as_deref(),
            resume: self.resume.as_deref(),
            fault: self.fault.as_deref(),
            confirm_quit: self.confirm_quit,
            work_in_progress: self.work_in_progress(),
            dataset: self.dataset.as_ref(),
            allow_outside_datasets: self.allow_outside_datasets,
            awaiting_attempt: self.awaiting_attempt.as_ref(),
            run_changed,
            stack,
            baselines_cache: &self.baselines,
            revision: self.revision,
            people: self.people.as_ref(),
        }
    }

    /// What the screen on top reads while it is off the stack: the screens below it.
    fn ctx_under(&self, top: Screen) -> Ctx<'_> {
        Ctx { screen: top, ..self.ctx_over(&self.stack, false) }
    }

    /// What drawing reads: the app and every screen.
    pub fn ctx(&self) -> Ctx<'_> {
        self.ctx_over(&self.stack, false)
    }

    /// The screen on top (drawn, taking keys).
    pub fn screen(&self) -> Screen {
        self.stack.last().map_or(Screen::Dashboard, |top| top.screen())
    }

    /// The screen of type `T` nearest the top of the stack.
    fn find<T: Component>(&self) -> Option<&T> {
        self.stack.iter().rev().find_map(|screen| (screen.as_ref() as &dyn Any).downcast_ref::<T>())
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
        self.stack.iter().rev().find_map(|screen| screen.comparison())
    }

    /// The open question's selection (the screen owning one nearest the top).
    fn selected(&self) -> Option<&Selection> {
        self.stack.iter().rev().find_map(|screen| screen.selection())
    }

    /// Draw the screen on top into `area`.
    pub(super) fn draw_screen(&self, frame: &mut ratatui::Frame, area: ratatui::layout::Rect, ctx: &Ctx) {
        if let Some(top) = self.stack.last() {
            top.draw(frame, area, ctx);
        }
    }

    /// Draw the overlay, if one is shown, over `area`.
    pub(super) fn draw_overlay(&self, frame: &mut ratatui::Frame, area: ratatui::layout::Rect, ctx: &Ctx) {
        if let Some(overlay) = &self.overlay {
            overlay.draw(frame, area, ctx);
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
        let Some(dashboard) =
            self.stack.last_mut().and_then(|top| (top.as_mut() as &mut dyn Any).downcast_mut::<Dashboard>())
        else {
            return;
        };
        if let Some(row) = dashboard.row_at(area, y) {
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
        match self.selected() {
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
        self.clock_anchor = Some((self.now, t_ms));
        self.state_mut().apply_owned(t_ms, event);
    }

    /// Bring every screen's derived state up to date: each works out its
    /// view of the run again when the run changed since it last did, and
    /// clamps its selections.
    pub fn refresh(&mut self) {
        let mut stack = std::mem::take(&mut self.stack);
        let mut refreshed = std::mem::take(&mut self.refreshed);
        refreshed.resize(stack.len(), None);
        for (screen, seen) in stack.iter_mut().zip(refreshed.iter_mut()) {
            let run_changed = *seen != Some(self.revision);
            screen.refresh(&self.ctx_over(&[], run_changed));
            *seen = Some(self.revision);
        }
        self.stack = stack;
        self.refreshed = refreshed;
        // The attempt awaited has appeared: the question screen selected it.
        if let Some((id, number)) = &self.awaiting_attempt
            && self.state.question(id).is_some_and(|q| q.last_attempt_number() >= *number)
        {
            self.awaiting_attempt = None;
        }
    }

    /// The answer to "quit now?": a key of confirm-quit (or Ctrl-C, or a key
    /// of quit-now) quits, leaving batches in flight for `--resume`; with
    /// batches in flight, a key of cancel-batches quits cancelling them;
    /// anything else stays.
    fn answer_quit(&mut self, key: KeyEvent) {
        self.confirm_quit = false;
        let ctrl_c = key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c');
        let quit_now = self.keys.action_for(key, self.screen(), self.replay.is_some()) == Some(Action::QuitNow);
        match self.keys.quit_prompt_action(key) {
            Some(Action::CancelBatches) if self.state.batches_in_flight() > 0 => {
                self.cancel_batches = true;
                self.quit = true;
            }
            Some(Action::ConfirmQuit) => self.quit = true,
            _ if ctrl_c || quit_now => self.quit = true,
            _ => self.message = Some("still watching: the run goes on".into()),
        }
    }

    /// Handle one key press.
    pub fn handle_key(&mut self, key: KeyEvent) {
        if self.confirm_quit {
            return self.answer_quit(key);
        }
        if let Some(mut overlay) = self.overlay.take() {
            match overlay.key(key, &self.ctx()) {
                OverlayKey::Kept => self.overlay = Some(overlay),
                OverlayKey::Closed(effects) => self.apply_effects(effects),
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
            let handled = top.type_key(key.code, &self.ctx_under(top.screen()));
            self.stack.push(top);
            if let Handled::Done(effects) = handled {
                self.apply_effects(effects);
            }
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
        let handled = top.handle(action, &self.ctx_under(top.screen()));
        self.stack.push(top);
        match handled {
            Handled::Done(effects) => self.apply_effects(effects),
            Handled::Ignored => self.act_globally(action),
        }
        self.refresh();
    }

    /// Back to the screen below, if there is one; at the first screen of an
    /// app the browser opened, back to the browser.
    fn back(&mut self) {
        if self.stack.len() > 1 {
            let left = self.stack.pop().map(|screen| screen.screen());
            self.refreshed.pop();
            if left == Some(Screen::Review) {
                self.read_reviews();
            }
        } else if self.from_browser {
            self.end(Ended::Back);
        }
    }

    /// End the app's loop `how`.
    fn end(&mut self, how: Ended) {
        self.ended = Some(how);
        self.quit = true;
    }
}
