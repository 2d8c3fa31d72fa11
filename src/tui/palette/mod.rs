//! The command palette (`:` or Ctrl-P, rebindable as `[keys.global] palette`):
//! an [`Overlay`] with a query line over a fuzzy-matched, scrollable list of
//! what can be done or reached from the screen on top — its actions with
//! their keys (from the keymap, as the help lists them, so the palette
//! teaches the keys), the entries the screen contributes
//! (`Component::palette_entries`: the question screen's DAG nodes), the
//! run's questions by id or text and its datasets. `enter` carries out the
//! entry's [`PaletteTarget`]: an action exactly as its key would, a question
//! opens over the dashboard, a node is selected, a dataset narrows the
//! dashboard to its questions. The list is built once when the palette
//! opens; typing matches incrementally (`matcher.rs`).

mod draw;
mod matcher;

use std::collections::BTreeMap;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::Rect;

use matcher::Matcher;

use crate::tui::component::{Ctx, Effect, Overlay, OverlayKey};
use crate::tui::keymap::Action;
use crate::tui::palette_entry::{EntryKind, PaletteEntry, PaletteTarget};
use crate::tui::screens::question::QuestionScreen;
use crate::tui::view::QuestionSet;

/// Rows a page key moves.
const PAGE: usize = 10;

/// The open palette: its entries, the query and the selected match.
pub struct Palette {
    /// Everything listed, in the order shown for an empty query.
    entries: Vec<PaletteEntry>,
    /// Which entries the query matches.
    matcher: Matcher,
    /// The query typed.
    query: String,
    /// The selected row among the matches.
    row: usize,
}

impl Palette {
    /// The palette of the screen on top of `ctx`'s stack.
    pub fn open(ctx: &Ctx) -> Self {
        let mut entries = actions(ctx);
        if let Some(top) = ctx.stack.last() {
            entries.extend(top.palette_entries(ctx));
        }
        entries.extend(questions(ctx));
        entries.extend(datasets(ctx));
        let matcher = Matcher::new(entries.iter().map(|e| format!("{} {}", e.label, e.detail)));
        Self { entries, matcher, query: String::new(), row: 0 }
    }

    /// Type `query` (replacing what was typed), as key presses would.
    pub fn type_query(&mut self, query: &str) {
        self.query = query.to_string();
        self.matcher.set_query(query);
        self.row = 0;
    }

    /// What `enter` on the selected match asks of the app.
    fn perform(&self, ctx: &Ctx) -> Vec<Effect> {
        let Some(&index) = self.matcher.matches().get(self.row) else { return Vec::new() };
        match &self.entries[index].target {
            PaletteTarget::Action(action) => vec![Effect::Perform(*action)],
            PaletteTarget::Question(id) => match ctx.state.question(id) {
                Some(q) => vec![Effect::Home, Effect::Open(Box::new(QuestionScreen::open(q)))],
                None => vec![Effect::Message(format!("no question {id} in this run"))],
            },
            PaletteTarget::Select(selection) => vec![Effect::Select(selection.clone())],
            PaletteTarget::Narrow(set) => vec![Effect::Home, Effect::Narrow(set.clone())],
            PaletteTarget::Leave(choice) => vec![Effect::Leave(choice.clone())],
        }
    }

    /// Move the selection `down` (else up) by `rows`, within the matches.
    fn move_by(&mut self, down: bool, rows: usize) {
        let last = self.matcher.matches().len().saturating_sub(1);
        self.row = if down { (self.row + rows).min(last) } else { self.row.saturating_sub(rows) };
    }
}

impl Overlay for Palette {
    fn key(&mut self, key: KeyEvent, ctx: &Ctx) -> OverlayKey {
        if key.modifiers.contains(KeyModifiers::CONTROL) {
            // Ctrl-C quits as everywhere; the palette's own keys close it again.
            return match ctx.action_for(key) {
                Some(Action::Quit) => OverlayKey::Passed,
                Some(Action::Palette) => OverlayKey::Closed(Vec::new()),
                _ => OverlayKey::Kept,
            };
        }
        match key.code {
            KeyCode::Esc => return OverlayKey::Closed(Vec::new()),
            KeyCode::Enter => return OverlayKey::Closed(self.perform(ctx)),
            KeyCode::Up => self.move_by(false, 1),
            KeyCode::Down => self.move_by(true, 1),
            KeyCode::PageUp => self.move_by(false, PAGE),
            KeyCode::PageDown => self.move_by(true, PAGE),
            KeyCode::Backspace => {
                let mut query = std::mem::take(&mut self.query);
                query.pop();
                self.type_query(&query);
            }
            KeyCode::Char(c) => {
                let query = format!("{}{c}", self.query);
                self.type_query(&query);
            }
            _ => {}
        }
        OverlayKey::Kept
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        self.draw_over(frame, area, ctx);
    }
}

/// Every action bound on the screen on top (and the global ones), once each,
/// with its keys and its help; not the palette's own.
fn actions(ctx: &Ctx) -> Vec<PaletteEntry> {
    let mut seen = Vec::new();
    ctx.keys
        .active(ctx.screen, ctx.replay.is_some())
        .filter(|bound| bound.binding.action != Action::Palette)
        .filter(|bound| {
            let first = !seen.contains(&bound.binding.action);
            seen.push(bound.binding.action);
            first
        })
        .map(|bound| PaletteEntry {
            kind: EntryKind::Action,
            label: bound.binding.help.to_string(),
            detail: bound.binding.action.name().to_string(),
            keys: Some(bound.label.to_string()),
            target: PaletteTarget::Action(bound.binding.action),
        })
        .collect()
}

/// The run's questions, by id and text.
fn questions<'a>(ctx: &Ctx<'a>) -> impl Iterator<Item = PaletteEntry> + 'a {
    ctx.state.questions.iter().map(|q| PaletteEntry {
        kind: EntryKind::Question,
        label: q.question.id.to_string(),
        detail: q.question.question.clone(),
        keys: None,
        target: PaletteTarget::Question(q.question.id.clone()),
    })
}

/// The datasets the run's questions name, each narrowing the dashboard to its questions.
fn datasets(ctx: &Ctx) -> impl Iterator<Item = PaletteEntry> {
    let mut by_dataset: BTreeMap<&str, QuestionSet> = BTreeMap::new();
    for q in ctx.state.questions.iter() {
        if let Some(name) = q.question.dataset.as_deref() {
            let set = by_dataset
                .entry(name)
                .or_insert_with(|| QuestionSet { label: format!("dataset {name}"), ids: Default::default() });
            set.ids.insert(q.question.id.clone());
        }
    }
    by_dataset.into_iter().map(|(name, set)| PaletteEntry {
        kind: EntryKind::Dataset,
        label: name.to_string(),
        detail: format!("{}: show only these on the dashboard", crate::text::plural(set.ids.len(), "question")),
        keys: None,
        target: PaletteTarget::Narrow(set),
    })
}

#[cfg(test)]
mod tests {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    use crate::domain::{DifficultyLevel, Question};
    use crate::run::{EngineEvent, RunState};
    use crate::tui::frame_text::{SAMPLE_TRACE, assert_screen_snapshots, replayed};
    use crate::tui::view::StatusFilter;
    use crate::tui::{App, Context, Keymap, Rebinding, Screen, Theme, frame_text, press_keys};

    /// The palette over the dashboard, all of it and narrowed by a query.
    #[test]
    fn snapshots_at_both_sizes() {
        assert_screen_snapshots!(SAMPLE_TRACE, ":", Screen::Dashboard, "palette");
        assert_screen_snapshots!(SAMPLE_TRACE, ":sort", Screen::Dashboard, "palette_sort");
    }

    #[test]
    fn an_action_is_performed_as_its_key_would() {
        let mut app = replayed(SAMPLE_TRACE);
        press_keys(&mut app, ":status filter");
        let text = frame_text(&app, 120, 30);
        assert!(text.contains("cycle the status filter") && text.contains("f "), "the palette shows the key: {text}");
        press_keys(&mut app, "\n");
        assert_eq!(app.dashboard().unwrap().status_filter, StatusFilter::All.next());
        assert!(!frame_text(&app, 120, 30).contains(" palette ·"), "enter closes the palette");
    }

    #[test]
    fn a_question_opens_and_a_node_of_its_dag_is_selected() {
        let mut app = replayed(SAMPLE_TRACE);
        press_keys(&mut app, ":q_02\n");
        assert_eq!(app.screen(), Screen::Question);
        assert_eq!(app.current_question().unwrap().question.id.as_str(), "q_02");
        press_keys(&mut app, ":q_01\n");
        assert_eq!(app.current_question().unwrap().question.id.as_str(), "q_01");
        assert_eq!(app.question().unwrap().selection.node, 0);
        press_keys(&mut app, ":highest\n");
        assert_eq!(app.question().unwrap().selection.node, 1, "q_01's node `highest` is selected");
        press_keys(&mut app, "\x1b");
        assert_eq!(app.screen(), Screen::Dashboard, "the question opened over the dashboard, not over q_02");
    }

    #[test]
    fn a_dataset_narrows_the_dashboard_to_its_questions() {
        let on = |id: &str, dataset: &str| Question {
            dataset: Some(dataset.into()),
            ..Question::new(id, "How many rows?", 1, DifficultyLevel::Easy)
        };
        let mut state = RunState::default();
        let questions = vec![on("q1", "zoo"), on("q2", "shop"), on("q3", "zoo")];
        state.apply(0, &EngineEvent::QuestionsGenerated { questions });
        let mut app = App::new(state, Theme::dark(), None, None);
        press_keys(&mut app, ":zoo\n");
        assert_eq!(app.visible(), [0, 2]);
        press_keys(&mut app, ":nothing like it\x1b");
        assert_eq!(app.visible(), [0, 2], "esc closes without doing anything");
    }

    #[test]
    fn ctrl_p_opens_it_and_a_rebinding_moves_it() {
        let ctrl_p = KeyEvent::new(KeyCode::Char('p'), KeyModifiers::CONTROL);
        let mut app = replayed(SAMPLE_TRACE);
        app.handle_key(ctrl_p);
        assert!(frame_text(&app, 120, 30).contains(" palette ·"));
        let rebinding = Rebinding {
            context: Context::Global,
            action: crate::tui::Action::Palette,
            keys: vec!["f2".parse().unwrap()],
        };
        let mut app = replayed(SAMPLE_TRACE).with_keys(Keymap::rebind(&[rebinding]).unwrap());
        press_keys(&mut app, ":");
        app.handle_key(ctrl_p);
        assert!(!frame_text(&app, 120, 30).contains(" palette ·"), "neither : nor ctrl-p opens it now");
        app.handle_key(KeyCode::F(2).into());
        assert!(frame_text(&app, 120, 30).contains(" palette ·"));
    }
}
