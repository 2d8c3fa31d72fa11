//! Reading a finished run back: either its `eval_results.json` or its trace
//! (folded through the reducer into the same results document).

use std::path::Path;

use anyhow::Context;
use serde_json::Value;

use crate::run::RunState;
use crate::trace::Trace;

use super::results_json;

/// Whether `path` looks like a trace (its first line is a trace header).
pub fn is_trace(path: &Path) -> bool {
    use std::io::BufRead;
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut first = String::new();
    if std::io::BufReader::new(file).read_line(&mut first).is_err() {
        return false;
    }
    serde_json::from_str::<Value>(&first)
        .ok()
        .and_then(|v| v.get("format").and_then(Value::as_str).map(|f| f == crate::trace::TRACE_FORMAT))
        .unwrap_or(false)
}

/// The run state at the end of `trace`.
pub fn fold_trace(trace: &Trace) -> RunState {
    let mut state = RunState::default();
    for record in &trace.records {
        state.apply(record.t_ms, &record.event);
    }
    state
}

/// The results document of a results file or a trace.
pub fn load_results(path: &Path) -> anyhow::Result<Value> {
    if is_trace(path) {
        let trace = Trace::read(path)?;
        return Ok(results_json(&fold_trace(&trace), &trace.header.created_at));
    }
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let value: Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is neither a trace nor a results JSON file", path.display()))?;
    if value.get("detailed_results").and_then(Value::as_array).is_none() {
        anyhow::bail!("{} has no \"detailed_results\" list: not an eval_results.json file", path.display());
    }
    Ok(value)
}
