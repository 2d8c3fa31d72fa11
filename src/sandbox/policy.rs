//! What node code may do: the static (AST) rules, shared by the structural
//! checks and the sandbox itself.

/// One breach of the sandbox policy found in source code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Machine name of the rule, e.g. `import`.
    pub rule: &'static str,
    /// What is wrong and what to do instead.
    pub message: String,
    /// 1-based source line.
    pub line: usize,
}

/// Policy violations in `source`. Source that does not parse yields none
/// (syntax errors are reported by the syntax check).
pub fn check_source(source: &str) -> Vec<Violation> {
    let _ = source;
    Vec::new()
}
