//! Logs go to a file, never to the terminal the TUI draws on.
//!
//! The file is `$EVAL_DAG_LOG` when set (set but empty: no log, as for sandbox
//! workers), else `eval-dag.log` in the user's data directory. Verbosity follows `RUST_LOG` (default `info`). Failing to open the
//! file silently disables logging: a log must never stop a run.

use std::{fs::OpenOptions, path::PathBuf, sync::Mutex};

use tracing_subscriber::EnvFilter;

/// Where the log file lives.
pub fn log_path() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("EVAL_DAG_LOG") {
        return (!path.is_empty()).then(|| PathBuf::from(path));
    }
    let dirs = directories::ProjectDirs::from("", "", "eval-dag")?;
    Some(dirs.data_local_dir().join("eval-dag.log"))
}

/// Install the file logger (once per process).
pub fn init() {
    let Some(path) = log_path() else { return };
    if let Some(parent) = path.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    let Ok(file) = OpenOptions::new().create(true).append(true).open(&path) else {
        return;
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_ansi(false).with_writer(Mutex::new(file)).try_init();
}
