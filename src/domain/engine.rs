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
    pub const ALL: [Self; 2] = [Self::RustPython, Self::CPython];

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
