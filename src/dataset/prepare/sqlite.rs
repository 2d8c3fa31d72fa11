//! One table of a SQLite database as a [`RecordSource`], opened read-only and
//! streamed row by row by a query for every pass.
//!
//! Each value is written as its storage class says: integers and reals as
//! numbers (a real keeps its `.0`), text as stored text (never read as a
//! number: a zip code kept as text stays a string), blobs as hexadecimal
//! text, NULL as null. A column declared `BOOLEAN` writes its 0 and 1 as
//! `false` and `true`; its other values are left as they are. Each column's
//! declared type is then checked against its values (`declared.rs`).

use std::path::{Path, PathBuf};

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

use super::declared_type::{Declared, Expects};
use super::records::{Described, RecordSource, Row, Stored, choose_table, float_text, one_line};
use super::terms::PrepareError;

/// One table of a SQLite database.
pub struct SqliteSource {
    path: PathBuf,
    table: String,
    names: Vec<String>,
    /// Per column: it is declared a boolean.
    booleans: Vec<bool>,
    /// Per column: its declared type, unless it may hold anything.
    declared: Vec<Option<Declared>>,
    described: Described,
}

/// `name` quoted as an SQL identifier.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// The names of the tables of the database at `path`, sorted.
pub fn table_names(path: &Path) -> Result<Vec<String>, PrepareError> {
    tables(&connect(path)?, path)
}

fn tables(connection: &Connection, path: &Path) -> Result<Vec<String>, PrepareError> {
    connection
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
        .and_then(|mut statement| statement.query_map([], |row| row.get(0))?.collect())
        .map_err(|e| PrepareError {
            path: path.to_path_buf(),
            message: format!("cannot read the database: {}", one_line(&e)),
        })
}

impl SqliteSource {
    /// Find the table `table` names (or the database's only one) in the database at `path`, and its columns.
    pub fn open(path: &Path, table: Option<&str>) -> Result<Self, PrepareError> {
        let error = |message: String| PrepareError { path: path.to_path_buf(), message };
        let failed = |e: rusqlite::Error| error(format!("cannot read the database: {}", one_line(&e)));
        let connection = connect(path)?;
        let tables = tables(&connection, path)?;
        let table = choose_table(&tables, table, "table", "database").map_err(error)?;
        let columns: Vec<(String, String)> = connection
            .prepare("SELECT name, type FROM pragma_table_info(?1) ORDER BY cid")
            .and_then(|mut statement| statement.query_map([&table], |row| Ok((row.get(0)?, row.get(1)?)))?.collect())
            .map_err(failed)?;
        let declared: Vec<Option<Declared>> = columns.iter().map(|(_, declared)| Declared::sqlite(declared)).collect();
        let booleans = declared.iter().map(|d| d.as_ref().is_some_and(|d| d.expects == Expects::Boolean)).collect();
        let remarks = vec![format!(
            "read from table {table:?} of a SQLite database, row by row; a column's type is its declared type \
             where its values bear it out, else inferred from the values (their storage classes kept: text is never a number)"
        )];
        let described = Described {
            what: format!("SQLite table {table:?}"),
            unit: "row",
            layout: None,
            notes: Vec::new(),
            remarks,
        };
        let names = columns.into_iter().map(|(name, _)| name).collect();
        Ok(Self { path: path.to_path_buf(), table, names, booleans, declared, described })
    }
}

fn connect(path: &Path) -> Result<Connection, PrepareError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    Connection::open_with_flags(path, flags).map_err(|e| PrepareError {
        path: path.to_path_buf(),
        message: format!("cannot open the database: {}", one_line(&e)),
    })
}

impl RecordSource for SqliteSource {
    fn described(&self) -> &Described {
        &self.described
    }

    fn names(&self) -> Option<&[String]> {
        Some(&self.names)
    }

    fn declared(&self) -> &[Option<Declared>] {
        &self.declared
    }

    fn rows(&self, visit: &mut dyn FnMut(&Row) -> bool) -> Result<(), PrepareError> {
        let failed = |e: rusqlite::Error| PrepareError {
            path: self.path.clone(),
            message: format!("cannot read table {:?}: {}", self.table, one_line(&e)),
        };
        let connection = connect(&self.path)?;
        let columns = self.names.iter().map(|n| quoted(n)).collect::<Vec<_>>().join(", ");
        let mut statement =
            connection.prepare(&format!("SELECT {columns} FROM {}", quoted(&self.table))).map_err(failed)?;
        let mut rows = statement.query([]).map_err(failed)?;
        let mut row = Row::default();
        let mut number = 0;
        while let Some(values) = rows.next().map_err(failed)? {
            number += 1;
            row.clear();
            row.place = number;
            for (i, &boolean) in self.booleans.iter().enumerate() {
                let (text, stored) = text(values.get_ref(i).map_err(failed)?, boolean);
                row.push(&text, stored);
            }
            if !visit(&row) {
                break;
            }
        }
        Ok(())
    }
}

/// The text of one value and what the database stored (`boolean`: the column is declared a boolean).
fn text(value: ValueRef<'_>, boolean: bool) -> (String, Stored) {
    let text = match value {
        ValueRef::Null => String::new(),
        ValueRef::Integer(0) if boolean => "false".into(),
        ValueRef::Integer(1) if boolean => "true".into(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(x) => float_text(x),
        ValueRef::Text(bytes) => return (String::from_utf8_lossy(bytes).into_owned(), Stored::Text),
        ValueRef::Blob(bytes) => return (bytes.iter().map(|b| format!("{b:02x}")).collect(), Stored::Text),
    };
    (text, Stored::Guessed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_written_by_their_storage_class() {
        assert_eq!(text(ValueRef::Integer(1), true).0, "true");
        assert_eq!(text(ValueRef::Integer(2), true).0, "2");
        assert_eq!(text(ValueRef::Integer(1), false).0, "1");
        assert_eq!(text(ValueRef::Real(3.0), false).0, "3.0");
        assert_eq!(text(ValueRef::Text(b"0042"), false), ("0042".into(), Stored::Text));
        assert_eq!(text(ValueRef::Blob(&[0, 255]), false), ("00ff".into(), Stored::Text));
        assert_eq!(text(ValueRef::Null, false).0, "");
        assert_eq!(quoted("a\"b"), "\"a\"\"b\"");
    }
}
