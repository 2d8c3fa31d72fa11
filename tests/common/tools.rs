//! Programs and Python packages the tests need from the machine. Under CI
//! (`CI=true`) a missing one fails the test with one line saying what to
//! install (`.ci/tools` installs them all); elsewhere the test is skipped and
//! says so on stderr.

use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The pinned Python packages, one `name==version` a line.
pub const REQUIREMENTS: &str = "tests/python/requirements.txt";

/// Something a test needs from the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// tmux, which drives the end-to-end terminal tests.
    Tmux,
    /// CPython 3, the second implementation the sandbox is compared with.
    Python3,
    /// The pinned Python packages of [`REQUIREMENTS`] (the OTLP messages'
    /// second implementation, the Kubernetes schema, the Parquet and XLSX
    /// writers), in [`python_packages`].
    PythonPackages,
    /// man, which renders the generated manual pages.
    Man,
}

impl Tool {
    /// Every tool, in the order `.ci/tools` installs them.
    pub const ALL: [Tool; 4] = [Tool::Tmux, Tool::Python3, Tool::PythonPackages, Tool::Man];

    /// The one line saying it is missing and how to install it (the line
    /// `.ci/tools` ends with when it cannot install it).
    pub fn missing_line(self) -> String {
        let install =
            |name: &str, packages: &str| format!("{name} is missing: install it with apt-get install {packages}");
        match self {
            Self::Tmux => install("tmux", "tmux"),
            Self::Python3 => install("python3", "python3 python3-pip"),
            Self::Man => install("man", "man-db"),
            Self::PythonPackages => format!(
                "the Python packages of {REQUIREMENTS} are missing: install them with \
                 python3 -m pip install --target target/python-packages -r {REQUIREMENTS}"
            ),
        }
    }

    /// Whether this machine has it.
    pub fn available(self) -> bool {
        let probe = match self {
            Self::Tmux => Command::new("tmux").arg("-V").output(),
            Self::Python3 => Command::new("python3").arg("--version").output(),
            Self::PythonPackages => python3_with_packages()
                .args([
                    "-c",
                    "import opentelemetry.proto.collector.trace.v1.trace_service_pb2, kubernetes_validate, krippendorff, \
                     pyarrow.parquet, openpyxl",
                ])
                .stderr(Stdio::null())
                .output(),
            Self::Man => Command::new("man").arg("--version").output(),
        };
        probe.is_ok_and(|output| output.status.success())
    }
}

/// What a test does without a tool it needs.
#[derive(Debug, PartialEq, Eq)]
pub enum Missing {
    /// Fail, with this line (under CI).
    Fail(String),
    /// Skip, saying this on stderr (elsewhere).
    Skip(String),
}

/// What a test does when `tool` is missing, under CI (`under_ci`) or not.
pub fn when_missing(tool: Tool, under_ci: bool) -> Missing {
    if under_ci {
        Missing::Fail(tool.missing_line())
    } else {
        Missing::Skip(format!("SKIPPED (CI fails here): {}", tool.missing_line()))
    }
}

/// Whether the tests run under CI: `CI` is `true` (or `1`).
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| value.eq_ignore_ascii_case("true") || value == "1")
}

/// Whether `tool` is here. When it is not: under CI, fail the test with one
/// line saying what to install; elsewhere say on stderr that the test is
/// skipped, and return `false`.
pub fn require(tool: Tool) -> bool {
    if tool.available() {
        return true;
    }
    match when_missing(tool, under_ci()) {
        Missing::Fail(line) => panic!("{line}"),
        Missing::Skip(line) => eprintln!("{line}"),
    }
    false
}

/// The directory `.ci/tools` installs the pinned Python packages into: the
/// build's target directory's `python-packages`.
pub fn python_packages() -> PathBuf {
    let target = std::path::Path::new(env!("CARGO_BIN_EXE_eval-dag"))
        .parent()
        .and_then(std::path::Path::parent)
        .expect("the binary lies in the target directory");
    target.join("python-packages")
}

/// `python3`, seeing the pinned packages.
pub fn python3_with_packages() -> Command {
    let mut command = Command::new("python3");
    command.env("PYTHONPATH", python_packages());
    command
}
