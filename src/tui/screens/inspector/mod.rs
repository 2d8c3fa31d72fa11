//! The node inspector: for the selected node of an iteration, the inputs it
//! received (a dataset key, read from the run's dataset on disk, or an
//! upstream node's recorded output) and its own recorded output, as one tree
//! to walk, search, and write to a file. Drawing is in `draw.rs`.

mod draw;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crossterm::event::KeyCode;
use ratatui::Frame;
use ratatui::layout::Rect;
use serde_json::{Map, Value, json};

use crate::dataset::BenchmarkRoot;
use crate::domain::{IterationAt, NodeId};
use crate::run::Command;
use crate::tui::component::{Component, Ctx, Effect, Handled, LoadedDataset};
use crate::tui::editing::AfterEdit;
use crate::tui::keymap::Action;
use crate::tui::keymap::Screen;
use crate::tui::selection::Selection;
use crate::tui::value_tree::ValueTree;

/// The node inspector: what it shows and the search being typed.
pub struct InspectorScreen {
    /// The iteration.
    pub at: IterationAt,
    /// The node.
    pub node_id: NodeId,
    /// Where each input comes from: `parameter ← source`.
    pub sources: Vec<String>,
    /// Inputs and output.
    pub tree: ValueTree,
    /// The search being typed after `/`.
    pub typing: Option<String>,
}

/// Rows one page key moves.
const PAGE: usize = 10;

fn note(text: String) -> Value {
    Value::String(format!("⟨{text}⟩"))
}

/// The dataset at `dir` when it is inside `root` and its hash is still
/// `hash`, or why not.
fn load_checked(root: &BenchmarkRoot, dir: &str, hash: &str) -> LoadedDataset {
    match root.load(std::path::Path::new(dir)) {
        Ok(dataset) if dataset.content_hash != hash => {
            Err(format!("{dir} changed since the run: its values would not be what the node read"))
        }
        Ok(dataset) => Ok(Arc::new(dataset)),
        Err(err) => Err(format!("cannot load {dir}: {err}")),
    }
}

/// The dataset `question` is asked about: in a run over several, its own
/// (loaded each time the inspector opens); else the run's one dataset,
/// loaded once from the directory its settings name (and kept by the app:
/// `keep` is set to it when it was loaded now).
fn dataset(ctx: &Ctx, question: &crate::domain::Question, keep: &mut Option<LoadedDataset>) -> LoadedDataset {
    let Some(settings) = &ctx.state.settings else {
        return Err("the run's settings are not known yet".to_string());
    };
    if !settings.datasets.is_empty() {
        let name = question.dataset.as_deref().unwrap_or_default();
        // The run's benchmark folder: a trace names its datasets, and they stay in it.
        let root = BenchmarkRoot::new(&settings.dataset_dir).allowing_outside(ctx.allow_outside_datasets);
        return match settings.datasets.iter().find(|d| d.name == name) {
            Some(named) => load_checked(&root, &named.dir, &named.hash),
            None => Err(format!("the run has no dataset {name:?}")),
        };
    }
    if let Some(loaded) = ctx.dataset {
        return loaded.clone();
    }
    // The run's one dataset is the directory the user gave the run, not one a benchmark named.
    let anywhere = BenchmarkRoot::new(&settings.dataset_dir).allowing_outside(true);
    let loaded = load_checked(&anywhere, &settings.dataset_dir.to_string_lossy(), &settings.dataset_hash);
    *keep = Some(loaded.clone());
    loaded
}

impl InspectorScreen {
    /// The inspector opened on the selected node of the selected iteration
    /// (and the run's dataset kept, when it was loaded for it), or the
    /// message that says why there is none.
    pub fn open(ctx: &Ctx, selection: &Selection) -> Handled {
        let Some(at) = selection.selected_iteration(ctx.state) else { return Handled::done() };
        let Some((attempt, it)) = selection.current_iteration(ctx.state) else { return Handled::done() };
        let Some(node) = it.dag.as_ref().and_then(|dag| dag.nodes.get(selection.node)).cloned() else {
            return Handled::message("no node to inspect in this iteration");
        };
        // The answer's execution for the attempt's last iteration, else the trial run.
        let is_answer = attempt.iterations.last().is_some_and(|last| last.number == it.number);
        let run = if is_answer { attempt.execution.as_ref().or(it.trial.as_ref()) } else { it.trial.as_ref() };
        let outputs = run.map(|r| r.node_outputs.clone()).unwrap_or_default();
        let ran = run.is_some();
        let asked = selection.question(ctx.state).map(|q| q.question.clone());
        let mut loaded: Option<LoadedDataset> = None;
        let mut keep = None;
        let mut inputs = Map::new();
        let mut sources = Vec::new();
        for (parameter, source) in &node.inputs {
            sources.push(format!("{parameter} ← {source}"));
            let value = if let Some(key) = source.strip_prefix("dataset.") {
                let data = match (&loaded, &asked) {
                    (Some(data), _) => data.clone(),
                    (None, Some(asked)) => loaded.insert(dataset(ctx, asked, &mut keep)).clone(),
                    (None, None) => Err("the question is not known".to_string()),
                };
                match data {
                    Ok(dataset) => {
                        dataset.data.get(key).cloned().unwrap_or_else(|| note(format!("the dataset has no key {key}")))
                    }
                    Err(why) => note(why),
                }
            } else {
                let upstream =
                    source.strip_prefix("prev_node.").and_then(|s| s.strip_suffix(".output")).unwrap_or(source);
                outputs.get(upstream).cloned().unwrap_or_else(|| note(format!("no recorded output of {upstream}")))
            };
            inputs.insert(parameter.clone(), value);
        }
        let output = match outputs.get(&node.node_id) {
            Some(output) => output.clone(),
            None if ran => note("the run stopped before this node returned".into()),
            None => note("this iteration did not run".into()),
        };
        let tree = ValueTree::new(json!({"inputs": inputs, "output": output}), &node.node_id);
        let inspector = Self { at, node_id: node.node_id, sources, tree, typing: None };
        let mut effects: Vec<Effect> = keep.map(Effect::KeepDataset).into_iter().collect();
        effects.push(Effect::Open(Box::new(inspector)));
        Handled::Done(effects)
    }
}

impl Component for InspectorScreen {
    fn screen(&self) -> Screen {
        Screen::Inspector
    }

    fn handle(&mut self, action: Action, ctx: &Ctx) -> Handled {
        let tree = &mut self.tree;
        match action {
            Action::Up => tree.up(1),
            Action::Down => tree.down(1),
            Action::ScrollUp => tree.up(PAGE),
            Action::ScrollDown => tree.down(PAGE),
            Action::PaneLeft => tree.collapse(),
            Action::PaneRight => tree.expand(),
            Action::Toggle => tree.toggle(),
            Action::ExpandAll => tree.expand_all(),
            Action::Filter => self.typing = Some(String::new()),
            Action::SearchNext | Action::SearchPrevious => {
                let moved = if action == Action::SearchNext { tree.search_next() } else { tree.search_previous() };
                if !moved {
                    return Handled::message("no matches: / searches keys and values");
                }
            }
            Action::Export => return Handled::message(self.export_selected(ctx.recording)),
            Action::EditNode => return Handled::with(Effect::Edit { whole: false, then: AfterEdit::RunNode }),
            Action::RunNode => {
                let (at, node_id) = (self.at.clone(), self.node_id.clone());
                let what = format!("running node {node_id} as recorded, with the nodes feeding it");
                return Handled::with(Effect::Send { command: Command::RunNode { at, node_id, code: None }, what });
            }
            _ => return Handled::Ignored,
        }
        Handled::done()
    }

    fn typing(&self) -> bool {
        self.typing.is_some()
    }

    /// A key while a search is typed: Enter searches, Esc gives up.
    fn type_key(&mut self, code: KeyCode, _ctx: &Ctx) -> Handled {
        let Some(query) = self.typing.as_mut() else { return Handled::done() };
        match code {
            KeyCode::Esc => self.typing = None,
            KeyCode::Backspace => {
                query.pop();
            }
            KeyCode::Char(c) => query.push(c),
            KeyCode::Enter => {
                let query = self.typing.take().unwrap_or_default();
                let found = self.tree.search(&query);
                return Handled::message(match found {
                    0 => format!("no match for {query:?}"),
                    1 => format!("1 match for {query:?}"),
                    n => format!("{n} matches for {query:?}: n next, N previous"),
                });
            }
            _ => {}
        }
        Handled::done()
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        self.draw_screen(frame, area, ctx);
    }
}

impl InspectorScreen {
    /// Write the selected value as JSON to a new file in `recording` (the
    /// derived run's directory, if one records this work), else the current
    /// directory; what happened, for the status line.
    fn export_selected(&self, recording: Option<&Path>) -> String {
        let dir = recording.unwrap_or_else(|| Path::new("."));
        let at = &self.at;
        let stem = format!("eval-dag-{}-a{}-it{}-{}", at.question_id, at.attempt, at.iteration, self.node_id);
        let path = free_path(dir, &stem);
        let text = serde_json::to_string_pretty(self.tree.selected_value()).unwrap_or_default() + "\n";
        let what = self.tree.selected_path_text();
        match std::fs::write(&path, &text) {
            Ok(()) => format!("wrote {what} to {} ({} bytes)", path.display(), text.len()),
            Err(err) => format!("cannot write {}: {err}", path.display()),
        }
    }
}

/// `dir/stem.json`, or `dir/stem-2.json`, … — the first that does not exist.
fn free_path(dir: &Path, stem: &str) -> PathBuf {
    let clean: String = stem.chars().map(|c| if c.is_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect();
    let mut path = dir.join(format!("{clean}.json"));
    let mut n = 1;
    while path.exists() {
        n += 1;
        path = dir.join(format!("{clean}-{n}.json"));
    }
    path
}

#[cfg(test)]
mod tests {
    use crate::tui::Screen;
    use crate::tui::frame_text::{SAMPLE_TRACE, assert_screen_snapshots};

    /// Node `rates` of q_01's approved iteration, its input walked open.
    #[test]
    fn snapshots_at_both_sizes() {
        assert_screen_snapshots!(SAMPLE_TRACE, "j\nij→→→", Screen::Inspector, "inspector");
    }
}
