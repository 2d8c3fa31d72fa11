//! The schema catalogue rendered as prompt text: exact field names of every
//! nested structure, column annotations, strptime formats, nullable warnings.
//! A schema longer than a prompt's budget is shortened (`shortened.rs`).

use std::fmt::Write;

use crate::dataset::{ColumnMeta, Dataset, FieldInfo, Shape};

fn annotation(column: &ColumnMeta) -> String {
    let mut parts = Vec::new();
    if let Some(kind) = &column.column_type {
        parts.push(kind.clone());
    }
    if let Some(strptime) = &column.strptime {
        parts.push(format!("strptime {strptime:?}"));
    } else if let Some(format) = &column.format {
        parts.push(format!("format {format}"));
    }
    if let Some(unit) = &column.unit {
        parts.push(format!("unit {unit}"));
    }
    if let Some(values) = &column.values {
        let shown: Vec<String> = values.iter().take(20).map(|v| v.to_string()).collect();
        let more = if values.len() > 20 { ", …" } else { "" };
        parts.push(format!("values [{}{more}]", shown.join(", ")));
    }
    if let Some(range) = &column.range
        && range.len() == 2
    {
        parts.push(format!("range {}..{}", range[0], range[1]));
    }
    if column.nullable == Some(true) {
        let rate = column.null_rate.map(|r| format!(" ({:.0}% null)", r * 100.0)).unwrap_or_default();
        parts.push(format!("MAY BE None{rate}"));
    }
    if let Some(note) = &column.note {
        parts.push(note.clone());
    }
    parts.join("; ")
}

/// A field's Python types as the schema names them.
pub(super) fn types(field: &FieldInfo) -> String {
    if field.types.is_empty() { "None".to_string() } else { field.types.join("|") }
}

/// `fields` in full, one line each.
pub(super) fn write_fields<'f>(out: &mut String, fields: impl IntoIterator<Item = &'f FieldInfo>, indent: &str) {
    for field in fields {
        let _ = write!(out, "{indent}- \"{}\": {}", field.name, types(field));
        match &field.column {
            Some(column) => {
                let text = annotation(column);
                if !text.is_empty() {
                    let _ = write!(out, " — {text}");
                }
            }
            None if field.nullable => out.push_str(" — MAY BE None"),
            None => {}
        }
        out.push('\n');
    }
}

/// Describe every top-level key of `dataset` for a prompt.
pub fn describe_schema(dataset: &Dataset) -> String {
    describe(dataset, &mut |out, _, fields, indent| write_fields(out, fields, indent))
}

/// Writes an entry's fields: the output, the entry's index, its fields, the indent.
pub(super) type FieldWriter<'a> = dyn FnMut(&mut String, usize, &[FieldInfo], &str) + 'a;

/// Every top-level key of `dataset`, its fields written by `fields`.
pub(super) fn describe(dataset: &Dataset, fields_of: &mut FieldWriter<'_>) -> String {
    let mut out = String::new();
    for (index, entry) in dataset.catalogue.entries.iter().enumerate() {
        let description = entry.description.as_deref().map(|d| format!(" — {d}")).unwrap_or_default();
        match &entry.shape {
            Shape::Rows { count, fields } => {
                let _ = writeln!(out, "dataset.{}: list of {count} row dicts{description}; each row has:", entry.key);
                fields_of(&mut out, index, fields, "    ");
            }
            Shape::DictOfDicts { count, sample_keys, fields } => {
                let keys: Vec<String> = sample_keys.iter().map(|k| format!("{k:?}")).collect();
                let _ = writeln!(
                    out,
                    "dataset.{}: dict of {count} entries keyed by name (e.g. {}){description}; each value is a dict with:",
                    entry.key,
                    keys.join(", ")
                );
                fields_of(&mut out, index, fields, "    ");
            }
            Shape::Dict { fields } => {
                let _ = writeln!(out, "dataset.{}: dict{description} with keys:", entry.key);
                fields_of(&mut out, index, fields, "    ");
            }
            Shape::List { count, item_types } => {
                let _ = writeln!(out, "dataset.{}: list of {count} {}{description}", entry.key, item_types.join("|"));
            }
            Shape::Scalar { value_type } => {
                let _ = writeln!(out, "dataset.{}: {value_type}{description}", entry.key);
            }
        }
    }
    out
}
