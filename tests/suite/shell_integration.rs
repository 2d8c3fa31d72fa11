//! `eval-dag completions` and `eval-dag man`: the scripts parse and complete,
//! the man pages render.

use std::path::Path;
use std::process::Command;

use crate::common::eval_dag;
use crate::common::tools::{Tool, require};

/// The visible subcommands every script and page names.
const SUBCOMMANDS: [&str; 19] = [
    "run",
    "review",
    "agreement",
    "runs",
    "replay",
    "prepare",
    "import",
    "exec",
    "validate",
    "merge",
    "report",
    "compare",
    "grade",
    "baseline",
    "recritic",
    "export",
    "cache",
    "completions",
    "man",
];

fn stdout_of(home: &Path, args: &[&str]) -> String {
    let output = eval_dag(home).args(args).output().unwrap();
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

fn installed(program: &str) -> bool {
    Command::new("sh").args(["-c", &format!("command -v {program}")]).output().is_ok_and(|o| o.status.success())
}

/// Check `script` with `shell -n` when the shell is installed; `false` when it is not.
fn parses_with(shell: &str, script: &Path) -> bool {
    if !installed(shell) {
        eprintln!("note: {shell} is not installed; its completion script's syntax is not checked");
        return false;
    }
    let output = Command::new(shell).arg("-n").arg(script).output().unwrap();
    assert!(output.status.success(), "{shell} -n: {}", String::from_utf8_lossy(&output.stderr));
    true
}

fn assert_names_everything(shell: &str, script: &str, flags: &[&str]) {
    for name in SUBCOMMANDS.iter().chain(flags) {
        assert!(script.contains(name), "{shell} script names {name}");
    }
    assert!(!script.contains("sandbox-worker"), "{shell}: the hidden worker is not offered");
}

#[test]
fn bash_completion_parses_and_completes_subcommands_and_their_flags() {
    let home = tempfile::tempdir().unwrap();
    let script = stdout_of(home.path(), &["completions", "bash"]);
    assert_names_everything("bash", &script, &["--questions", "--max-gap", "--out"]);
    let file = home.path().join("eval-dag.bash");
    std::fs::write(&file, &script).unwrap();
    assert!(parses_with("bash", &file), "bash runs the tests");
    // What Tab offers, asked the way bash asks the completion function.
    let complete = |words: &str, current: usize| {
        let probe = format!(
            "source {}; COMP_WORDS=({words}); COMP_CWORD={current}; _eval__dag eval-dag \"${{COMP_WORDS[$COMP_CWORD]}}\" \"${{COMP_WORDS[$COMP_CWORD-1]}}\"; echo \"${{COMPREPLY[*]}}\"",
            file.display()
        );
        let output = Command::new("bash").args(["-c", &probe]).output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap().trim().to_string()
    };
    assert_eq!(complete("eval-dag re", 1), "replay report review recritic");
    assert_eq!(complete("eval-dag report --", 2), "--out --help --version", "a subcommand's flags complete");
    assert!(complete("eval-dag run --max", 2).contains("--max-iterations"));
    assert_eq!(complete("eval-dag completions f", 2), "fish");
}

#[test]
fn zsh_fish_and_powershell_scripts_name_every_subcommand_and_flag() {
    let home = tempfile::tempdir().unwrap();
    for (shell, flags) in [
        ("zsh", ["--questions", "--max-gap", "--out"]),
        ("fish", ["-l questions", "-l max-gap", "-l out"]),
        ("powershell", ["--questions", "--max-gap", "--out"]),
    ] {
        let script = stdout_of(home.path(), &["completions", shell]);
        assert_names_everything(shell, &script, &flags);
        let file = home.path().join(format!("eval-dag.{shell}"));
        std::fs::write(&file, &script).unwrap();
        match shell {
            "zsh" => {
                assert!(script.starts_with("#compdef eval-dag"), "zsh loads it from $fpath by this line");
                parses_with("zsh", &file);
            }
            "fish" => {
                parses_with("fish", &file);
            }
            _ => assert!(script.contains("Register-ArgumentCompleter -Native -CommandName 'eval-dag'")),
        }
    }
    let output = eval_dag(home.path()).args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "an unknown shell is bad usage");
    assert!(String::from_utf8_lossy(&output.stderr).contains("possible values: bash"));
}

#[test]
fn man_prints_the_main_page_and_writes_one_page_per_command() {
    let home = tempfile::tempdir().unwrap();
    let page = stdout_of(home.path(), &["man"]);
    assert!(page.contains(".TH eval-dag 1"), "{page}");
    for name in SUBCOMMANDS {
        assert!(page.contains(&format!("eval\\-dag\\-{}(1)", name.replace('-', "\\-"))), "the page lists {name}");
    }
    assert!(!page.contains("sandbox\\-worker"), "the hidden worker has no place in the manual");
    let dir = home.path().join("man/man1");
    let output = eval_dag(home.path()).arg("man").arg("--out").arg(&dir).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let mut files: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    files.sort();
    let mut expected: Vec<String> =
        SUBCOMMANDS.iter().map(|s| format!("eval-dag-{s}.1")).chain(["eval-dag.1".to_string()]).collect();
    expected.sort();
    assert_eq!(files, expected);
    let run_page = std::fs::read_to_string(dir.join("eval-dag-run.1")).unwrap();
    assert!(run_page.contains(".TH eval-dag-run 1") && run_page.contains("\\-\\-max\\-iterations"), "{run_page}");
    if !require(Tool::Man) {
        return;
    }
    let rendered =
        Command::new("man").arg("-l").arg(dir.join("eval-dag-run.1")).env("MANPAGER", "cat").output().unwrap();
    assert!(rendered.status.success(), "{}", String::from_utf8_lossy(&rendered.stderr));
    let text = String::from_utf8_lossy(&rendered.stdout);
    for heading in ["NAME", "SYNOPSIS", "OPTIONS", "--max-iterations", "Generate questions for a dataset"] {
        assert!(text.contains(heading), "man -l renders {heading}: {text}");
    }
}
