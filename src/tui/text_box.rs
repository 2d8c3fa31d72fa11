//! A text box over the screen, for what the user writes in the app itself:
//! a note on an iteration (their own critique, which may be sent back to the
//! builder), or a node's code / the whole DAG when no `$VISUAL`/`$EDITOR` is
//! set. The editing is `ratatui-textarea`'s; this module decides what the
//! box is for and what closing it means.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui_textarea::{TextArea, WrapMode};

use super::editing::{EditRequest, Edited};
use crate::domain::{IterationAt, NodeId};

/// What the box is for.
#[derive(Debug, Clone, PartialEq)]
pub enum Purpose {
    /// A note on an iteration.
    Note {
        /// The iteration.
        at: IterationAt,
        /// The selected node, which the note may be pinned to.
        node_id: Option<NodeId>,
        /// Whether the note is pinned to that node (else to the whole DAG).
        on_node: bool,
    },
    /// An edit of a node's code or of the whole DAG, in the app.
    Edit(EditRequest),
    /// A person's verdict on an iteration's answer, with a reason.
    Label {
        /// The iteration.
        at: IterationAt,
        /// Right, or wrong.
        right: bool,
    },
}

/// How the box closed.
#[derive(Debug, Clone, PartialEq)]
pub enum Closed {
    /// Cancelled: nothing to record (why, for the status line).
    Cancelled(String),
    /// A note to record, and whether to send the iteration back to the builder with it.
    Note {
        /// The iteration.
        at: IterationAt,
        /// The node it blames; none = the whole DAG.
        node_id: Option<NodeId>,
        /// The note.
        text: String,
        /// Fork from the iteration, the note among its findings.
        send_back: bool,
    },
    /// An edit ended, as an external editor's would.
    Edited(EditRequest, Edited),
    /// A label to record.
    Label {
        /// The iteration.
        at: IterationAt,
        /// Right, or wrong.
        right: bool,
        /// Why.
        reason: String,
    },
}

/// The open text box.
pub struct TextBox {
    /// What it is for.
    pub purpose: Purpose,
    /// The text being written.
    pub area: TextArea<'static>,
    /// The text it opened with (an unchanged edit records nothing).
    original: String,
}

impl TextBox {
    /// An empty note on `at`, pinned to `node_id` when there is one.
    pub fn note(at: IterationAt, node_id: Option<NodeId>) -> Self {
        let mut area = TextArea::default();
        area.set_wrap_mode(WrapMode::WordOrGlyph);
        area.set_placeholder_text("what is wrong, or what the builder should do instead");
        let on_node = node_id.is_some();
        Self { purpose: Purpose::Note { at, node_id, on_node }, area, original: String::new() }
    }

    /// A label of `at`'s answer: right, until Tab says wrong.
    pub fn label(at: IterationAt) -> Self {
        let mut area = TextArea::default();
        area.set_wrap_mode(WrapMode::WordOrGlyph);
        area.set_placeholder_text("why, in one line (how you checked it)");
        Self { purpose: Purpose::Label { at, right: true }, area, original: String::new() }
    }

    /// The in-app editor on what `request` edits.
    pub fn editor(request: EditRequest) -> Self {
        let original = request.original();
        let mut area = TextArea::new(original.lines().map(str::to_string).collect());
        area.set_hard_tab_indent(false);
        area.set_tab_length(4);
        Self { purpose: Purpose::Edit(request), area, original }
    }

    /// The box's title.
    pub fn title(&self) -> String {
        match &self.purpose {
            Purpose::Note { at, node_id, on_node } => {
                let target = match (node_id, on_node) {
                    (Some(id), true) => format!("node {id}"),
                    _ => "the whole DAG".into(),
                };
                format!(" your note on attempt {}, iteration {} · {target} ", at.attempt, at.iteration)
            }
            Purpose::Edit(request) => format!(" edit {} (no $EDITOR set) ", request.subject()),
            Purpose::Label { at, right } => format!(
                " the answer of attempt {}, iteration {} is {} ",
                at.attempt,
                at.iteration,
                if *right { "RIGHT" } else { "WRONG" }
            ),
        }
    }

    /// The keys the box answers to, for its last line.
    pub fn hints(&self) -> &'static str {
        match &self.purpose {
            Purpose::Note { node_id: Some(_), .. } => {
                "enter add note · ctrl-s add and send back · tab node / whole DAG · esc cancel"
            }
            Purpose::Note { .. } => "enter add note · ctrl-s add and send back to the builder · esc cancel",
            Purpose::Edit(_) => "ctrl-s save: check and trial-run · esc discard",
            Purpose::Label { .. } => "enter save the label · tab right / wrong · esc cancel",
        }
    }

    /// Whether the text wraps (a note) or scrolls sideways (code).
    pub fn wraps(&self) -> bool {
        !matches!(self.purpose, Purpose::Edit(_))
    }

    /// Handle a key; `Some` once the box closes.
    pub fn key(&mut self, key: KeyEvent) -> Option<Closed> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match (&mut self.purpose, key.code) {
            (_, KeyCode::Esc) => Some(Closed::Cancelled(match &self.purpose {
                Purpose::Note { .. } => "note cancelled: nothing recorded".into(),
                Purpose::Edit(request) => format!("edit of {} discarded: nothing recorded", request.subject()),
                Purpose::Label { .. } => "label cancelled: nothing recorded".into(),
            })),
            (Purpose::Label { right, .. }, KeyCode::Tab) => {
                *right = !*right;
                None
            }
            (Purpose::Label { at, right }, KeyCode::Enter) => {
                let reason = self.area.lines().join(" ").trim().to_string();
                if reason.is_empty() {
                    return Some(Closed::Cancelled("a label needs a reason: nothing recorded".into()));
                }
                Some(Closed::Label { at: at.clone(), right: *right, reason })
            }
            (Purpose::Note { .. }, KeyCode::Enter) => self.close_note(false),
            (Purpose::Note { .. }, KeyCode::Char('s')) if ctrl => self.close_note(true),
            (Purpose::Note { node_id: Some(_), on_node, .. }, KeyCode::Tab) => {
                *on_node = !*on_node;
                None
            }
            (Purpose::Edit(request), KeyCode::Char('s')) if ctrl => {
                let mut text = self.area.lines().join("\n");
                if self.original.ends_with('\n') {
                    text.push('\n');
                }
                let edited = if text == self.original {
                    Edited::Nothing(format!("{} unchanged: nothing recorded", request.subject()))
                } else {
                    Edited::Changed(text)
                };
                Some(Closed::Edited(request.clone(), edited))
            }
            _ => {
                self.area.input(key);
                None
            }
        }
    }

    fn close_note(&self, send_back: bool) -> Option<Closed> {
        let Purpose::Note { at, node_id, on_node } = &self.purpose else { return None };
        let text = self.area.lines().join("\n").trim().to_string();
        if text.is_empty() {
            return Some(Closed::Cancelled("empty note: nothing recorded".into()));
        }
        let node_id = node_id.clone().filter(|_| *on_node);
        Some(Closed::Note { at: at.clone(), node_id, text, send_back })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{AttemptAt, GeneratedDag};
    use crate::tui::editing::{AfterEdit, EditTarget};

    fn at() -> IterationAt {
        AttemptAt::new("q1", 1).iteration(2)
    }

    fn typed(text_box: &mut TextBox, text: &str) {
        for c in text.chars() {
            assert_eq!(text_box.key(KeyCode::Char(c).into()), None);
        }
    }

    #[test]
    fn a_note_is_pinned_to_the_node_until_tab_pins_it_to_the_dag() {
        let mut note = TextBox::note(at(), Some("rates".into()));
        typed(&mut note, "  use the median  ");
        assert_eq!(
            note.clone_closed(KeyCode::Enter.into()),
            Some(Closed::Note {
                at: at(),
                node_id: Some("rates".into()),
                text: "use the median".into(),
                send_back: false
            })
        );
        note.key(KeyCode::Tab.into());
        let ctrl_s = KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL);
        assert_eq!(
            note.key(ctrl_s),
            Some(Closed::Note { at: at(), node_id: None, text: "use the median".into(), send_back: true })
        );
    }

    #[test]
    fn an_empty_note_and_escape_record_nothing() {
        let mut note = TextBox::note(at(), None);
        typed(&mut note, "   ");
        assert!(matches!(note.key(KeyCode::Enter.into()), Some(Closed::Cancelled(_))));
        let mut note = TextBox::note(at(), None);
        typed(&mut note, "x");
        assert!(matches!(note.key(KeyCode::Esc.into()), Some(Closed::Cancelled(_))));
    }

    #[test]
    fn the_in_app_editor_saves_changes_and_records_nothing_unchanged() {
        let dag: GeneratedDag = serde_json::from_value(serde_json::json!({
            "question_id": "q1", "nodes": [{"node_id": "a", "layer": 0, "code": "def f(x):\n    return x\n",
            "function_name": "f", "inputs": {"x": "dataset.rows"}}], "edges": [], "final_answer_node": "a"}))
        .unwrap();
        let request = EditRequest { from: at(), dag, target: EditTarget::Node("a".into()), then: AfterEdit::TryDag };
        let ctrl_s = KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL);
        let mut unchanged = TextBox::editor(request.clone());
        assert!(matches!(unchanged.key(ctrl_s), Some(Closed::Edited(_, Edited::Nothing(_)))));
        let mut edited = TextBox::editor(request);
        typed(&mut edited, "# ");
        // Enter is a new line in code, not the end of the edit.
        assert_eq!(edited.key(KeyCode::Enter.into()), None);
        let Some(Closed::Edited(_, Edited::Changed(text))) = edited.key(ctrl_s) else { panic!("saved") };
        assert_eq!(text, "# \ndef f(x):\n    return x\n");
    }

    impl TextBox {
        /// `key` on a copy, leaving this box open.
        fn clone_closed(&self, key: KeyEvent) -> Option<Closed> {
            let mut copy =
                TextBox { purpose: self.purpose.clone(), area: self.area.clone(), original: self.original.clone() };
            copy.key(key)
        }
    }
}
