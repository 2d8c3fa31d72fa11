//! A dataset of several tables: a directory of table files, a workbook with
//! several sheets or a database with several tables. Each table is prepared
//! as one would be, under its own key (named after its file, sheet or table,
//! cleaned to letters, digits and `_`); its aggregates are prefixed with that
//! key, so no two tables' aggregates clash; `metadata.json` describes each
//! table's columns under `tables.<key>.columns`.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::format::Format;
use super::terms::{PrepareError, PrepareOptions, Prepared, Unprepared};
use super::{prepare_table, sheet, sqlite};
use crate::dataset::TableMeta;

/// One table of a dataset: the file, the sheet or table inside it, its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TablePlace {
    /// The file holding it.
    pub path: PathBuf,
    /// The sheet or SQLite table, for a file that holds several.
    pub table: Option<String>,
    /// Its rows key in `data.json`.
    pub key: String,
}

/// Extensions of the files a directory's tables are read from.
const TABLE_EXTENSIONS: &[&str] = &[
    "csv", "tsv", "parquet", "pq", "xlsx", "xlsm", "xlsb", "xls", "ods", "json", "jsonl", "ndjson", "sqlite",
    "sqlite3", "db",
];

/// `name` as a key: letters, digits and `_` kept, anything else `_`.
pub fn table_key(name: &str) -> String {
    let key: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if key.is_empty() { "table".into() } else { key }
}

/// The tables inside the file at `path`: its sheets or SQLite tables, or itself.
fn inner_tables(path: &Path) -> Result<Vec<String>, PrepareError> {
    let format = Format::of(path).map_err(|message| PrepareError { path: path.to_path_buf(), message })?;
    match format {
        Format::Workbook => sheet::sheet_names(path),
        Format::Sqlite => sqlite::table_names(path),
        _ => Ok(Vec::new()),
    }
}

/// The tables at `path` (a file or a directory of files): one place per
/// table, keys checked for clashes. A file holding one table, or the one
/// `chosen` (`--table`) names, is one place (its key unused: it is the
/// whole dataset); `chosen` is refused for a directory.
pub fn tables_at(path: &Path, chosen: Option<&str>) -> Result<Vec<TablePlace>, PrepareError> {
    let error = |message: String| PrepareError { path: path.to_path_buf(), message };
    if !path.is_dir() {
        let inner = if chosen.is_some() { Vec::new() } else { inner_tables(path)? };
        if inner.len() < 2 {
            return Ok(vec![TablePlace {
                path: path.to_path_buf(),
                table: chosen.map(str::to_string),
                key: String::new(),
            }]);
        }
        let places = inner
            .into_iter()
            .map(|table| TablePlace { path: path.to_path_buf(), key: table_key(&table), table: Some(table) })
            .collect();
        return distinct(places).map_err(error);
    }
    if chosen.is_some() {
        return Err(error("--table chooses a sheet or table of one file, not of a directory".into()));
    }
    let entries = std::fs::read_dir(path).map_err(|e| error(format!("cannot read the directory: {e}")))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')))
        .filter(|p| {
            p.extension().is_some_and(|e| TABLE_EXTENSIONS.contains(&e.to_string_lossy().to_ascii_lowercase().as_str()))
        })
        .collect();
    files.sort();
    let mut places = Vec::new();
    for file in files {
        let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let inner = inner_tables(&file)?;
        if inner.len() < 2 {
            places.push(TablePlace { key: table_key(&stem), table: inner.into_iter().next(), path: file });
        } else {
            for table in inner {
                places.push(TablePlace {
                    path: file.clone(),
                    key: table_key(&format!("{stem}_{table}")),
                    table: Some(table),
                });
            }
        }
    }
    if places.is_empty() {
        return Err(error(format!("the directory holds no table (files ending .{})", TABLE_EXTENSIONS.join(", ."))));
    }
    distinct(places).map_err(error)
}

/// Where a place is, in messages: its file, and its sheet or table.
fn described(place: &TablePlace) -> String {
    let file = place.path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    match &place.table {
        Some(table) => format!("{file} ({table:?})"),
        None => file,
    }
}

/// `places`, or why two of them would share a key.
fn distinct(places: Vec<TablePlace>) -> Result<Vec<TablePlace>, String> {
    for (i, place) in places.iter().enumerate() {
        if let Some(other) = places[..i].iter().find(|p| p.key == place.key) {
            return Err(format!(
                "{} and {} would both be the table `{}`: rename one",
                described(other),
                described(place),
                place.key
            ));
        }
    }
    Ok(places)
}

/// A flag's `TABLE.NAME` for a dataset of several tables: each table's own NAME.
fn per_table(flag: &str, value: Option<&str>, places: &[TablePlace]) -> Result<IndexMap<String, String>, String> {
    let Some(value) = value else { return Ok(IndexMap::new()) };
    let Some((table, name)) = value.split_once('.') else {
        return Err(format!("with several tables, {flag} takes TABLE.NAME (tables: {})", keys(places)));
    };
    if !places.iter().any(|p| p.key == table) {
        return Err(format!("{flag} {value}: there is no table `{table}` (tables: {})", keys(places)));
    }
    Ok(IndexMap::from([(table.to_string(), name.to_string())]))
}

fn keys(places: &[TablePlace]) -> String {
    places.iter().map(|p| p.key.as_str()).collect::<Vec<_>>().join(", ")
}

/// The tables of a dataset prepared so far, merged.
#[derive(Default)]
struct Merged {
    data: Map<String, Value>,
    keys: Map<String, Value>,
    notes: Vec<Value>,
    /// Each table's key and rows.
    counts: Vec<(String, u64)>,
    tables: IndexMap<String, TableMeta>,
}

impl Merged {
    /// Add the table prepared from `place`, its aggregates' keys prefixed
    /// with its key; `Err` names a key two tables would both write.
    fn add(&mut self, place: &TablePlace, prepared: Prepared) -> Result<(), String> {
        let prepared_table = prepared.table(&place.key);
        let metadata = prepared.metadata;
        let Value::Object(table_data) = prepared.data else { return Ok(()) };
        let rows = table_data.get("overview").and_then(|o| o.get("row_count")).and_then(Value::as_u64).unwrap_or(0);
        self.counts.push((place.key.clone(), rows));
        let descriptions = metadata.get("dataset_keys").and_then(Value::as_object).cloned().unwrap_or_default();
        for (key, value) in table_data {
            let named = if key == place.key { key.clone() } else { format!("{}_{key}", place.key) };
            if self.data.contains_key(&named) {
                return Err(format!("two tables would both write the key `{named}`: rename one (--rows-key)"));
            }
            let description = descriptions.get(&key).and_then(Value::as_str).unwrap_or_default();
            let said = format!("table `{}` ({}): {description}", place.key, described(place));
            self.keys.insert(named.clone(), json!(said));
            self.data.insert(named, value);
        }
        self.tables.insert(place.key.clone(), prepared_table);
        let table_notes = metadata.get("important_notes").and_then(Value::as_array).cloned().unwrap_or_default();
        let notes = table_notes.iter().filter_map(Value::as_str);
        self.notes.extend(notes.map(|n| json!(format!("table `{}`: {n}", place.key))));
        Ok(())
    }
}

/// `count` tables, in words.
pub fn tables_word(count: usize) -> String {
    format!("{count} table{}", if count == 1 { "" } else { "s" })
}

/// Prepare every table of `places` (found at `dir`) into one dataset: the
/// label of `options` and `rows_key` (a table's new key) name `TABLE.NAME`.
/// An empty table (no header, or no rows) is left out, saying so in
/// [`Prepared::left_out`] and a note; every table empty is an error.
pub fn prepare_several(
    dir: &Path,
    places: &[TablePlace],
    options: &PrepareOptions,
    rows_key: Option<&str>,
) -> Result<Prepared, PrepareError> {
    let error = |message: String| PrepareError { path: dir.to_path_buf(), message };
    let labels = per_table("--label", options.label.as_deref(), places).map_err(error)?;
    let renamed = per_table("--rows-key", rows_key, places).map_err(error)?;
    let mut places = places.to_vec();
    for place in &mut places {
        if let Some(name) = renamed.get(&place.key) {
            place.key = table_key(name);
        }
    }
    let places = distinct(places).map_err(error)?;
    let (mut merged, mut empty) = (Merged::default(), Vec::new());
    for place in &places {
        let table_options = PrepareOptions {
            label: labels.get(&place.key).cloned(),
            rows_key: place.key.clone(),
            table: place.table.clone(),
            ..options.clone()
        };
        match prepare_table(&place.path, &table_options) {
            Ok(prepared) => merged.add(place, prepared).map_err(error)?,
            Err(Unprepared::Empty(why)) => empty.push((place, why)),
            Err(Unprepared::Failed(why)) => return Err(why),
        }
    }
    if merged.counts.is_empty() {
        let all: Vec<String> = empty.iter().map(|(place, _)| described(place)).collect();
        return Err(error(format!("every table is empty, so there is nothing to prepare: {}", all.join(", "))));
    }
    for (place, why) in &empty {
        merged.notes.push(json!(format!("{} was left out: {}", described(place), why.message)));
    }
    if options.sample_size.is_some() {
        merged.notes.push(json!("each table is sampled on its own: a row's partner in another table may be missing from that table's sample, so joins may break"));
    }
    let name = dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned());
    let listed: Vec<String> = merged.counts.iter().map(|(key, rows)| format!("{key} ({rows} rows)")).collect();
    let what = tables_word(merged.counts.len());
    let metadata = json!({
        "description": format!("Prepared from {name}: {what}: {}", listed.join(", ")),
        "domain": "",
        "tables": merged.tables,
        "dataset_keys": merged.keys,
        "important_notes": merged.notes,
    });
    Ok(Prepared {
        data: Value::Object(merged.data),
        metadata,
        header_row: 1,
        what,
        tables: merged.counts,
        left_out: empty.into_iter().map(|(_, why)| format!("{why}; left out")).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_letters_digits_and_underscores() {
        assert_eq!(table_key("../x"), "___x");
        assert_eq!(table_key("order items-2024"), "order_items_2024");
        assert_eq!(table_key(""), "table");
    }

    #[test]
    fn a_clash_names_both_places() {
        let place = |file: &str, key: &str| TablePlace { path: PathBuf::from(file), table: None, key: key.into() };
        let clash = distinct(vec![place("a b.csv", "a_b"), place("a-b.json", "a_b")]).unwrap_err();
        assert_eq!(clash, "a b.csv and a-b.json would both be the table `a_b`: rename one");
        let places = [place("o.csv", "orders"), place("c.csv", "customers")];
        assert_eq!(per_table("--label", Some("orders.paid"), &places).unwrap()["orders"], "paid");
        let bare = per_table("--label", Some("paid"), &places).unwrap_err();
        assert_eq!(bare, "with several tables, --label takes TABLE.NAME (tables: orders, customers)");
        let missing = per_table("--rows-key", Some("items.x"), &places).unwrap_err();
        assert_eq!(missing, "--rows-key items.x: there is no table `items` (tables: orders, customers)");
    }
}
