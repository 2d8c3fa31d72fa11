//! Input references: `dataset.<key>` or `prev_node.<node_id>.output`.

use std::fmt;

use crate::domain::NodeId;

/// Why an input reference cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputRefError {
    /// `dataset.` with nothing after it.
    #[error("{reference:?} names no dataset key")]
    NoKey {
        /// The reference, trimmed.
        reference: String,
    },
    /// `prev_node.` not followed by `<node_id>.output`.
    #[error("{reference:?} must have the form prev_node.<node_id>.output")]
    BadNodeOutput {
        /// The reference, trimmed.
        reference: String,
    },
    /// Neither `dataset.` nor `prev_node.`.
    #[error("{reference:?} must be dataset.<key> or prev_node.<node_id>.output")]
    UnknownSource {
        /// The reference, trimmed.
        reference: String,
    },
}

/// Where a node input comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum InputRef {
    /// A top-level key of the dataset.
    Dataset(String),
    /// The output of an earlier node.
    PrevNode(NodeId),
}

impl InputRef {
    /// Parse a reference, or say what is wrong with it.
    pub fn parse(reference: &str) -> Result<Self, InputRefError> {
        let reference = reference.trim();
        if let Some(key) = reference.strip_prefix("dataset.") {
            if key.is_empty() {
                return Err(InputRefError::NoKey { reference: reference.to_string() });
            }
            return Ok(Self::Dataset(key.to_string()));
        }
        if let Some(rest) = reference.strip_prefix("prev_node.") {
            return match rest.strip_suffix(".output") {
                Some(id) if !id.is_empty() => Ok(Self::PrevNode(id.into())),
                _ => Err(InputRefError::BadNodeOutput { reference: reference.to_string() }),
            };
        }
        Err(InputRefError::UnknownSource { reference: reference.to_string() })
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

    #[test]
    fn errors_quote_the_trimmed_reference() {
        let message = |text: &str| InputRef::parse(text).unwrap_err().to_string();
        assert_eq!(message(" dataset. "), "\"dataset.\" names no dataset key");
        assert_eq!(message("prev_node.x"), "\"prev_node.x\" must have the form prev_node.<node_id>.output");
        assert_eq!(message("rows"), "\"rows\" must be dataset.<key> or prev_node.<node_id>.output");
        assert_eq!(InputRef::parse("rows"), Err(InputRefError::UnknownSource { reference: "rows".into() }));
    }
}
