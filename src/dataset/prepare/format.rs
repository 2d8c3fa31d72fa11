//! Which format a file is in: its extension says, its first bytes confirm (a
//! Parquet file begins with `PAR1`, a SQLite database with `SQLite format 3`,
//! a workbook is a zip (`.xlsx`, `.ods`) or an OLE file (`.xls`)).

use std::io::Read;
use std::path::Path;

/// The formats `prepare` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Delimited text: `.csv`, `.tsv` and any extension not named below.
    Csv,
    /// `.parquet`, `.pq`.
    Parquet,
    /// `.xlsx`, `.xlsm`, `.xlsb`, `.xls`, `.ods`.
    Workbook,
    /// `.json` holding an array of records.
    Json,
    /// `.jsonl`, `.ndjson`, or a `.json` whose first record starts a line: one record a line.
    JsonLines,
    /// `.sqlite`, `.sqlite3`, `.db`.
    Sqlite,
}

/// The first bytes of the binary formats.
const PARQUET_MAGIC: &[u8] = b"PAR1";
const SQLITE_MAGIC: &[u8] = b"SQLite format 3\0";
const ZIP_MAGIC: &[u8] = b"PK\x03\x04";
const OLE_MAGIC: &[u8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1";

impl Format {
    /// The format's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::Csv => "CSV file",
            Self::Parquet => "Parquet file",
            Self::Workbook => "workbook",
            Self::Json => "JSON file",
            Self::JsonLines => "JSON Lines file",
            Self::Sqlite => "SQLite database",
        }
    }

    /// The format of the file at `path`: by its extension, checked against its first bytes.
    pub fn of(path: &Path) -> Result<Self, String> {
        let extension = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
        let named = match extension.as_str() {
            "parquet" | "pq" => Self::Parquet,
            "xlsx" | "xlsm" | "xlsb" | "xls" | "ods" => Self::Workbook,
            "json" => Self::Json,
            "jsonl" | "ndjson" => Self::JsonLines,
            "sqlite" | "sqlite3" | "db" => Self::Sqlite,
            _ => Self::Csv,
        };
        let mut start = Vec::with_capacity(64);
        std::fs::File::open(path)
            .and_then(|file| file.take(64).read_to_end(&mut start))
            .map_err(|e| format!("cannot read: {e}"))?;
        let found = if start.starts_with(PARQUET_MAGIC) {
            Some(Self::Parquet)
        } else if start.starts_with(SQLITE_MAGIC) {
            Some(Self::Sqlite)
        } else if start.starts_with(ZIP_MAGIC) || start.starts_with(OLE_MAGIC) {
            Some(Self::Workbook)
        } else {
            None
        };
        match (named, found) {
            (Self::Csv | Self::Json | Self::JsonLines, Some(binary)) => Err(format!(
                "the file is a {}, not {}: give it the extension of its format",
                binary.name(),
                if named == Self::Csv { "text" } else { "JSON" }
            )),
            (Self::Csv | Self::JsonLines, None) => Ok(named),
            (Self::Json, None) => Ok(match start.iter().find(|b| !b.is_ascii_whitespace()) {
                Some(b'{') => Self::JsonLines,
                _ => Self::Json,
            }),
            (_, Some(binary)) if binary == named => Ok(named),
            (_, _) => Err(format!("the file is not a {} (its first bytes are not one's)", named.name())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format(name: &str, bytes: &[u8]) -> Result<Format, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        Format::of(&path)
    }

    #[test]
    fn extensions_are_checked_against_contents() {
        assert_eq!(format("a.csv", b"a,b\n1,2\n"), Ok(Format::Csv));
        assert_eq!(format("a.data", b"a,b\n"), Ok(Format::Csv), "other extensions are CSV, as before");
        assert_eq!(format("a.parquet", b"PAR1...."), Ok(Format::Parquet));
        assert_eq!(format("a.DB", b"SQLite format 3\0..."), Ok(Format::Sqlite));
        assert_eq!(format("a.xls", OLE_MAGIC), Ok(Format::Workbook));
        assert_eq!(format("a.json", b"  [{\"a\": 1}]"), Ok(Format::Json));
        assert_eq!(format("a.json", b"{\"a\": 1}\n{\"a\": 2}\n"), Ok(Format::JsonLines));
        assert_eq!(format("a.ndjson", b""), Ok(Format::JsonLines));
        let wrong = format("a.parquet", b"a,b\n").unwrap_err();
        assert_eq!(wrong, "the file is not a Parquet file (its first bytes are not one's)");
        let binary = format("a.csv", b"PK\x03\x04rest").unwrap_err();
        assert_eq!(binary, "the file is a workbook, not text: give it the extension of its format");
    }
}
