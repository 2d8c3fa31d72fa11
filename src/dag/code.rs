//! Checks of each node's Python: syntax, that `function_name` is defined at
//! top level, and that its parameters match the node's `inputs`.
//!
//! Signature rule: the function's positional parameters without defaults must
//! be exactly the `inputs` keys, in order; further parameters must have
//! defaults; `*args`/`**kwargs` are refused (inputs are passed by position).

use ruff_python_ast::Stmt;

use crate::domain::Rule;

/// A problem with a node's code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeProblem {
    /// The rule.
    pub rule: Rule,
    /// What is wrong.
    pub message: String,
}

/// Problems of `code` defining `function_name` called with `inputs` (in order).
pub fn code_problems(code: &str, function_name: &str, inputs: &[&str]) -> Vec<CodeProblem> {
    let parsed = match ruff_python_parser::parse_module(code) {
        Ok(parsed) => parsed,
        Err(err) => {
            let offset = err.location.start().to_usize().min(code.len());
            let line = code[..offset].matches('\n').count() + 1;
            return vec![CodeProblem {
                rule: Rule::SyntaxError,
                message: format!("Python syntax error on line {line}: {}", err.error),
            }];
        }
    };
    let function = parsed.syntax().body.iter().find_map(|stmt| match stmt {
        Stmt::FunctionDef(def) if def.name.as_str() == function_name => Some(def),
        _ => None,
    });
    let Some(function) = function else {
        return vec![CodeProblem {
            rule: Rule::FunctionNotDefined,
            message: format!("the code does not define `def {function_name}(...)` at top level"),
        }];
    };
    let params = &function.parameters;
    let mut problems = Vec::new();
    if params.vararg.is_some() || params.kwarg.is_some() {
        problems.push(CodeProblem {
            rule: Rule::SignatureMismatch,
            message: format!("{function_name} must take its inputs as named parameters, not *args/**kwargs"),
        });
    }
    let positional: Vec<_> = params.posonlyargs.iter().chain(params.args.iter()).collect();
    let required: Vec<&str> =
        positional.iter().filter(|p| p.default.is_none()).map(|p| p.parameter.name.as_str()).collect();
    let required_kwonly = params.kwonlyargs.iter().any(|p| p.default.is_none());
    let leading: Vec<&str> = positional.iter().take(inputs.len()).map(|p| p.parameter.name.as_str()).collect();
    if leading != inputs || required.len() > inputs.len() || required_kwonly {
        problems.push(CodeProblem {
            rule: Rule::SignatureMismatch,
            message: format!(
                "{function_name}({}) does not match the node's inputs ({}); the parameters must be the inputs' keys in order",
                positional.iter().map(|p| p.parameter.name.as_str()).collect::<Vec<_>>().join(", "),
                inputs.join(", ")
            ),
        });
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(code: &str, name: &str, inputs: &[&str]) -> Vec<String> {
        code_problems(code, name, inputs).into_iter().map(|p| p.rule.to_string()).collect()
    }

    #[test]
    fn good_code_passes_and_each_problem_is_named() {
        assert!(rules("def f(rows, stats, k=3):\n    return 1\n", "f", &["rows", "stats"]).is_empty());
        assert_eq!(rules("def f(rows:\n", "f", &["rows"]), vec!["syntax_error"]);
        assert_eq!(rules("def g(rows):\n    return 1\n", "f", &["rows"]), vec!["function_not_defined"]);
        assert_eq!(rules("def f(stats, rows):\n    return 1\n", "f", &["rows", "stats"]), vec!["signature_mismatch"]);
        assert_eq!(rules("def f(rows, extra):\n    return 1\n", "f", &["rows"]), vec!["signature_mismatch"]);
        assert_eq!(rules("def f(*args):\n    return 1\n", "f", &[]), vec!["signature_mismatch"]);
        let message = &code_problems("x = (\n", "f", &[])[0].message;
        assert!(message.contains("line"), "{message}");
    }
}
