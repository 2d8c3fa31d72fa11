//! The transformed copies of a dataset that metamorphic checks run on. Only
//! row lists (top-level keys holding a list of objects) change; pre-aggregated
//! keys stay as they are, so a DAG reading one gets informational checks only.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde_json::{Map, Number, Value};

use crate::dataset::{Metadata, is_measure};
use crate::domain::Transform;

/// The seed of the row shuffle: fixed, so a check is reproducible.
pub const SHUFFLE_SEED: u64 = 0x0054_FF1E;
/// What measure columns are multiplied by.
pub const SCALE_FACTOR: f64 = 10.0;
/// What every category value is prefixed with (a common prefix keeps their sort order).
pub const RENAME_PREFIX: &str = "renamed_";

/// What a transformation changed, for judging the answers on its copy.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Changes {
    /// Category values renamed: original → renamed.
    pub renames: BTreeMap<String, String>,
    /// Measure columns scaled.
    pub scaled: BTreeSet<String>,
}

/// One transformed copy of a dataset's data.
#[derive(Debug, Clone)]
pub struct TransformedData {
    /// The transformation.
    pub transform: Transform,
    /// The data, every row list transformed.
    pub data: Map<String, Value>,
    /// What was changed.
    pub changes: Changes,
}

impl TransformedData {
    /// Write the copy as a dataset (`data.json` and `metadata.json`) into a new
    /// directory under `parent`, named after the transformation.
    pub fn write(&self, parent: &Path, metadata: &Metadata) -> std::io::Result<PathBuf> {
        let dir = parent.join(self.transform.label());
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join("data.json"), serde_json::to_vec(&self.data).map_err(std::io::Error::other)?)?;
        std::fs::write(dir.join("metadata.json"), serde_json::to_vec(metadata).map_err(std::io::Error::other)?)?;
        Ok(dir)
    }
}

/// The top-level keys of `data` that hold rows: a non-empty list of objects.
pub fn row_lists(data: &Map<String, Value>) -> BTreeSet<String> {
    data.iter()
        .filter(|(_, value)| value.as_array().is_some_and(|rows| !rows.is_empty() && rows.iter().all(Value::is_object)))
        .map(|(key, _)| key.clone())
        .collect()
}

/// The columns `metadata` types as `kind` (one of several type names), in any table.
fn columns_of(metadata: &Metadata, kinds: &[&str]) -> BTreeSet<String> {
    metadata
        .every_column()
        .filter(|(_, _, column)| column.column_type.as_deref().is_some_and(|t| kinds.contains(&t)))
        .map(|(_, name, _)| name.to_string())
        .collect()
}

/// Every transformed copy of `data`: rows shuffled, every row duplicated in
/// place, categorical values renamed, measure columns scaled.
pub fn transformed_copies(data: &Map<String, Value>, metadata: &Metadata) -> Vec<TransformedData> {
    let rows = row_lists(data);
    let categorical = columns_of(metadata, &["categorical"]);
    let measures: BTreeSet<String> =
        columns_of(metadata, &["integer", "float"]).into_iter().filter(|name| is_measure(name)).collect();
    [Transform::Shuffle, Transform::Duplicate, Transform::Rename, Transform::Scale]
        .into_iter()
        .map(|transform| {
            let mut copy = data.clone();
            let mut changes = Changes::default();
            let mut rng = ChaCha8Rng::seed_from_u64(SHUFFLE_SEED);
            for key in &rows {
                let Some(Value::Array(list)) = copy.get_mut(key) else { continue };
                match transform {
                    Transform::Shuffle => list.shuffle(&mut rng),
                    Transform::Duplicate => *list = list.drain(..).flat_map(|row| [row.clone(), row]).collect(),
                    Transform::Rename => rename_rows(list, &categorical, &mut changes.renames),
                    Transform::Scale => scale_rows(list, &measures, &mut changes.scaled),
                }
            }
            TransformedData { transform, data: copy, changes }
        })
        .collect()
}

fn rename_rows(rows: &mut [Value], columns: &BTreeSet<String>, renames: &mut BTreeMap<String, String>) {
    for row in rows.iter_mut().filter_map(Value::as_object_mut) {
        for (_, value) in row.iter_mut().filter(|(name, _)| columns.contains(*name)) {
            if let Value::String(text) = value {
                let renamed = format!("{RENAME_PREFIX}{text}");
                renames.entry(text.clone()).or_insert_with(|| renamed.clone());
                *text = renamed;
            }
        }
    }
}

fn scale_rows(rows: &mut [Value], columns: &BTreeSet<String>, scaled: &mut BTreeSet<String>) {
    for row in rows.iter_mut().filter_map(Value::as_object_mut) {
        for (name, value) in row.iter_mut().filter(|(name, _)| columns.contains(*name)) {
            if let Some(number) = scaled_number(value) {
                *value = number;
                scaled.insert(name.clone());
            }
        }
    }
}

/// `value` times [`SCALE_FACTOR`]: integers stay integers while they fit.
fn scaled_number(value: &Value) -> Option<Value> {
    let Value::Number(number) = value else { return None };
    if let Some(scaled) = number.as_i64().and_then(|n| n.checked_mul(SCALE_FACTOR as i64)) {
        return Some(Value::Number(scaled.into()));
    }
    Number::from_f64(number.as_f64()? * SCALE_FACTOR).map(Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn metadata() -> Metadata {
        serde_json::from_value(json!({"description": "d", "columns": {
            "category": {"type": "categorical"}, "amt": {"type": "float"}, "zip": {"type": "integer"},
            "n": {"type": "integer"}, "id": {"type": "identifier"}}}))
        .unwrap()
    }

    fn data() -> Map<String, Value> {
        let rows: Vec<Value> = (0..6)
            .map(|i| {
                let category = ["a", "b"][i % 2];
                json!({"id": i, "category": category, "amt": 1.5 * i as f64, "zip": 10_000 + i, "n": i})
            })
            .collect();
        json!({"rows": rows, "overview": {"row_count": 6}, "numbers": [1, 2]}).as_object().unwrap().clone()
    }

    #[test]
    fn only_row_lists_change_each_as_its_transformation_says() {
        let data = data();
        assert_eq!(row_lists(&data), BTreeSet::from(["rows".to_string()]), "a list of numbers holds no rows");
        let copies = transformed_copies(&data, &metadata());
        let of = |t: Transform| copies.iter().find(|c| c.transform == t).unwrap();
        for copy in &copies {
            assert_eq!(copy.data["overview"], data["overview"], "{:?} leaves pre-aggregated keys", copy.transform);
            assert_eq!(copy.data["numbers"], data["numbers"]);
        }
        let shuffled = of(Transform::Shuffle).data["rows"].as_array().unwrap().clone();
        assert_ne!(&shuffled, data["rows"].as_array().unwrap(), "another order");
        let mut ids: Vec<i64> = shuffled.iter().map(|r| r["id"].as_i64().unwrap()).collect();
        ids.sort_unstable();
        assert_eq!(ids, [0, 1, 2, 3, 4, 5], "the same rows");
        let doubled = of(Transform::Duplicate).data["rows"].as_array().unwrap().clone();
        assert_eq!(doubled.len(), 12);
        assert_eq!(
            (doubled[0]["id"].as_i64(), doubled[1]["id"].as_i64(), doubled[11]["id"].as_i64()),
            (Some(0), Some(0), Some(5))
        );
        let renamed = of(Transform::Rename);
        assert_eq!(renamed.data["rows"][1]["category"], "renamed_b");
        assert_eq!(
            renamed.changes.renames,
            BTreeMap::from([("a".into(), "renamed_a".into()), ("b".into(), "renamed_b".into())])
        );
        let scaled = of(Transform::Scale);
        assert_eq!(
            (scaled.data["rows"][3]["amt"].as_f64(), scaled.data["rows"][3]["n"].as_i64()),
            (Some(45.0), Some(30))
        );
        assert_eq!(scaled.data["rows"][3]["zip"], 10_003, "a zip code is no measure");
        assert_eq!(scaled.data["rows"][3]["id"], 3, "nor is an identifier");
        assert_eq!(scaled.changes.scaled, BTreeSet::from(["amt".to_string(), "n".to_string()]));
    }

    #[test]
    fn a_copy_is_a_dataset_the_loader_reads() {
        let dir = tempfile::tempdir().unwrap();
        let copy = &transformed_copies(&data(), &metadata())[1];
        let written = copy.write(dir.path(), &metadata()).unwrap();
        let dataset = crate::dataset::Dataset::load(&written).unwrap();
        assert_eq!(dataset.data["rows"].as_array().unwrap().len(), 12);
    }
}
