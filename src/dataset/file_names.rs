//! The names of a dataset's two files.

/// A dataset's rows and values.
pub const DATA_FILE: &str = "data.json";
/// A dataset's description of its values.
pub const METADATA_FILE: &str = "metadata.json";
