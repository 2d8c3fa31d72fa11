//! Every integration test, as modules of one test binary: the crate (RustPython
//! included) is linked once instead of once per file.

// clippy.toml allows them in tests; the helpers under `common/` are not tests to it.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test helpers stop at the first failure")]

mod common;
mod suite;
