//! A local OTLP/HTTP traces receiver for the export tests. It is Python's
//! `opentelemetry-proto` package (a second implementation of the OTLP
//! messages) behind `tests/common/otlp_receiver.py`; the package is installed
//! from PyPI once into the target directory and reused.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;

use serde_json::Value;

/// One install at a time within this test binary.
static INSTALL: Mutex<()> = Mutex::new(());

/// The directory holding the `opentelemetry-proto` package, installed on first use.
pub fn python_packages() -> PathBuf {
    let target = Path::new(env!("CARGO_BIN_EXE_eval-dag")).parent().and_then(Path::parent).expect("target dir");
    let dir = target.join("otlp-python");
    let _guard = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    let marker = dir.join("opentelemetry/proto/collector/trace/v1/trace_service_pb2.py");
    if !marker.exists() {
        let partial = target.join(format!("otlp-python.partial-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&partial);
        let status = Command::new("python3")
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--target"])
            .arg(&partial)
            .arg("opentelemetry-proto")
            .status()
            .expect("python3 runs");
        assert!(status.success(), "pip could not install opentelemetry-proto into {}", partial.display());
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::rename(&partial, &dir).expect("install directory moved into place");
    }
    dir
}

fn python(script_args: &[&str]) -> Command {
    let mut command = Command::new("python3");
    command.env("PYTHONPATH", python_packages()).arg(crate::common::root().join("tests/common/otlp_receiver.py"));
    command.args(script_args);
    command
}

/// A receiver listening on 127.0.0.1 that answers every request with one status.
pub struct Receiver {
    child: Child,
    /// Its base URL (no path).
    pub url: String,
    out: PathBuf,
}

impl Receiver {
    /// Start a receiver answering `status`, writing what it decodes under `dir`.
    pub fn start(dir: &Path, status: u16) -> Self {
        let out = dir.join(format!("received-{status}.jsonl"));
        let mut child = python(&["serve", out.to_str().expect("utf-8 path"), &status.to_string()])
            .stdout(Stdio::piped())
            .spawn()
            .expect("the receiver starts");
        let mut port = String::new();
        BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut port).expect("the receiver names its port");
        let port: u16 = port.trim().parse().unwrap_or_else(|_| panic!("not a port: {port:?}"));
        Self { child, url: format!("http://127.0.0.1:{port}"), out }
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
/// [`Receiver::requests`] gives a request.
pub fn parse_json(file: &Path) -> Value {
    let out = python(&["parse-json", file.to_str().expect("utf-8 path")]).output().expect("python3 runs");
    assert!(out.status.success(), "protobuf refused the file: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON")
}
