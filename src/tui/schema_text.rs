//! The dataset schema exactly as the builder saw it: the schema part of a
//! recorded DAG-building prompt, split into lines that know which dataset key
//! and field they describe, and the place a node's findings point at.

use std::sync::LazyLock;

use regex::Regex;

use crate::domain::{CriticFeedback, DagNodeSpec, LlmRole};
use crate::run::RunState;

/// Where the schema starts in the built-in build prompt.
const START: &str = "Dataset:";
/// What follows the schema in the built-in build prompt.
const END: &str = "\nQuestion ";

/// What a line of the schema describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchemaLineKind {
    /// A top-level key (`dataset.<key>: …`).
    Key(String),
    /// A field of a key.
    Field {
        /// The key.
        key: String,
        /// The field.
        name: String,
    },
    /// Anything else: the dataset's description, notes.
    Text,
}

/// One line of the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaLine {
    /// What it describes.
    pub kind: SchemaLineKind,
    /// The text, as the builder read it.
    pub text: String,
}

/// A key, and maybe one of its fields, to show first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaTarget {
    /// The dataset key.
    pub key: String,
    /// The field, when a finding names one.
    pub field: Option<String>,
}

#[allow(clippy::expect_used, reason = "a literal pattern, which clippy's invalid_regex checks")]
static KEY_LINE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^dataset\.([A-Za-z0-9_]+):").expect("regex"));
#[allow(clippy::expect_used, reason = "a literal pattern, which clippy's invalid_regex checks")]
static FIELD_LINE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#"^\s+- "([^"]+)":"#).expect("regex"));
#[allow(clippy::expect_used, reason = "a literal pattern, which clippy's invalid_regex checks")]
static QUOTED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#"['"]([A-Za-z0-9_ .-]+)['"]"#).expect("regex"));

/// The schema part of the run's first recorded DAG-building prompt (the whole
/// prompt when a custom template moved its markers); none before any was sent.
pub fn recorded_schema(state: &RunState) -> Option<String> {
    let call = state.calls.values().find(|c| c.key.role == LlmRole::DagBuild)?;
    let prompt = call.messages.iter().rfind(|m| m.role == crate::domain::MessageRole::User)?.text();
    let start = prompt.find(START).unwrap_or(0);
    let end = prompt[start..].find(END).map_or(prompt.len(), |e| start + e);
    Some(prompt[start..end].trim_end().to_string())
}

/// Split `schema` into lines that know what they describe.
pub fn schema_lines(schema: &str) -> Vec<SchemaLine> {
    let mut key: Option<String> = None;
    schema
        .lines()
        .map(|line| {
            let kind = if let Some(found) = KEY_LINE.captures(line) {
                key = Some(found[1].to_string());
                SchemaLineKind::Key(found[1].to_string())
            } else if let (Some(found), Some(key)) = (FIELD_LINE.captures(line), &key) {
                SchemaLineKind::Field { key: key.clone(), name: found[1].to_string() }
            } else {
                if !line.starts_with(' ') {
                    key = None;
                }
                SchemaLineKind::Text
            };
            SchemaLine { kind, text: line.to_string() }
        })
        .collect()
}

/// Where the selected node's trouble lies in `lines`: a field a finding about
/// the node names (the last quoted name the schema knows wins — a "did you
/// mean 'precipitation'?" points at the right spelling), else the first
/// dataset key the node reads.
pub fn target(lines: &[SchemaLine], node: &DagNodeSpec, feedback: Option<&CriticFeedback>) -> Option<SchemaTarget> {
    let keys: Vec<&str> = node.inputs.values().filter_map(|source| source.strip_prefix("dataset.")).collect();
    let findings = feedback.into_iter().flat_map(|f| f.findings_for_node(&node.node_id));
    let named = findings.flat_map(|f| QUOTED.captures_iter(&f.message).map(|c| c[1].to_string()).collect::<Vec<_>>());
    let field = named
        .filter_map(|name| {
            lines.iter().find_map(|line| match &line.kind {
                SchemaLineKind::Field { key, name: field } if *field == name && keys.contains(&key.as_str()) => {
                    Some(SchemaTarget { key: key.clone(), field: Some(field.clone()) })
                }
                _ => None,
            })
        })
        .last();
    field.or_else(|| keys.first().map(|key| SchemaTarget { key: key.to_string(), field: None }))
}

/// The line `target` points at in `lines`.
pub fn line_of(lines: &[SchemaLine], target: &SchemaTarget) -> Option<usize> {
    lines.iter().position(|line| match (&line.kind, &target.field) {
        (SchemaLineKind::Field { key, name }, Some(field)) => *key == target.key && name == field,
        (SchemaLineKind::Key(key), None) => *key == target.key,
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Finding, FindingSource, Severity};

    const SCHEMA: &str = "Dataset: weather\n\nTop-level keys:\ndataset.days: list of 3 rows, each a dict with:\n    - \"date\": str\n    - \"precipitation\": float — MAY BE None\ndataset.stations: dict with:\n    - \"count\": int\nImportant notes:\n- rain is in mm";

    fn node(inputs: &[(&str, &str)]) -> DagNodeSpec {
        let inputs = inputs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let code = String::new();
        DagNodeSpec {
            node_id: "n".into(),
            operation: code.clone(),
            function_name: "f".into(),
            inputs,
            expected_output_type: code.clone(),
            layer: 0,
            code,
        }
    }

    fn feedback(message: &str) -> CriticFeedback {
        let finding = Finding {
            node_id: Some("n".into()),
            layer: Some(0),
            rule: "unknown_field".into(),
            source: FindingSource::Structural,
            message: message.into(),
            severity: Severity::Error,
        };
        CriticFeedback { findings: vec![finding], ..CriticFeedback::default() }
    }

    #[test]
    fn lines_know_their_key_and_field_and_notes_belong_to_none() {
        let lines = schema_lines(SCHEMA);
        assert_eq!(lines[3].kind, SchemaLineKind::Key("days".into()));
        assert_eq!(lines[5].kind, SchemaLineKind::Field { key: "days".into(), name: "precipitation".into() });
        assert_eq!(lines[7].kind, SchemaLineKind::Field { key: "stations".into(), name: "count".into() });
        assert_eq!(lines[9].kind, SchemaLineKind::Text, "{:?}", lines[9]);
    }

    #[test]
    fn a_finding_points_at_the_field_it_suggests_else_the_key_the_node_reads() {
        let lines = schema_lines(SCHEMA);
        let reads = node(&[("rows", "dataset.days")]);
        let misspelt = feedback("reads field 'precip', which days lacks; did you mean 'precipitation'?");
        let target = target(&lines, &reads, Some(&misspelt)).unwrap();
        assert_eq!(target, SchemaTarget { key: "days".into(), field: Some("precipitation".into()) });
        assert_eq!(line_of(&lines, &target), Some(5));
        let vague = super::target(&lines, &reads, Some(&feedback("wrong total"))).unwrap();
        assert_eq!((vague.key.as_str(), line_of(&lines, &vague)), ("days", Some(3)));
        let upstream = node(&[("x", "prev_node.a.output")]);
        assert_eq!(super::target(&lines, &upstream, None), None);
    }
}
