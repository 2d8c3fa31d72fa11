//! Structured outputs: the JSON Schema of a reply, generated from the Rust type
//! the reply is read into (one source of truth), and how much of it a role
//! asks the server to enforce.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// How a role asks for its JSON replies (`[roles.<name>] structured`,
/// `--structured`). A server that refuses one steps down to the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StructuredOutput {
    /// Nothing asked: the prompt alone describes the reply.
    Off,
    /// A JSON object (`response_format: json_object`).
    Json,
    /// The reply's JSON Schema (`json_schema`; Anthropic: a forced tool).
    #[default]
    Schema,
}

impl StructuredOutput {
    /// The next level down, after a server refused this one (`None` from `Off`).
    pub fn step_down(self) -> Option<Self> {
        match self {
            Self::Schema => Some(Self::Json),
            Self::Json => Some(Self::Off),
            Self::Off => None,
        }
    }

    /// The name used in the config file and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Json => "json",
            Self::Schema => "schema",
        }
    }
}

impl std::str::FromStr for StructuredOutput {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        [Self::Schema, Self::Json, Self::Off]
            .into_iter()
            .find(|level| level.name() == text)
            .ok_or_else(|| format!("{text:?} is not one of schema, json, off"))
    }
}

/// A reply that must be a JSON object of a known shape.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplySchema {
    name: &'static str,
    schema: Arc<Value>,
}

impl ReplySchema {
    /// The schema of `T`, named `name` (letters, digits, `_` and `-`: providers
    /// use it as a tool or schema name).
    /// A value of any shape (`serde_json::Value`) is spelled out as every
    /// JSON type, since grammar builders (llama-cpp-python's) refuse the empty
    /// schema and fall back to any JSON for the whole reply.
    pub fn of<T: JsonSchema>(name: &'static str) -> Self {
        let mut schema = schemars::schema_for!(T).to_value();
        if let Some(object) = schema.as_object_mut() {
            object.remove("$schema");
        }
        spell_out_any(&mut schema);
        Self { name, schema: Arc::new(schema) }
    }

    /// The schema's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The schema as generated (what servers that do not need strict schemas get).
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// The schema in the form OpenAI's strict mode takes — every object closed
    /// (`additionalProperties: false`) with every property required, and no
    /// keyword strict mode refuses (`default`, `format`) — or `None` when the
    /// schema cannot be strict: it holds a map (an object with free keys, as
    /// a DAG node's `inputs`) or a value of any shape.
    pub fn strict(&self) -> Option<Value> {
        let mut schema = (*self.schema).clone();
        make_strict(&mut schema).then_some(schema)
    }
}

/// Keywords that give a schema its shape.
const SHAPE_KEYWORDS: [&str; 9] = ["type", "$ref", "anyOf", "oneOf", "allOf", "enum", "const", "properties", "items"];

/// Every JSON type: a value of any shape.
const ANY_TYPE: [&str; 6] = ["string", "number", "boolean", "array", "object", "null"];

/// Give every shapeless sub-schema (`true`, `{}`, `{description}`) the explicit [`ANY_TYPE`].
fn spell_out_any(schema: &mut Value) {
    if *schema == Value::Bool(true) {
        *schema = Value::Object(Map::new());
    }
    let Some(object) = schema.as_object_mut() else { return };
    if !SHAPE_KEYWORDS.iter().any(|k| object.contains_key(*k)) {
        object.insert("type".into(), ANY_TYPE.iter().map(|t| Value::String((*t).into())).collect());
    }
    sub_schemas(object).for_each(spell_out_any);
}

/// Rewrite `schema` into strict form; false when it cannot be.
fn make_strict(schema: &mut Value) -> bool {
    let Some(object) = schema.as_object_mut() else {
        return false; // `true`: any value.
    };
    object.remove("default");
    object.remove("format");
    if object.contains_key("additionalProperties") && object["additionalProperties"] != Value::Bool(false) {
        return false;
    }
    let is_object = object.get("type").is_some_and(|t| t == "object") || object.contains_key("properties");
    if is_object {
        let Some(Value::Object(properties)) = object.get("properties") else {
            return false;
        };
        let required: Vec<Value> = properties.keys().map(|k| Value::String(k.clone())).collect();
        object.insert("required".into(), Value::Array(required));
        object.insert("additionalProperties".into(), Value::Bool(false));
    }
    let any_value = object.get("type").and_then(Value::as_array).is_some_and(|types| types.len() == ANY_TYPE.len());
    if any_value || !SHAPE_KEYWORDS.iter().any(|k| object.contains_key(*k)) {
        return false;
    }
    sub_schemas(object).all(make_strict)
}

/// The schemas nested in `object`: properties, items, alternatives, definitions.
fn sub_schemas(object: &mut Map<String, Value>) -> impl Iterator<Item = &mut Value> {
    object.iter_mut().flat_map(|(key, value)| -> Box<dyn Iterator<Item = &mut Value>> {
        match (key.as_str(), value) {
            ("properties" | "$defs" | "definitions", Value::Object(map)) => Box::new(map.values_mut()),
            ("items", item @ Value::Object(_)) => Box::new(std::iter::once(item)),
            ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(list)) => Box::new(list.iter_mut()),
            _ => Box::new(std::iter::empty()),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::GeneratedDag;

    #[derive(JsonSchema, Deserialize)]
    #[allow(dead_code)]
    struct Verdict {
        /// The verdict.
        verdict: String,
        #[serde(default)]
        reason: Option<String>,
        steps: Vec<Step>,
    }

    #[derive(JsonSchema, Deserialize)]
    #[allow(dead_code)]
    struct Step {
        #[serde(default)]
        count: u32,
    }

    #[test]
    fn a_closed_schema_becomes_strict_with_every_property_required() {
        let schema = ReplySchema::of::<Verdict>("verdict");
        assert_eq!(schema.schema().get("$schema"), None);
        let strict = schema.strict().expect("a closed shape can be strict");
        assert_eq!(strict["required"], serde_json::json!(["verdict", "reason", "steps"]));
        assert_eq!(strict["additionalProperties"], false);
        let step = &strict["$defs"]["Step"];
        assert_eq!(
            (step["required"].clone(), step["additionalProperties"].clone()),
            (serde_json::json!(["count"]), false.into())
        );
        assert!(!strict.to_string().contains("\"default\"") && !strict.to_string().contains("\"format\""));
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Answer {
        /// Any value.
        value: Option<Value>,
    }

    #[test]
    fn a_value_of_any_shape_is_spelled_out_and_cannot_be_strict() {
        let schema = ReplySchema::of::<Answer>("answer");
        let types = &schema.schema()["properties"]["value"]["type"];
        assert_eq!(types, &serde_json::json!(["string", "number", "boolean", "array", "object", "null"]));
        assert_eq!(schema.strict(), None);
    }

    #[test]
    fn a_dag_cannot_be_strict_for_its_inputs_map() {
        let schema = ReplySchema::of::<GeneratedDag>("dag");
        let node = &schema.schema()["$defs"]["DagNodeSpec"];
        assert_eq!(node["properties"]["inputs"]["additionalProperties"]["type"], "string");
        assert_eq!(schema.strict(), None);
    }

    #[test]
    fn levels_read_by_name_and_step_down_to_off() {
        assert_eq!("json".parse(), Ok(StructuredOutput::Json));
        assert_eq!("yes".parse::<StructuredOutput>(), Err("\"yes\" is not one of schema, json, off".to_string()));
        let chain: Vec<_> = std::iter::successors(Some(StructuredOutput::default()), |s| s.step_down()).collect();
        assert_eq!(chain, [StructuredOutput::Schema, StructuredOutput::Json, StructuredOutput::Off]);
    }
}
