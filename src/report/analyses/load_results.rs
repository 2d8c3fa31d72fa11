//! Reading a finished run back: either its `eval_results.json` or its trace
//! (folded through the reducer into the same results document).

use std::path::Path;

use anyhow::Context;
use serde_json::Value;
use serde_json::error::Category;

use crate::run::{EngineEvent, RunState};
use crate::trace::{Trace, TraceError, TraceLines};

use super::write_results::eval_results;
use crate::report::documents::EvalResults;

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

/// The run state at the end of the trace `lines` indexes, its events parsed
/// as they are folded (never all held at once); `each` sees every event first.
pub fn fold_indexed(lines: &TraceLines, mut each: impl FnMut(&EngineEvent)) -> Result<RunState, TraceError> {
    let mut state = RunState::default();
    lines.for_each(|record| {
        each(&record.event);
        state.apply_owned(record.t_ms, record.event);
    })?;
    Ok(state)
}

/// The results document of a results file or a trace.
pub fn load_results(path: &Path) -> anyhow::Result<EvalResults> {
    if is_trace(path) {
        let trace = TraceLines::read(path)?;
        return Ok(eval_results(&fold_indexed(&trace, |_| {})?, &trace.header.created_at));
    }
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).map_err(|err| {
        let what = match err.classify() {
            Category::Data => "is not an eval_results.json file",
            _ => "is neither a trace nor a results JSON file",
        };
        anyhow::Error::new(err).context(format!("{} {what}", path.display()))
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::report::documents::ReferenceRole;
    use crate::report::test_run::run_with_one_pass_and_one_exhausted;

    #[test]
    fn results_files_of_earlier_versions_load() {
        let dir = tempfile::tempdir().unwrap();
        let mut old = serde_json::to_value(eval_results(&run_with_one_pass_and_one_exhausted(), "t")).unwrap();
        // The first eval_results.json had no grading, grades, correct or narrative.
        old["summary"].as_object_mut().unwrap().remove("grading");
        for level in old["difficulty_breakdown"].as_object_mut().unwrap().values_mut() {
            level.as_object_mut().unwrap().remove("grading");
        }
        for result in old["detailed_results"].as_array_mut().unwrap() {
            for field in ["grades", "correct", "narrative", "question_text"] {
                result.as_object_mut().unwrap().remove(field);
            }
        }
        for key in ["successful_executions", "execution_failures", "critic_loop_exhausted"] {
            old["summary"].as_object_mut().unwrap().remove(key);
        }
        // Before the reference's keys, conversation_log held every exchange, with its call.
        for trace in old["question_traces"].as_array_mut().unwrap() {
            let trace = trace.as_object_mut().unwrap();
            let exchanges = trace.remove("llm_exchanges").unwrap();
            trace.insert("conversation_log".into(), exchanges);
            let reference = ["question_text", "difficulty", "difficulty_rank", "total_iterations", "success"];
            let more = ["final_answer", "execution_error", "execution_time_ms", "node_outputs"];
            for key in reference.iter().chain(&more) {
                trace.remove(*key);
            }
        }
        let path = dir.path().join("eval_results.json");
        std::fs::write(&path, old.to_string()).unwrap();
        let doc = load_results(&path).unwrap();
        assert_eq!(doc.summary.grading.accuracy, None);
        assert!(doc.detailed_results[0].grades.is_empty() && doc.detailed_results[0].correct.is_none());
        assert_eq!(doc.question_traces[0].iterations[0].dag.as_ref().unwrap().nodes[0].node_id, "a");
        assert!(doc.question_traces[0].conversation_log.iter().all(|e| e.role == ReferenceRole::Earlier));
    }

    #[test]
    fn other_files_are_one_line_errors_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("other.json");
        for (text, says) in [
            ("garbage", "is neither a trace nor a results JSON file: expected value at line 1 column 1"),
            ("{\"detailed_results\": []}", "is not an eval_results.json file: missing field `summary`"),
            (
                "\"text\"",
                "is not an eval_results.json file: invalid type: string \"text\", expected struct EvalResults",
            ),
        ] {
            std::fs::write(&path, text).unwrap();
            let message = format!("{:#}", load_results(&path).unwrap_err());
            assert!(message.starts_with(&path.display().to_string()) && message.contains(says), "{message}");
            assert!(!message.contains('\n'), "{message}");
        }
        std::fs::write(&path, json!({"summary": {"total_questions": "ten"}}).to_string()).unwrap();
        let message = format!("{:#}", load_results(&path).unwrap_err());
        assert!(message.contains("invalid type: string \"ten\", expected usize at line 1"), "{message}");
    }
}
