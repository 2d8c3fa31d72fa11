//! A path in a record (the trace's settings): written as text — lossily,
//! U+FFFD for what is not UTF-8, as `Path::display` shows it — and read back
//! as a path. Use as `#[serde(with = "crate::domain::lossy_path")]`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serializer};

/// Write `path` as text.
pub fn serialize<S: Serializer>(path: &Path, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&path.to_string_lossy())
}

/// Read a path written as text.
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<PathBuf, D::Error> {
    String::deserialize(deserializer).map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use serde::{Deserialize, Serialize};

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Record {
        #[serde(with = "super")]
        dir: PathBuf,
    }

    #[test]
    fn a_path_is_written_as_text_and_read_back_as_a_path() {
        let record = Record { dir: PathBuf::from("bench/datasets/shop ü") };
        let text = serde_json::to_string(&record).unwrap();
        assert_eq!(text, r#"{"dir":"bench/datasets/shop ü"}"#);
        assert_eq!(serde_json::from_str::<Record>(&text).unwrap(), record);
    }

    #[test]
    fn a_path_that_is_not_utf8_is_written_lossily_as_display_shows_it() {
        use std::os::unix::ffi::OsStrExt;
        let dir = PathBuf::from(std::ffi::OsStr::from_bytes(b"data/caf\xe9"));
        let text = serde_json::to_string(&Record { dir: dir.clone() }).unwrap();
        assert_eq!(text, format!(r#"{{"dir":"{}"}}"#, dir.display()));
        assert_eq!(serde_json::from_str::<Record>(&text).unwrap().dir, PathBuf::from("data/caf\u{fffd}"));
    }
}
