//! One question open: its iterations, the selected iteration's DAG and node,
//! the detail tabs, which pane the arrows act in. The diff, schema and
//! inspector screens open over it and act on its selection; drawing is in
//! `draw.rs`.

mod draw;

use ratatui::Frame;
use ratatui::layout::Rect;

use super::SCROLL_STEP;
use super::diff::DiffScreen;
use super::inspector::InspectorScreen;
use super::schema::SchemaScreen;
use crate::run::{QuestionState, RunState};
use crate::tui::component::{Component, Ctx, Handled};
use crate::tui::graph_moves::{GraphMove, moved};
use crate::tui::highlight::HighlightCache;
use crate::tui::keymap::Action;
use crate::tui::keymap::Screen;
use crate::tui::palette_entry::{EntryKind, PaletteEntry, PaletteTarget};
use crate::tui::scroll::Scroll;
use crate::tui::selection::Selection;
use crate::tui::view::{Pane, Tab};
use crate::tui::widgets::code_view::CodePane;

/// The question screen: the open question and what of it is selected.
pub struct QuestionScreen {
    /// The question, its selected iteration and node.
    pub selection: Selection,
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
        let mut screen = Self {
            selection: Selection::last_of(question),
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

    /// Select the iteration before or after, shown from where it starts.
    fn step_iteration(&mut self, later: bool) {
        let index = self.selection.iteration;
        self.select_iteration(if later { index + 1 } else { index.saturating_sub(1) });
    }

    /// Select the iteration at `index` (over all attempts), shown from where it starts.
    fn select_iteration(&mut self, index: usize) {
        self.selection.iteration = index;
        self.detail.jump_to_anchor();
    }

    /// Select the node `how` leads to in the selected iteration's DAG.
    fn move_along_graph(&mut self, state: &RunState, how: GraphMove) {
        let Some(dag) = self.selection.current_iteration(state).and_then(|(_, it)| it.dag.as_ref()) else { return };
        let node = moved(&crate::render::layout(dag), self.selection.node, how);
        if node != self.selection.node {
            self.selection.node = node;
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

    fn handle(&mut self, action: Action, ctx: &Ctx) -> Handled {
        let state = ctx.state;
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
            Action::PrevDraft | Action::NextDraft => {
                match self.selection.draft_step(state, action == Action::NextDraft) {
                    Ok(index) => self.select_iteration(index),
                    Err(why) => return Handled::message(why),
                }
            }
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
            Action::Diff if self.selection.iteration > 0 => {
                return Handled::open(Box::new(DiffScreen::over(self.selection.clone(), false)));
            }
            Action::Diff => return Handled::message("the first iteration has nothing to compare with"),
            Action::DraftDiff => match self.selection.draft_step(state, true) {
                Ok(_) => return Handled::open(Box::new(DiffScreen::over(self.selection.clone(), true))),
                Err(why) => return Handled::message(why),
            },
            Action::Schema => return Handled::open(Box::new(SchemaScreen::open(state, &self.selection))),
            Action::Inspect => return InspectorScreen::open(ctx, &self.selection),
            _ => return Handled::Ignored,
        }
        Handled::done()
    }

    fn refresh(&mut self, ctx: &Ctx) {
        let selection = &mut self.selection;
        if let Some((question_id, number)) = ctx.awaiting_attempt
            && *question_id == selection.id
            && let Some(index) =
                selection.iterations(ctx.state).iter().position(|(attempt, _)| attempt.number >= *number)
        {
            selection.iteration = index;
        }
        selection.clamp(ctx.state);
        let nodes = selection.current_iteration(ctx.state).and_then(|(_, it)| it.dag.as_ref()).map(|dag| &dag.nodes);
        for node in nodes.into_iter().flatten() {
            self.highlight.prepare(&node.code, ctx.theme.syntax_dark);
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        self.draw_screen(frame, area, ctx);
    }

    fn selection(&self) -> Option<&Selection> {
        Some(&self.selection)
    }

    fn follow(&mut self, selection: &Selection) {
        if selection.iteration != self.selection.iteration {
            self.detail.jump_to_anchor();
        }
        self.selection = selection.clone();
    }

    /// The nodes of the DAG on screen, by id and operation: `enter` selects one.
    fn palette_entries(&self, ctx: &Ctx) -> Vec<PaletteEntry> {
        let dag = self.selection.current_iteration(ctx.state).and_then(|(_, it)| it.dag.as_ref());
        let nodes = dag.map(|dag| dag.nodes.as_slice()).unwrap_or_default();
        nodes
            .iter()
            .enumerate()
            .map(|(node, spec)| PaletteEntry {
                kind: EntryKind::Node,
                label: spec.node_id.to_string(),
                detail: spec.operation.clone(),
                keys: None,
                target: PaletteTarget::Select(Selection { node, ..self.selection.clone() }),
            })
            .collect()
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

    /// The sample run with a differential check that found the engines
    /// disagree on q_01: the approved iteration shows both answers and the
    /// node they part at; the dashboard marks the question.
    #[test]
    fn an_engine_divergence_is_shown_under_the_final_answer() {
        const DIVERGED: &str = "tests/fixtures/traces/differential.trace.jsonl";
        frame_text::assert_screen_snapshots!(DIVERGED, "j\nt", Screen::Question, "question_divergence");
        for (width, height) in SNAPSHOT_SIZES {
            let mut app = replayed(DIVERGED);
            press_keys(&mut app, "j");
            let dashboard = frame_text(&app, width, height);
            let q_01 = dashboard.lines().find(|line| line.contains("q_01")).unwrap_or_default();
            assert!(q_01.contains("≠"), "{width}x{height}: {dashboard}");
            assert!(!dashboard.lines().any(|line| line.contains("q_02") && line.contains("≠")), "{dashboard}");
        }
    }
}
