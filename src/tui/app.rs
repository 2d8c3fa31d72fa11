//! The TUI's state: the run (folded by the shared reducer) or a comparison of
//! two runs, what the user is looking at (per screen, in `tui::view`), and
//! what keys do. Keys never render; screens draw from this state and change
//! nothing in it but what a frame measures (a pane's length, in `tui::scroll`).

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use super::comparison::Comparison;
use super::editing::{AfterEdit, EditRequest};
use super::graph_moves::{GraphMove, moved};
use super::hand_work::Deriver;
use super::highlight::HighlightCache;
use super::inspector::{Inspector, LoadedDataset};
use super::keymap::{Action, Keymap};
use super::matrix::RunsMatrix;
use super::replay::Replay;
use super::schema_text::SchemaTarget;
use super::scroll::Scroll;
use super::text_box::TextBox;
use super::theme::Theme;
use super::view::{DashboardView, Pane, QuestionView, Screen, Scrolls, Sort, Tab};
use crate::run::{Attempt, AttemptAt, Command, EngineEvent, Iteration, QuestionState, QuestionStatus, RunState};

/// Logical lines one scroll key moves the detail.
const SCROLL_STEP: usize = 5;

/// Everything the TUI knows.
pub struct App {
    /// The run as of now.
    pub state: RunState,
    /// Current screen.
    pub screen: Screen,
    /// Help overlay shown.
    pub help: bool,
    /// The dashboard's row, filters and order.
    pub dashboard: DashboardView,
    /// The question open in the question and diff screens, and what of it is selected.
    pub question: QuestionView,
    /// Each scrolled screen's own scroll.
    pub scrolls: Scrolls,
    /// The findings group selected on the taxonomy screen.
    pub findings_group: usize,
    /// The two runs, on the compare screens.
    pub compare: Option<Comparison>,
    /// Several runs, on the matrix screen (a pair of them opens in the compare detail).
    pub matrix: Option<RunsMatrix>,
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
    /// Highlighted code of the nodes on screen.
    pub highlight: HighlightCache,
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
    pub awaiting_attempt: Option<(String, u32)>,
    /// The text box open over the screen (a note, or the in-app editor): it takes every key.
    pub text_box: Option<TextBox>,
    /// Where the schema screen opens: what the selected node's findings name.
    pub schema_target: Option<SchemaTarget>,
    /// The node inspector's state, once opened.
    pub inspector: Option<Inspector>,
    /// The run's dataset, once the inspector needed it (or why it is not there).
    pub dataset: Option<LoadedDataset>,
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
            screen: Screen::Dashboard,
            help: false,
            dashboard: DashboardView::default(),
            question: QuestionView::default(),
            scrolls: Scrolls::default(),
            findings_group: 0,
            compare: None,
            matrix: None,
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
            highlight: HighlightCache::default(),
            theme,
            keys: Keymap::default(),
            deriver: None,
            new_events: None,
            recording: None,
            edit: None,
            awaiting_attempt: None,
            text_box: None,
            schema_target: None,
            inspector: None,
            dataset: None,
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
        let mut app = Self::new(RunState::default(), theme, None, None);
        app.compare = Some(comparison);
        app.screen = Screen::Compare;
        app
    }

    /// Question indices in table order.
    pub fn visible(&self) -> Vec<usize> {
        let needle = self.dashboard.filter.to_lowercase();
        let mut rows: Vec<usize> = (0..self.state.questions.len())
            .filter(|&i| {
                let q = &self.state.questions[i];
                self.dashboard.status_filter.keeps(q.status)
                    && self.dashboard.questions.as_ref().is_none_or(|set| set.keeps(&q.question.id))
                    && (needle.is_empty()
                        || q.question.question.to_lowercase().contains(&needle)
                        || q.question.id.to_lowercase().contains(&needle)
                        || q.question.difficulty_level.as_str() == needle
                        || q.status.label() == needle)
            })
            .collect();
        let findings = |i: usize| self.state.questions[i].findings_per_iteration().iter().sum::<u64>();
        match self.dashboard.sort {
            Sort::Rank => {}
            Sort::Status => rows.sort_by_key(|&i| (self.state.questions[i].status.label(), i)),
            Sort::Findings => rows.sort_by_key(|&i| (std::cmp::Reverse(findings(i)), i)),
        }
        rows
    }

    /// The question under the cursor (dashboard) or open (detail screens).
    pub fn current_question(&self) -> Option<&QuestionState> {
        match &self.question.id {
            Some(id) if self.screen != Screen::Dashboard => self.state.question(id),
            _ => self.visible().get(self.dashboard.row).map(|&i| &self.state.questions[i]),
        }
    }

    /// Every iteration of the open question with its attempt, oldest first.
    pub fn iterations(&self) -> Vec<(&Attempt, &Iteration)> {
        self.current_question()
            .map(|q| q.attempts.iter().flat_map(|a| a.iterations.iter().map(move |i| (a, i))).collect())
            .unwrap_or_default()
    }

    /// The selected iteration.
    pub fn current_iteration(&self) -> Option<(&Attempt, &Iteration)> {
        let all = self.iterations();
        let index = self.question.iteration.min(all.len().saturating_sub(1));
        all.get(index).copied()
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
        self.replay.as_ref().is_some_and(Replay::playing) || self.state.questions.iter().any(|q| q.status.is_active())
    }

    /// Feed one engine event.
    pub fn apply(&mut self, t_ms: u64, event: &EngineEvent) {
        self.state.apply(t_ms, event);
    }

    /// Bring derived view state (clamped selections, highlighted code) up to date.
    pub fn refresh(&mut self) {
        let rows = self.visible().len();
        self.dashboard.row = self.dashboard.row.min(rows.saturating_sub(1));
        self.select_awaited_attempt();
        let iterations = self.iterations().len();
        self.question.iteration = self.question.iteration.min(iterations.saturating_sub(1));
        let code: Vec<String> = self
            .current_iteration()
            .and_then(|(_, it)| it.dag.as_ref())
            .map(|dag| dag.nodes.iter().map(|n| n.code.clone()).collect())
            .unwrap_or_default();
        self.question.node = self.question.node.min(code.len().saturating_sub(1));
        for source in &code {
            self.highlight.prepare(source, self.theme.syntax_dark);
        }
    }

    /// Show the detail from where the selected iteration starts (its part of
    /// the conversation; the top of other tabs), once the next frame has it.
    fn scroll_to_iteration(&mut self) {
        self.refresh();
        self.scrolls.question.jump_to_anchor();
    }

    /// The scroll of the screen shown, if it scrolls.
    fn scroll_mut(&mut self) -> Option<&mut Scroll> {
        match self.screen {
            Screen::Question if self.question.focus == Pane::Code => Some(&mut self.scrolls.code),
            Screen::Question => Some(&mut self.scrolls.question),
            Screen::Diff => Some(&mut self.scrolls.diff),
            Screen::CompareDetail => Some(&mut self.scrolls.compare_detail),
            Screen::Schema => Some(&mut self.scrolls.schema),
            Screen::Inspector => None,
            Screen::Scorecard => Some(&mut self.scrolls.scorecard),
            Screen::Taxonomy => Some(&mut self.scrolls.taxonomy),
            Screen::Dashboard | Screen::Compare | Screen::Matrix => None,
        }
    }

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

    fn open_question(&mut self) {
        if let Some(q) = self.current_question() {
            let id = q.question.id.clone();
            let last = q.attempts.iter().map(|a| a.iterations.len()).sum::<usize>().saturating_sub(1);
            self.question.id = Some(id);
            self.question.iteration = last;
            self.question.node = 0;
            self.screen = Screen::Question;
            self.scroll_to_iteration();
        }
    }

    fn move_selection(&mut self, down: bool) {
        if let (Screen::Matrix, Some(matrix)) = (self.screen, &mut self.matrix) {
            return matrix.move_selection(down);
        }
        let (value, limit) = match (self.screen, &mut self.compare) {
            (Screen::Compare | Screen::CompareDetail, Some(comparison)) => {
                comparison.move_selection(down);
                self.scrolls.compare_detail.top();
                return;
            }
            (Screen::Dashboard, _) => (&mut self.dashboard.row, self.state.questions.len()),
            _ => (&mut self.question.node, usize::MAX),
        };
        *value = if down { (*value + 1).min(limit.saturating_sub(1)) } else { value.saturating_sub(1) };
    }

    /// Up or down in the question screen's focused pane: along the graph, or
    /// a line of the code or of the detail.
    fn in_focused_pane(&mut self, action: Action) {
        let down = action == Action::Down;
        match self.question.focus {
            Pane::Graph => self.move_along_graph(if down { GraphMove::Down } else { GraphMove::Up }),
            Pane::Code if down => self.scrolls.code.down(1),
            Pane::Code => self.scrolls.code.up(1),
            Pane::Detail if down => self.scrolls.question.down(1),
            Pane::Detail => self.scrolls.question.up(1),
        }
    }

    /// Select the node `how` leads to in the selected iteration's DAG.
    fn move_along_graph(&mut self, how: GraphMove) {
        let Some(dag) = self.current_iteration().and_then(|(_, it)| it.dag.as_ref()) else { return };
        let node = moved(&crate::render::layout(dag), self.question.node, how);
        if node != self.question.node {
            self.question.node = node;
            self.scrolls.code.top();
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
        let quit_now = self.keys.action_for(key, self.screen, self.replay.is_some()) == Some(Action::QuitNow);
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
        // Ctrl-C quits from the filter and the text box too (it is not the letter c).
        let ctrl_c = key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c');
        if let Some(text_box) = self.text_box.as_mut().filter(|_| !ctrl_c) {
            if let Some(closed) = text_box.key(key) {
                self.text_box = None;
                self.text_box_closed(closed);
            }
            return self.refresh();
        }
        if self.dashboard.editing_filter && !ctrl_c {
            match key.code {
                KeyCode::Enter | KeyCode::Esc => self.dashboard.editing_filter = false,
                KeyCode::Backspace => {
                    self.dashboard.filter.pop();
                }
                KeyCode::Char(c) => self.dashboard.filter.push(c),
                _ => {}
            }
            self.dashboard.row = 0;
            self.refresh();
            return;
        }
        if self.screen == Screen::Inspector && self.inspector.as_ref().is_some_and(|i| i.typing.is_some()) && !ctrl_c {
            self.inspector_typing(key.code);
            return self.refresh();
        }
        let action = self.keys.action_for(key, self.screen, self.replay.is_some());
        self.act(action);
    }

    /// The mouse wheel: down or up in what takes keys now, whatever keys those are bound to.
    pub fn wheel(&mut self, down: bool) {
        let typing = self.confirm_quit
            || self.text_box.is_some()
            || self.dashboard.editing_filter
            || (self.screen == Screen::Inspector && self.inspector.as_ref().is_some_and(|i| i.typing.is_some()));
        match (typing, down) {
            (true, true) => self.handle_key(KeyCode::Down.into()),
            (true, false) => self.handle_key(KeyCode::Up.into()),
            (false, true) => self.act(Some(Action::Down)),
            (false, false) => self.act(Some(Action::Up)),
        }
    }

    /// Do what `action` (of a key, or none) asks; any key closes the help first.
    fn act(&mut self, action: Option<Action>) {
        if self.help && !matches!(action, Some(Action::Quit | Action::QuitNow)) {
            self.help = false;
            return;
        }
        let Some(action) = action else { return };
        self.message = None;
        if self.screen == Screen::Inspector && self.inspector_action(action) {
            return self.refresh();
        }
        match action {
            Action::Quit if self.work_in_progress() > 0 => self.confirm_quit = true,
            Action::Quit | Action::QuitNow => self.quit = true,
            Action::Help => self.help = !self.help,
            Action::Up | Action::Down if self.screen == Screen::Question => self.in_focused_pane(action),
            Action::Up if self.screen == Screen::Schema => self.scrolls.schema.up(1),
            Action::Down if self.screen == Screen::Schema => self.scrolls.schema.down(1),
            Action::Up if self.screen == Screen::Scorecard => self.scrolls.scorecard.up(1),
            Action::Down if self.screen == Screen::Scorecard => self.scrolls.scorecard.down(1),
            Action::Up | Action::Down if self.screen == Screen::Taxonomy => self.move_findings_group(action),
            Action::Up | Action::Down => self.move_selection(action == Action::Down),
            Action::PaneLeft | Action::PaneRight if self.screen == Screen::Matrix => {
                if let Some(matrix) = &mut self.matrix {
                    matrix.move_column(action == Action::PaneRight);
                }
            }
            // Left and right mean something in the graph and the matrix only; elsewhere they do nothing.
            Action::PaneLeft if self.question.focus == Pane::Graph => self.move_along_graph(GraphMove::Left),
            Action::PaneRight if self.question.focus == Pane::Graph => self.move_along_graph(GraphMove::Right),
            Action::PaneLeft | Action::PaneRight => {}
            Action::ToInput => self.move_along_graph(GraphMove::ToInput),
            Action::ToConsumer => self.move_along_graph(GraphMove::ToConsumer),
            Action::NextPane => self.question.focus = self.question.focus.cycled(1),
            Action::PrevPane => self.question.focus = self.question.focus.cycled(-1),
            Action::Open if self.screen == Screen::Compare => {
                if self.compare.as_ref().is_some_and(|c| c.selected().is_some()) {
                    self.screen = Screen::CompareDetail;
                    self.scrolls.compare_detail.top();
                }
            }
            Action::Open if self.screen == Screen::Taxonomy => self.filter_to_findings_group(),
            Action::Open if self.screen == Screen::Matrix => self.open_pair(),
            Action::Open => self.open_question(),
            Action::Back => {
                self.screen = match self.screen {
                    Screen::Diff | Screen::Schema | Screen::Inspector => Screen::Question,
                    Screen::CompareDetail if self.matrix.is_some() => Screen::Matrix,
                    Screen::CompareDetail => Screen::Compare,
                    _ => Screen::Dashboard,
                };
            }
            Action::PrevIteration | Action::NextIteration => {
                self.question.iteration = if action == Action::PrevIteration {
                    self.question.iteration.saturating_sub(1)
                } else {
                    self.question.iteration + 1
                };
                self.scroll_to_iteration();
            }
            Action::NextTab => {
                let index = Tab::ALL.iter().position(|t| *t == self.question.tab).unwrap_or(0);
                self.question.tab = Tab::ALL[(index + 1) % Tab::ALL.len()];
                self.scroll_to_iteration();
            }
            Action::Zoom => self.question.zoom = !self.question.zoom,
            Action::Expand => {
                self.question.expanded = !self.question.expanded;
                self.scroll_to_iteration();
            }
            Action::ScrollDown => {
                if let Some(scroll) = self.scroll_mut() {
                    scroll.down(SCROLL_STEP);
                }
            }
            Action::ScrollUp => {
                if let Some(scroll) = self.scroll_mut() {
                    scroll.up(SCROLL_STEP);
                }
            }
            Action::Diff => {
                if self.question.iteration > 0 {
                    self.screen = Screen::Diff;
                    self.scrolls.diff.top();
                } else {
                    self.message = Some("the first iteration has nothing to compare with".into());
                }
            }
            Action::Filter => self.dashboard.editing_filter = true,
            Action::StatusFilter => self.dashboard.status_filter = self.dashboard.status_filter.next(),
            Action::ChangeFilter => {
                if let Some(comparison) = &mut self.compare {
                    comparison.cycle_filter();
                }
            }
            Action::Sort => {
                self.dashboard.sort = match self.dashboard.sort {
                    Sort::Rank => Sort::Status,
                    Sort::Status => Sort::Findings,
                    Sort::Findings => Sort::Rank,
                }
            }
            Action::Pause => {
                let command = if self.state.paused { Command::Resume } else { Command::Pause };
                let what = if self.state.paused { "resuming" } else { "pausing at the next stage boundary" };
                self.send(command, what);
            }
            Action::Step => {
                let question_id = (self.screen != Screen::Dashboard).then(|| self.question.id.clone()).flatten();
                let what = match &question_id {
                    Some(id) => format!("step: one stage of {id}"),
                    None => "step: the next stage anywhere".into(),
                };
                self.send(Command::Step { question_id }, &what);
            }
            Action::Rerun => {
                if let Some(id) = self.current_question().map(|q| q.question.id.clone()) {
                    let what = format!("rerunning {id} from scratch");
                    self.send_to_llm(Command::Rerun { question_id: id }, &what);
                }
            }
            Action::Fork => {
                let target = self.current_iteration().map(|(a, i)| (a.number, i.number));
                if let (Some(id), Some((attempt, iteration))) = (self.question.id.clone(), target) {
                    let what = format!("forking {id} from attempt {attempt}, iteration {iteration}");
                    self.send_to_llm(Command::Fork { from: AttemptAt::new(id, attempt).iteration(iteration) }, &what);
                }
            }
            Action::EditNode => self.request_edit(false, AfterEdit::TryDag),
            Action::EditDag => self.request_edit(true, AfterEdit::TryDag),
            Action::Accept => self.accept(),
            Action::Note => self.open_note(),
            Action::Schema => self.open_schema(),
            Action::Scorecard => self.open_scorecard(),
            Action::Taxonomy => self.open_taxonomy(),
            Action::ClearQuestions => {
                if self.dashboard.questions.take().is_some() {
                    self.message = Some("showing every question".into());
                }
            }
            Action::Label => self.open_label(),
            Action::Inspect => self.open_inspector(),
            // The inspector's own keys, handled above while it is shown.
            Action::Toggle
            | Action::ExpandAll
            | Action::SearchNext
            | Action::SearchPrevious
            | Action::Export
            | Action::RunNode => {}
            Action::Play
            | Action::Forward
            | Action::Backward
            | Action::Start
            | Action::End
            | Action::Faster
            | Action::Slower => self.replay_action(action),
        }
        self.refresh();
    }
}
