//! The sandbox: LLM-written Python runs in worker processes holding a RustPython VM.

pub mod policy;
