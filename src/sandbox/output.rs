//! Bounds on what nodes return: display copies are truncated with a marker,
//! final answers are refused past a size limit.

use serde_json::Value;

/// Items of a list or dict kept in a display copy.
pub(super) const DISPLAY_ITEMS: usize = 50;
/// Characters of a string kept in a display copy.
const DISPLAY_CHARS: usize = 2000;
/// Largest final answer accepted, as serialised JSON.
pub const MAX_FINAL_ANSWER_BYTES: usize = 1 << 20;

/// Why a node's result cannot be taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutputError {
    /// The final answer exceeds [`MAX_FINAL_ANSWER_BYTES`].
    #[error(
        "the final answer is {size} bytes of JSON, more than the {MAX_FINAL_ANSWER_BYTES} allowed; return a summary, not the data"
    )]
    FinalAnswerTooLarge {
        /// Its size as serialised JSON, in bytes.
        size: usize,
    },
}

/// A copy of `value` small enough to show: long lists, dicts and strings are
/// cut, with a marker saying how much was left out.
pub fn truncate_for_display(value: &Value) -> Value {
    let total = match value {
        Value::Array(items) => items.len(),
        Value::Object(map) => map.len(),
        _ => 0,
    };
    display_of(value, total)
}

/// The display copy of `value`, a list or dict of `total` items in all of
/// which `value` may hold only the first (a worker cut it short), or any other
/// value (`total` unused).
pub(super) fn display_of(value: &Value, total: usize) -> Value {
    match value {
        Value::String(s) => display_string(s),
        Value::Array(items) => {
            let mut out: Vec<Value> = items.iter().take(DISPLAY_ITEMS).map(truncate_for_display).collect();
            mark_more_items(&mut out, total);
            Value::Array(out)
        }
        Value::Object(map) => {
            let mut out: serde_json::Map<String, Value> =
                map.iter().take(DISPLAY_ITEMS).map(|(k, v)| (k.clone(), truncate_for_display(v))).collect();
            mark_more_keys(&mut out, total);
            Value::Object(out)
        }
        other => other.clone(),
    }
}

/// The display copy of a string: cut past [`DISPLAY_CHARS`] with a marker.
pub(super) fn display_string(s: &str) -> Value {
    let count = s.chars().count();
    if count <= DISPLAY_CHARS {
        return Value::String(s.to_owned());
    }
    let kept: String = s.chars().take(DISPLAY_CHARS).collect();
    Value::String(format!("{kept}… [{} more characters]", count - DISPLAY_CHARS))
}

/// Close the display copy of a list of `total` items with its marker, if cut.
pub(super) fn mark_more_items(out: &mut Vec<Value>, total: usize) {
    if total > DISPLAY_ITEMS {
        out.push(Value::String(format!("… [{} more items]", total - DISPLAY_ITEMS)));
    }
}

/// Close the display copy of a dict of `total` keys with its marker, if cut.
pub(super) fn mark_more_keys(out: &mut serde_json::Map<String, Value>, total: usize) {
    if total > DISPLAY_ITEMS {
        out.insert("…".into(), Value::String(format!("[{} more keys]", total - DISPLAY_ITEMS)));
    }
}

/// Refuse a final answer larger than [`MAX_FINAL_ANSWER_BYTES`].
pub fn bound_final_answer(value: &Value) -> Result<(), OutputError> {
    let size = serde_json::to_vec(value).map(|v| v.len()).unwrap_or(usize::MAX);
    if size > MAX_FINAL_ANSWER_BYTES {
        return Err(OutputError::FinalAnswerTooLarge { size });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn long_values_are_cut_with_a_marker() {
        let list: Vec<i32> = (0..60).collect();
        let cut = truncate_for_display(&json!(list));
        assert_eq!(cut.as_array().unwrap().len(), 51);
        assert_eq!(cut[50], json!("… [10 more items]"));
        let text = "x".repeat(2005);
        assert!(truncate_for_display(&json!(text)).as_str().unwrap().ends_with("[5 more characters]"));
        assert_eq!(truncate_for_display(&json!({"a": 1})), json!({"a": 1}));
    }

    #[test]
    fn huge_final_answers_are_refused() {
        let refused = bound_final_answer(&json!("x".repeat(MAX_FINAL_ANSWER_BYTES + 1))).unwrap_err();
        assert_eq!(refused, OutputError::FinalAnswerTooLarge { size: MAX_FINAL_ANSWER_BYTES + 3 });
        assert_eq!(
            refused.to_string(),
            "the final answer is 1048579 bytes of JSON, more than the 1048576 allowed; return a summary, not the data"
        );
        assert!(bound_final_answer(&json!([1, 2, 3])).is_ok());
    }
}
