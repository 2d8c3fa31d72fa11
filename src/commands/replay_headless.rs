//! `eval-dag replay TRACE --headless`: fold the trace through the same reducer
//! the TUI uses, print its activity and summary.

use std::process::ExitCode;

use crate::run::RunState;

use super::headless::apply_and_describe;
use super::run::{exit_code, summary_line};

/// Print a trace's activity feed and summary; exit as the run would have.
pub fn replay(trace_path: &std::path::Path) -> anyhow::Result<ExitCode> {
    let trace = super::recorded::read_trace(trace_path)?;
    let mut state = RunState::default();
    trace.for_each(|record| {
        for text in apply_and_describe(&mut state, record.t_ms, &record.event) {
            say!("{text}");
        }
    })?;
    if trace.truncated_tail {
        eprintln!("note: the trace's last line was cut off (the run was interrupted); it was skipped");
    }
    if state.summary.is_none() {
        eprintln!("note: the trace ends before the run finished");
    }
    say!("{}", summary_line(&state));
    Ok(exit_code(&state))
}
