//! The sandbox: LLM-written Python runs in worker processes that each hold a
//! RustPython interpreter with the dataset already converted to Python
//! objects. Node code is checked by a language policy; behind it, workers
//! start with a clean environment, run under rlimits, Landlock and a seccomp
//! allowlist (see `kernel`). The parent enforces deadlines by killing, and a
//! dead worker is replaced. On Linux a pool's workers are clones of a template
//! process that loaded the dataset once (`template.rs` in the template,
//! `start.rs` and `fork_channel.rs` in the pool, `process.rs` for waiting on
//! either kind of worker): each clone confines itself before it reports ready.
//!
//! Parts:
//! - The pool, its deadlines and the worker processes that run DAGs in RustPython.
//! - `dataset/build.rs`: the dataset's Python objects, built in one pass straight
//!   from the JSON text, short strings shared.
//! - `result_json.rs`: results as JSON, natively; an intermediate node's display
//!   copy holds only the items shown.
//! - `limits.rs`: address space, start, node and DAG limits that follow the
//!   dataset's size, and how many workers fit in memory.
//! - `pools.rs`: `SandboxPools`, a pool per dataset of a run over several, each
//!   started on first use; past a limit the least recently used is let go.
//! - Native fast paths. `native/sort.rs` puts `list.sort` and `sorted` on the list
//!   type and the builtins, in Rust for ints, floats, strs and tuples of them.
//!   `native/key.rs` and `native/minmax.rs` recognise keys that only read fields
//!   (`lambda r: r["f"]`, `r.get`, tuples, `-`, `itemgetter`) from their bytecode
//!   and evaluate them in Rust for `sorted`, `list.sort`, `min` and `max`.
//!   `native/counter.rs` is `Counter`'s counting loop, as CPython's C helper.
//! - `kernel`: the layers behind the code policy — a clean environment, Landlock,
//!   and a seccomp allowlist that also refuses every file open.
//! - `cpython`: the second engine. Workers are a CPython on the machine running
//!   a worker script, started and confined the same way; the language policy
//!   is checked here before code is sent. `outcome.rs` holds what both engines
//!   share: the policy's refusal, node seeds, failure kinds.

mod config;
mod cpython;
mod dataset;
mod error;
#[cfg(feature = "sandbox-test-hooks")]
mod escape;
#[cfg(target_os = "linux")]
mod fork_channel;
mod kernel;
mod limits;
mod native;
mod outcome;
mod output;
mod parent_watch;
mod pool;
mod pools;
mod process;
mod protocol;
mod result_json;
mod start;
#[cfg(target_os = "linux")]
mod template;
mod worker;

pub use config::{Interpreter, SandboxConfig};
pub use cpython::{CPython, PythonError};
pub use error::{SandboxError, WorkerStage};
pub use limits::{DataLimits, TooBig, available_memory};
pub use output::{MAX_FINAL_ANSWER_BYTES, OutputError, bound_final_answer, truncate_for_display};
pub use pool::SandboxPool;
pub use pools::{DatasetPool, SandboxPools};
pub use worker::serve;
