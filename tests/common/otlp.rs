//! A local OTLP/HTTP traces receiver for the export tests. It is Python's
//! `opentelemetry-proto` package (a second implementation of the OTLP
//! messages) behind `tests/common/otlp_receiver.py`; the package is pinned in
//! `tests/python/requirements.txt` and installed before the tests (see
//! `tools`), never by a test.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use super::tools::{Tool, python3_with_packages, require};

/// `otlp_receiver.py` with `script_args`, or `None` when python3 or the
/// pinned packages are missing (see [`require`]).
fn python(script_args: &[&str]) -> Option<Command> {
    if !(require(Tool::Python3) && require(Tool::PythonPackages)) {
        return None;
    }
    let mut command = python3_with_packages();
    command.arg(crate::common::root().join("tests/common/otlp_receiver.py"));
    command.args(script_args);
    Some(command)
}

/// A receiver listening on 127.0.0.1 that answers every request with one status.
pub struct Receiver {
    child: Child,
    /// Its base URL (no path).
    pub url: String,
    out: PathBuf,
}

impl Receiver {
    /// Start a receiver answering `status`, writing what it decodes under
    /// `dir`; `None` when python3 or the pinned packages are missing.
    pub fn start(dir: &Path, status: u16) -> Option<Self> {
        let out = dir.join(format!("received-{status}.jsonl"));
        let mut child = python(&["serve", out.to_str().expect("utf-8 path"), &status.to_string()])?
            .stdout(Stdio::piped())
            .spawn()
            .expect("the receiver starts");
        let mut port = String::new();
        BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut port).expect("the receiver names its port");
        let port: u16 = port.trim().parse().unwrap_or_else(|_| panic!("not a port: {port:?}"));
        Some(Self { child, url: format!("http://127.0.0.1:{port}"), out })
    }

    /// Every request received so far, decoded: `resources`, `spans` (ids in
    /// hex, attributes as a map), `path`, `content_type`, `authorization`.
    pub fn requests(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(&self.out).unwrap_or_default();
        text.lines().map(|line| serde_json::from_str(line).expect("receiver writes JSON")).collect()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An OTLP JSON request file read by protobuf's own JSON parser, decoded as
/// [`Receiver::requests`] gives a request; `None` when python3 or the pinned
/// packages are missing.
pub fn parse_json(file: &Path) -> Option<Value> {
    let out = python(&["parse-json", file.to_str().expect("utf-8 path")])?.output().expect("python3 runs");
    assert!(out.status.success(), "protobuf refused the file: {}", String::from_utf8_lossy(&out.stderr));
    Some(serde_json::from_slice(&out.stdout).expect("JSON"))
}
