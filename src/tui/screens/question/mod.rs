//! One question open: its iterations, the selected iteration's DAG and node,
//! the detail tabs, which pane the arrows act in. The diff, schema and
//! inspector screens open over it and act on its selection; drawing is in
//! `draw.rs`.

mod draw;

use ratatui::Frame;
use ratatui::layout::Rect;

use super::diff::DiffScreen;
use super::inspector::InspectorScreen;
use super::schema::SchemaScreen;
use super::{Component, Handled, SCROLL_STEP};
use crate::domain::{IterationAt, QuestionId};
use crate::run::{Attempt, Iteration, QuestionState, RunState};
use crate::tui::app::App;
use crate::tui::graph_moves::{GraphMove, moved};
use crate::tui::highlight::HighlightCache;
use crate::tui::keymap::Action;
use crate::tui::screens::Screen;
use crate::tui::scroll::Scroll;
use crate::tui::view::{Pane, Tab};
use crate::tui::widgets::code_view::CodePane;

/// The question screen: the open question and what of it is selected.
pub struct QuestionScreen {
    /// The question's id.
    pub id: QuestionId,
    /// Iteration selected (index over all attempts' iterations).
    pub iteration: usize,
    /// Node selected in the DAG.
    pub node: usize,
    /// Detail tab.
    pub tab: Tab,
    /// The pane arrows act in.
    pub focus: Pane,
    /// Whether the focused pane fills the screen.
    pub zoom: bool,
    /// Whether the conversation shows whole prompts and responses.
    pub expanded: bool,
    /// The detail pane's scroll.
    pub detail: Scroll,
    /// The code pane's scroll.
    pub code: Scroll,
    /// Highlighted code of the selected iteration's nodes.
    highlight: HighlightCache,
}

impl QuestionScreen {
    /// `question` open at its last iteration.
    pub fn open(question: &QuestionState) -> Self {
        let last = question.attempts().iter().map(|a| a.iterations.len()).sum::<usize>().saturating_sub(1);
        let mut screen = Self {
            id: question.question.id.clone(),
            iteration: last,
            node: 0,
            tab: Tab::Feedback,
            focus: Pane::Graph,
            zoom: false,
            expanded: false,
            detail: Scroll::default(),
            code: Scroll::default(),
            highlight: HighlightCache::default(),
        };
        screen.detail.jump_to_anchor();
        screen
    }

    /// The question in `state`.
    pub fn question<'a>(&self, state: &'a RunState) -> Option<&'a QuestionState> {
        state.question(&self.id)
    }

    /// Every iteration of the question with its attempt, oldest first.
    pub fn iterations<'a>(&self, state: &'a RunState) -> Vec<(&'a Attempt, &'a Iteration)> {
        self.question(state)
            .map(|q| q.attempts().iter().flat_map(|a| a.iterations.iter().map(move |i| (a, i))).collect())
            .unwrap_or_default()
    }

    /// The selected iteration.
    pub fn current_iteration<'a>(&self, state: &'a RunState) -> Option<(&'a Attempt, &'a Iteration)> {
        let all = self.iterations(state);
        let index = self.iteration.min(all.len().saturating_sub(1));
        all.get(index).copied()
    }

    /// The selected iteration's place, if one is selected.
    pub fn selected_iteration(&self, state: &RunState) -> Option<IterationAt> {
        let (attempt, it) = self.current_iteration(state)?;
        Some(attempt.at(&self.id).iteration(it.number))
    }

    /// Select the iteration before or after, shown from where it starts.
    pub fn step_iteration(&mut self, later: bool) {
        self.select_iteration(if later { self.iteration + 1 } else { self.iteration.saturating_sub(1) });
    }

    /// Select the iteration at `index` (over all attempts), shown from where it starts.
    pub fn select_iteration(&mut self, index: usize) {
        self.iteration = index;
        self.detail.jump_to_anchor();
    }

    /// The index of the last iteration of the selected epoch's draft before
    /// or after the selected one (`run --consensus`; round the drafts, past
    /// those not started): its latest attempt that counts, else its latest.
    pub fn draft_step(&self, state: &RunState, later: bool) -> Result<usize, &'static str> {
        let drafts = state.settings.as_ref().map_or(1, |s| s.drafts());
        if drafts < 2 {
            return Err("this run built one DAG per question (run --consensus K builds K)");
        }
        let (q, (attempt, _)) = self.question(state).zip(self.current_iteration(state)).ok_or("no draft selected")?;
        let all = self.iterations(state);
        (1..drafts)
            .map(|step| if later { step } else { drafts - step })
            .map(|step| (attempt.draft - 1 + step) % drafts + 1)
            .find_map(|draft| {
                let target = q
                    .latest_in(attempt.epoch, draft)
                    .or_else(|| q.attempts().iter().rev().find(|a| (a.epoch, a.draft) == (attempt.epoch, draft)))?;
                all.iter().rposition(|(a, _)| a.is_at(&target.at(&self.id)))
            })
            .ok_or("no other draft of this epoch has started")
    }

    /// The iteration a draft diff sets the selected one against: the last
    /// iteration of the draft speaking for the epoch (the consensus majority's,
    /// else draft 1's) — or, when the selected draft is that one, of the next
    /// draft that has one.
    pub fn other_draft<'a>(&self, state: &'a RunState) -> Option<(&'a Attempt, &'a Iteration)> {
        let q = self.question(state)?;
        let (attempt, _) = self.current_iteration(state)?;
        let speaking = q.speaking_in_epoch(attempt.epoch).filter(|s| s.draft != attempt.draft);
        let other = match speaking {
            Some(speaking) => speaking,
            None => {
                let index = self.draft_step(state, true).ok()?;
                self.iterations(state).get(index)?.0
            }
        };
        Some((other, other.iterations.last()?))
    }

    /// Select the node `how` leads to in the selected iteration's DAG.
    fn move_along_graph(&mut self, state: &RunState, how: GraphMove) {
        let Some(dag) = self.current_iteration(state).and_then(|(_, it)| it.dag.as_ref()) else { return };
        let node = moved(&crate::render::layout(dag), self.node, how);
        if node != self.node {
            self.node = node;
            self.code.top();
        }
    }

    /// Up or down in the focused pane: along the graph, or a line of the code or of the detail.
    fn in_focused_pane(&mut self, state: &RunState, down: bool) {
        match self.focus {
            Pane::Graph => self.move_along_graph(state, if down { GraphMove::Down } else { GraphMove::Up }),
            Pane::Code if down => self.code.down(1),
            Pane::Code => self.code.up(1),
            Pane::Detail if down => self.detail.down(1),
            Pane::Detail => self.detail.up(1),
        }
    }

    /// What the code pane draws with.
    fn code_pane(&self) -> CodePane<'_> {
        CodePane { scroll: &self.code, highlight: &self.highlight, focus: self.focus }
    }

    /// The scroll the page keys move: the code's when it has the focus, else the detail's.
    fn focused_scroll(&mut self) -> &mut Scroll {
        if self.focus == Pane::Code { &mut self.code } else { &mut self.detail }
    }
}

impl Component for QuestionScreen {
    fn screen(&self) -> Screen {
        Screen::Question
    }

    fn handle(&mut self, action: Action, app: &mut App) -> Handled {
        let state = &app.state;
        match action {
            Action::Up | Action::Down => self.in_focused_pane(state, action == Action::Down),
            // Left and right mean something in the graph only.
            Action::PaneLeft if self.focus == Pane::Graph => self.move_along_graph(state, GraphMove::Left),
            Action::PaneRight if self.focus == Pane::Graph => self.move_along_graph(state, GraphMove::Right),
            Action::PaneLeft | Action::PaneRight => {}
            Action::ToInput => self.move_along_graph(state, GraphMove::ToInput),
            Action::ToConsumer => self.move_along_graph(state, GraphMove::ToConsumer),
            Action::NextPane => self.focus = self.focus.cycled(1),
            Action::PrevPane => self.focus = self.focus.cycled(-1),
            Action::PrevIteration | Action::NextIteration => self.step_iteration(action == Action::NextIteration),
            Action::PrevDraft | Action::NextDraft => match self.draft_step(state, action == Action::NextDraft) {
                Ok(index) => self.select_iteration(index),
                Err(why) => app.message = Some(why.into()),
            },
            Action::NextTab => {
                let index = Tab::ALL.iter().position(|t| *t == self.tab).unwrap_or(0);
                self.tab = Tab::ALL[(index + 1) % Tab::ALL.len()];
                self.detail.jump_to_anchor();
            }
            Action::Zoom => self.zoom = !self.zoom,
            Action::Expand => {
                self.expanded = !self.expanded;
                self.detail.jump_to_anchor();
            }
            Action::ScrollDown => self.focused_scroll().down(SCROLL_STEP),
            Action::ScrollUp => self.focused_scroll().up(SCROLL_STEP),
            Action::Diff if self.iteration > 0 => return Handled::Open(Box::<DiffScreen>::default()),
            Action::Diff => app.message = Some("the first iteration has nothing to compare with".into()),
            Action::DraftDiff => match self.draft_step(state, true) {
                Ok(_) => return Handled::Open(Box::new(DiffScreen::against_another_draft())),
                Err(why) => app.message = Some(why.into()),
            },
            Action::Schema => return Handled::Open(Box::new(SchemaScreen::open(state, self))),
            Action::Inspect => match InspectorScreen::open(app, self) {
                Ok(inspector) => return Handled::Open(Box::new(inspector)),
                Err(why) => app.message = why,
            },
            _ => return Handled::Ignored,
        }
        Handled::Done
    }

    fn refresh(&mut self, app: &mut App) {
        if let Some((question_id, number)) = &app.awaiting_attempt
            && *question_id == self.id
            && let Some(index) = self.iterations(&app.state).iter().position(|(attempt, _)| attempt.number >= *number)
        {
            self.iteration = index;
            app.awaiting_attempt = None;
        }
        let iterations = self.iterations(&app.state).len();
        self.iteration = self.iteration.min(iterations.saturating_sub(1));
        let nodes = self.current_iteration(&app.state).and_then(|(_, it)| it.dag.as_ref()).map(|dag| &dag.nodes);
        self.node = self.node.min(nodes.map_or(0, Vec::len).saturating_sub(1));
        for node in nodes.into_iter().flatten() {
            self.highlight.prepare(&node.code, app.theme.syntax_dark);
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, app: &App) {
        draw::draw(self, frame, area, app);
    }
}

#[cfg(test)]
mod tests {
    use crate::tui::Screen;
    use crate::tui::frame_text::{SAMPLE_TRACE, SNAPSHOT_SIZES, replayed};
    use crate::tui::{frame_text, press_keys};

    /// q_01's approved iteration, the one before with its runtime error, the
    /// outputs and conversation tabs, and the conversation's detail zoomed.
    #[test]
    fn snapshots_at_both_sizes() {
        for (width, height) in SNAPSHOT_SIZES {
            let mut app = replayed(SAMPLE_TRACE);
            press_keys(&mut app, "j\n");
            assert_eq!(app.screen(), Screen::Question);
            insta::assert_snapshot!(format!("question_approved_{width}x{height}"), frame_text(&app, width, height));
            press_keys(&mut app, "h");
            insta::assert_snapshot!(
                format!("question_runtime_error_{width}x{height}"),
                frame_text(&app, width, height)
            );
            press_keys(&mut app, "t");
            insta::assert_snapshot!(format!("question_outputs_{width}x{height}"), frame_text(&app, width, height));
            press_keys(&mut app, "t");
            insta::assert_snapshot!(format!("question_conversation_{width}x{height}"), frame_text(&app, width, height));
            // Tab twice: the focus goes from the graph to the code to the detail, which z zooms.
            press_keys(&mut app, "\t\tz");
            let zoomed = frame_text(&app, width, height);
            insta::assert_snapshot!(format!("question_conversation_zoomed_{width}x{height}"), zoomed);
        }
    }
}
