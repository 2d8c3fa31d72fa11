//! Lenient extraction of a JSON object from an LLM reply: code fences, prose
//! around the object and trailing commas are tolerated; the result is then
//! validated strictly into model types by the caller.

use serde_json::Value;

/// Characters of a reply quoted when it holds no JSON object.
const QUOTED_CHARS: usize = 80;

/// Why an LLM reply yields no JSON object.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    /// There is no `{…}` in the reply.
    #[error("the reply holds no JSON object (it starts: {start:?})")]
    NoObject {
        /// The reply's first characters, trimmed.
        start: String,
    },
    /// The first `{…}` is not JSON, even without trailing commas.
    #[error("the reply's JSON object does not parse: {source}")]
    Malformed {
        /// The parser's error (on the object with trailing commas removed).
        source: serde_json::Error,
    },
}

/// Remove commas that directly precede `}` or `]` (outside strings).
fn strip_trailing_commas(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        if c == '"' {
            in_string = true;
        } else if c == ',' {
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}') | Some(']')) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// The byte range of the first balanced `{…}` in `text`, if any.
fn first_object(text: &str) -> Option<&str> {
    let start = text.find('{')?;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (offset, c) in text[start..].char_indices() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[start..start + offset + 1]);
                }
            }
            _ => {}
        }
    }
    None
}

/// Parse the JSON object in an LLM reply, or say in one line why not.
pub fn extract_json_object(reply: &str) -> Result<Value, ExtractError> {
    let trimmed = reply.trim();
    if let Ok(value @ Value::Object(_)) = serde_json::from_str::<Value>(trimmed) {
        return Ok(value);
    }
    let candidate = first_object(trimmed)
        .ok_or_else(|| ExtractError::NoObject { start: trimmed.chars().take(QUOTED_CHARS).collect() })?;
    serde_json::from_str::<Value>(candidate)
        .or_else(|_| serde_json::from_str::<Value>(&strip_trailing_commas(candidate)))
        .map_err(|source| ExtractError::Malformed { source })
}

/// The answer in a baseline call's reply (`{"answer": …}`, read as leniently
/// as any reply); a reply with no JSON object is its own answer, as text.
/// None for an empty reply or an object without `answer`.
pub fn baseline_answer(reply: &str) -> Option<Value> {
    match extract_json_object(reply) {
        Ok(Value::Object(mut object)) => object.remove("answer"),
        Ok(_) | Err(ExtractError::Malformed { .. }) => None,
        Err(ExtractError::NoObject { .. }) => {
            let text = reply.trim();
            (!text.is_empty()).then(|| Value::String(text.to_string()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plain_object() {
        assert_eq!(extract_json_object(r#" {"a": 1} "#).unwrap(), json!({"a": 1}));
    }

    #[test]
    fn fenced_with_prose_and_trailing_commas() {
        let reply = "Here is the DAG:\n```json\n{\"a\": [1, 2,], \"b\": {\"c\": \"}\",},}\n```\nDone.";
        assert_eq!(extract_json_object(reply).unwrap(), json!({"a": [1, 2], "b": {"c": "}"}}));
    }

    #[test]
    fn braces_inside_strings_do_not_confuse_the_scan() {
        let reply = r#"x {"code": "def f(d):\n    return {k: 1 for k in d}"} y"#;
        assert_eq!(extract_json_object(reply).unwrap()["code"], json!("def f(d):\n    return {k: 1 for k in d}"));
    }

    #[test]
    fn no_object_is_a_clear_error() {
        let err = extract_json_object("I cannot help with that.").unwrap_err();
        assert!(matches!(&err, ExtractError::NoObject { start } if start == "I cannot help with that."), "{err}");
        assert_eq!(err.to_string(), "the reply holds no JSON object (it starts: \"I cannot help with that.\")");
        let err = extract_json_object("{\"a\": }").unwrap_err();
        assert!(matches!(err, ExtractError::Malformed { .. }), "{err}");
        assert!(err.to_string().starts_with("the reply's JSON object does not parse: "), "{err}");
    }

    #[test]
    fn a_baseline_reply_gives_its_answer_field_or_its_text() {
        assert_eq!(baseline_answer("Sure:\n```json\n{\"answer\": 42.5,}\n```"), Some(json!(42.5)));
        assert_eq!(baseline_answer("  Paris \n"), Some(json!("Paris")));
        assert_eq!(baseline_answer("{\"answr\": 1}"), None, "an object without the field answers nothing");
        assert_eq!(baseline_answer("{\"answer\": }"), None);
        assert_eq!(baseline_answer("   "), None);
    }
}
