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

/// The whole `metadata.json`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Metadata {
    /// What the dataset is.
    #[serde(default)]
    pub description: String,
    /// Subject area.
    #[serde(default)]
    pub domain: String,
    /// Column annotations by column name.
    #[serde(default)]
    pub columns: IndexMap<String, ColumnMeta>,
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
