//! What the schema catalogue offers the planner: the row sample, categorical,
//! numeric, label, datetime and text columns, coordinates, and stats dicts with numeric fields.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::dataset::{Dataset, Shape, is_measure};

/// Columns and keys a question can be built from.
#[derive(Debug, Clone, Default)]
pub struct Ingredients {
    /// The row-sample key.
    pub rows_key: Option<String>,
    /// Categorical columns with their values by frequency (most common first).
    pub categorical: Vec<(String, Vec<String>)>,
    /// Numeric columns.
    pub numeric: Vec<String>,
    /// A binary label column.
    pub label: Option<String>,
    /// A datetime column and its strptime format.
    pub datetime: Option<(String, String)>,
    /// Stats dicts: key, its entries' numeric fields.
    pub stats: Vec<(String, Vec<String>)>,
    /// Text columns with too many values to be categorical (names, cities, codes).
    pub text: Vec<String>,
    /// Latitude and longitude columns, in degrees.
    pub coordinates: Option<(String, String)>,
}

/// Which coordinate a column's name says it holds: latitude or longitude.
fn axis(name: &str) -> Option<bool> {
    match name.to_ascii_lowercase().as_str() {
        "lat" | "latitude" | "latitude_deg" | "lat_deg" => Some(true),
        "lon" | "lng" | "long" | "longitude" | "longitude_deg" | "lon_deg" => Some(false),
        _ => None,
    }
}

fn is_number(v: &Value) -> bool {
    v.is_number()
}

/// Find the ingredients of `dataset`.
pub fn find(dataset: &Dataset) -> Ingredients {
    let mut found = Ingredients::default();
    let rows_entry = dataset
        .catalogue
        .entries
        .iter()
        .filter_map(|e| match &e.shape {
            Shape::Rows { count, fields } => Some((e, *count, fields)),
            _ => None,
        })
        .max_by_key(|(_, count, _)| *count);
    let (mut latitude, mut longitude) = (None, None);
    if let Some((entry, _, fields)) = rows_entry {
        found.rows_key = Some(entry.key.clone());
        let rows: Vec<&serde_json::Map<String, Value>> =
            dataset.data[&entry.key].as_array().into_iter().flatten().filter_map(Value::as_object).collect();
        for field in fields {
            let declared = field.column.as_ref().and_then(|c| c.column_type.as_deref()).unwrap_or("");
            let values: Vec<&Value> = rows.iter().filter_map(|r| r.get(&field.name)).filter(|v| !v.is_null()).collect();
            // Times of day and durations have no date to ask about by month or weekday.
            if values.is_empty() || matches!(declared, "time" | "duration") {
                continue;
            }
            if let Some(strptime) = field.column.as_ref().and_then(|c| c.strptime.clone())
                && values.iter().all(|v| v.is_string())
            {
                if found.datetime.is_none() || strptime.contains("%H") {
                    found.datetime.get_or_insert((field.name.clone(), strptime));
                }
                continue;
            }
            let binary = values.iter().all(|v| matches!(v.as_i64(), Some(0 | 1)) || v.is_boolean());
            if binary && (declared == "boolean" || declared.is_empty()) {
                found.label.get_or_insert(field.name.clone());
                continue;
            }
            if declared == "identifier" {
                continue;
            }
            if values.iter().all(|v| is_number(v))
                && let Some(is_latitude) = axis(&field.name)
            {
                let place = if is_latitude { &mut latitude } else { &mut longitude };
                place.get_or_insert(field.name.clone());
                continue;
            }
            if values.iter().all(|v| is_number(v))
                && matches!(declared, "integer" | "float" | "")
                && is_measure(&field.name)
            {
                found.numeric.push(field.name.clone());
                continue;
            }
            if values.iter().all(|v| v.is_string()) {
                let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
                for v in &values {
                    *counts.entry(v.as_str().unwrap_or_default()).or_default() += 1;
                }
                if (2..=25).contains(&counts.len()) {
                    let mut ordered: Vec<(&str, usize)> = counts.into_iter().collect();
                    ordered.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
                    found.categorical.push((field.name.clone(), ordered.iter().map(|(v, _)| v.to_string()).collect()));
                } else if counts.len() > 25 {
                    found.text.push(field.name.clone());
                }
            }
        }
    }
    found.coordinates = latitude.zip(longitude);
    for entry in &dataset.catalogue.entries {
        if let Shape::DictOfDicts { fields, .. } = &entry.shape {
            let entries = dataset.data[&entry.key].as_object();
            let varies = |field: &str| {
                let mut values = entries.into_iter().flatten().filter_map(|(_, v)| v.get(field)?.as_f64());
                let first = values.next();
                values.any(|v| Some(v) != first)
            };
            let numeric: Vec<String> = fields
                .iter()
                .filter(|f| !f.nullable && !f.types.is_empty() && f.types.iter().all(|t| t == "int" || t == "float"))
                .filter(|f| is_measure(&f.name) && varies(&f.name))
                .map(|f| f.name.clone())
                .collect();
            if !numeric.is_empty() {
                found.stats.push((entry.key.clone(), numeric));
            }
        }
    }
    found
}
