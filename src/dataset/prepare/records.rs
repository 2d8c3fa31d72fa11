//! What every file format gives the passes: a table read again for each pass,
//! row by row, each row as text fields with what the file stored in each.
//!
//! A format with a schema writes its values as text the CSV inference reads
//! the same way (`1.5`, `true`, `2024-01-05 09:30:00`, an empty field for a
//! null), and marks the values it stored as text so that they stay text: a
//! code `00123` kept as a string is never read as the number 123.

use super::declared_type::Declared;
use super::source::Layout;
use super::terms::PrepareError;

/// What the file stored in one field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    /// Text whose type is to be guessed (a CSV field), or a value the file
    /// typed (a number, a boolean, a date) written as text.
    Guessed,
    /// A string the file stored as a string: never read as a number.
    Text,
}

/// One row of a table.
#[derive(Debug, Default)]
pub struct Row {
    /// The fields, as text; an empty field is a null.
    pub fields: csv::StringRecord,
    /// What the file stored in each field; empty when every field is [`Stored::Guessed`].
    pub stored: Vec<Stored>,
    /// Where the row is in the file (a line or a row number, as [`Described::unit`] says), for messages.
    pub place: u64,
}

impl Row {
    /// What the file stored in field `i`.
    pub fn stored(&self, i: usize) -> Stored {
        self.stored.get(i).copied().unwrap_or(Stored::Guessed)
    }

    /// Empty the row for the next one, keeping its buffers.
    pub fn clear(&mut self) {
        self.fields.clear();
        self.stored.clear();
    }

    /// Add one field.
    pub fn push(&mut self, text: &str, stored: Stored) {
        self.fields.push_field(text);
        self.stored.push(stored);
    }
}

/// How a table was read, for messages and `metadata.json`.
#[derive(Debug, Clone)]
pub struct Described {
    /// What the table is, in a sentence: `CSV`, `Parquet file`, `sheet "Data"`, `SQLite table "sales"`.
    pub what: String,
    /// The word for [`Row::place`]: `line` or `row`.
    pub unit: &'static str,
    /// A CSV's encoding and delimiter.
    pub layout: Option<Layout>,
    /// Per column (when the file says it): what the file's schema held that
    /// the column's type does not show (decimals, lists, time zones).
    pub notes: Vec<Option<String>>,
    /// What the format's reading costs or changes, for `important_notes`.
    pub remarks: Vec<String>,
}

/// The rows of one table, readable again for every pass.
pub trait RecordSource {
    /// How the table is read.
    fn described(&self) -> &Described;

    /// The column names the file declares (a schema, the keys of JSON
    /// records), or `None` when a row of the table is its header (CSV, sheets).
    fn names(&self) -> Option<&[String]>;

    /// Per column (when the file declares types it does not enforce, as
    /// SQLite does): the declared type, checked against the values.
    fn declared(&self) -> &[Option<Declared>] {
        &[]
    }

    /// Read the table from its first row, calling `visit` with each row until
    /// it returns `false` or the rows end.
    fn rows(&self, visit: &mut dyn FnMut(&Row) -> bool) -> Result<(), PrepareError>;
}

/// Text of a float as Rust and Python read it back: the shortest that
/// round-trips, with a `.0` on whole numbers (so it stays a float); NaN is null.
pub fn float_text(x: f64) -> String {
    if x.is_nan() { String::new() } else { format!("{x:?}") }
}

/// Run `read`, turning a panic inside a format's library (some panic on
/// damaged files) into the error `damaged` makes of its message: a damaged
/// file is one line, never a panic. The panic's own report is kept quiet.
pub fn without_panics<T>(
    read: impl FnOnce() -> Result<T, PrepareError>,
    damaged: impl FnOnce(String) -> PrepareError,
) -> Result<T, PrepareError> {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(read));
    std::panic::set_hook(previous);
    result.unwrap_or_else(|panic| {
        let why = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(damaged(one_line(&why)))
    })
}

/// The one-line form of an error from a library (whose messages may span lines).
pub fn one_line(error: &impl std::fmt::Display) -> String {
    error.to_string().split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The table `--table` chooses among `tables` (sheets, SQLite tables), or the
/// only one; `kind` names them (`sheet`), `holder` what holds them (`workbook`).
pub fn choose_table(tables: &[String], chosen: Option<&str>, kind: &str, holder: &str) -> Result<String, String> {
    let listed = || tables.iter().map(|t| format!("{t:?}")).collect::<Vec<_>>().join(", ");
    match (chosen, tables) {
        (Some(name), _) if tables.iter().any(|t| t == name) => Ok(name.to_string()),
        (Some(name), _) => Err(format!("the {holder} has no {kind} {name:?} (it has {})", listed())),
        (None, []) => Err(format!("the {holder} has no {kind}s")),
        (None, [only]) => Ok(only.clone()),
        (None, _) => Err(format!("the {holder} has {} {kind}s ({}): choose one with --table", tables.len(), listed())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_stay_floats_and_nan_is_null() {
        assert_eq!(float_text(1.0), "1.0");
        assert_eq!(float_text(2.25), "2.25");
        assert_eq!(float_text(f64::NAN), "");
        assert_eq!("1e300".parse::<f64>().ok(), Some(1e300));
        assert_eq!(float_text(1e300), "1e300");
    }

    #[test]
    fn one_table_is_chosen_or_named() {
        let tables = ["a".to_string(), "b".to_string()];
        assert_eq!(choose_table(&tables[..1], None, "sheet", "workbook").unwrap(), "a");
        assert_eq!(choose_table(&tables, Some("b"), "sheet", "workbook").unwrap(), "b");
        let many = choose_table(&tables, None, "sheet", "workbook").unwrap_err();
        assert!(many.starts_with("the workbook has 2 sheets (\"a\", \"b\"): choose one with --table"), "{many}");
        let missing = choose_table(&tables, Some("c"), "table", "database").unwrap_err();
        assert_eq!(missing, "the database has no table \"c\" (it has \"a\", \"b\")");
    }
}
