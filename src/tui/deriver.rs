//! How a replay turns into a live run: the first action that needs an
//! engine starts a derived run (`commands::derive`) at the replay's
//! position, and its events and commands replace the replay.

use std::path::PathBuf;

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use crate::run::{Command, EngineEvent};

/// A derived run under way: its engine's events and commands, and where it records.
pub struct Derived {
    /// The derived run's events.
    pub events: UnboundedReceiver<(u64, EngineEvent)>,
    /// Commands to it.
    pub commands: UnboundedSender<Command>,
    /// Its run directory.
    pub dir: PathBuf,
}

/// Starts a derived run from a replay, at the replay's position (events applied).
pub type DeriveFn = Box<dyn FnMut(usize) -> anyhow::Result<Derived>>;

/// Why an action that needs an engine cannot be carried out here.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// A replay with no way to start a derived run.
    #[error("replay: no engine here — rerun, fork and edits need a live run")]
    NoEngine,
    /// The action needs an LLM and none is connected.
    #[error(
        "no LLM is connected here: replay with --llm/--model/--base-url to rerun or fork; \
         E, W (edit), N (note) and A (accept) work without one"
    )]
    NoLlm,
    /// The derived run could not be started.
    #[error("cannot start a derived run: {0:#}")]
    Derive(anyhow::Error),
}

/// How a replay turns live when the user acts on it.
pub struct Deriver {
    /// Whether an LLM is connected (reruns, forks and send-backs need one).
    pub llm: bool,
    /// Starts the derived run.
    pub start: DeriveFn,
}
