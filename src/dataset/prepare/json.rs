//! JSON as a [`RecordSource`]: an array of records (`.json`) or one record a
//! line (`.jsonl`, `.ndjson`), streamed record by record for every pass, so
//! memory does not grow with the file.
//!
//! The columns are the records' keys in the order they first appear (one pass
//! finds them); a key a record lacks is null there. Numbers and booleans are
//! written as JSON writes them, strings are stored text (never read as
//! numbers), arrays and objects are JSON text.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use indexmap::IndexSet;
use serde::de::{Deserializer as _, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::records::{Described, RecordSource, Row, Stored, one_line};
use super::terms::PrepareError;

/// A JSON or JSON Lines file's one table.
pub struct JsonSource {
    path: PathBuf,
    /// One record a line, rather than an array.
    lines: bool,
    names: Vec<String>,
    described: Described,
}

impl JsonSource {
    /// Find the columns of the JSON file at `path` (`lines`: one record a line).
    pub fn open(path: &Path, lines: bool) -> Result<Self, PrepareError> {
        let what = if lines { "JSON Lines file" } else { "JSON file" };
        let remarks =
            vec![format!("read from a {what}, record by record; strings stay text, arrays and objects are JSON text")];
        let described = Described {
            what: what.into(),
            unit: if lines { "line" } else { "record" },
            layout: None,
            notes: Vec::new(),
            remarks,
        };
        let mut source = Self { path: path.to_path_buf(), lines, names: Vec::new(), described };
        let mut names = IndexSet::new();
        source.records(&mut |_, record| {
            for key in record.keys() {
                if !names.contains(key.as_str()) {
                    names.insert(key.clone());
                }
            }
            true
        })?;
        source.names = names.into_iter().collect();
        Ok(source)
    }

    fn error(&self, message: String) -> PrepareError {
        PrepareError { path: self.path.clone(), message }
    }

    /// Call `visit` with each record and its place (line or 1-based number) until it returns `false`.
    fn records(&self, visit: &mut dyn FnMut(u64, &Map<String, Value>) -> bool) -> Result<(), PrepareError> {
        let file = File::open(&self.path).map_err(|e| self.error(format!("cannot open: {e}")))?;
        let reader = BufReader::new(file);
        if self.lines {
            for (number, line) in (1..).zip(reader.lines()) {
                let line = line.map_err(|e| self.error(format!("line {number}: {e}")))?;
                if line.trim().is_empty() {
                    continue;
                }
                let record: Value =
                    serde_json::from_str(&line).map_err(|e| self.error(format!("line {number}: {e}")))?;
                let Value::Object(record) = record else {
                    return Err(self.error(format!("line {number} is not a JSON object (a record)")));
                };
                if !visit(number, &record) {
                    break;
                }
            }
            return Ok(());
        }
        let mut each = EachRecord { visit, stopped: false, number: 0 };
        let result = serde_json::Deserializer::from_reader(reader).deserialize_seq(&mut each);
        match result {
            Err(_) if each.stopped => Ok(()),
            Err(e) => Err(self.error(format!("record {}: {}", each.number + 1, one_line(&e)))),
            Ok(()) => Ok(()),
        }
    }
}

/// Streams the records of a JSON array to a visitor.
struct EachRecord<'v> {
    visit: &'v mut dyn FnMut(u64, &Map<String, Value>) -> bool,
    /// The visitor asked to stop.
    stopped: bool,
    /// Records read.
    number: u64,
}

impl<'de> Visitor<'de> for &mut EachRecord<'_> {
    type Value = ();

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("an array of records")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(record) = seq.next_element::<Value>()? {
            self.number += 1;
            let Value::Object(record) = record else {
                return Err(serde::de::Error::custom("it is not a JSON object (a record)"));
            };
            if !(self.visit)(self.number, &record) {
                self.stopped = true;
                return Err(serde::de::Error::custom("stopped"));
            }
        }
        Ok(())
    }
}

impl RecordSource for JsonSource {
    fn described(&self) -> &Described {
        &self.described
    }

    fn names(&self) -> Option<&[String]> {
        Some(&self.names)
    }

    fn rows(&self, visit: &mut dyn FnMut(&Row) -> bool) -> Result<(), PrepareError> {
        let mut row = Row::default();
        self.records(&mut |place, record| {
            row.clear();
            row.place = place;
            for name in &self.names {
                match record.get(name) {
                    None | Some(Value::Null) => row.push("", Stored::Guessed),
                    Some(Value::String(s)) => row.push(s, Stored::Text),
                    Some(value @ (Value::Array(_) | Value::Object(_))) => row.push(&value.to_string(), Stored::Text),
                    Some(value) => row.push(&value.to_string(), Stored::Guessed),
                }
            }
            visit(&row)
        })
    }
}
