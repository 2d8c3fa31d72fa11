//! Every integration test, as modules of one test binary: the crate (RustPython
//! included) is linked once instead of once per file.

mod common;
mod suite;
