//! No two files of `src/` import each other, through any chain of imports.
//!
//! Every path a file names is read — `crate::`, `super::`, `self::` and a
//! declared child module's name, in `use` lines (grouped ones too, across
//! lines) and inline in code — and resolved to the file that defines the item:
//! the deepest module file the path reaches, following that file's `pub use`
//! re-exports to where the item lives. A re-export itself is a module's
//! facade, not a use: a `mod.rs` that only re-exports a child may define
//! items that child uses. Test code (`#[cfg(test)]`) may use anything. A loop
//! of any length is reported with its files.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;

use super::architecture::{code_only, rust_files, src};

/// A module path from the crate root (`["tui", "app"]`).
type ModulePath = Vec<String>;

/// What one file declares and names.
#[derive(Default)]
struct FileUses {
    /// Paths this file names, made absolute (from the crate root).
    paths: Vec<ModulePath>,
    /// `pub use` re-exports: the name visible here → the absolute path it names.
    re_exports: BTreeMap<String, ModulePath>,
}

/// The module path of a file relative to `src/` (`tui/mod.rs` → `["tui"]`).
fn module_path(relative: &Path) -> ModulePath {
    let mut parts: ModulePath = relative.iter().map(|part| part.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.strip_suffix(".rs").unwrap_or(&last);
    if !matches!(stem, "mod" | "lib") {
        parts.push(stem.to_string());
    }
    parts
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The leaves of one `use` tree (`a::{b, c::{d, self}}` → `a::b`, `a::c::d`,
/// `a::c`), each as its segments; `as` renames are dropped.
fn use_tree_leaves(tree: &str) -> Vec<ModulePath> {
    fn walk(prefix: &ModulePath, tree: &str, out: &mut Vec<ModulePath>) {
        let tree = tree.trim();
        if let Some(open) = tree.find('{') {
            let head: ModulePath = split_path(&tree[..open]);
            let base: ModulePath = prefix.iter().cloned().chain(head).collect();
            let body = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
            for item in split_top_level(body) {
                walk(&base, item, out);
            }
        } else {
            let path = tree.split(" as ").next().unwrap_or("");
            let segments = split_path(path);
            if segments.as_slice() == ["self"] {
                out.push(prefix.clone());
            } else if !segments.is_empty() {
                out.push(prefix.iter().cloned().chain(segments).collect());
            }
        }
    }
    let mut out = Vec::new();
    walk(&Vec::new(), tree, &mut out);
    out
}

fn split_path(path: &str) -> ModulePath {
    path.split("::").map(str::trim).filter(|s| !s.is_empty() && *s != "*").map(String::from).collect()
}

/// `body` split at the commas outside braces.
fn split_top_level(body: &str) -> Vec<&str> {
    let (mut depth, mut start, mut items) = (0usize, 0usize, Vec::new());
    for (at, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                items.push(&body[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    items.push(&body[start..]);
    items.into_iter().filter(|item| !item.trim().is_empty()).collect()
}

/// `path` made absolute from the file at `here`; `None` for an external crate
/// or a name that is not a module of this crate.
fn absolute(here: &ModulePath, children: &BTreeSet<String>, path: &[String]) -> Option<ModulePath> {
    let first = path.first()?;
    let mut base = here.clone();
    let mut rest = path;
    if first == "crate" {
        base.clear();
        rest = &path[1..];
    } else if first == "self" || first == "super" {
        while let Some(segment) = rest.first().filter(|s| *s == "self" || *s == "super") {
            if segment == "super" {
                base.pop()?;
            }
            rest = &rest[1..];
        }
    } else if !children.contains(first) {
        return None;
    }
    Some(base.into_iter().chain(rest.iter().cloned()).collect())
}

/// The paths (with `crate`, `super`, `self` or a child module first) that a
/// line of code names outside `use` statements.
fn inline_paths(code: &str, children: &BTreeSet<String>) -> Vec<ModulePath> {
    let mut found = Vec::new();
    let bytes: Vec<char> = code.chars().collect();
    let mut at = 0;
    while at < bytes.len() {
        let starts_word = at == 0 || !(is_ident(bytes[at - 1]) || bytes[at - 1] == ':');
        if starts_word && is_ident(bytes[at]) {
            let mut end = at;
            let mut segments = Vec::new();
            loop {
                let word_end = (end..bytes.len()).find(|&i| !is_ident(bytes[i])).unwrap_or(bytes.len());
                segments.push(bytes[end..word_end].iter().collect::<String>());
                if bytes.get(word_end) == Some(&':') && bytes.get(word_end + 1) == Some(&':') {
                    end = word_end + 2;
                    if !bytes.get(end).is_some_and(|&c| is_ident(c)) {
                        end = word_end;
                        break;
                    }
                } else {
                    end = word_end;
                    break;
                }
            }
            let first = segments[0].as_str();
            if segments.len() > 1 && (matches!(first, "crate" | "super" | "self") || children.contains(first)) {
                found.push(segments);
            }
            at = end.max(at + 1);
        } else {
            at += 1;
        }
    }
    found
}

/// `code` cut into the stretches that belong to one module each: the file's
/// own module and the inline ones (`mod tests { … }`), whose `super` is the
/// file's module.
fn scopes(here: &ModulePath, code: &str) -> Vec<(ModulePath, String)> {
    let mut stack: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut out: Vec<(ModulePath, String)> = vec![(here.clone(), String::new())];
    let path_of = |stack: &[(String, usize)]| -> ModulePath {
        here.iter().cloned().chain(stack.iter().map(|(name, _)| name.clone())).collect()
    };
    let mut at = 0;
    while at < code.len() {
        let rest = &code[at..];
        let starts_word = at == 0 || !code[..at].chars().next_back().is_some_and(is_ident);
        if starts_word && rest.starts_with("mod ") {
            let name: String = rest[4..].trim_start().chars().take_while(|&c| is_ident(c)).collect();
            let after = rest[4..].trim_start()[name.len()..].trim_start();
            if !name.is_empty() && after.starts_with('{') {
                let open = at + rest.len() - after.len();
                if is_test_only(&code[..at]) {
                    at = open + closing_brace(&code[open..]);
                    continue;
                }
                out.last_mut().unwrap().1.push_str(&code[at..open]);
                depth += 1;
                stack.push((name, depth));
                out.push((path_of(&stack), String::new()));
                at = open + 1;
                continue;
            }
        }
        let c = rest.chars().next().unwrap();
        match c {
            '{' => depth += 1,
            '}' => {
                if stack.last().is_some_and(|(_, opened)| *opened == depth) {
                    stack.pop();
                    out.push((path_of(&stack), String::new()));
                }
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        out.last_mut().unwrap().1.push(c);
        at += c.len_utf8();
    }
    out
}

/// Whether the item that follows `before` is compiled for tests only: test
/// code may use anything in the crate, so it is left out of the loops.
fn is_test_only(before: &str) -> bool {
    let mut before = before.trim_end();
    for visibility in ["pub(crate)", "pub(super)", "pub"] {
        if let Some(rest) = before.strip_suffix(visibility) {
            before = rest.trim_end();
            break;
        }
    }
    before.ends_with("#[cfg(test)]")
}

/// The length of `code` up to and including the brace that closes its first one.
fn closing_brace(code: &str) -> usize {
    let mut depth = 0usize;
    for (at, c) in code.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return at + 1;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// Module files compiled for tests only (declared as `#[cfg(test)] mod x;`).
fn test_only_modules(sources: &BTreeMap<ModulePath, &String>) -> BTreeSet<ModulePath> {
    let mut found = BTreeSet::new();
    for (module, code) in sources {
        let mut rest = code.as_str();
        while let Some(at) = rest.find("mod ") {
            let name: String = rest[at + 4..].chars().take_while(|&c| is_ident(c)).collect();
            if rest[at + 4 + name.len()..].starts_with(';') && is_test_only(&rest[..at]) {
                found.insert(module.iter().cloned().chain([name]).collect());
            }
            rest = &rest[at + 4..];
        }
    }
    found
}

/// What the file at module path `here` names, read from its code.
fn read_uses(here: &ModulePath, code: &str) -> FileUses {
    let mut uses = FileUses::default();
    for (module, text) in scopes(here, code) {
        read_scope(&module, &text, &mut uses);
    }
    uses
}

/// Adds what the stretch `code` of module `here` names to `uses`.
fn read_scope(here: &ModulePath, code: &str, uses: &mut FileUses) {
    let children: BTreeSet<String> = code
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            let rest = line.strip_prefix("pub ").or(line.strip_prefix("pub(crate) ")).unwrap_or(line);
            let name = rest.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(name.trim().to_string())
        })
        .collect();
    let mut rest = code;
    let mut outside = String::new();
    while let Some(at) = find_use(rest) {
        outside.push_str(&rest[..at.start]);
        let statement = &rest[at.body..];
        let end = statement.find(';').unwrap_or(statement.len());
        for leaf in use_tree_leaves(&statement[..end]) {
            if let Some(path) = absolute(here, &children, &leaf) {
                if at.public {
                    if let Some(name) = leaf.last().filter(|name| *name != "self") {
                        uses.re_exports.insert(name.clone(), path.clone());
                    }
                } else {
                    uses.paths.push(path);
                }
            }
        }
        rest = &statement[(end + 1).min(statement.len())..];
    }
    outside.push_str(rest);
    for path in inline_paths(&outside, &children) {
        uses.paths.extend(absolute(here, &children, &path));
    }
}

/// Where a `use` statement starts in `code`: the statement, where its tree
/// begins, and whether it is a re-export.
struct UseAt {
    start: usize,
    body: usize,
    public: bool,
}

fn find_use(code: &str) -> Option<UseAt> {
    let mut from = 0;
    while let Some(found) = code[from..].find("use ") {
        let at = from + found;
        let before = code[..at].trim_end_matches([' ', '\t']);
        let public = before.ends_with("pub") || before.ends_with("pub(crate)") || before.ends_with("pub(super)");
        let line_start = before
            .trim_end_matches("pub(crate)")
            .trim_end_matches("pub(super)")
            .trim_end_matches("pub")
            .trim_end_matches([' ', '\t']);
        let statement_start = line_start.is_empty() || line_start.ends_with(['\n', ';', '{', '}']);
        let word_start = at == 0 || !code[..at].chars().next_back().is_some_and(is_ident);
        if statement_start && word_start {
            return Some(UseAt { start: at, body: at + 4, public });
        }
        from = at + 4;
    }
    None
}

/// The file that defines what `path` names: the deepest module file on it,
/// then that file's re-export of the next name, followed (a bounded number
/// of times).
fn defining_file(files: &BTreeMap<ModulePath, FileUses>, path: &[String], hops: usize) -> Option<ModulePath> {
    let mut module: ModulePath = Vec::new();
    for (depth, segment) in path.iter().enumerate() {
        let deeper: ModulePath = module.iter().cloned().chain([segment.clone()]).collect();
        if files.contains_key(&deeper) {
            module = deeper;
            continue;
        }
        let target = files.get(&module)?.re_exports.get(segment);
        return match target {
            Some(target) if hops < 8 => {
                let onward: ModulePath = target.iter().cloned().chain(path[depth + 1..].iter().cloned()).collect();
                defining_file(files, &onward, hops + 1).or(Some(module))
            }
            _ => Some(module),
        };
    }
    Some(module)
}

/// Every import loop among `sources` (module path → code), each as its
/// files' module paths, sorted.
fn import_loops(sources: &BTreeMap<String, String>) -> Vec<Vec<String>> {
    let by_module: BTreeMap<ModulePath, &String> =
        sources.iter().map(|(relative, code)| (module_path(Path::new(relative)), code)).collect();
    let tests = test_only_modules(&by_module);
    let files: BTreeMap<ModulePath, FileUses> = by_module
        .iter()
        .filter(|(module, _)| !tests.iter().any(|test| module.starts_with(test)))
        .map(|(module, code)| (module.clone(), read_uses(module, code)))
        .collect();
    let names: BTreeMap<ModulePath, &String> =
        sources.keys().map(|relative| (module_path(Path::new(relative)), relative)).collect();
    let mut graph = DiGraph::<&ModulePath, ()>::new();
    let nodes: BTreeMap<&ModulePath, _> = files.keys().map(|module| (module, graph.add_node(module))).collect();
    for (module, uses) in &files {
        let targets: BTreeSet<ModulePath> =
            uses.paths.iter().filter_map(|path| defining_file(&files, path, 0)).collect();
        for target in targets.iter().filter(|target| *target != module) {
            graph.add_edge(nodes[module], nodes[target], ());
        }
    }
    let mut loops: Vec<Vec<String>> = tarjan_scc(&graph)
        .into_iter()
        .filter(|component| component.len() > 1)
        .map(|component| {
            let mut loop_files: Vec<String> = component.iter().map(|&node| names[graph[node]].clone()).collect();
            loop_files.sort();
            loop_files
        })
        .collect();
    loops.sort();
    loops
}

/// The code of every module file of the library, test-only files left out.
fn crate_sources() -> BTreeMap<String, String> {
    let mut paths: Vec<PathBuf> = Vec::new();
    rust_files(&src(), &mut paths);
    paths
        .iter()
        .filter(|path| path.file_name().is_some_and(|name| name != "main.rs"))
        .map(|path| {
            let relative = path.strip_prefix(src()).unwrap();
            (relative.to_string_lossy().into_owned(), code_only(&std::fs::read_to_string(path).unwrap()))
        })
        .collect()
}

#[test]
fn no_files_of_src_import_each_other_in_a_loop() {
    let loops = import_loops(&crate_sources());
    let described: Vec<String> = loops.iter().map(|files| files.join(" ↔ ")).collect();
    assert!(described.is_empty(), "{} import loops between files:\n{}", loops.len(), described.join("\n"));
}

fn planted(files: &[(&str, &str)]) -> BTreeMap<String, String> {
    files.iter().map(|(path, code)| (path.to_string(), code_only(code))).collect()
}

#[test]
fn a_planted_loop_of_three_files_is_named() {
    let sources = planted(&[
        ("lib.rs", "pub mod report;\n"),
        ("report/mod.rs", "mod a;\nmod b;\nmod c;\npub use a::Alpha;\n"),
        ("report/a.rs", "use super::b::Beta;\npub struct Alpha;\n"),
        ("report/b.rs", "pub struct Beta(crate::report::c::Gamma);\n"),
        // Grouped, across lines, through the parent's re-export.
        ("report/c.rs", "use crate::{\n    report::{\n        Alpha,\n    },\n};\npub struct Gamma;\n"),
    ]);
    assert_eq!(import_loops(&sources), vec![vec!["report/a.rs", "report/b.rs", "report/c.rs"]]);
}

#[test]
fn a_parent_and_child_that_use_each_other_loop_but_a_declaration_alone_does_not() {
    let sources = planted(&[
        ("lib.rs", "mod tui;\n"),
        ("tui/mod.rs", "mod app;\nmod keys;\npub struct Ctx;\nfn f() { app::run(); }\n"),
        ("tui/app.rs", "use self::super::Ctx;\npub fn run() {}\n"),
        ("tui/keys.rs", "use super::Ctx;\n"),
    ]);
    assert_eq!(import_loops(&sources), vec![vec!["tui/app.rs", "tui/mod.rs"]]);
    let facade = planted(&[
        ("lib.rs", "mod tui;\n"),
        ("tui/mod.rs", "mod app;\npub use app::run;\npub struct Ctx;\n"),
        ("tui/app.rs", "use super::Ctx;\npub fn run(_: Ctx) {}\n"),
    ]);
    assert!(import_loops(&facade).is_empty(), "a re-export is a facade, not a use");
}

#[test]
fn test_code_may_use_anything() {
    let sources = planted(&[
        ("lib.rs", "mod report;\n"),
        ("report/mod.rs", "mod compare;\nmod results;\n#[cfg(test)]\nmod checks;\n"),
        (
            "report/compare.rs",
            "pub fn matched() {}\n#[cfg(test)]\nmod tests {\n    use crate::report::results::build;\n}\n",
        ),
        ("report/results.rs", "use super::compare::matched;\npub fn build() { matched() }\n"),
        ("report/checks.rs", "use super::results::build;\nfn check() { super::compare::matched(); }\n"),
    ]);
    assert!(import_loops(&sources).is_empty());
    let mut shipped = sources.clone();
    shipped
        .insert("report/compare.rs".to_string(), code_only("pub fn matched() { crate::report::results::build() }\n"));
    assert_eq!(import_loops(&shipped), vec![vec!["report/compare.rs", "report/results.rs"]]);
}

#[test]
fn a_chain_without_a_way_back_is_no_loop() {
    let sources = planted(&[
        ("lib.rs", "mod grade;\n"),
        ("grade/mod.rs", "mod a;\nmod b;\npub use a::A;\npub use b::B;\n"),
        ("grade/a.rs", "use super::b::B;\npub struct A(B);\n"),
        ("grade/b.rs", "pub struct B; // use super::a::A; in a comment\nconst S: &str = \"super::a::A\";\n"),
    ]);
    assert!(import_loops(&sources).is_empty());
}
