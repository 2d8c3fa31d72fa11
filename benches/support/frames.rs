//! The one way the benchmarks time the TUI's frames.
#![allow(dead_code)]

use std::time::Instant;

use eval_dag::tui::{App, draw};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// Median time (ms) of `frames` frames of `app` at `width`×`height`.
pub fn frames_at(app: &App, width: u16, height: u16, frames: usize) -> f64 {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    let times = (0..frames)
        .map(|_| {
            let t = Instant::now();
            terminal.draw(|f| draw(f, app)).unwrap();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    super::measure::median(times)
}
