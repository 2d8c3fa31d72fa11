//! A JSON value as a tree to walk: containers open and close, every row says
//! its Python type and size, a search opens the way to each match. It stays
//! fast on big values — a container lists at most [`MAX_CHILDREN`] entries
//! and then says how many more there are, nesting is followed [`MAX_DEPTH`]
//! levels deep, walks use an explicit stack (no recursion), a search visits a
//! bounded number of values — and it never draws: the inspector screen does.

use std::collections::HashSet;

use serde_json::Value;

use crate::dataset::python_type_name;
use crate::text::plural;

/// Entries of one container listed before a "… N more" row.
pub const MAX_CHILDREN: usize = 500;
/// Nesting shown and searched at most (JSON from the sandbox is shallower).
pub const MAX_DEPTH: usize = 128;
/// Values a search visits at most.
const SEARCH_BUDGET: usize = 1_000_000;
/// Characters of a leaf's summary.
const SUMMARY_CHARS: usize = 80;

/// One step from a container to a child.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Step {
    /// A dict key.
    Key(String),
    /// A list index.
    Index(usize),
}

/// One visible row.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeRow {
    /// Nesting depth; 0 for the root.
    pub depth: usize,
    /// Steps from the root.
    pub path: Vec<Step>,
    /// The dict key, `[i]`, or the root's name; `… N more` for a cut container's tail.
    pub label: String,
    /// Python type name (`dict`, `list`, `str`, …); empty on a "more" row.
    pub kind: &'static str,
    /// Entries of a dict or list, characters of a string.
    pub size: Option<usize>,
    /// Whether a non-empty container is open (none for leaves).
    pub open: Option<bool>,
    /// A leaf's value as one line of JSON, cut; a container's count.
    pub summary: String,
}

/// The tree over a value, with the selection and the last search.
#[derive(Debug, Clone)]
pub struct ValueTree {
    root: Value,
    root_name: String,
    open: HashSet<Vec<Step>>,
    rows: Vec<TreeRow>,
    selected: usize,
    query: Option<String>,
    matches: Vec<Vec<Step>>,
    current_match: usize,
}

fn child<'v>(value: &'v Value, step: &Step) -> Option<&'v Value> {
    match (value, step) {
        (Value::Object(map), Step::Key(key)) => map.get(key),
        (Value::Array(items), Step::Index(index)) => items.get(*index),
        _ => None,
    }
}

/// The first [`MAX_CHILDREN`] children of `value` with their steps.
fn children(value: &Value) -> Vec<(Step, &Value)> {
    match value {
        Value::Object(map) => map.iter().take(MAX_CHILDREN).map(|(k, v)| (Step::Key(k.clone()), v)).collect(),
        Value::Array(items) => items.iter().take(MAX_CHILDREN).enumerate().map(|(i, v)| (Step::Index(i), v)).collect(),
        _ => Vec::new(),
    }
}

fn entries(value: &Value) -> Option<usize> {
    match value {
        Value::Object(map) => Some(map.len()),
        Value::Array(items) => Some(items.len()),
        Value::String(text) => Some(text.chars().count()),
        _ => None,
    }
}

fn summary(value: &Value) -> String {
    match value {
        Value::Object(map) => format!("{{{}}}", plural(map.len(), "key")),
        Value::Array(items) => format!("[{}]", plural(items.len(), "item")),
        leaf => {
            let text = leaf.to_string();
            match text.char_indices().nth(SUMMARY_CHARS) {
                Some((cut, _)) => format!("{}…", &text[..cut]),
                None => text,
            }
        }
    }
}

impl ValueTree {
    /// The tree over `root`, called `root_name` in paths; the root is open.
    pub fn new(root: Value, root_name: &str) -> Self {
        let mut tree = Self {
            root,
            root_name: root_name.to_string(),
            open: HashSet::from([Vec::new()]),
            rows: Vec::new(),
            selected: 0,
            query: None,
            matches: Vec::new(),
            current_match: 0,
        };
        tree.rebuild();
        tree
    }

    /// The visible rows.
    pub fn rows(&self) -> &[TreeRow] {
        &self.rows
    }

    /// Index of the selected row.
    pub fn selected(&self) -> usize {
        self.selected
    }

    /// Move the selection `n` rows down.
    pub fn down(&mut self, n: usize) {
        self.selected = (self.selected + n).min(self.rows.len().saturating_sub(1));
    }

    /// Move the selection `n` rows up.
    pub fn up(&mut self, n: usize) {
        self.selected = self.selected.saturating_sub(n);
    }

    /// Open or close the selected container.
    pub fn toggle(&mut self) {
        let Some(row) = self.rows.get(self.selected) else { return };
        if row.open.is_some() {
            let path = row.path.clone();
            if !self.open.remove(&path) {
                self.open.insert(path);
            }
            self.rebuild();
        }
    }

    /// Open the selected container, or step into it when it is open.
    pub fn expand(&mut self) {
        match self.rows.get(self.selected).and_then(|row| row.open) {
            Some(false) => self.toggle(),
            Some(true) => self.down(1),
            None => {}
        }
    }

    /// Open every container on the way to the first [`MAX_CHILDREN`] rows' depth.
    pub fn expand_all(&mut self) {
        let mut stack: Vec<(Vec<Step>, &Value)> = vec![(Vec::new(), &self.root)];
        let mut opened = 0;
        while let Some((path, value)) = stack.pop() {
            if path.len() >= MAX_DEPTH || opened >= MAX_CHILDREN * 10 {
                continue;
            }
            let inner = children(value);
            if inner.is_empty() {
                continue;
            }
            opened += 1;
            for (step, child) in inner.into_iter().rev() {
                let mut next = path.clone();
                next.push(step);
                stack.push((next, child));
            }
            self.open.insert(path);
        }
        self.rebuild();
    }

    /// Close the selected container, or go to the parent.
    pub fn collapse(&mut self) {
        let Some(row) = self.rows.get(self.selected) else { return };
        if row.open == Some(true) {
            return self.toggle();
        }
        let (depth, parent) = (row.depth, row.path.len().saturating_sub(1));
        if depth > 0 {
            let parent = row.path[..parent].to_vec();
            self.select_path(&parent);
        }
    }

    /// The value of the selected row (the root for a "more" row's container).
    pub fn selected_value(&self) -> &Value {
        let path = self.rows.get(self.selected).map_or(&[][..], |row| &row.path[..]);
        path.iter().try_fold(&self.root, |value, step| child(value, step)).unwrap_or(&self.root)
    }

    /// The selected row's path as Python, e.g. `output["rows"][3]`.
    pub fn selected_path_text(&self) -> String {
        let mut text = self.root_name.clone();
        for step in self.rows.get(self.selected).map_or(&[][..], |row| &row.path[..]) {
            match step {
                Step::Key(key) => text.push_str(&format!("[{}]", Value::String(key.clone()))),
                Step::Index(index) => text.push_str(&format!("[{index}]")),
            }
        }
        text
    }

    /// The last search's text.
    pub fn query(&self) -> Option<&str> {
        self.query.as_deref()
    }

    /// `(current, total)` matches of the last search, 1-based.
    pub fn match_position(&self) -> Option<(usize, usize)> {
        (!self.matches.is_empty()).then(|| (self.current_match + 1, self.matches.len()))
    }

    /// Find `query` (case-insensitive) in keys and leaf values, open the way
    /// to the first match and select it; the number of matches.
    pub fn search(&mut self, query: &str) -> usize {
        let needle = query.to_lowercase();
        self.query = Some(query.to_string());
        self.matches.clear();
        self.current_match = 0;
        if needle.is_empty() {
            return 0;
        }
        let hit = |text: &str| text.to_lowercase().contains(&needle);
        let mut stack: Vec<(Vec<Step>, &Value)> = vec![(Vec::new(), &self.root)];
        let mut visited = 0;
        while let Some((path, value)) = stack.pop() {
            visited += 1;
            if visited > SEARCH_BUDGET {
                break;
            }
            let key_hit = matches!(path.last(), Some(Step::Key(key)) if hit(key));
            let leaf_hit = match value {
                Value::String(text) => hit(text),
                Value::Object(_) | Value::Array(_) => false,
                leaf => hit(&leaf.to_string()),
            };
            if key_hit || leaf_hit {
                self.matches.push(path.clone());
            }
            if path.len() >= MAX_DEPTH {
                continue;
            }
            for (step, child) in children(value).into_iter().rev() {
                let mut next = path.clone();
                next.push(step);
                stack.push((next, child));
            }
        }
        self.show_match();
        self.matches.len()
    }

    /// Select the next match (wrapping); false when there is none.
    pub fn search_next(&mut self) -> bool {
        self.step_match(1)
    }

    /// Select the previous match (wrapping); false when there is none.
    pub fn search_previous(&mut self) -> bool {
        self.step_match(self.matches.len().saturating_sub(1))
    }

    fn step_match(&mut self, by: usize) -> bool {
        if self.matches.is_empty() {
            return false;
        }
        self.current_match = (self.current_match + by) % self.matches.len();
        self.show_match();
        true
    }

    fn show_match(&mut self) {
        let Some(path) = self.matches.get(self.current_match).cloned() else { return };
        for depth in 0..path.len() {
            self.open.insert(path[..depth].to_vec());
        }
        self.rebuild();
        self.select_path(&path);
    }

    fn select_path(&mut self, path: &[Step]) {
        if let Some(index) = self.rows.iter().position(|row| row.path == path) {
            self.selected = index;
        }
    }

    /// Lay out the visible rows again (after opening or closing).
    fn rebuild(&mut self) {
        let mut rows = Vec::new();
        let mut stack: Vec<(Vec<Step>, String, &Value)> = vec![(Vec::new(), self.root_name.clone(), &self.root)];
        while let Some((path, label, value)) = stack.pop() {
            let container = path.len() < MAX_DEPTH
                && (matches!(value, Value::Object(m) if !m.is_empty())
                    || matches!(value, Value::Array(a) if !a.is_empty()));
            let open = container.then(|| self.open.contains(&path));
            rows.push(TreeRow {
                depth: path.len(),
                path: path.clone(),
                label,
                kind: python_type_name(value),
                size: entries(value),
                open,
                summary: summary(value),
            });
            if open != Some(true) {
                continue;
            }
            let total = entries(value).unwrap_or(0);
            if total > MAX_CHILDREN {
                // Pushed first, so it comes out last: after the listed children.
                stack.push((path.clone(), format!("… {} more", total - MAX_CHILDREN), &Value::Null));
            }
            for (step, child) in children(value).into_iter().rev() {
                let label = match &step {
                    Step::Key(key) => key.clone(),
                    Step::Index(index) => format!("[{index}]"),
                };
                let mut next = path.clone();
                next.push(step);
                stack.push((next, label, child));
            }
        }
        // A "more" row carries its container's path: mark it by its label.
        for row in rows.iter_mut().filter(|r| r.label.starts_with("… ") && r.kind == "None") {
            row.kind = "";
            row.size = None;
            row.summary = String::new();
            row.depth += 1;
        }
        self.rows = rows;
        self.selected = self.selected.min(self.rows.len().saturating_sub(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn labels(tree: &ValueTree) -> Vec<String> {
        tree.rows().iter().map(|r| format!("{}{}", "  ".repeat(r.depth), r.label)).collect()
    }

    #[test]
    fn rows_open_close_and_say_type_and_size() {
        let mut tree = ValueTree::new(json!({"rows": [{"amt": 1.5, "n": 2}], "name": "a\nb", "empty": []}), "output");
        assert_eq!(labels(&tree), ["output", "  rows", "  name", "  empty"]);
        let kinds: Vec<_> = tree.rows().iter().map(|r| (r.kind, r.size, r.open)).collect();
        assert_eq!(kinds[1..], [("list", Some(1), Some(false)), ("str", Some(3), None), ("list", Some(0), None)]);
        assert_eq!(tree.rows()[2].summary, "\"a\\nb\"", "a string's summary is one line");
        tree.down(1);
        tree.expand();
        tree.expand();
        tree.expand();
        assert_eq!(labels(&tree), ["output", "  rows", "    [0]", "      amt", "      n", "  name", "  empty"]);
        tree.down(1);
        assert_eq!((tree.rows()[tree.selected()].kind, tree.selected_value()), ("float", &json!(1.5)));
        assert_eq!(tree.selected_path_text(), "output[\"rows\"][0][\"amt\"]");
        tree.collapse();
        assert_eq!(tree.rows()[tree.selected()].label, "[0]", "collapse on a leaf goes to its parent");
        tree.collapse();
        tree.collapse();
        assert_eq!(tree.rows()[tree.selected()].label, "rows");
        tree.collapse();
        assert_eq!(labels(&tree), ["output", "  rows", "  name", "  empty"]);
        tree.down(99);
        assert_eq!(tree.selected(), 3);
        tree.up(99);
        assert_eq!(tree.selected(), 0);
    }

    #[test]
    fn a_huge_list_lists_its_first_entries_then_says_how_many_more() {
        let mut tree = ValueTree::new(json!({"big": (0..200_000).collect::<Vec<_>>()}), "output");
        tree.down(1);
        tree.toggle();
        assert_eq!(tree.rows().len(), 2 + MAX_CHILDREN + 1);
        let last = tree.rows().last().unwrap();
        assert_eq!((last.label.as_str(), last.kind, last.depth), ("… 199500 more", "", 2));
    }

    #[test]
    fn deep_nesting_neither_overflows_nor_hangs() {
        let mut value = json!(1);
        for _ in 0..10_000 {
            value = Value::Array(vec![value]);
        }
        let mut tree = ValueTree::new(value, "x");
        assert_eq!(tree.search("1"), 0, "the leaf lies deeper than shown");
        assert_eq!(tree.search("[1 item]"), 0, "containers match by key only");
        tree.expand_all();
        assert_eq!(tree.rows().len(), MAX_DEPTH + 1);
        assert_eq!(tree.rows().last().unwrap().open, None, "the deepest row shown does not open");
        // Dropping a deep value recurses in serde_json: leave it to a thread with room.
        std::thread::Builder::new().stack_size(64 << 20).spawn(move || drop(tree)).unwrap().join().unwrap();
    }

    #[test]
    fn search_opens_the_way_to_each_match_and_wraps() {
        let value = json!({"a": {"inner": {"precipitation": 3}}, "b": ["rain", "Precip note"], "c": 5});
        let mut tree = ValueTree::new(value, "output");
        assert_eq!(tree.search("PRECIP"), 2, "keys and values, any case");
        assert_eq!(tree.selected_path_text(), "output[\"a\"][\"inner\"][\"precipitation\"]");
        assert_eq!(tree.match_position(), Some((1, 2)));
        assert!(tree.search_next());
        assert_eq!(tree.selected_path_text(), "output[\"b\"][1]");
        assert!(tree.search_next());
        assert_eq!(tree.match_position(), Some((1, 2)), "wraps around");
        assert!(tree.search_previous());
        assert_eq!(tree.match_position(), Some((2, 2)));
        let before = tree.selected();
        assert_eq!(tree.search("snow"), 0);
        assert_eq!(tree.selected(), before, "no match leaves the selection");
        assert!(!tree.search_next());
    }
}
