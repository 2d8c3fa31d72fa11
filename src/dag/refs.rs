//! Input references: `dataset.<key>` or `prev_node.<node_id>.output`.

use std::fmt;

/// Where a node input comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum InputRef {
    /// A top-level key of the dataset.
    Dataset(String),
    /// The output of an earlier node.
    PrevNode(String),
}

impl InputRef {
    /// Parse a reference, or say what is wrong with it.
    pub fn parse(reference: &str) -> Result<Self, String> {
        let reference = reference.trim();
        if let Some(key) = reference.strip_prefix("dataset.") {
            if key.is_empty() {
                return Err(format!("{reference:?} names no dataset key"));
            }
            return Ok(Self::Dataset(key.to_string()));
        }
        if let Some(rest) = reference.strip_prefix("prev_node.") {
            return match rest.strip_suffix(".output") {
                Some(id) if !id.is_empty() => Ok(Self::PrevNode(id.to_string())),
                _ => Err(format!("{reference:?} must have the form prev_node.<node_id>.output")),
            };
        }
        Err(format!("{reference:?} must be dataset.<key> or prev_node.<node_id>.output"))
    }
}

impl fmt::Display for InputRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Dataset(key) => write!(f, "dataset.{key}"),
            Self::PrevNode(id) => write!(f, "prev_node.{id}.output"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_parse_and_print_back() {
        for text in ["dataset.transactions", "prev_node.step_1a.output"] {
            assert_eq!(InputRef::parse(text).unwrap().to_string(), text);
        }
        for bad in ["dataset.", "prev_node.x", "prev_node..output", "rows", "node.x.output"] {
            assert!(InputRef::parse(bad).is_err(), "{bad}");
        }
    }
}
