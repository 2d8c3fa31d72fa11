//! A column type a file declares without enforcing it (SQLite's declared
//! types), read by SQLite's rules for a column's affinity: a name containing
//! `INT` is an integer, `CHAR`, `CLOB` or `TEXT` text, `BLOB` (or no type)
//! anything, `REAL`, `FLOA` or `DOUB` a real; anything else is numeric, where
//! `BOOL` is a boolean, `DATE` or `TIMESTAMP` (`DATETIME` too) a date, and a
//! decimal with a scale (`DECIMAL(10,2)`) a real. Checked against the values
//! in `declared`.

/// What a declared type says a column's values are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expects {
    /// Whole numbers (`INTEGER`, `BIGINT`).
    Integer,
    /// Numbers, read as floats (`REAL`, `DOUBLE`, `DECIMAL(10,2)`).
    Real,
    /// Numbers (`NUMERIC`, `DECIMAL`).
    Numeric,
    /// Text (`TEXT`, `VARCHAR(20)`): a string of digits stays a string.
    Text,
    /// 0 and 1 (`BOOLEAN`).
    Boolean,
    /// Dates or times (`DATE`, `DATETIME`, `TIMESTAMP`).
    Date,
}

/// A column's declared type: as written, and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    /// The type as the file writes it (`VARCHAR(10)`).
    pub name: String,
    /// What it says the values are.
    pub expects: Expects,
}

impl Declared {
    /// The SQLite declared type `name`, by SQLite's affinity rules; `None`
    /// for a column that may hold anything (`BLOB`, or no type).
    pub fn sqlite(name: &str) -> Option<Self> {
        let upper = name.to_ascii_uppercase();
        let has = |parts: &[&str]| parts.iter().any(|p| upper.contains(p));
        let expects = if has(&["INT"]) {
            Expects::Integer
        } else if has(&["CHAR", "CLOB", "TEXT"]) {
            Expects::Text
        } else if upper.trim().is_empty() || has(&["BLOB"]) {
            return None;
        } else if has(&["REAL", "FLOA", "DOUB"]) || scale(&upper).is_some_and(|s| s > 0) {
            Expects::Real
        } else if has(&["BOOL"]) {
            Expects::Boolean
        } else if has(&["DATE", "TIMESTAMP"]) {
            Expects::Date
        } else {
            Expects::Numeric
        };
        Some(Self { name: name.trim().to_string(), expects })
    }
}

/// The scale of a decimal type (`DECIMAL(10,2)` → 2), if it has one.
fn scale(upper: &str) -> Option<u32> {
    let inside = upper.split_once('(')?.1.split_once(')')?.0;
    inside.split_once(',')?.1.trim().parse().ok()
}
