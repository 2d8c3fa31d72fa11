//! How the report's templates write a value: escaped for HTML by minijinja,
//! and — text from models and datasets being untrusted — every character
//! that reorders or hides the text around it shown as its code point
//! (`⟨U+202E⟩`), so a question, code or output cannot read otherwise than it is.

use minijinja::{AutoEscape, Error, Output, State, Value, escape_formatter};

use crate::text::{reorders_or_hides, show_hidden};

/// The report environment's formatter.
pub fn write_value(out: &mut Output, state: &mut State, value: &Value) -> Result<(), Error> {
    match value.as_str() {
        Some(text)
            if *state.auto_escape() == AutoEscape::Html
                && !value.is_safe()
                && !text.is_ascii()
                && text.chars().any(reorders_or_hides) =>
        {
            escape_formatter(out, state, &Value::from(show_hidden(text).into_owned()))
        }
        _ => escape_formatter(out, state, value),
    }
}
