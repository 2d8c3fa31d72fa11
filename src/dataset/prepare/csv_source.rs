//! A CSV (or TSV) as a [`RecordSource`]: its encoding and delimiter found
//! once, its text streamed again for every pass.

use std::path::{Path, PathBuf};

use super::records::{Described, RecordSource, Row};
use super::source::{self, Layout};
use super::terms::PrepareError;

/// A CSV file, read as its [`Layout`] says.
pub struct CsvSource {
    path: PathBuf,
    layout: Layout,
    described: Described,
}

impl CsvSource {
    /// Find the encoding (`encoding` names it, else it is detected) and the delimiter of the CSV at `path`.
    pub fn open(path: &Path, encoding: Option<&str>) -> Result<Self, PrepareError> {
        let error = |message: String| PrepareError { path: path.to_path_buf(), message };
        let encoded = source::encoding(path, encoding).map_err(|e| error(e.to_string()))?;
        let delimiter = source::delimiter(path, encoded).map_err(|e| error(format!("cannot read: {e}")))?;
        let layout = Layout { encoded, delimiter };
        let described = Described {
            what: "CSV".into(),
            unit: "line",
            layout: Some(layout),
            notes: Vec::new(),
            remarks: Vec::new(),
        };
        Ok(Self { path: path.to_path_buf(), layout, described })
    }

    fn error(&self, message: String) -> PrepareError {
        PrepareError { path: self.path.clone(), message }
    }
}

impl RecordSource for CsvSource {
    fn described(&self) -> &Described {
        &self.described
    }

    fn names(&self) -> Option<&[String]> {
        None
    }

    fn rows(&self, visit: &mut dyn FnMut(&Row) -> bool) -> Result<(), PrepareError> {
        let text = source::text_reader(&self.path, self.layout.encoded)
            .map_err(|e| self.error(format!("cannot open: {e}")))?;
        let mut reader = csv::ReaderBuilder::new()
            .delimiter(self.layout.delimiter)
            .has_headers(false)
            .flexible(true)
            .from_reader(text);
        let mut row = Row::default();
        while reader.read_record(&mut row.fields).map_err(|err| self.error(describe_csv_error(&err)))? {
            row.place = row.fields.position().map_or(0, |p| p.line());
            if !visit(&row) {
                break;
            }
        }
        Ok(())
    }
}

fn describe_csv_error(err: &csv::Error) -> String {
    let line = err.position().map(|p| p.line()).unwrap_or(0);
    match err.kind() {
        csv::ErrorKind::Utf8 { .. } => {
            format!("line {line} is not valid UTF-8 (name the file's encoding with --encoding, e.g. --encoding latin1)")
        }
        csv::ErrorKind::Io(io) => format!("cannot read: {io}"),
        _ => format!("line {line}: {err}"),
    }
}
