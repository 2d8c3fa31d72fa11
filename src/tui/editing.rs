//! Editing a DAG by hand: one node's code, or the whole DAG as JSON, in the
//! user's editor (`$VISUAL`, then `$EDITOR`, as git does; with neither set,
//! in the app's own text box, `tui::text_box`). The UI
//! gives the terminal to the editor while it runs; what comes back becomes a
//! [`HandEdit`] for the engine to check and trial-run — or nothing, when the
//! file is unchanged or the editor failed.

use std::io::Write;
use std::process::Command as Process;

use crate::domain::{GeneratedDag, IterationAt, NodeId};
use crate::run::HandEdit;

/// What is being edited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditTarget {
    /// The code of the node with this id.
    Node(NodeId),
    /// The whole DAG, as JSON.
    Dag,
}

/// What becomes of a saved edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterEdit {
    /// The whole DAG is checked and trial-run as a new attempt by hand.
    TryDag,
    /// Only the edited node runs, with the nodes feeding it (from the inspector).
    RunNode,
}

/// An edit the user asked for: opened in the editor when the UI has let go
/// of the terminal.
#[derive(Debug, Clone, PartialEq)]
pub struct EditRequest {
    /// The iteration whose DAG is edited.
    pub from: IterationAt,
    /// Its DAG.
    pub dag: GeneratedDag,
    /// The node, or all of it.
    pub target: EditTarget,
    /// What the saved text is for.
    pub then: AfterEdit,
}

/// How an editor session ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Edited {
    /// The file was saved changed: this is what it holds.
    Changed(String),
    /// Nothing to record: the file is unchanged, or the editor failed (why).
    Nothing(String),
}

impl EditRequest {
    /// The text the editor opens with.
    pub fn original(&self) -> String {
        match &self.target {
            EditTarget::Node(id) => self.dag.node(id).map(|n| n.code.clone()).unwrap_or_default(),
            EditTarget::Dag => match serde_json::to_string_pretty(&self.dag) {
                Ok(text) => text + "\n",
                // Not JSON, so what the editor hands back is refused with this reason.
                Err(err) => format!("the DAG cannot be shown as JSON: {err}\n"),
            },
        }
    }

    /// The file name's ending, so the editor highlights it.
    fn suffix(&self) -> &'static str {
        match self.target {
            EditTarget::Node(_) => ".py",
            EditTarget::Dag => ".json",
        }
    }

    /// What was asked, in words (for messages).
    pub fn subject(&self) -> String {
        match &self.target {
            EditTarget::Node(id) => format!("node {id}"),
            EditTarget::Dag => "the DAG".into(),
        }
    }

    /// The DAG the saved `text` makes: the node's code replaced, or the whole
    /// DAG read from JSON (text that is no DAG is recorded as such, with why).
    pub fn hand_edit(&self, text: &str) -> HandEdit {
        match &self.target {
            EditTarget::Node(id) => {
                let mut dag = self.dag.clone();
                if let Some(node) = dag.nodes.iter_mut().find(|n| &n.node_id == id) {
                    node.code = text.to_string();
                }
                HandEdit::Dag { dag }
            }
            EditTarget::Dag => match serde_json::from_str::<GeneratedDag>(text) {
                Ok(dag) => HandEdit::Dag { dag },
                Err(err) => HandEdit::Unreadable { text: text.to_string(), error: err.to_string() },
            },
        }
    }

    /// The user's editor: `$VISUAL`, then `$EDITOR`; none means the in-app one.
    pub fn external_editor(&self) -> Option<String> {
        ["VISUAL", "EDITOR"].iter().find_map(|name| std::env::var(name).ok().filter(|v| !v.trim().is_empty()))
    }

    /// Open the external editor on the text and wait for it. The terminal
    /// must be the editor's meanwhile (see `tui::interact`).
    pub fn run_editor(&self) -> Edited {
        match self.external_editor() {
            Some(editor) => self.run(&editor),
            None => Edited::Nothing("no $VISUAL or $EDITOR set".into()),
        }
    }

    /// Open `editor` (a shell command, given the file's path) on the text and wait for it.
    fn run(&self, editor: &str) -> Edited {
        let original = self.original();
        let file = tempfile::Builder::new().prefix("eval-dag-edit-").suffix(self.suffix()).tempfile();
        let mut file = match file {
            Ok(file) => file,
            Err(err) => return Edited::Nothing(format!("cannot write the file to edit: {err}")),
        };
        if let Err(err) = file.write_all(original.as_bytes()).and_then(|()| file.flush()) {
            return Edited::Nothing(format!("cannot write the file to edit: {err}"));
        }
        // Through the shell, as git does: EDITOR may carry arguments ("code --wait").
        let status =
            Process::new("sh").arg("-c").arg(format!("{editor} \"$1\"")).arg("eval-dag").arg(file.path()).status();
        match status {
            Err(err) => Edited::Nothing(format!("cannot start the editor ({editor}): {err}")),
            Ok(status) if !status.success() => {
                Edited::Nothing(format!("the editor ({editor}) exited with {status}: nothing recorded"))
            }
            Ok(_) => match std::fs::read_to_string(file.path()) {
                Err(err) => Edited::Nothing(format!("cannot read the edited file: {err}")),
                Ok(text) if text == original => {
                    Edited::Nothing(format!("{} unchanged: nothing recorded", self.subject()))
                }
                Ok(text) => Edited::Changed(text),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::AttemptAt;

    fn request() -> EditRequest {
        let dag: GeneratedDag = serde_json::from_value(serde_json::json!({
            "nodes": [{"node_id": "a", "function_name": "f", "layer": 0, "code": "def f():\n    return 1\n"}],
            "final_answer_node": "a"}))
        .unwrap();
        EditRequest {
            from: AttemptAt::new("q", 1).iteration(1),
            dag,
            target: EditTarget::Node("a".into()),
            then: AfterEdit::TryDag,
        }
    }

    #[test]
    fn an_editor_that_fails_or_changes_nothing_records_nothing() {
        let failed = request().run("false");
        assert!(matches!(&failed, Edited::Nothing(why) if why.contains("exited with")), "{failed:?}");
        let unchanged = request().run("true");
        assert!(matches!(&unchanged, Edited::Nothing(why) if why.contains("unchanged")), "{unchanged:?}");
        let missing = request().run("/nonexistent/editor");
        assert!(matches!(missing, Edited::Nothing(_)), "a shell that cannot find the editor exits non-zero");
    }

    #[test]
    fn an_editor_that_saves_hands_back_the_text_with_arguments_kept() {
        let edited = request().run("sed -i 's/return 1/return 2/'");
        assert_eq!(edited, Edited::Changed("def f():\n    return 2\n".into()));
        let HandEdit::Dag { dag } = request().hand_edit("def f():\n    return 2\n") else { panic!("a DAG") };
        assert_eq!(dag.nodes[0].code, "def f():\n    return 2\n");
    }
}
