//! The CPython engine: a pool's workers are a CPython found on the machine,
//! running `worker.py`, behind the same walls as the RustPython workers.
//!
//! - The pool starts it as `python -s -S -B -X utf8 -c <worker.py>` with the
//!   same clean environment, working directory, process group and resource
//!   limits (see `start`), and `PYTHONHASHSEED` from the run's hash key, so
//!   set and dict orders replay.
//! - Its first line (the boot, [`boot_line`]) names the dataset and carries
//!   the prelude (`prelude.py`, shared with RustPython, then this engine's
//!   `prelude.py`) and the seccomp programs, compiled here for the worker's
//!   process id. The worker loads the data, runs the prelude, then confines
//!   itself through `ctypes` (no new privileges, Landlock without any file
//!   access, the programs) and forgets `ctypes` before it says it is ready.
//! - The language policy runs here, in Rust, before any code is sent
//!   ([`request_line`]); the request carries each node's seed and resolved
//!   inputs. Replies are the pool's own (`node`, `result`); a result's display
//!   copies and the final answer's bound are applied here ([`finish`]), as
//!   the RustPython worker applies them itself.
//! - A worker runs one DAG and ends, as RustPython's do. Workers are not
//!   cloned from a template: each loads the dataset itself.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;
use serde::Serialize;

use super::error::SandboxError;
use super::outcome::{failure_kind, node_seed};
use super::output::{DISPLAY_ITEMS, bound_final_answer, display_of, truncate_for_display};
use crate::dag::InputRef;
use crate::domain::{ExecutionResult, GeneratedDag, NodeId, PythonRecord, RunClock};

/// The worker's program.
pub(super) const WORKER: &str = include_str!("worker.py");
/// The prelude shared with RustPython.
const PRELUDE: &str = include_str!("../prelude.py");
/// CPython's part of the prelude.
const PRELUDE_CPYTHON: &str = include_str!("prelude.py");
/// Test builds: the escape functions of unchecked requests (see `escape.rs`).
#[cfg(feature = "sandbox-test-hooks")]
const ESCAPE: Option<&str> = Some(include_str!("escape.py"));
/// Shipping builds: no unchecked requests.
#[cfg(not(feature = "sandbox-test-hooks"))]
const ESCAPE: Option<&str> = None;
/// The oldest CPython the engine takes.
const OLDEST: (u32, u32) = (3, 10);

/// A CPython found on this machine, checked to be new enough.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CPython {
    /// The interpreter's absolute path (its `sys.executable`).
    pub path: PathBuf,
    /// Its version, `major.minor.micro`.
    pub version: String,
}

/// Why no CPython can run DAGs.
#[derive(Debug, thiserror::Error)]
pub enum PythonError {
    /// Nothing named `python3` on `PATH`, and none named.
    #[error("no python3 on PATH: install CPython 3.10 or newer, or name one with --python PATH")]
    NotOnPath,
    /// The program could not be run.
    #[error("cannot run {path} as Python: {source}")]
    Run {
        /// The program.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// It ran but did not say its version as CPython would.
    #[error("{path} is not a working CPython (it did not print its version): {said}")]
    NotPython {
        /// The program.
        path: PathBuf,
        /// What it printed (its last line).
        said: String,
    },
    /// It is older than 3.10.
    #[error("{path} is Python {version}; the cpython engine needs 3.10 or newer")]
    TooOld {
        /// The program.
        path: PathBuf,
        /// Its version.
        version: String,
    },
}

impl CPython {
    /// `explicit` (`--python`, `EVAL_DAG_PYTHON`), else the first `python3`
    /// on `PATH`; checked by running it.
    pub fn find(explicit: Option<&Path>) -> Result<Self, PythonError> {
        match explicit {
            Some(path) => Self::probe(path),
            None => Self::probe(&on_path("python3").ok_or(PythonError::NotOnPath)?),
        }
    }

    /// Run `program` once to read its version and real path.
    pub fn probe(program: &Path) -> Result<Self, PythonError> {
        const SAY: &str =
            "import sys; print(sys.implementation.name, '%d.%d.%d' % sys.version_info[:3], sys.executable)";
        let output = Command::new(program)
            .args(["-s", "-S", "-c", SAY])
            .output()
            .map_err(|source| PythonError::Run { path: program.to_path_buf(), source })?;
        let said = String::from_utf8_lossy(&output.stdout).trim().to_string();
        let not_python = || {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let last = stderr.lines().chain(said.lines()).rfind(|line| !line.trim().is_empty());
            PythonError::NotPython {
                path: program.to_path_buf(),
                said: last.map_or_else(|| "nothing".to_string(), |line| line.trim().to_string()),
            }
        };
        let mut words = said.splitn(3, ' ');
        let (Some("cpython"), Some(version), Some(executable)) = (words.next(), words.next(), words.next()) else {
            return Err(not_python());
        };
        let mut numbers = version.split('.').map(str::parse::<u32>);
        let (Some(Ok(major)), Some(Ok(minor))) = (numbers.next(), numbers.next()) else {
            return Err(not_python());
        };
        if (major, minor) < OLDEST {
            return Err(PythonError::TooOld { path: program.to_path_buf(), version: version.to_string() });
        }
        let path = if executable.is_empty() { program.to_path_buf() } else { PathBuf::from(executable) };
        Ok(Self { path, version: version.to_string() })
    }

    /// What a trace records of it.
    #[must_use]
    pub fn record(&self) -> PythonRecord {
        PythonRecord { path: self.path.display().to_string(), version: self.version.clone() }
    }
}

/// The first file named `name` on `PATH` that is a file.
fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(name)).find(|path| path.is_file())
}

/// System calls the worker makes through `ctypes`, by this machine's numbers.
#[derive(Serialize)]
struct Syscalls {
    seccomp: i64,
    landlock_create_ruleset: i64,
    landlock_restrict_self: i64,
    clone: i64,
}

/// The boot line.
#[derive(Serialize)]
struct Boot<'a> {
    data: &'a Path,
    prelude: [(&'static str, &'static str); 2],
    kernel: bool,
    landlock: bool,
    filters: Vec<String>,
    syscalls: Syscalls,
    /// Test builds: the script defining the escape functions of unchecked requests.
    escape: Option<&'static str>,
    /// Items of an intermediate list or dict the worker sends (the display
    /// copy shows no more): the rest is only counted.
    display_items: usize,
}

/// What the kernel layers of a boot are (test builds may leave them off).
#[derive(Clone, Copy)]
pub(super) struct Layers {
    /// Any kernel layer at all.
    pub kernel: bool,
    /// Landlock among them.
    pub landlock: bool,
}

/// The boot line of the worker with process id `pid` over the dataset in
/// `dataset_dir`.
pub(super) fn boot_line(dataset_dir: &Path, layers: Layers, pid: u32) -> Result<String, SandboxError> {
    let filters = filters(layers, pid)?;
    let boot = Boot {
        data: &dataset_dir.join("data.json"),
        prelude: [("<sandbox prelude>", PRELUDE), ("<cpython prelude>", PRELUDE_CPYTHON)],
        kernel: layers.kernel,
        landlock: layers.landlock,
        filters,
        syscalls: Syscalls {
            seccomp: libc::SYS_seccomp,
            landlock_create_ruleset: libc::SYS_landlock_create_ruleset,
            landlock_restrict_self: libc::SYS_landlock_restrict_self,
            clone: libc::SYS_clone,
        },
        escape: ESCAPE,
        display_items: DISPLAY_ITEMS,
    };
    serde_json::to_string(&boot).map(|line| line + "\n").map_err(|source| SandboxError::Request { source })
}

/// The seccomp programs of the worker with process id `pid`, base64-encoded
/// (none when the kernel layers are off).
fn filters(layers: Layers, pid: u32) -> Result<Vec<String>, SandboxError> {
    if !layers.kernel {
        return Ok(Vec::new());
    }
    let programs =
        super::kernel::cpython_programs(pid).map_err(|err| SandboxError::Spawn { source: io::Error::other(err) })?;
    Ok(programs.iter().map(|program| base64::engine::general_purpose::STANDARD.encode(program)).collect())
}

/// The line a worker cloned from a template reads first on its stdin: the
/// seccomp programs compiled for its own process id `pid`.
pub(super) fn clone_line(layers: Layers, pid: u32) -> Result<String, SandboxError> {
    let line = serde_json::json!({ "filters": filters(layers, pid)? });
    Ok(line.to_string() + "\n")
}

/// A node as the worker runs it.
#[derive(Serialize)]
struct Node<'a> {
    node_id: &'a str,
    function_name: &'a str,
    code: &'a str,
    seed: u64,
    /// `(parameter, "dataset" | "node" | "error", the key, node or message)`.
    inputs: Vec<(&'a str, &'static str, String)>,
}

/// A DAG as the worker runs it: nodes in layer order.
#[derive(Serialize)]
struct Request<'a> {
    question_id: &'a str,
    final_node: &'a str,
    now: Option<String>,
    nodes: Vec<Node<'a>>,
    unchecked: bool,
}

/// The request line for `dag` (already past the language policy, unless
/// `unchecked`, a test build's escape).
pub(super) fn request_line(
    dag: &GeneratedDag,
    seed: u64,
    now: Option<RunClock>,
    unchecked: bool,
) -> Result<String, SandboxError> {
    let mut nodes: Vec<_> = dag.nodes.iter().collect();
    nodes.sort_by_key(|node| node.layer);
    let nodes = nodes
        .into_iter()
        .map(|node| Node {
            node_id: &node.node_id,
            function_name: &node.function_name,
            code: &node.code,
            seed: node_seed(seed, &node.node_id),
            inputs: node
                .inputs
                .iter()
                .map(|(param, reference)| {
                    let (kind, value) = input(param, reference);
                    (param.as_str(), kind, value)
                })
                .collect(),
        })
        .collect();
    let request = Request {
        question_id: &dag.question_id,
        final_node: &dag.final_answer_node,
        now: now.map(|now| now.rfc3339()),
        nodes,
        unchecked,
    };
    serde_json::to_string(&request).map(|line| line + "\n").map_err(|source| SandboxError::Request { source })
}

/// An input as the worker resolves it.
fn input(param: &str, reference: &str) -> (&'static str, String) {
    match InputRef::parse(reference) {
        Ok(InputRef::Dataset(key)) => ("dataset", key),
        Ok(InputRef::PrevNode(node)) => ("node", node.to_string()),
        // Worded as the RustPython worker words it.
        Err(source) => ("error", format!("input {param}: {source}")),
    }
}

/// A CPython worker's result made what a RustPython worker's is: display
/// copies of the node outputs (of `cut`'s, from the first items the worker
/// sent and their number in all), the final answer refused past its bound,
/// and the kind of its failure.
pub(super) fn finish(
    mut result: ExecutionResult,
    dag: &GeneratedDag,
    cut: &BTreeMap<NodeId, usize>,
) -> ExecutionResult {
    if let Some(answer) = &result.final_answer
        && let Err(err) = bound_final_answer(answer)
    {
        let node = dag.final_answer_node.clone();
        result.node_outputs.shift_remove(&node);
        result.error = Some(format!("node {node}: {err}"));
        result.error_node = Some(node);
        result.final_answer = None;
        result.success = false;
    }
    for (node, shown) in &mut result.node_outputs {
        *shown = match cut.get(node) {
            Some(total) => display_of(shown, *total),
            None => truncate_for_display(shown),
        };
    }
    result.failure = result.error.as_deref().map(failure_kind);
    result
}
