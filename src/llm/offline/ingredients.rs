//! What the schema catalogue offers the planner: the row sample, categorical,
//! numeric, label, datetime and text columns, coordinates, and stats dicts with numeric fields.
//! On a wide table the planner weighs a seeded sample of each kind of column
//! (`Ingredients::sampled`), so its work grows with the columns, not with
//! their pairs.

use std::collections::{BTreeMap, HashMap};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

use crate::dataset::{Dataset, FieldInfo, KeyEntry, Shape, is_measure};

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
    /// How many columns the row sample has.
    pub columns: usize,
    /// Pairs of tables that join (a dataset of several tables).
    pub joins: Vec<super::joins::Join>,
}

/// Most columns a table (or fields a stats dict) may have for the planner to
/// weigh every one; on a wider one it weighs a seeded sample of each kind.
pub const WIDE: usize = 100;

/// Columns of each kind (fields of a stats dict) the planner weighs when wide.
const SAMPLED: usize = 16;

/// Keep at most `SAMPLED` of `items`, drawn by `seed`, in their order.
fn draw<T>(items: &mut Vec<T>, seed: u64) {
    if items.len() <= SAMPLED {
        return;
    }
    let mut kept = rand::seq::index::sample(&mut ChaCha8Rng::seed_from_u64(seed), items.len(), SAMPLED).into_vec();
    kept.sort_unstable();
    let mut kept = kept.into_iter().peekable();
    let mut index = 0;
    items.retain(|_| {
        let keep = kept.next_if_eq(&index).is_some();
        index += 1;
        keep
    });
}

impl Ingredients {
    /// What the planner weighs: every column of a table of at most `WIDE`
    /// columns; of a wider one, a sample of each kind drawn by `seed` (and of a
    /// stats dict's fields past `WIDE`).
    pub fn sampled(mut self, seed: u64) -> Self {
        if self.columns > WIDE {
            draw(&mut self.numeric, seed);
            draw(&mut self.categorical, seed.wrapping_add(1));
            draw(&mut self.text, seed.wrapping_add(2));
        }
        for (_, fields) in self.stats.iter_mut().filter(|(_, fields)| fields.len() > WIDE) {
            draw(fields, seed.wrapping_add(3));
        }
        self
    }

    /// On a wide table, only the columns (and stats fields) some of `texts`
    /// name in backquotes: the questions of a file, written again whatever
    /// sample their seed drew. A table of at most `WIDE` columns keeps all.
    pub fn named_in(mut self, texts: &[&str]) -> Self {
        let named = |name: &String| {
            let quoted = format!("`{name}`");
            texts.iter().any(|text| text.contains(&quoted))
        };
        if self.columns > WIDE {
            self.numeric.retain(named);
            self.categorical.retain(|(name, _)| named(name));
            self.text.retain(named);
        }
        for (_, fields) in self.stats.iter_mut().filter(|(_, fields)| fields.len() > WIDE) {
            fields.retain(named);
        }
        self
    }
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

/// The row sample the planner asks about (the longest list of rows) and its columns.
pub fn rows_entry(dataset: &Dataset) -> Option<(&KeyEntry, &[FieldInfo])> {
    let entries = dataset.catalogue.entries.iter().filter_map(|e| match &e.shape {
        Shape::Rows { count, fields } => Some((e, *count, fields.as_slice())),
        _ => None,
    });
    entries.max_by_key(|(_, count, _)| *count).map(|(entry, _, fields)| (entry, fields))
}

/// Each of `fields`' non-null values over `rows`, in the rows' order, in one
/// pass over the cells: a row's entries are read in their order, and an entry
/// at a field's own position (a prepared table's rows keep the columns' order)
/// needs no lookup, so a table of 10,000 columns costs no hash lookup per cell.
fn column_values<'a>(rows: &[&'a serde_json::Map<String, Value>], fields: &[FieldInfo]) -> Vec<Vec<&'a Value>> {
    let position: HashMap<&str, usize> = fields.iter().enumerate().map(|(i, f)| (f.name.as_str(), i)).collect();
    let mut columns = vec![Vec::new(); fields.len()];
    for row in rows {
        for (at, (name, value)) in row.iter().enumerate() {
            let index = match fields.get(at) {
                Some(field) if field.name == *name => Some(at),
                _ => position.get(name.as_str()).copied(),
            };
            if let Some(index) = index.filter(|_| !value.is_null()) {
                columns[index].push(value);
            }
        }
    }
    columns
}

/// Find the ingredients of `dataset`.
pub fn find(dataset: &Dataset) -> Ingredients {
    let mut found = Ingredients::default();
    let (mut latitude, mut longitude) = (None, None);
    if let Some((entry, fields)) = rows_entry(dataset) {
        found.rows_key = Some(entry.key.clone());
        found.columns = fields.len();
        let rows: Vec<&serde_json::Map<String, Value>> =
            dataset.data[&entry.key].as_array().into_iter().flatten().filter_map(Value::as_object).collect();
        for (field, values) in fields.iter().zip(column_values(&rows, fields)) {
            let declared = field.column.as_ref().and_then(|c| c.column_type.as_deref()).unwrap_or("");
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
    found.joins = super::joins::find(dataset);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn wide(columns: usize) -> Ingredients {
        let names = |prefix: &str| (0..columns / 2).map(|i| format!("{prefix}_{i:05}")).collect::<Vec<_>>();
        let categorical = names("group").into_iter().map(|n| (n, vec!["a".to_string(), "b".to_string()])).collect();
        Ingredients { numeric: names("sensor"), categorical, columns, ..Ingredients::default() }
    }

    fn picked(ing: &Ingredients) -> (Vec<String>, Vec<String>) {
        (ing.numeric.clone(), ing.categorical.iter().map(|(c, _)| c.clone()).collect())
    }

    #[test]
    fn each_column_gets_its_non_null_values_in_row_order_whatever_order_a_row_keeps() {
        let field = |name: &str| FieldInfo { name: name.into(), types: Vec::new(), nullable: true, column: None };
        let fields = [field("a"), field("b"), field("c")];
        let rows: Vec<serde_json::Map<String, Value>> = [
            serde_json::json!({"a": 1, "b": 2, "c": 3}),
            serde_json::json!({"c": 30, "a": 10, "extra": 0}),
            serde_json::json!({"a": null, "b": 200}),
            serde_json::json!({}),
        ]
        .into_iter()
        .map(|row| row.as_object().cloned().unwrap_or_default())
        .collect();
        let rows: Vec<&serde_json::Map<String, Value>> = rows.iter().collect();
        let columns: Vec<Vec<i64>> = column_values(&rows, &fields)
            .into_iter()
            .map(|values| values.into_iter().filter_map(Value::as_i64).collect())
            .collect();
        assert_eq!(columns, [vec![1, 10], vec![2, 200], vec![3, 30]]);
    }

    #[test]
    fn a_table_up_to_wide_keeps_every_column_and_a_wider_one_a_seeded_sample_in_order() {
        let narrow = wide(WIDE);
        assert_eq!(picked(&narrow.clone().sampled(7)), picked(&narrow), "nothing drawn up to {WIDE} columns");
        let table = wide(10_000);
        let (numeric, categorical) = picked(&table.clone().sampled(7));
        assert_eq!((numeric.len(), categorical.len()), (SAMPLED, SAMPLED));
        assert!(numeric.windows(2).all(|w| w[0] < w[1]), "in the table's order: {numeric:?}");
        assert_eq!(picked(&table.clone().sampled(7)), (numeric.clone(), categorical), "the seed decides");
        assert_ne!(picked(&table.clone().sampled(8)).0, numeric, "another seed, other columns");
    }

    #[test]
    fn a_questions_file_keeps_the_columns_it_names_on_a_wide_table_only() {
        let texts = ["What is the largest `sensor_00042` in the `rows` sample?"];
        let named = wide(10_000).named_in(&texts);
        assert_eq!(picked(&named), (vec!["sensor_00042".to_string()], Vec::new()));
        let narrow = wide(WIDE);
        assert_eq!(picked(&narrow.clone().named_in(&texts)), picked(&narrow));
    }
}
