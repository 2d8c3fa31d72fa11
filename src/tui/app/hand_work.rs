//! What the user does by hand on the question screen: edit a node or the
//! whole DAG and have it checked and trial-run, accept an iteration as the
//! answer. In a live run these are commands to its engine; in a replay the
//! first of them starts a derived run that records them, and the
//! replay becomes that live run.

use super::App;
use crate::domain::{IterationAt, QuestionId};
use crate::run::{Attempt, Command, Iteration, Outcome};
use crate::tui::deriver::ConnectError;
use crate::tui::editing::{AfterEdit, EditRequest, EditTarget, Edited};
use crate::tui::text_box::{Closed, TextBox};

impl App {
    /// Make sure commands reach an engine: a live run's, or — in a replay — a
    /// derived run's, started now. `needs_llm`: refuse when no LLM answers.
    pub(super) fn connect(&mut self, needs_llm: bool) -> Result<(), ConnectError> {
        if self.commands.is_none() {
            let Some(deriver) = &mut self.deriver else {
                return Err(ConnectError::NoEngine);
            };
            if needs_llm && !deriver.llm {
                return Err(ConnectError::NoLlm);
            }
            let position = self.replay.as_ref().map_or(0, |r| r.position);
            let derived = (deriver.start)(position).map_err(ConnectError::Derive)?;
            self.llm = deriver.llm;
            self.commands = Some(derived.commands);
            self.new_events = Some(derived.events);
            if let Some(people) = &mut self.people {
                // A derived run keeps its own reviews (it reads its source's too).
                people.run_dir.clone_from(&derived.dir);
            }
            self.recording = Some(derived.dir);
            self.replay = None;
        }
        if needs_llm && !self.llm {
            return Err(ConnectError::NoLlm);
        }
        Ok(())
    }

    /// The open question's selected iteration: its place, its attempt and
    /// itself, and the selected node.
    fn selection(&self) -> Option<(IterationAt, &Attempt, &Iteration, usize)> {
        let selection = self.selected()?;
        let (attempt, it) = selection.current_iteration(&self.state)?;
        Some((attempt.at(&selection.id).iteration(it.number), attempt, it, selection.node))
    }

    /// Ask for the editor on the selected node (`whole`: the whole DAG), the
    /// saved text to become `then`; it opens once the loop has let go of the
    /// terminal, or at once in the app's text box when no editor is set.
    pub(super) fn request_edit(&mut self, whole: bool, then: AfterEdit) {
        let Some((from, _, it, selected)) = self.selection() else { return };
        let Some(mut dag) = it.dag.clone() else {
            self.message = Some("this iteration has no DAG to edit (its reply could not be read)".into());
            return;
        };
        // A node edited and run on its own before opens as last edited.
        if let (AfterEdit::RunNode, Some(node)) = (then, dag.nodes.get_mut(selected)) {
            let last = it.node_runs.iter().rev().find(|run| run.node_id == node.node_id);
            if let Some(code) = last.and_then(|run| run.code.clone()) {
                node.code = code;
            }
        }
        let target = match (whole, dag.nodes.get(selected)) {
            (false, Some(node)) => EditTarget::Node(node.node_id.clone()),
            (false, None) => {
                self.message = Some("no node selected: W edits the whole DAG".into());
                return;
            }
            (true, _) => EditTarget::Dag,
        };
        let request = EditRequest { from, dag, target, then };
        match self.connect(false) {
            Ok(()) if request.external_editor().is_some() => self.edit = Some(request),
            Ok(()) => self.overlay = Some(Box::new(TextBox::editor(request))),
            Err(why) => self.message = Some(why.to_string()),
        }
    }

    /// Open the note box on the selected iteration, pinned to the selected node.
    pub(super) fn open_note(&mut self) {
        let Some((at, _, it, selected)) = self.selection() else { return };
        let node_id = it.dag.as_ref().and_then(|dag| dag.nodes.get(selected)).map(|n| n.node_id.clone());
        self.overlay = Some(Box::new(TextBox::note(at, node_id)));
    }

    /// Open the label box on the selected iteration's answer.
    pub(super) fn open_label(&mut self) {
        let Some((at, attempt, it, _)) = self.selection() else { return };
        let is_answer =
            attempt.final_answer.is_some() && attempt.iterations.last().is_some_and(|l| l.number == it.number);
        if !is_answer && !it.trial.as_ref().is_some_and(|t| t.success) {
            self.message = Some("no answer to label: this iteration's trial run did not reach one".into());
            return;
        }
        self.overlay = Some(Box::new(TextBox::label(at)));
    }

    /// What a closed text box asks for.
    pub(super) fn text_box_closed(&mut self, closed: Closed) {
        match closed {
            Closed::Cancelled(why) => self.message = Some(why),
            Closed::Edited(request, edited) => self.edited(&request, edited),
            Closed::Label { at, right, reason } => self.review_label(&at, right, reason),
            Closed::Note { at, node_id, text, send_back } => {
                if let Err(why) = self.connect(false) {
                    self.message = Some(why.to_string());
                    return;
                }
                let from = at.clone();
                self.send(Command::Note { at, node_id, text }, "note added");
                if !send_back {
                    return;
                }
                if let Err(why) = self.connect(true) {
                    self.message = Some(format!("note added; not sent back: {why}"));
                    return;
                }
                self.follow_new_attempt(&from.question_id);
                let what = "note added and sent back: the builder gets the DAG, its findings and your note";
                self.send(Command::Fork { from }, what);
            }
        }
    }

    /// What the editor left: a changed DAG goes to the engine to be checked
    /// and trial-run as a new iteration by hand, shown once it arrives — or,
    /// from the inspector, the edited node runs on its own.
    pub fn edited(&mut self, request: &EditRequest, edited: Edited) {
        let text = match edited {
            Edited::Nothing(why) => {
                self.message = Some(why);
                return;
            }
            Edited::Changed(text) => text,
        };
        let from = request.from.clone();
        if let (AfterEdit::RunNode, EditTarget::Node(node_id)) = (request.then, &request.target) {
            let what = format!("running node {node_id} as edited, with the nodes feeding it");
            return self.send(Command::RunNode { at: from, node_id: node_id.clone(), code: Some(text) }, &what);
        }
        self.follow_new_attempt(&from.question_id);
        let what = format!("checking {} by hand: structural checks and a trial run, no LLM call", request.subject());
        self.send(Command::TryDag { from, edit: request.hand_edit(&text) }, &what);
    }

    /// Accept the selected iteration as the question's answer.
    pub(super) fn accept(&mut self) {
        let Some((at, attempt, it, _)) = self.selection() else { return };
        if it.dag.as_ref().is_none_or(|d| d.nodes.is_empty()) {
            self.message = Some("nothing to accept: this iteration has no DAG".into());
            return;
        }
        let is_answer = attempt.final_answer.is_some()
            && matches!(attempt.outcome, Some(Outcome::Passed | Outcome::FixedByHand))
            && attempt.iterations.last().is_some_and(|last| last.number == it.number);
        if is_answer {
            self.message = Some("this iteration is already the answer".into());
            return;
        }
        let draft = attempt.by_hand && attempt.outcome == Some(Outcome::Drafted);
        if let Err(why) = self.connect(false) {
            self.message = Some(why.to_string());
            return;
        }
        if !draft {
            self.follow_new_attempt(&at.question_id);
        }
        let what = format!(
            "accepting attempt {}, iteration {} by hand: executing and grading (counted apart from the model's passes)",
            at.attempt, at.iteration
        );
        self.send(Command::Accept { at }, &what);
    }

    /// Select the next attempt of `question_id` once it appears.
    fn follow_new_attempt(&mut self, question_id: &QuestionId) {
        let next = self.state.question(question_id).map_or(1, |q| q.last_attempt_number() + 1);
        self.awaiting_attempt = Some((question_id.clone(), next));
    }
}
