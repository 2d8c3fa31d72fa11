//! The layering of `src/`, enforced: every `crate::…` path (in `use` lines and
//! inline, as in `crate::engine::preview(…)`) and every use of an external UI
//! or runtime crate is checked against the table below, which is the one
//! ARCHITECTURE.md describes. A violation names its file and line. The table
//! itself must be free of cycles, and ARCHITECTURE.md must name every
//! top-level module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each top-level module of `src/` and the modules it may use. Lower layers
/// come first; a module may only use modules listed before it.
const LAYERS: &[(&str, &[&str])] = &[
    ("text", &[]),
    ("logging", &[]),
    ("templating", &[]),
    ("domain", &["text"]),
    ("dataset", &["domain", "text"]),
    ("benchmark", &["dataset", "domain", "text"]),
    ("dag", &["dataset", "domain", "text"]),
    ("sandbox", &["dag", "dataset", "domain", "text"]),
    ("run", &["domain", "text"]),
    ("trace", &["domain", "run", "text"]),
    ("prompts", &["dataset", "domain", "templating", "text"]),
    ("llm", &["dataset", "domain", "prompts", "run", "text", "trace"]),
    ("grade", &["benchmark", "llm", "domain", "prompts", "text"]),
    ("engine", &["dag", "dataset", "grade", "llm", "domain", "prompts", "run", "text", "trace"]),
    ("render", &["dag", "domain", "text"]),
    (
        "report",
        &["benchmark", "dag", "grade", "llm", "domain", "prompts", "render", "run", "templating", "text", "trace"],
    ),
    ("export", &["domain", "run", "text", "trace"]),
    ("cli", &["llm", "domain"]),
    ("tui", &["dag", "dataset", "domain", "render", "report", "run", "text", "trace"]),
    ("config", &["cli", "llm", "domain", "text", "tui"]),
    (
        "commands",
        &[
            "benchmark",
            "cli",
            "config",
            "dag",
            "dataset",
            "engine",
            "export",
            "grade",
            "llm",
            "domain",
            "prompts",
            "report",
            "run",
            "sandbox",
            "text",
            "trace",
            "tui",
        ],
    ),
];

/// External crates only some modules may use: the terminal UI's, and the
/// async runtime (kept out of the domain, the protocol and the checks).
const EXTERNAL: &[(&str, &[&str])] = &[
    ("ratatui", &["tui"]),
    ("crossterm", &["tui"]),
    ("tokio", &["sandbox", "llm", "grade", "engine", "report", "tui", "commands"]),
];

/// One forbidden use.
#[derive(Debug, PartialEq)]
struct Violation {
    file: PathBuf,
    line: usize,
    message: String,
}

/// `source` without comments (line comments, doc comments, block comments)
/// and without string literals, line numbers kept.
pub(super) fn code_only(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars().peekable();
    let (mut block, mut line_comment, mut string) = (0usize, false, false);
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        match c {
            '\n' => {
                line_comment = false;
                out.push('\n');
            }
            _ if line_comment => {}
            '/' if block == 0 && !string && next == Some('/') => line_comment = true,
            '/' if !string && next == Some('*') => {
                chars.next();
                block += 1;
            }
            '*' if block > 0 && next == Some('/') => {
                chars.next();
                block -= 1;
            }
            _ if block > 0 => {}
            '\\' if string => {
                chars.next();
            }
            // A character literal ('"', '\n'); a lifetime ('a) is left alone.
            '\'' if !string => {
                let mut ahead = chars.clone();
                match (ahead.next(), ahead.next()) {
                    (Some('\\'), _) => {
                        chars.next();
                        chars.next();
                        while chars.next().is_some_and(|c| c != '\'') {}
                    }
                    (Some(_), Some('\'')) => {
                        chars.next();
                        chars.next();
                    }
                    _ => out.push(c),
                }
            }
            'r' if !string && matches!(next, Some('"' | '#')) => {
                let mut ahead = chars.clone();
                let hashes = std::iter::from_fn(|| ahead.next_if_eq(&'#')).count();
                if ahead.next() != Some('"') {
                    out.push(c);
                    continue;
                }
                // A raw string: skip to its closing quote and hashes, keeping line breaks.
                chars.nth(hashes);
                while let Some(c) = chars.next() {
                    match c {
                        '\n' => out.push('\n'),
                        '"' if (0..hashes).all(|_| chars.next_if_eq(&'#').is_some()) => break,
                        _ => {}
                    }
                }
            }
            '"' => string = !string,
            _ if string => {}
            c => out.push(c),
        }
    }
    out
}

/// The top-level module a file of `src/` belongs to (`None`: the crate root files).
fn module_of(relative: &Path) -> Option<String> {
    let first = relative.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (!matches!(name, "lib" | "main")).then(|| name.to_string())
}

/// The top-level modules a line of code uses through `crate::` (also in
/// grouped imports such as `use crate::{a::X, b::Y}`).
fn crate_paths(line: &str) -> Vec<String> {
    let mut used = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        let after = &rest[at + "crate::".len()..];
        let preceded = rest[..at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_');
        if !preceded {
            if let Some(group) = after.strip_prefix('{') {
                let body = group.split('}').next().unwrap_or("");
                used.extend(body.split(',').filter_map(|item| {
                    let name = item.trim().split("::").next()?.trim();
                    (!name.is_empty()).then(|| name.to_string())
                }));
            } else {
                let name: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                used.push(name);
            }
        }
        rest = after;
    }
    used
}

/// Whether `line` uses the external crate `name` (`use name::…`, `name::path`).
fn uses_external(line: &str, name: &str) -> bool {
    line.match_indices(&format!("{name}::"))
        .any(|(at, _)| !line[..at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':'))
}

/// Every violation in the file at `relative` (under `src/`) holding `source`.
fn check(relative: &Path, source: &str) -> Vec<Violation> {
    let Some(module) = module_of(relative) else { return Vec::new() };
    let allowed: BTreeMap<&str, &[&str]> = LAYERS.iter().copied().collect();
    let mut found = Vec::new();
    let mut report = |line: usize, message: String| {
        found.push(Violation { file: Path::new("src").join(relative), line, message });
    };
    let Some(may_use) = allowed.get(module.as_str()) else {
        report(1, format!("`{module}` is not in the layering table of tests/suite/architecture.rs"));
        return found;
    };
    for (index, line) in code_only(source).lines().enumerate() {
        for used in crate_paths(line) {
            if used != module && !may_use.contains(&used.as_str()) {
                report(index + 1, format!("`{module}` may not use `{used}`"));
            }
        }
        for (name, users) in EXTERNAL {
            if uses_external(line, name) && !users.contains(&module.as_str()) {
                report(index + 1, format!("`{module}` may not use the `{name}` crate"));
            }
        }
    }
    found
}

pub(super) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

pub(super) fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The top-level modules of `src/`.
fn top_level_modules() -> BTreeSet<String> {
    std::fs::read_dir(src())
        .unwrap()
        .flatten()
        .filter_map(|entry| module_of(Path::new(&entry.file_name())))
        .filter(|name| !name.starts_with('.'))
        .collect()
}

#[test]
fn every_module_uses_only_the_layers_below_it() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let violations: Vec<String> = files
        .iter()
        .flat_map(|path| {
            let relative = path.strip_prefix(src()).unwrap();
            check(relative, &std::fs::read_to_string(path).unwrap())
        })
        .map(|v| format!("{}:{}: {}", v.file.display(), v.line, v.message))
        .collect();
    assert!(violations.is_empty(), "layering violations:\n{}", violations.join("\n"));
    let listed: BTreeSet<String> = LAYERS.iter().map(|(name, _)| name.to_string()).collect();
    assert_eq!(top_level_modules(), listed, "the table names every top-level module of src/, and only those");
}

#[test]
fn the_layers_form_no_cycle_and_only_look_down() {
    for (position, (module, uses)) in LAYERS.iter().enumerate() {
        for used in *uses {
            let below = LAYERS[..position].iter().any(|(name, _)| name == used);
            assert!(below, "`{module}` uses `{used}`, which is not listed before it");
        }
    }
}

#[test]
fn a_planted_violation_is_found_with_its_file_and_line() {
    let planted = "//! Prompts.\nuse crate::domain::Question;\n\nfn f() {\n    let text = crate::engine::preview(&v, 3); // crate::tui in a comment is fine\n}\n";
    let found = check(Path::new("prompts/mod.rs"), planted);
    assert_eq!(
        found,
        vec![Violation {
            file: "src/prompts/mod.rs".into(),
            line: 5,
            message: "`prompts` may not use `engine`".into()
        }]
    );
    let grouped =
        check(Path::new("run/state.rs"), "use crate::{domain::Question, tui::App};\nuse ratatui::text::Line;\n");
    let messages: Vec<&str> = grouped.iter().map(|v| v.message.as_str()).collect();
    assert_eq!(messages, ["`run` may not use `tui`", "`run` may not use the `ratatui` crate"]);
    let quoted = check(
        Path::new("engine/mod.rs"),
        "const S: &str = \"crate::tui::draw\";\nconst R: &str = r#\"say \"crate::tui\"\"#;\nlet q = '\"'; // crate::tui\n",
    );
    assert!(quoted.is_empty(), "paths inside strings, raw strings and comments are not uses: {quoted:?}");
    let after_literals =
        check(Path::new("run/mod.rs"), "let q = '\"';\nlet r = r#\"\"\"#;\nuse crate::engine::start;\n");
    assert_eq!(after_literals.len(), 1, "a use after character and raw string literals is still seen");
    assert_eq!(after_literals[0].line, 3);
}

#[test]
fn architecture_md_names_every_top_level_module() {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md")).unwrap();
    for module in top_level_modules() {
        assert!(text.contains(&format!("`src/{module}")), "ARCHITECTURE.md does not describe src/{module}");
    }
}

#[test]
fn no_module_re_exports_another_top_level_modules_items() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut found = Vec::new();
    for file in files {
        let source = std::fs::read_to_string(&file).unwrap();
        for (number, line) in code_only(&source).lines().enumerate() {
            if line.trim_start().starts_with("pub use crate::") {
                found.push(format!("{}:{}: {}", file.display(), number + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "a type imported by two paths:\n{}", found.join("\n"));
}
