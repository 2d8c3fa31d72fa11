//! The scroll of a detail pane. Keys move the line the user asked for;
//! drawing — the only place a pane's lines are built — measures them, clamps
//! the scroll to them and resolves a pending jump to its anchor (the start of
//! the selected iteration, a schema field). The update step therefore never renders to know a pane's length.

use std::cell::Cell;

/// One pane's scroll: what was asked, and what the last frame measured.
#[derive(Debug, Default, Clone)]
pub struct Scroll {
    /// First line to show, as last asked for or placed by a frame.
    first: Cell<usize>,
    /// Lines the last frame drew (none before the first frame).
    measured: Cell<Option<usize>>,
    /// The next frame starts at the anchor (the selected iteration, a schema field).
    to_anchor: Cell<bool>,
}

impl Scroll {
    /// The first line shown.
    pub fn first(&self) -> usize {
        self.first.get()
    }

    /// Scroll `lines` down, no further than the last line the last frame drew.
    pub fn down(&mut self, lines: usize) {
        let next = self.first.get() + lines;
        let last = self.measured.get().map_or(usize::MAX, |n| n.saturating_sub(1));
        self.first.set(next.min(last));
    }

    /// Scroll `lines` up.
    pub fn up(&mut self, lines: usize) {
        self.first.set(self.first.get().saturating_sub(lines));
    }

    /// Back to the top.
    pub fn top(&mut self) {
        self.first.set(0);
        self.to_anchor.set(false);
    }

    /// The next frame shows the pane from its anchor (the selected
    /// iteration's first line, the schema's target field).
    pub fn jump_to_anchor(&mut self) {
        self.first.set(0);
        self.to_anchor.set(true);
    }

    /// For drawing: the pane has `lines` lines and its anchor is line
    /// `anchor()` (asked only when a jump is pending). Returns
    /// the first line to draw, and remembers the measurement.
    pub fn place(&self, lines: usize, anchor: impl FnOnce() -> usize) -> usize {
        if self.to_anchor.replace(false) {
            self.first.set(anchor());
        }
        let first = self.first.get().min(lines.saturating_sub(1));
        self.first.set(first);
        self.measured.set(Some(lines));
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drawing_clamps_and_keys_stop_at_the_last_measured_line() {
        let mut scroll = Scroll::default();
        scroll.down(50);
        assert_eq!(scroll.first(), 50, "nothing measured yet: as asked");
        assert_eq!(scroll.place(20, || unreachable!()), 19, "a frame clamps to its content");
        scroll.down(5);
        assert_eq!(scroll.first(), 19, "keys stop at the last line drawn");
        scroll.up(25);
        assert_eq!(scroll.first(), 0);
    }

    #[test]
    fn a_jump_to_the_iteration_is_resolved_by_the_next_frame_only() {
        let mut scroll = Scroll::default();
        scroll.jump_to_anchor();
        assert_eq!(scroll.place(100, || 42), 42);
        assert_eq!(scroll.place(100, || 7), 42, "the jump happens once");
        scroll.jump_to_anchor();
        assert_eq!(scroll.place(30, || 42), 29, "an anchor past the end is clamped");
        scroll.jump_to_anchor();
        scroll.top();
        assert_eq!(scroll.place(100, || 42), 0, "going to the top cancels a pending jump");
    }
}
