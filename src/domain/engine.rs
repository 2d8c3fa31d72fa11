//! Which Python runs a run's DAGs: the embedded RustPython (the default) or a
//! CPython on the machine, and which CPython that was.

use serde::{Deserialize, Serialize};

/// The Python that executes DAGs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// The interpreter built into eval-dag: nothing to install, the same
    /// answers on every machine.
    #[default]
    RustPython,
    /// A CPython (3.10 or newer) found on the machine, under the same walls.
    CPython,
}

impl Engine {
    /// Both engines, the default first.
    pub const ALL: [Self; 2] = every_variant!(Self: RustPython, CPython);

    /// Its name as flags, configs and traces spell it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::RustPython => "rustpython",
            Self::CPython => "cpython",
        }
    }

    /// The other engine: what a differential check compares with.
    #[must_use]
    pub const fn other(self) -> Self {
        match self {
            Self::RustPython => Self::CPython,
            Self::CPython => Self::RustPython,
        }
    }

    /// Whether this is the default engine (left out of traces).
    #[must_use]
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The CPython a run used: recorded so a replay on another machine can say
/// that its Python differs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PythonRecord {
    /// The interpreter's absolute path (`sys.executable`).
    pub path: String,
    /// Its version, `major.minor.micro`.
    pub version: String,
}

/// How the answers of two engines on the same DAG differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DivergenceKind {
    /// Both answered, differently.
    Answer,
    /// Both answered with the same items, in another order somewhere (a
    /// list built from a set: RustPython's sets keep insertion order,
    /// CPython's follow hashes).
    Order,
    /// Both failed at the same node, with different messages.
    ErrorText,
    /// One answered and the other failed, or they failed at different nodes.
    Outcome,
}

impl DivergenceKind {
    /// Every kind, in order of weight (the answer itself first).
    pub const ALL: [Self; 4] = every_variant!(Self: Answer, Outcome, Order, ErrorText);

    /// Its name as results and traces spell it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Answer => "answer",
            Self::Order => "order",
            Self::ErrorText => "error_text",
            Self::Outcome => "outcome",
        }
    }
}

/// What one engine made of a DAG: its answer, or its error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineOutcome {
    /// The engine.
    pub engine: Engine,
    /// Its final answer, when it succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<serde_json::Value>,
    /// Its error, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Where two engines running the same DAG parted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineDivergence {
    /// How they differ.
    pub kind: DivergenceKind,
    /// The run's engine, whose answer the question keeps.
    pub primary: EngineOutcome,
    /// The engine it was checked against.
    pub other: EngineOutcome,
    /// The first node (in layer order) whose output differs or that only one
    /// engine ran to the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_node: Option<crate::domain::NodeId>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_are_named_as_flags_spell_them() {
        for engine in Engine::ALL {
            let json = serde_json::to_string(&engine).unwrap();
            assert_eq!(json, format!("\"{}\"", engine.name()));
            assert_eq!(serde_json::from_str::<Engine>(&json).unwrap(), engine);
            assert_eq!(engine.other().other(), engine);
        }
        assert!(Engine::RustPython.is_default() && !Engine::CPython.is_default());
    }
}
