//! `metadata.json`: what the dataset is and how its columns are annotated.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Annotation of one column of the row data.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ColumnMeta {
    /// What the column holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Inferred or declared type: integer, float, boolean, categorical, datetime, time
    /// (of day), duration, identifier, string.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub column_type: Option<String>,
    /// Human description of the value format, e.g. `DD-MM-YYYY HH:MM`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Python `strptime` format that parses the values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strptime: Option<String>,
    /// The unit of a duration's value in seconds: its smallest part (`seconds`, `minutes`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// Whether values may be missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nullable: Option<bool>,
    /// Fraction of rows with a missing value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub null_rate: Option<f64>,
    /// Sensitivity class (e.g. `pii`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensitivity: Option<String>,
    /// Allowed values of a categorical column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<Value>>,
    /// `[min, max]` of a numeric or datetime column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<Vec<Value>>,
    /// Anything else worth knowing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The annotations of one table of a dataset with several (`tables.<key>`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TableMeta {
    /// Column annotations by column name.
    #[serde(default)]
    pub columns: IndexMap<String, ColumnMeta>,
}

/// The whole `metadata.json`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Metadata {
    /// What the dataset is.
    #[serde(default)]
    pub description: String,
    /// Subject area.
    #[serde(default)]
    pub domain: String,
    /// Column annotations by column name, of a dataset with one table (or
    /// of every key no entry of `tables` describes). Read through
    /// [`Metadata::columns_of`].
    #[serde(default)]
    pub columns: IndexMap<String, ColumnMeta>,
    /// Each table's column annotations by its rows key, in a dataset with
    /// several tables (left out for one). Read through [`Metadata::columns_of`].
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub tables: IndexMap<String, TableMeta>,
    /// Description of each top-level key of `data.json`.
    #[serde(default)]
    pub dataset_keys: IndexMap<String, String>,
    /// Caveats every question writer must know.
    #[serde(default)]
    pub important_notes: Vec<String>,
    /// Documents that come with the data (file name → text, such as a
    /// benchmark's manual), given to the DAG builder.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub documentation: IndexMap<String, String>,
}

impl Metadata {
    /// The column annotations of `dataset.<key>`: its table's under `tables`
    /// when it has an entry there, else the flat `columns`. Every reader of
    /// columns goes through here.
    pub fn columns_of(&self, key: &str) -> &IndexMap<String, ColumnMeta> {
        self.tables.get(key).map_or(&self.columns, |table| &table.columns)
    }

    /// Every annotated column with the table it belongs to (`None`: the flat `columns`).
    pub fn every_column(&self) -> impl Iterator<Item = (Option<&str>, &str, &ColumnMeta)> {
        let flat = self.columns.iter().map(|(name, column)| (None, name.as_str(), column));
        let tables = self.tables.iter().flat_map(|(key, table)| {
            table.columns.iter().map(move |(name, column)| (Some(key.as_str()), name.as_str(), column))
        });
        flat.chain(tables)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_table_reads_its_own_columns_and_the_flat_ones_serve_the_rest() {
        let metadata: Metadata = serde_json::from_value(json!({
            "columns": {"v": {"type": "float"}},
            "tables": {"orders": {"columns": {"id": {"type": "integer"}}},
                       "customers": {"columns": {"id": {"type": "identifier"}}}}
        }))
        .unwrap();
        let kind = |key: &str, name: &str| metadata.columns_of(key).get(name).and_then(|c| c.column_type.clone());
        assert_eq!(kind("orders", "id").as_deref(), Some("integer"));
        assert_eq!(kind("customers", "id").as_deref(), Some("identifier"), "the same name, each table its own");
        assert_eq!(kind("rows", "v").as_deref(), Some("float"));
        assert_eq!(kind("orders", "v"), None, "a table's columns are its own");
        let all: Vec<_> = metadata.every_column().map(|(table, name, _)| (table, name)).collect();
        assert_eq!(all, vec![(None, "v"), (Some("orders"), "id"), (Some("customers"), "id")]);
        let one: Metadata = serde_json::from_value(json!({"columns": {"a": {}}})).unwrap();
        let written = serde_json::to_value(&one).unwrap();
        assert!(written.get("tables").is_none(), "a one-table dataset keeps the flat columns only");
    }
}
