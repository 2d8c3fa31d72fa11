//! The sandbox: LLM-written Python runs in worker processes that each hold a
//! RustPython interpreter with the dataset already converted to Python
//! objects. Node code is checked by a language policy; behind it, workers
//! start with a clean environment, run under rlimits, Landlock and a seccomp
//! allowlist (see `kernel`). The parent enforces deadlines by killing, and a
//! dead worker is replaced.

mod dataset;
#[cfg(feature = "sandbox-test-hooks")]
mod escape;
mod kernel;
mod limits;
mod native;
mod output;
mod pool;
mod pools;
mod protocol;
mod result_json;
mod worker;

pub use limits::{DataLimits, TooBig, available_memory};
pub use output::{MAX_FINAL_ANSWER_BYTES, OutputError, bound_final_answer, truncate_for_display};
pub use pool::{SandboxConfig, SandboxError, SandboxPool, WorkerStage};
pub use pools::{DatasetPool, SandboxPools};
pub use worker::serve;
