//! Checks of a dataset's two files, one problem per line.

use serde_json::{Map, Value};

/// Column annotation fields and the JSON kind each must have.
const COLUMN_FIELDS: &[(&str, &str)] = &[
    ("description", "string"),
    ("type", "string"),
    ("format", "string"),
    ("strptime", "string"),
    ("unit", "string"),
    ("nullable", "boolean"),
    ("null_rate", "number"),
    ("sensitivity", "string"),
    ("values", "array"),
    ("range", "array"),
    ("note", "string"),
];

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Problems of `metadata.json`'s structure (its top level is already an object).
pub fn metadata_problems(metadata: &Map<String, Value>) -> Vec<String> {
    let mut problems = Vec::new();
    for (field, want) in [
        ("description", "string"),
        ("domain", "string"),
        ("columns", "object"),
        ("tables", "object"),
        ("dataset_keys", "object"),
        ("important_notes", "array"),
        ("documentation", "object"),
    ] {
        if let Some(value) = metadata.get(field)
            && kind(value) != want
        {
            problems.push(format!("metadata.json: `{field}` must be a {want}, found a {}", kind(value)));
        }
    }
    if let Some(Value::Object(columns)) = metadata.get("columns") {
        column_problems("column", columns, &mut problems);
    }
    if let Some(Value::Object(tables)) = metadata.get("tables") {
        for (key, table) in tables {
            match table.get("columns") {
                Some(Value::Object(columns)) => {
                    column_problems(&format!("tables.{key}: column"), columns, &mut problems)
                }
                Some(other) => problems
                    .push(format!("metadata.json: tables.{key}.columns must be an object, found a {}", kind(other))),
                None => problems.push(format!("metadata.json: tables.{key} has no `columns`")),
            }
        }
    }
    if let Some(Value::Object(keys)) = metadata.get("dataset_keys") {
        for (key, description) in keys {
            if !description.is_string() {
                problems
                    .push(format!("metadata.json: dataset_keys.{key} must be a string, found a {}", kind(description)));
            }
        }
    }
    if let Some(Value::Array(notes)) = metadata.get("important_notes")
        && notes.iter().any(|n| !n.is_string())
    {
        problems.push("metadata.json: every entry of `important_notes` must be a string".into());
    }
    problems
}

/// Problems of a map of column annotations, each named `{what} `name``.
fn column_problems(what: &str, columns: &Map<String, Value>, problems: &mut Vec<String>) {
    for (name, column) in columns {
        let Value::Object(column) = column else {
            problems.push(format!("metadata.json: {what} `{name}` must be an object, found a {}", kind(column)));
            continue;
        };
        for (field, want) in COLUMN_FIELDS {
            if let Some(value) = column.get(*field)
                && !value.is_null()
                && kind(value) != *want
            {
                problems.push(format!(
                    "metadata.json: {what} `{name}`: `{field}` must be a {want}, found a {}",
                    kind(value)
                ));
            }
        }
        if let Some(rate) = column.get("null_rate").and_then(Value::as_f64)
            && !(0.0..=1.0).contains(&rate)
        {
            problems.push(format!("metadata.json: {what} `{name}`: `null_rate` must be between 0 and 1, found {rate}"));
        }
        if let Some(Value::Array(range)) = column.get("range")
            && range.len() != 2
        {
            problems.push(format!(
                "metadata.json: {what} `{name}`: `range` must be [min, max], found {} items",
                range.len()
            ));
        }
    }
}

/// Entries of `metadata.json`'s `tables` that describe no list of rows of `data.json`.
pub fn table_problems(data: &Map<String, Value>, metadata: &Map<String, Value>) -> Vec<String> {
    let Some(Value::Object(tables)) = metadata.get("tables") else { return Vec::new() };
    tables
        .keys()
        .filter(|key| !data.get(*key).is_some_and(Value::is_array))
        .map(|key| format!("metadata.json: tables.{key} describes no list of rows: data.json has no `{key}` list"))
        .collect()
}

/// Problems of `data.json`'s structure (its top level is already an object).
pub fn data_problems(data: &Map<String, Value>) -> Vec<String> {
    let mut problems = Vec::new();
    for (key, value) in data {
        if let Value::Array(items) = value {
            let objects = items.iter().filter(|v| v.is_object()).count();
            if objects > 0
                && let Some((index, bad)) = items.iter().enumerate().find(|(_, v)| !v.is_object())
            {
                problems
                    .push(format!("data.json: `{key}` is a list of row objects, but item {index} is a {}", kind(bad)));
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn well_formed_metadata_has_no_problems() {
        let m = obj(json!({"description": "d", "columns": {"amt": {"type": "float", "nullable": false,
            "null_rate": 0.0, "range": [1, 2], "values": null}}, "dataset_keys": {"a": "b"},
            "important_notes": ["x"]}));
        assert!(metadata_problems(&m).is_empty());
    }

    #[test]
    fn malformed_columns_are_each_reported() {
        let m = obj(json!({"columns": {"a": 3, "b": {"nullable": "yes", "null_rate": 2.0,
            "range": [1]}}}));
        let problems = metadata_problems(&m);
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert!(problems[0].contains("column `a` must be an object"));
        assert!(problems.iter().any(|p| p.contains("`nullable` must be a boolean")));
        assert!(problems.iter().any(|p| p.contains("between 0 and 1")));
        assert!(problems.iter().any(|p| p.contains("[min, max]")));
    }

    #[test]
    fn each_tables_columns_are_checked() {
        let m = obj(json!({"tables": {"orders": {"columns": {"id": {"nullable": "no"}}}, "bad": {"columns": 3},
            "none": {}}}));
        let problems = metadata_problems(&m);
        assert_eq!(
            problems,
            vec![
                "metadata.json: tables.orders: column `id`: `nullable` must be a boolean, found a string",
                "metadata.json: tables.bad.columns must be an object, found a number",
                "metadata.json: tables.none has no `columns`",
            ]
        );
    }

    #[test]
    fn a_table_must_be_a_list_of_rows_of_the_data() {
        let data = obj(json!({"orders": [{"a": 1}], "orders_overview": {"row_count": 1}}));
        let metadata = obj(json!({"tables": {"orders": {"columns": {}}, "order": {"columns": {}},
            "orders_overview": {"columns": {}}}}));
        assert_eq!(
            table_problems(&data, &metadata),
            vec![
                "metadata.json: tables.order describes no list of rows: data.json has no `order` list",
                "metadata.json: tables.orders_overview describes no list of rows: data.json has no `orders_overview` list",
            ]
        );
        assert!(table_problems(&data, &obj(json!({"columns": {}}))).is_empty());
    }

    #[test]
    fn mixed_row_list_is_reported_with_the_bad_index() {
        let d = obj(json!({"rows": [{"a": 1}, 5], "scalars": [1, 2, 3]}));
        let problems = data_problems(&d);
        assert_eq!(problems, vec!["data.json: `rows` is a list of row objects, but item 1 is a number"]);
    }
}
