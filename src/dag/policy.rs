//! What node code may do: the static (AST) rules, shared by the structural
//! checks and the sandbox itself (which re-checks every node before running it).
//!
//! Refused: imports; class definitions; `global`/`nonlocal`; `async`/`await`;
//! any name, attribute, parameter, keyword or match-pattern name starting with
//! `_` (the bare `_` idiom excepted); frame and code attributes (`gi_`, `cr_`,
//! `ag_`, `f_`, `tb_`, `co_`); assignment to attributes; `.format`/`.format_map`
//! on a computed string or with attribute/index fields; bare `except:` and
//! catching `BaseException`; and the names `eval`, `exec`, `open`, `compile`,
//! `globals`, `locals`, `vars`, `dir`, `setattr`, `delattr`, `__import__`,
//! `breakpoint`, `input`.

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, ExceptHandler, Expr, Pattern, Stmt};
use ruff_text_size::Ranged;

use crate::domain::Rule;

/// One breach of the sandbox policy found in source code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The rule, e.g. `import`.
    pub rule: Rule,
    /// What is wrong and what to do instead.
    pub message: String,
    /// 1-based source line.
    pub line: usize,
}

const FORBIDDEN_NAMES: &[&str] = &[
    "eval",
    "exec",
    "open",
    "compile",
    "globals",
    "locals",
    "vars",
    "dir",
    "setattr",
    "delattr",
    "__import__",
    "breakpoint",
    "input",
];
const FRAME_PREFIXES: &[&str] = &["gi_", "cr_", "ag_", "f_", "tb_", "co_"];

fn is_private(name: &str) -> bool {
    name.starts_with('_') && name != "_"
}

struct Checker<'s> {
    source: &'s str,
    found: Vec<Violation>,
}

impl Checker<'_> {
    fn line(&self, node: &impl Ranged) -> usize {
        let offset = node.start().to_usize().min(self.source.len());
        self.source[..offset].matches('\n').count() + 1
    }

    fn flag(&mut self, node: &impl Ranged, rule: Rule, message: String) {
        let line = self.line(node);
        self.found.push(Violation { rule, message, line });
    }

    fn check_identifier(&mut self, node: &impl Ranged, name: &str, what: &str) {
        if is_private(name) {
            self.flag(node, Rule::PrivateName, format!("{what} {name:?} starts with an underscore; use a plain name"));
        }
    }

    fn check_format_call(&mut self, call: &ast::ExprCall, attribute: &ast::ExprAttribute) {
        let method = attribute.attr.as_str();
        if method != "format" && method != "format_map" {
            return;
        }
        match attribute.value.as_ref() {
            Expr::StringLiteral(literal) => {
                let text = literal.value.to_str();
                if format_fields(text).any(|field| field.contains('.') || field.contains('[')) {
                    self.flag(
                        call,
                        Rule::FormatFieldAccess,
                        format!(
                            "str.{method} fields may not read attributes or indexes; use an f-string with plain values"
                        ),
                    );
                }
            }
            _ => self.flag(
                call,
                Rule::ComputedFormat,
                format!(".{method} may only be called on a string literal; use an f-string"),
            ),
        }
    }
}

/// The field names of a format string (`{name.attr}` → `name.attr`).
fn format_fields(text: &str) -> impl Iterator<Item = &str> {
    text.split('{').skip(1).filter(|part| !part.starts_with('{')).map(|part| {
        let end = part.find(['}', '!', ':']).unwrap_or(part.len());
        &part[..end]
    })
}

impl<'a> Visitor<'a> for Checker<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Import(_) | Stmt::ImportFrom(_) => self.flag(
                stmt,
                Rule::Import,
                "import statements are not allowed; math, statistics, collections, itertools, functools, json, re, datetime, decimal, fractions, random, operator and string are already available by name".into(),
            ),
            Stmt::ClassDef(_) => self.flag(stmt, Rule::ClassDefinition, "class definitions are not allowed; use dicts and functions".into()),
            Stmt::Global(_) | Stmt::Nonlocal(_) => {
                self.flag(stmt, Rule::GlobalStatement, "global and nonlocal are not allowed; pass values as arguments".into())
            }
            Stmt::FunctionDef(def) => {
                if def.is_async {
                    self.flag(stmt, Rule::Async, "async functions are not allowed".into());
                }
                self.check_identifier(stmt, def.name.as_str(), "function name");
            }
            Stmt::For(ast::StmtFor { is_async: true, .. }) | Stmt::With(ast::StmtWith { is_async: true, .. }) => {
                self.flag(stmt, Rule::Async, "async for/with are not allowed".into())
            }
            _ => {}
        }
        visitor::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Name(name) => {
                let id = name.id.as_str();
                if FORBIDDEN_NAMES.contains(&id) {
                    self.flag(expr, Rule::ForbiddenCall, format!("{id} is not available in node code"));
                } else {
                    self.check_identifier(expr, id, "name");
                }
            }
            Expr::Attribute(attribute) => {
                let attr = attribute.attr.as_str();
                if is_private(attr) {
                    self.flag(
                        expr,
                        Rule::PrivateAttribute,
                        format!("attribute {attr:?} starts with an underscore and may not be used"),
                    );
                } else if FRAME_PREFIXES.iter().any(|p| attr.starts_with(p)) {
                    self.flag(
                        expr,
                        Rule::FrameAttribute,
                        format!("attribute {attr:?} reaches interpreter frames and may not be used"),
                    );
                }
                if !matches!(attribute.ctx, ast::ExprContext::Load) {
                    self.flag(
                        expr,
                        Rule::AttributeAssignment,
                        format!("assigning or deleting attribute {attr:?} is not allowed"),
                    );
                }
            }
            Expr::Await(_) => self.flag(expr, Rule::Async, "await is not allowed".into()),
            Expr::Call(call) => {
                if let Expr::Attribute(attribute) = call.func.as_ref() {
                    self.check_format_call(call, attribute);
                }
            }
            _ => {}
        }
        visitor::walk_expr(self, expr);
    }

    fn visit_parameter(&mut self, parameter: &'a ast::Parameter) {
        self.check_identifier(parameter, parameter.name.as_str(), "parameter");
        visitor::walk_parameter(self, parameter);
    }

    fn visit_keyword(&mut self, keyword: &'a ast::Keyword) {
        if let Some(arg) = &keyword.arg {
            self.check_identifier(keyword, arg.as_str(), "keyword argument");
        }
        visitor::walk_keyword(self, keyword);
    }

    fn visit_except_handler(&mut self, handler: &'a ExceptHandler) {
        let ExceptHandler::ExceptHandler(h) = handler;
        match h.type_.as_deref() {
            None => self.flag(
                handler,
                Rule::BareExcept,
                "a bare `except:` is not allowed; catch Exception or a specific error".into(),
            ),
            Some(kind) => {
                let names: Vec<&Expr> = match kind {
                    Expr::Tuple(tuple) => tuple.elts.iter().collect(),
                    other => vec![other],
                };
                if names.iter().any(|n| matches!(n, Expr::Name(name) if name.id.as_str() == "BaseException")) {
                    self.flag(
                        handler,
                        Rule::CatchBaseException,
                        "catching BaseException is not allowed; catch Exception".into(),
                    );
                }
            }
        }
        if let Some(name) = &h.name {
            self.check_identifier(handler, name.as_str(), "exception name");
        }
        visitor::walk_except_handler(self, handler);
    }

    fn visit_pattern(&mut self, pattern: &'a Pattern) {
        let names: Vec<&ast::Identifier> = match pattern {
            Pattern::MatchAs(p) => p.name.iter().collect(),
            Pattern::MatchStar(p) => p.name.iter().collect(),
            Pattern::MatchMapping(p) => p.rest.iter().collect(),
            _ => Vec::new(),
        };
        for name in names {
            self.check_identifier(pattern, name.as_str(), "pattern name");
        }
        visitor::walk_pattern(self, pattern);
    }

    fn visit_pattern_keyword(&mut self, keyword: &'a ast::PatternKeyword) {
        let attr = keyword.attr.as_str();
        if is_private(attr) || FRAME_PREFIXES.iter().any(|p| attr.starts_with(p)) {
            self.flag(
                keyword,
                Rule::PrivateAttribute,
                format!("match pattern reads attribute {attr:?}, which may not be used"),
            );
        }
        visitor::walk_pattern_keyword(self, keyword);
    }
}

/// Policy violations in `source`, in source order. Source that does not parse
/// yields none (syntax errors are reported by the syntax check).
pub fn check_source(source: &str) -> Vec<Violation> {
    let Ok(parsed) = ruff_python_parser::parse_module(source) else { return Vec::new() };
    let mut checker = Checker { source, found: Vec::new() };
    checker.visit_body(&parsed.syntax().body);
    checker.found.sort_by_key(|v| v.line);
    checker.found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(source: &str) -> Vec<String> {
        check_source(source).into_iter().map(|v| v.rule.to_string()).collect()
    }

    #[test]
    fn ordinary_analysis_code_passes() {
        let code = "def f(rows, _):\n    c = collections.Counter(r['category'] for r in rows)\n    try:\n        x = max(c, key=c.get)\n    except (KeyError, ValueError) as err:\n        return None\n    return f'{x}: {c[x]}', '{} {:.2f}'.format(x, 1.0)\n";
        assert_eq!(rules(code), Vec::<&str>::new());
    }

    #[test]
    fn each_rule_is_enforced() {
        let cases = [
            ("import os\n", "import"),
            ("from os import path\n", "import"),
            ("class A:\n    pass\n", "class_definition"),
            ("def f():\n    global x\n", "global_statement"),
            ("async def f():\n    pass\n", "async"),
            ("x = ().__class__\n", "private_attribute"),
            ("x = __builtins__\n", "private_name"),
            ("def f(g):\n    return g.gi_frame\n", "frame_attribute"),
            ("math.pi = 3\n", "attribute_assignment"),
            ("x = '{0.__class__}'.format(1)\n", "format_field_access"),
            ("x = '{0[0]}'.format([1])\n", "format_field_access"),
            ("s = 'a'\nx = s.format(1)\n", "computed_format"),
            ("try:\n    pass\nexcept:\n    pass\n", "bare_except"),
            ("try:\n    pass\nexcept (ValueError, BaseException):\n    pass\n", "catch_base_exception"),
            ("x = eval('1')\n", "forbidden_call"),
            ("g = getattr\nh = vars\n", "forbidden_call"),
            ("match x:\n    case int(__class__=c):\n        pass\n", "private_attribute"),
            ("def f(**__kw):\n    pass\n", "private_name"),
            ("f(__x=1)\n", "private_name"),
        ];
        for (source, rule) in cases {
            assert!(rules(source).iter().any(|r| r == rule), "{source:?} should break {rule}: {:?}", rules(source));
        }
    }

    #[test]
    fn lines_are_reported_and_bad_syntax_is_left_to_the_syntax_check() {
        let found = check_source("x = 1\n\nimport os\n");
        assert_eq!(found[0].line, 3);
        assert!(check_source("def f(:\n").is_empty());
    }
}
