//! The README and the user guide (`docs/src/`, an mdBook) stay true: the shell
//! blocks marked `sh offline` run against the built binary and exit 0, every
//! page of the guide is in its `SUMMARY.md`, and every relative link and
//! `#anchor` resolves; every path a doc comment names with its folder exists.
//! The rules are written up in `docs/src/contributing.md`.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The info string of a fenced block the tests run.
const OFFLINE: &str = "sh offline";

/// The README, then the guide's pages in name order.
fn pages() -> Vec<PathBuf> {
    let mut guide: Vec<PathBuf> = std::fs::read_dir(common::root().join("docs/src"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    guide.sort();
    std::iter::once(common::root().join("README.md")).chain(guide).collect()
}

/// A page's fenced blocks as (info string, body), and its text outside them.
fn split_fences(text: &str) -> (Vec<(String, String)>, String) {
    let (mut blocks, mut prose) = (Vec::new(), String::new());
    let mut open: Option<(String, String, String)> = None; // (fence, info, body)
    for line in text.lines() {
        let trimmed = line.trim_start();
        match &mut open {
            None if trimmed.starts_with("```") || trimmed.starts_with("~~~") => {
                let fence: String = trimmed.chars().take_while(|c| *c == '`' || *c == '~').collect();
                let info = trimmed[fence.len()..].trim().to_string();
                open = Some((fence, info, String::new()));
            }
            None => {
                prose.push_str(line);
                prose.push('\n');
            }
            Some((fence, _, _)) if trimmed.starts_with(fence.as_str()) && trimmed.trim_end() == fence.as_str() => {
                let (_, info, body) = open.take().unwrap();
                blocks.push((info, body));
                prose.push('\n');
            }
            Some((_, _, body)) => {
                body.push_str(line);
                body.push('\n');
            }
        }
    }
    assert!(open.is_none(), "a fenced block is never closed");
    (blocks, prose)
}

fn relative(path: &Path) -> String {
    path.strip_prefix(common::root()).unwrap_or(path).display().to_string()
}

/// Runs `script` with bash in `dir`, the binary's directory first on `PATH`,
/// isolated from the developer's setup (`common::isolate`).
fn run_block(dir: &Path, script: &str) -> std::process::Output {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_eval-dag"));
    let path = std::env::join_paths(
        std::iter::once(binary.parent().unwrap().to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let mut command = Command::new("bash");
    command
        .args(["-e", "-o", "pipefail", "-c", script])
        .current_dir(dir)
        .env("PATH", path)
        .env("HOME", dir.join("home"))
        .env("XDG_DATA_HOME", dir.join("home/data"));
    common::isolate(&mut command, &dir.join("home"));
    command.output().unwrap()
}

#[test]
fn every_offline_shell_block_runs_and_exits_0() {
    let mut ran = 0;
    for page in pages() {
        let (blocks, _) = split_fences(&std::fs::read_to_string(&page).unwrap());
        let scripts: Vec<String> =
            blocks.into_iter().filter(|(info, _)| info == OFFLINE).map(|(_, body)| body).collect();
        if scripts.is_empty() {
            continue;
        }
        // One directory per page: its blocks run in order and may read what earlier ones wrote.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        std::os::unix::fs::symlink(common::root().join("sample-data"), dir.path().join("sample-data")).unwrap();
        for script in scripts {
            let out = run_block(dir.path(), &script);
            assert!(
                out.status.success(),
                "{}: this block exited {:?}:\n{script}\nstdout:\n{}\nstderr:\n{}",
                relative(&page),
                out.status.code(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            ran += 1;
        }
    }
    assert!(ran >= 3, "the README's tour has blocks marked `{OFFLINE}`; {ran} ran");
}

/// The anchor GitHub and mdBook give a heading: lower case, spaces to `-`,
/// everything but letters, digits, `-` and `_` dropped.
fn slug(heading: &str) -> String {
    let mut text = heading.to_string();
    // A link in a heading keeps its text.
    while let (Some(open), Some(mid)) = (text.find('['), text.find("](")) {
        let Some(close) = text[mid..].find(')').map(|c| c + mid) else { break };
        if open > mid {
            break;
        }
        text = format!("{}{}{}", &text[..open], &text[open + 1..mid], &text[close + 1..]);
    }
    text.trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a page's headings (outside code), a repeated one numbered as GitHub does.
fn anchors(page: &Path) -> BTreeSet<String> {
    let (_, prose) = split_fences(&std::fs::read_to_string(page).unwrap());
    let mut seen = BTreeSet::new();
    for line in prose.lines() {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let base = slug(&line[hashes..]);
            let mut anchor = base.clone();
            let mut n = 0;
            while seen.contains(&anchor) {
                n += 1;
                anchor = format!("{base}-{n}");
            }
            seen.insert(anchor);
        }
    }
    seen
}

/// The targets of a page's Markdown links and images, outside code.
fn link_targets(page: &Path) -> Vec<String> {
    let (_, prose) = split_fences(&std::fs::read_to_string(page).unwrap());
    // Inline code is no link.
    let mut text = String::new();
    for (i, part) in prose.split('`').enumerate() {
        if i % 2 == 0 {
            text.push_str(part);
        }
    }
    let mut targets = Vec::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let end = after.find(')').unwrap_or(after.len());
        let target = after[..end].split_whitespace().next().unwrap_or("").to_string();
        targets.push(target);
        rest = &after[end..];
    }
    targets
}

#[test]
fn every_page_is_in_the_summary_and_every_link_resolves() {
    let summary = common::root().join("docs/src/SUMMARY.md");
    let listed: BTreeSet<String> =
        link_targets(&summary).into_iter().map(|t| t.split('#').next().unwrap_or("").to_string()).collect();
    for page in pages().into_iter().skip(1) {
        let name = page.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name == "SUMMARY.md" || listed.contains(&name), "docs/src/{name} is not in docs/src/SUMMARY.md");
    }
    assert!(common::root().join("docs/book.toml").is_file(), "docs/book.toml makes docs/ an mdBook");

    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        for target in link_targets(&page) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue; // other sites are not fetched
            }
            let (path, anchor) = target.split_once('#').unwrap_or((target.as_str(), ""));
            let file = if path.is_empty() { page.clone() } else { page.parent().unwrap().join(path) };
            checked += 1;
            if !file.exists() {
                broken.push(format!("{}: {target}: no such file", relative(&page)));
            } else if !anchor.is_empty()
                && file.extension().is_some_and(|e| e == "md")
                && !anchors(&file).contains(anchor)
            {
                broken.push(format!("{}: {target}: no heading has the anchor #{anchor}", relative(&page)));
            }
        }
    }
    assert!(broken.is_empty(), "links that do not resolve:\n{}", broken.join("\n"));
    assert!(checked > 50, "the pages link to each other; {checked} links checked");
}

#[test]
fn headings_become_the_anchors_github_gives_them() {
    assert_eq!(slug(" `runs`: every run in one list"), "runs-every-run-in-one-list");
    assert_eq!(slug(" The critic's lift"), "the-critics-lift");
    assert_eq!(slug(" 1. A run"), "1-a-run");
    assert_eq!(slug(" From a CSV: `prepare`"), "from-a-csv-prepare");
    assert_eq!(slug(" See [the guide](docs/x.md) now"), "see-the-guide-now");
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A path a doc comment names with a directory in it (`report/documents/eval_results.rs`,
/// `templates/report.css`) exists: beside the file, under one of the folders
/// above it, or in the module's own folder (`x.rs` → `x/`). Paths to data
/// files (`runs/…/eval_results.json`) are examples, not checked.
#[test]
fn every_path_a_doc_comment_names_exists() {
    const CHECKED: [&str; 7] = ["rs", "md", "j2", "py", "sh", "css", "js"];
    let mut files = Vec::new();
    rust_files(&common::root().join("src"), &mut files);
    let (mut missing, mut checked) = (Vec::new(), 0);
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (number, line) in text.lines().enumerate() {
            let line = line.trim_start();
            if !(line.starts_with("//!") || line.starts_with("///")) {
                continue;
            }
            for (i, token) in line.split('`').enumerate() {
                let named = i % 2 == 1
                    && token.contains('/')
                    && token.chars().all(|c| c.is_alphanumeric() || "_./-".contains(c))
                    && Path::new(token).extension().is_some_and(|e| CHECKED.iter().any(|c| e == *c));
                if !named {
                    continue;
                }
                checked += 1;
                let own = file.with_extension("").join(token);
                let found = own.exists() || file.ancestors().skip(1).any(|dir| dir.join(token).exists());
                if !found {
                    missing.push(format!("{}:{}: `{token}`", relative(&file), number + 1));
                }
            }
        }
    }
    assert!(missing.is_empty(), "paths named in doc comments that do not exist:\n{}", missing.join("\n"));
    assert!(checked > 20, "module docs name files by path; {checked} checked");
}
