//! The static field-name check: string keys that node code reads from values
//! coming from `dataset.<key>` must exist in the schema catalogue.
//!
//! A value is *dataset-derived* when it is a parameter bound to `dataset.<key>`,
//! or an element, subscript, `.get()`, `.values()` / `.items()` value,
//! `sorted`/`list`/`reversed`/`filter` result, loop or comprehension variable,
//! or lambda parameter obtained from a dataset-derived value (the analysis is
//! flow-insensitive). Only string literals used as subscripts or `.get()` keys
//! on dataset-derived values are checked, so dicts the code builds itself are
//! never flagged.

use std::collections::HashMap;

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::{Ranged, TextRange};

use crate::dataset::SchemaCatalogue;

/// A field read that the dataset does not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownField {
    /// The field name read.
    pub field: String,
    /// The dataset key it was read from.
    pub key: String,
    /// Closest known name, if any is close.
    pub suggestion: Option<String>,
    /// 1-based line in the node's code.
    pub line: usize,
}

enum Binding<'a> {
    /// `target = value`.
    Assign(&'a Expr, &'a Expr),
    /// `for target in iter` (loops and comprehensions).
    Iterate(&'a Expr, &'a Expr),
    /// A lambda parameter fed by the elements of `iter`.
    LambdaOver(&'a str, &'a Expr),
}

#[derive(Default)]
struct Collector<'a> {
    bindings: Vec<Binding<'a>>,
    accesses: Vec<(&'a Expr, String, TextRange)>,
}

const PASS_THROUGH: &[&str] = &["sorted", "list", "reversed", "filter", "tuple", "iter"];
const TAKES_KEY_FUNCTION: &[&str] = &["sorted", "max", "min", "filter", "map", "sum", "any", "all", "list"];

fn string_literal(expr: &Expr) -> Option<String> {
    match expr {
        Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
        _ => None,
    }
}

impl<'a> Visitor<'a> for Collector<'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Assign(assign) => {
                for target in &assign.targets {
                    self.bindings.push(Binding::Assign(target, &assign.value));
                }
            }
            Stmt::AnnAssign(ast::StmtAnnAssign { target, value: Some(value), .. }) => {
                self.bindings.push(Binding::Assign(target, value));
            }
            Stmt::For(for_stmt) => self.bindings.push(Binding::Iterate(&for_stmt.target, &for_stmt.iter)),
            _ => {}
        }
        visitor::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Subscript(subscript) => {
                if let Some(key) = string_literal(&subscript.slice) {
                    self.accesses.push((&subscript.value, key, expr.range()));
                }
            }
            Expr::Named(named) => self.bindings.push(Binding::Assign(&named.target, &named.value)),
            Expr::Call(call) => {
                if let Expr::Attribute(attribute) = call.func.as_ref()
                    && attribute.attr.as_str() == "get"
                    && let Some(key) = call.arguments.args.first().and_then(string_literal)
                {
                    self.accesses.push((&attribute.value, key, expr.range()));
                }
                if let Expr::Name(name) = call.func.as_ref()
                    && TAKES_KEY_FUNCTION.contains(&name.id.as_str())
                    && let Some(iterable) = call.arguments.args.first()
                {
                    let lambdas = call.arguments.args.iter().chain(call.arguments.keywords.iter().map(|k| &k.value));
                    for candidate in lambdas {
                        if let Expr::Lambda(lambda) = candidate
                            && let Some(first) = lambda.parameters.as_ref().and_then(|p| p.args.first())
                        {
                            self.bindings.push(Binding::LambdaOver(first.parameter.name.as_str(), iterable));
                        }
                    }
                }
            }
            _ => {}
        }
        visitor::walk_expr(self, expr);
    }

    fn visit_comprehension(&mut self, comprehension: &'a ast::Comprehension) {
        self.bindings.push(Binding::Iterate(&comprehension.target, &comprehension.iter));
        visitor::walk_comprehension(self, comprehension);
    }
}

/// The dataset key `expr` derives from, given the derived names.
fn derived<'k>(expr: &Expr, names: &HashMap<String, &'k str>) -> Option<&'k str> {
    match expr {
        Expr::Name(name) => names.get(name.id.as_str()).copied(),
        Expr::Subscript(subscript) => derived(&subscript.value, names),
        Expr::Call(call) => match call.func.as_ref() {
            Expr::Attribute(attribute) if matches!(attribute.attr.as_str(), "get" | "values" | "copy") => {
                derived(&attribute.value, names)
            }
            Expr::Name(name) if PASS_THROUGH.contains(&name.id.as_str()) => {
                call.arguments.args.iter().find_map(|a| derived(a, names))
            }
            _ => None,
        },
        _ => None,
    }
}

/// For `for target in iter`: which target names receive dataset-derived values.
fn iteration_targets<'e>(target: &'e Expr, iter: &Expr, names: &HashMap<String, &str>) -> Vec<&'e str> {
    let second_of_pair = |call: &ast::ExprCall| match call.func.as_ref() {
        Expr::Attribute(attribute) if attribute.attr.as_str() == "items" => derived(&attribute.value, names).is_some(),
        Expr::Name(name) if name.id.as_str() == "enumerate" => {
            call.arguments.args.first().is_some_and(|a| derived(a, names).is_some())
        }
        _ => false,
    };
    match (target, iter) {
        (Expr::Tuple(pair), Expr::Call(call)) if pair.elts.len() == 2 && second_of_pair(call) => match &pair.elts[1] {
            Expr::Name(name) => vec![name.id.as_str()],
            _ => Vec::new(),
        },
        (Expr::Name(name), _) if derived(iter, names).is_some() => vec![name.id.as_str()],
        _ => Vec::new(),
    }
}

/// The 1-based line of `range` in `source`.
pub(super) fn line_of(source: &str, range: TextRange) -> usize {
    let offset = range.start().to_usize().min(source.len());
    source[..offset].matches('\n').count() + 1
}

/// Unknown field names read in `code`, whose parameters are bound to dataset
/// keys by `dataset_params` (parameter name → dataset key).
pub fn unknown_fields(
    code: &str,
    dataset_params: &HashMap<String, String>,
    catalogue: &SchemaCatalogue,
) -> Vec<UnknownField> {
    let Ok(parsed) = ruff_python_parser::parse_module(code) else { return Vec::new() };
    let mut collector = Collector::default();
    collector.visit_body(&parsed.syntax().body);
    let mut names: HashMap<String, &str> = dataset_params.iter().map(|(p, k)| (p.clone(), k.as_str())).collect();
    loop {
        let before = names.len();
        for binding in &collector.bindings {
            let new: Vec<(String, &str)> = match binding {
                Binding::Assign(Expr::Name(target), value) => {
                    derived(value, &names).map(|k| (target.id.to_string(), k)).into_iter().collect()
                }
                Binding::Iterate(target, iter) => match derived(iter, &names).or_else(|| {
                    let Expr::Call(call) = iter else { return None };
                    let base = match call.func.as_ref() {
                        Expr::Attribute(a) => Some(a.value.as_ref()),
                        _ => call.arguments.args.first(),
                    };
                    base.and_then(|b| derived(b, &names))
                }) {
                    Some(key) => {
                        iteration_targets(target, iter, &names).into_iter().map(|n| (n.to_string(), key)).collect()
                    }
                    None => Vec::new(),
                },
                Binding::LambdaOver(param, iter) => {
                    derived(iter, &names).map(|k| (param.to_string(), k)).into_iter().collect()
                }
                Binding::Assign(..) => Vec::new(),
            };
            for (name, key) in new {
                names.entry(name).or_insert(key);
            }
        }
        if names.len() == before {
            break;
        }
    }
    let mut found = Vec::new();
    for (base, field, range) in &collector.accesses {
        let Some(key) = derived(base, &names) else { continue };
        let Some(known) = catalogue.known_names(key) else { continue };
        if known.contains(field) {
            continue;
        }
        found.push(UnknownField {
            field: field.clone(),
            key: key.to_string(),
            suggestion: catalogue.closest_name(key, field).map(str::to_string),
            line: line_of(code, *range),
        });
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Metadata;
    use serde_json::json;

    fn catalogue() -> SchemaCatalogue {
        let data = json!({
            "transactions": [{"amt": 1.0, "category": "a", "is_fraud": 0}],
            "category_stats": {"grocery": {"count": 3, "fraud_rate": 0.1}}
        });
        SchemaCatalogue::build(data.as_object().unwrap(), &Metadata::default())
    }

    fn fields(code: &str, params: &[(&str, &str)]) -> Vec<(String, Option<String>)> {
        let params = params.iter().map(|(p, k)| (p.to_string(), k.to_string())).collect();
        unknown_fields(code, &params, &catalogue()).into_iter().map(|f| (f.field, f.suggestion)).collect()
    }

    #[test]
    fn invented_fields_are_caught_through_common_data_flow() {
        let code = "def f(rows, stats):\n    a = [r['amount'] for r in rows]\n    for r in rows:\n        x = r.get('categry')\n    first = rows[0]\n    y = first['is_fraud']\n    s = sorted(rows, key=lambda t: t['amt_usd'])\n    for name, s2 in stats.items():\n        z = s2['transaction_count']\n    for i, row in enumerate(rows):\n        w = row['amt']\n    return a\n";
        let found = fields(code, &[("rows", "transactions"), ("stats", "category_stats")]);
        let names: Vec<&str> = found.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(names, vec!["amount", "categry", "amt_usd", "transaction_count"]);
        assert_eq!(found[1].1.as_deref(), Some("category"));
        assert_eq!(found[3].1.as_deref(), Some("count"));
    }

    #[test]
    fn dicts_the_code_builds_itself_are_not_flagged() {
        let code = "def f(rows):\n    out = {}\n    for r in rows:\n        out['total'] = out.get('total', 0) + r['amt']\n    summary = {'mean': 1}\n    return summary['mean'], out['total']\n";
        assert!(fields(code, &[("rows", "transactions")]).is_empty());
    }
}
