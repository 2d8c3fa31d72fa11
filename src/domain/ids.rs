//! The ids that cross modules: a question's and a DAG node's.
//!
//! Each is its own type, so a node id cannot be passed where a question id is
//! meant, and each serialises as the plain JSON string it wraps (traces,
//! results files and fixtures read and write exactly as with a `String`).
//!
//! An id is text with no rule of its own to protect (models name nodes freely),
//! so each type dereferences to `str`: `&id` goes where a `&str` is expected and
//! string methods read as they did; `as_str()` says it where a deref would not.
//! Maps keyed by an id are looked up with a `&str` (`Borrow<str>`).

use std::borrow::{Borrow, Cow};
use std::fmt;
use std::ops::Deref;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};

/// Declares an id type over a `String`, with its conversions and comparisons.
macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl Deref for $name {
            type Target = str;

            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl From<String> for $name {
            fn from(id: String) -> Self {
                Self(id)
            }
        }

        impl From<&str> for $name {
            fn from(id: &str) -> Self {
                Self(id.to_string())
            }
        }

        impl From<&String> for $name {
            fn from(id: &String) -> Self {
                Self(id.clone())
            }
        }

        impl From<&$name> for $name {
            fn from(id: &$name) -> Self {
                id.clone()
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> Self {
                id.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                &self.0 == other
            }
        }

        impl PartialEq<$name> for str {
            fn eq(&self, other: &$name) -> bool {
                self == other.0
            }
        }

        impl PartialEq<$name> for &str {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }

        impl PartialEq<$name> for String {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }

        /// The schema of the string it wraps (a reply's schema names no id type).
        impl JsonSchema for $name {
            fn inline_schema() -> bool {
                String::inline_schema()
            }

            fn schema_name() -> Cow<'static, str> {
                String::schema_name()
            }

            fn schema_id() -> Cow<'static, str> {
                String::schema_id()
            }

            fn json_schema(generator: &mut SchemaGenerator) -> Schema {
                String::json_schema(generator)
            }
        }
    };
}

id_type! {
    /// A question's id, such as `q_01` (a question line's `id`).
    QuestionId
}

id_type! {
    /// A DAG node's id, such as `step_1a` (a node's `node_id`).
    NodeId
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn an_id_is_written_and_read_as_a_plain_json_string() {
        let question = QuestionId::from("q_01");
        assert_eq!(serde_json::to_string(&question).unwrap(), r#""q_01""#);
        assert_eq!(serde_json::from_str::<QuestionId>(r#""q_01""#).unwrap(), question);
        let node = NodeId::from("step_1a");
        assert_eq!(serde_json::to_string(&node).unwrap(), r#""step_1a""#);
        assert_eq!(serde_json::from_str::<NodeId>(r#""step_1a""#).unwrap(), node);
        assert!(serde_json::from_str::<NodeId>("7").is_err(), "a number is not an id");
        let keyed: HashMap<NodeId, u32> = serde_json::from_str(r#"{"a": 1, "b": 2}"#).unwrap();
        assert_eq!(serde_json::to_value(&keyed).unwrap(), serde_json::json!({"a": 1, "b": 2}));
    }

    #[test]
    fn an_id_compares_with_text_and_keys_a_map_looked_up_by_str() {
        let node = NodeId::from("b".to_string());
        let (text, earlier) = (String::from("b"), NodeId::from("a"));
        assert!(node == "b", "with a &str");
        assert!("b" == node, "a &str with it");
        assert!(node == *"b", "with a str");
        assert!(node == text, "with a String");
        assert!(text == node, "a String with it");
        assert!(node != "a");
        assert!(earlier < node, "ordered as its text");
        assert_eq!(node.to_string(), "b");
        assert_eq!((node.as_str(), node.len()), ("b", 1));
        let map = HashMap::from([(node.clone(), 2)]);
        assert_eq!(map.get("b"), Some(&2));
        assert_eq!(String::from(node), "b");
        assert_eq!(QuestionId::default(), "");
    }

    #[test]
    fn an_id_has_the_json_schema_of_a_string() {
        let mut generator = SchemaGenerator::default();
        assert_eq!(NodeId::json_schema(&mut generator), String::json_schema(&mut generator));
        assert_eq!(QuestionId::schema_name(), String::schema_name());
        assert!(QuestionId::inline_schema());
    }
}
