//! The sandbox: LLM-written Python runs in worker processes that each hold a
//! RustPython interpreter with the dataset already converted to Python
//! objects. The parent enforces deadlines by killing, workers run under
//! rlimits, and a dead worker is replaced.

mod dataset;
mod native;
mod output;
mod pool;
mod protocol;
mod result_json;
mod worker;

pub use output::{MAX_FINAL_ANSWER_BYTES, bound_final_answer, truncate_for_display};
pub use pool::{SandboxConfig, SandboxError, SandboxPool};
pub use worker::serve;
