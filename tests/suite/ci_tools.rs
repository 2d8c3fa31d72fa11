//! What the tests need from the machine: under CI a missing tool fails the
//! test with one line saying what to install, and `.ci/tools`, which installs
//! them, ends with that same line when it cannot.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

use crate::common::root;
use crate::common::tools::{Missing, Tool, when_missing};

#[test]
fn a_missing_tool_fails_under_ci_with_one_line_and_is_skipped_aloud_elsewhere() {
    for tool in Tool::ALL {
        let line = tool.missing_line();
        assert!(!line.contains('\n') && line.contains("missing: install"), "{line}");
        assert_eq!(when_missing(tool, true), Missing::Fail(line.clone()));
        let Missing::Skip(said) = when_missing(tool, false) else { panic!("{tool:?} fails outside CI") };
        assert!(said.starts_with("SKIPPED") && said.ends_with(&line) && !said.contains('\n'), "{said}");
    }
}

/// `.ci/tools` run with only the programs in `bin` on its path, installing
/// Python packages under `target`.
fn ci_tools(bin: &Path, target: &Path) -> Output {
    Command::new("/bin/bash")
        .arg(root().join(".ci/tools"))
        .env_clear()
        .env("PATH", bin)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .unwrap()
}

/// A program in `bin` named `name` that exits with `code`.
fn stand_in(bin: &Path, name: &str, code: u8) {
    let path = bin.join(name);
    std::fs::write(&path, format!("#!/bin/sh\nexit {code}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn ci_tools_ends_with_the_tests_line_when_it_cannot_install_tmux() {
    let dir = tempfile::tempdir().unwrap();
    let output = ci_tools(dir.path(), &dir.path().join("target"));
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&output.stderr), format!("{}\n", Tool::Tmux.missing_line()));
}

#[test]
fn ci_tools_ends_with_the_tests_line_when_pip_cannot_install_the_pinned_packages() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    // tmux and man are here; python3 is, but fails (pip with it).
    for (name, code) in [("tmux", 0), ("man", 0), ("python3", 1)] {
        stand_in(&bin, name, code);
    }
    for program in ["rm", "mkdir", "cmp", "cp", "mv"] {
        let real = ["/usr/bin", "/bin"].iter().map(|d| Path::new(d).join(program)).find(|p| p.exists()).unwrap();
        std::os::unix::fs::symlink(real, bin.join(program)).unwrap();
    }
    let target = dir.path().join("target");
    let output = ci_tools(&bin, &target);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&output.stderr), format!("{}\n", Tool::PythonPackages.missing_line()));
    assert!(!target.join("python-packages").exists(), "nothing half-installed stays");
}
