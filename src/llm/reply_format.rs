//! How an OpenAI-compatible request asks for a reply's shape
//! (`response_format`), and the steps down a server that refuses one goes:
//!
//! 1. `json_schema` with the reply's schema (OpenAI, vLLM, Ollama, llama.cpp's
//!    `llama-server`); `strict` where the schema can be strict;
//! 2. `json_object` with the schema beside it (`schema`), as llama-cpp-python's
//!    server takes it;
//! 3. `json_object` alone (JSON mode);
//! 4. nothing: the prompt alone describes the reply.
//!
//! `structured = "schema"` starts at 1, `"json"` at 3, `"off"` at 4. The
//! `json_object` forms are sent only when a message says "JSON" (OpenAI
//! refuses them otherwise).

use std::sync::Mutex;

use serde_json::{Value, json};

use crate::domain::{ReplySchema, StructuredOutput};

/// One way of asking for the reply's shape, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum ReplyFormat {
    /// `{type: json_schema, json_schema: {name, schema, strict}}`.
    JsonSchema,
    /// `{type: json_object, schema}`.
    JsonObjectWithSchema,
    /// `{type: json_object}`.
    JsonObject,
    /// No `response_format`.
    Off,
}

impl ReplyFormat {
    /// Where `level` starts.
    pub fn first(level: StructuredOutput) -> Self {
        match level {
            StructuredOutput::Schema => Self::JsonSchema,
            StructuredOutput::Json => Self::JsonObject,
            StructuredOutput::Off => Self::Off,
        }
    }

    /// The next form down.
    fn next(self) -> Self {
        match self {
            Self::JsonSchema => Self::JsonObjectWithSchema,
            Self::JsonObjectWithSchema => Self::JsonObject,
            Self::JsonObject | Self::Off => Self::Off,
        }
    }

    /// How the form is named in messages.
    pub fn describe(self) -> &'static str {
        match self {
            Self::JsonSchema => "a json_schema response_format",
            Self::JsonObjectWithSchema => "a json_object response_format with its schema",
            Self::JsonObject => "a json_object response_format",
            Self::Off => "no response_format",
        }
    }

    /// The `response_format` of a request for a reply of `schema` whose
    /// messages say JSON when `says_json`; `None` when this form sends none.
    pub fn field(self, schema: &ReplySchema, says_json: bool) -> Option<Value> {
        match self {
            Self::JsonSchema => {
                let strict = schema.strict();
                let strict_flag = strict.is_some();
                let body = strict.unwrap_or_else(|| schema.schema().clone());
                Some(json!({"type": "json_schema",
                    "json_schema": {"name": schema.name(), "schema": body, "strict": strict_flag}}))
            }
            Self::JsonObjectWithSchema if says_json => Some(json!({"type": "json_object", "schema": schema.schema()})),
            Self::JsonObject if says_json => Some(json!({"type": "json_object"})),
            _ => None,
        }
    }
}

/// The form a client asks with now, lowered for the rest of the run when a
/// server refuses it.
#[derive(Debug)]
pub(super) struct ReplyFormats(Mutex<ReplyFormat>);

impl ReplyFormats {
    /// Starting at `level`.
    pub fn new(level: StructuredOutput) -> Self {
        Self(Mutex::new(ReplyFormat::first(level)))
    }

    /// The form to send now.
    pub fn current(&self) -> ReplyFormat {
        *self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// `refused` was refused: the form below it from now on (once, however
    /// many calls sent `refused` at the same time). The form now in force.
    pub fn step_down(&self, refused: ReplyFormat) -> ReplyFormat {
        let mut current = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if *current == refused {
            *current = refused.next();
        }
        *current
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::GeneratedDag;

    #[test]
    fn a_refused_form_steps_down_once_whoever_else_refused_it() {
        let formats = ReplyFormats::new(StructuredOutput::Schema);
        assert_eq!(formats.step_down(ReplyFormat::JsonSchema), ReplyFormat::JsonObjectWithSchema);
        assert_eq!(formats.step_down(ReplyFormat::JsonSchema), ReplyFormat::JsonObjectWithSchema, "no double step");
        assert_eq!(formats.step_down(ReplyFormat::JsonObjectWithSchema), ReplyFormat::JsonObject);
        assert_eq!(formats.step_down(ReplyFormat::JsonObject), ReplyFormat::Off);
        assert_eq!(ReplyFormats::new(StructuredOutput::Json).current(), ReplyFormat::JsonObject);
    }

    #[test]
    fn a_dag_schema_is_sent_whole_and_not_strict() {
        let schema = ReplySchema::of::<GeneratedDag>("dag");
        let field = ReplyFormat::JsonSchema.field(&schema, false).unwrap();
        assert_eq!(field["json_schema"]["name"], "dag");
        assert_eq!(field["json_schema"]["strict"], false);
        assert_eq!(&field["json_schema"]["schema"], schema.schema());
        assert_eq!(ReplyFormat::JsonObject.field(&schema, false), None, "json_object needs the word JSON");
        let with_schema = ReplyFormat::JsonObjectWithSchema.field(&schema, true).unwrap();
        assert_eq!((&with_schema["type"], &with_schema["schema"]), (&json!("json_object"), schema.schema()));
    }
}
