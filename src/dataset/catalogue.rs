//! The schema catalogue: the shape of every top-level key of `data.json`, with
//! the metadata's column annotations attached. Prompts and the static
//! field-name check are derived from it; nothing assumes a particular dataset.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde::Serialize;
use serde_json::{Map, Value};

use super::{ColumnMeta, Metadata};

/// Python's name for the type of a JSON value once converted (`int`, `str`, …).
pub fn python_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "None",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() || n.is_u64() => "int",
        Value::Number(_) => "float",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// One field of a row or inner dict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldInfo {
    /// Field name.
    pub name: String,
    /// Python type names seen (without `None`), sorted.
    pub types: Vec<String>,
    /// Whether some row lacks the field or holds `None`.
    pub nullable: bool,
    /// Annotation from `metadata.json` for a column of this name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<ColumnMeta>,
}

/// The shape of one top-level value.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shape {
    /// A list of row dicts.
    Rows {
        /// Number of rows.
        count: usize,
        /// Union of the rows' fields, in first-seen order.
        fields: Vec<FieldInfo>,
    },
    /// A dict whose values are all dicts (e.g. stats per category).
    DictOfDicts {
        /// Number of entries.
        count: usize,
        /// The first few outer keys.
        sample_keys: Vec<String>,
        /// Union of the inner dicts' fields.
        fields: Vec<FieldInfo>,
    },
    /// Any other dict (named scalars, nested summaries).
    Dict {
        /// Its keys with their value types.
        fields: Vec<FieldInfo>,
    },
    /// A list of non-dict values.
    List {
        /// Number of items.
        count: usize,
        /// Python type names of the items, sorted.
        item_types: Vec<String>,
    },
    /// A single value.
    Scalar {
        /// Python type name.
        value_type: String,
    },
}

/// Catalogue entry of one top-level key.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KeyEntry {
    /// The key, as used in `dataset.<key>`.
    pub key: String,
    /// Description from `metadata.dataset_keys`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its shape.
    pub shape: Shape,
    /// Every dict key reachable inside the value (for the field-name check).
    #[serde(skip)]
    pub names: BTreeSet<String>,
}

/// Shapes of all top-level keys, in `data.json` order.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct SchemaCatalogue {
    /// One entry per key.
    pub entries: Vec<KeyEntry>,
}

/// How many dict keys a single key's `names` may collect (bounds huge dicts).
const MAX_NAMES: usize = 20_000;

/// The dict keys anywhere in `value` (up to [`MAX_NAMES`]), in a set that
/// borrows them: a key met in every row is hashed, never copied, per row.
fn collect_names<'a>(value: &'a Value, names: &mut HashSet<&'a str>, depth: usize) {
    if depth > 32 || names.len() >= MAX_NAMES {
        return;
    }
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                if names.len() >= MAX_NAMES {
                    return;
                }
                names.insert(k);
                collect_names(v, names, depth + 1);
            }
        }
        Value::Array(items) => {
            for item in items {
                collect_names(item, names, depth + 1);
            }
        }
        _ => {}
    }
}

/// Union of fields over a sequence of dicts, in first-seen order. Linear in
/// the cells: rows usually list their keys in one order, so a key is first
/// looked for at its position among the names seen, then by hash; nothing is
/// copied per cell.
fn union_fields<'a>(
    dicts: impl Iterator<Item = &'a Map<String, Value>>,
    columns: &indexmap::IndexMap<String, ColumnMeta>,
) -> Vec<FieldInfo> {
    /// What the dicts hold under one name: its value types, and how many are not null.
    #[derive(Default)]
    struct Seen {
        types: Vec<&'static str>,
        present: usize,
    }
    let mut names: Vec<&'a str> = Vec::new();
    let mut seen: Vec<Seen> = Vec::new();
    let mut positions: HashMap<&'a str, usize> = HashMap::new();
    let mut total = 0usize;
    for dict in dicts {
        total += 1;
        for (position, (name, value)) in dict.iter().enumerate() {
            let at = match names.get(position) {
                Some(known) if *known == name.as_str() => position,
                _ => *positions.entry(name.as_str()).or_insert_with(|| {
                    names.push(name.as_str());
                    seen.push(Seen::default());
                    names.len() - 1
                }),
            };
            let field = &mut seen[at];
            let kind = python_type_name(value);
            if !field.types.contains(&kind) {
                field.types.push(kind);
            }
            if !value.is_null() {
                field.present += 1;
            }
        }
    }
    names
        .into_iter()
        .zip(seen)
        .map(|(name, mut field)| {
            field.types.sort_unstable();
            FieldInfo {
                types: field.types.iter().filter(|t| **t != "None").map(|t| t.to_string()).collect(),
                nullable: field.present < total,
                column: columns.get(name).cloned(),
                name: name.to_string(),
            }
        })
        .collect()
}

fn shape_of(value: &Value, columns: &indexmap::IndexMap<String, ColumnMeta>) -> Shape {
    match value {
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_object) => {
            Shape::Rows { count: items.len(), fields: union_fields(items.iter().filter_map(Value::as_object), columns) }
        }
        Value::Array(items) => Shape::List {
            count: items.len(),
            item_types: items
                .iter()
                .map(python_type_name)
                .collect::<BTreeSet<_>>()
                .into_iter()
                .map(String::from)
                .collect(),
        },
        Value::Object(map) if !map.is_empty() && map.values().all(Value::is_object) => Shape::DictOfDicts {
            count: map.len(),
            sample_keys: map.keys().take(8).cloned().collect(),
            fields: union_fields(map.values().filter_map(Value::as_object), columns),
        },
        Value::Object(map) => Shape::Dict { fields: union_fields(std::iter::once(map), &indexmap::IndexMap::new()) },
        other => Shape::Scalar { value_type: python_type_name(other).to_string() },
    }
}

/// Similarity of an unknown name to a known one, 0-1: string similarity, raised
/// when one contains the other (`transaction_count` → `count`).
fn name_similarity(unknown: &str, known: &str) -> f64 {
    let unknown_lower = unknown.to_lowercase();
    let known_lower = known.to_lowercase();
    let contained =
        known_lower.len() >= 3 && (unknown_lower.contains(&known_lower) || known_lower.contains(&unknown_lower));
    let score = strsim::jaro_winkler(&unknown_lower, &known_lower);
    if contained { score.max(0.9) } else { score }
}

impl SchemaCatalogue {
    /// Build the catalogue of `data` annotated by `metadata`.
    pub fn build(data: &Map<String, Value>, metadata: &Metadata) -> Self {
        let entries = data
            .iter()
            .map(|(key, value)| {
                let mut found = HashSet::new();
                collect_names(value, &mut found, 0);
                let names: BTreeSet<String> = found.into_iter().map(str::to_string).collect();
                KeyEntry {
                    key: key.clone(),
                    description: metadata.dataset_keys.get(key).cloned(),
                    shape: shape_of(value, metadata.columns_of(key)),
                    names,
                }
            })
            .collect();
        Self { entries }
    }

    /// The entry of top-level key `key`.
    pub fn entry(&self, key: &str) -> Option<&KeyEntry> {
        self.entries.iter().find(|e| e.key == key)
    }

    /// Top-level keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| e.key.as_str())
    }

    /// Every dict key that can be reached inside `dataset.<key>`.
    pub fn known_names(&self, key: &str) -> Option<&BTreeSet<String>> {
        self.entry(key).map(|e| &e.names)
    }

    /// The annotations of the columns named `name` (fields of rows or of dict
    /// entries), one per key that has one, in key order: tables of one dataset
    /// may each have a column of that name.
    pub fn columns_named<'c>(&'c self, name: &'c str) -> impl Iterator<Item = &'c ColumnMeta> + 'c {
        self.entries.iter().filter_map(move |e| match &e.shape {
            Shape::Rows { fields, .. } | Shape::DictOfDicts { fields, .. } => {
                fields.iter().find(|f| f.name == name)?.column.as_ref()
            }
            _ => None,
        })
    }

    /// The known name closest to `name` inside `dataset.<key>` (for "did you mean").
    pub fn closest_name(&self, key: &str, name: &str) -> Option<&str> {
        let names = self.known_names(key)?;
        names
            .iter()
            .map(|candidate| (name_similarity(name, candidate), candidate))
            .filter(|(score, _)| *score >= 0.7)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, candidate)| candidate.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn catalogue(data: Value, metadata: Value) -> SchemaCatalogue {
        let metadata: Metadata = serde_json::from_value(metadata).unwrap();
        SchemaCatalogue::build(data.as_object().unwrap(), &metadata)
    }

    #[test]
    fn fields_are_united_whatever_the_key_order_of_each_row() {
        let rows = json!([{"a": 1, "b": "x"}, {"b": null, "a": 2.5, "c": true}, {"c": false, "a": 3}, {"d": [1]}]);
        let c = catalogue(json!({ "rows": rows }), json!({}));
        let Shape::Rows { count, fields } = &c.entry("rows").unwrap().shape else { panic!("rows") };
        assert_eq!(*count, 4);
        let seen: Vec<(&str, Vec<&str>, bool)> = fields
            .iter()
            .map(|f| (f.name.as_str(), f.types.iter().map(String::as_str).collect(), f.nullable))
            .collect();
        assert_eq!(
            seen,
            [
                ("a", vec!["float", "int"], true),
                ("b", vec!["str"], true),
                ("c", vec!["bool"], true),
                ("d", vec!["list"], true)
            ]
        );
        let names: Vec<&str> = c.entry("rows").unwrap().names.iter().map(String::as_str).collect();
        assert_eq!(names, ["a", "b", "c", "d"]);
        let full = catalogue(json!({"rows": [{"x": 1, "y": 2}, {"y": 3, "x": 4}]}), json!({}));
        let Shape::Rows { fields, .. } = &full.entry("rows").unwrap().shape else { panic!("rows") };
        assert!(fields.iter().all(|f| !f.nullable && f.types == ["int"]), "{fields:?}");
    }

    #[test]
    fn shapes_are_recognised() {
        let c = catalogue(
            json!({
                "rows": [{"a": 1, "b": "x"}, {"a": 2.5, "b": null}],
                "by_cat": {"food": {"count": 3, "sum": 1.5}, "gas": {"count": 1, "sum": 2.0}},
                "summary": {"total": 10, "mean": 1.5},
                "tags": ["x", "y"],
                "n": 7
            }),
            json!({"columns": {"a": {"type": "float"}}, "dataset_keys": {"rows": "the rows"}}),
        );
        let Shape::Rows { count, fields } = &c.entry("rows").unwrap().shape else { panic!() };
        assert_eq!(*count, 2);
        assert_eq!(fields[0].name, "a");
        assert_eq!(fields[0].types, vec!["float", "int"]);
        assert_eq!(fields[0].column.as_ref().unwrap().column_type.as_deref(), Some("float"));
        assert!(fields[1].nullable && !fields[0].nullable);
        assert_eq!(c.entry("rows").unwrap().description.as_deref(), Some("the rows"));
        let Shape::DictOfDicts { count, fields, .. } = &c.entry("by_cat").unwrap().shape else { panic!() };
        assert_eq!((*count, fields.len()), (2, 2));
        assert!(matches!(c.entry("summary").unwrap().shape, Shape::Dict { .. }));
        assert!(matches!(c.entry("tags").unwrap().shape, Shape::List { count: 2, .. }));
        assert_eq!(c.entry("n").unwrap().shape, Shape::Scalar { value_type: "int".into() });
    }

    #[test]
    fn names_and_suggestions() {
        let c = catalogue(json!({"by_cat": {"food": {"count": 3, "fraud_rate": 0.1}}}), json!({}));
        let names = c.known_names("by_cat").unwrap();
        assert!(names.contains("food") && names.contains("count"));
        assert_eq!(c.closest_name("by_cat", "transaction_count"), Some("count"));
        assert_eq!(c.closest_name("by_cat", "fraudrate"), Some("fraud_rate"));
        assert_eq!(c.known_names("missing"), None);
    }
}
