//! A recorded run read back: its trace indexed, and its state and recorded
//! responses folded in one pass.

/// Index the trace at `path` (its events are read as they are folded),
/// saying once on stderr what a trace of a newer version held that this
/// version skipped.
pub(super) fn read_trace(path: &std::path::Path) -> Result<crate::trace::TraceLines, crate::trace::TraceError> {
    let trace = crate::trace::TraceLines::read(path)?;
    if let Some(note) = trace.newer_version_note() {
        eprintln!("note: {note}");
    }
    Ok(trace)
}

/// The state at the end of `trace` and its recorded LLM responses, in one pass.
pub(super) fn fold_recorded(
    trace: &crate::trace::TraceLines,
) -> Result<(crate::run::RunState, crate::llm::ReplayClient), crate::trace::TraceError> {
    let mut recorded = crate::llm::ReplayClient::new(&trace.header.settings.model);
    let state = crate::report::fold_indexed(trace, |event| recorded.learn(event))?;
    Ok((state, recorded))
}
