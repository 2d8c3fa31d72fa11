//! What an enum known by its name shares when it also keeps names this
//! version does not know (an `Other(String)` variant): it is written and read
//! as its name, and equality, order and hashing go by the name, so an `Other`
//! spelling a known name is that name.

/// Implements `From<String>`, `Display`, `PartialEq`/`Eq`, `Hash`,
/// `PartialOrd`/`Ord`, `Serialize` and `Deserialize` for `$type` by its name,
/// from its `name(&self) -> &str`, its `From<&str>` and its `Other(String)`.
macro_rules! known_by_name {
    ($type:ty) => {
        impl From<String> for $type {
            fn from(name: String) -> Self {
                match Self::from(name.as_str()) {
                    Self::Other(_) => Self::Other(name),
                    known => known,
                }
            }
        }

        impl std::fmt::Display for $type {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl PartialEq for $type {
            fn eq(&self, other: &Self) -> bool {
                self.name() == other.name()
            }
        }

        impl Eq for $type {}

        impl std::hash::Hash for $type {
            fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
                std::hash::Hash::hash(self.name(), state);
            }
        }

        impl PartialOrd for $type {
            fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }

        impl Ord for $type {
            fn cmp(&self, other: &Self) -> std::cmp::Ordering {
                self.name().cmp(other.name())
            }
        }

        impl serde::Serialize for $type {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.name())
            }
        }

        impl<'de> serde::Deserialize<'de> for $type {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                <String as serde::Deserialize>::deserialize(deserializer).map(Self::from)
            }
        }
    };
}

pub(super) use known_by_name;
