//! DAG structure: input references, layers and the structural validators
//! (deterministic, no LLM). Every finding names its node (when it has one), a
//! rule and a message a builder LLM can act on. All findings are errors.
//!
//! Parts: input references; structural checks (`formats.rs`: a `strptime` call
//! must read a column with the format its metadata gives, and never a duration);
//! the code policy (`policy`: builtins, modules, AST rules); the `DagExecutor`
//! trait.

mod code;
mod executor;
mod fields;
mod findings;
mod formats;
pub mod policy;
mod refs;
mod structure;

use std::collections::HashMap;

pub use code::{CodeProblem, code_problems};
pub use executor::DagExecutor;
pub use fields::{UnknownField, unknown_fields};
pub use findings::FindingSink;
pub use formats::{FormatMismatch, format_mismatches};
pub use refs::{InputRef, InputRefError};

use crate::dataset::SchemaCatalogue;
use crate::domain::{Finding, GeneratedDag, Rule};
use policy::check_source;

/// Every structural finding of `dag` against the dataset's `catalogue`:
/// graph checks first, then each node's code (syntax, signature, sandbox
/// policy, field names, the formats `strptime` reads columns with).
pub fn check_dag(dag: &GeneratedDag, catalogue: &SchemaCatalogue) -> Vec<Finding> {
    let mut sink = FindingSink::default();
    structure::check_structure(dag, catalogue, &mut sink);
    for node in &dag.nodes {
        if node.code.len() > MAX_CODE_BYTES {
            let message = format!("the code is {} bytes; the limit is {MAX_CODE_BYTES}", node.code.len());
            sink.node(node, Rule::CodeTooLong, message);
            continue;
        }
        let findings = on_big_stack(|| code_findings(node, catalogue));
        match findings {
            Some(findings) => sink.findings.extend(findings),
            None => sink.node(node, Rule::CodeTooComplex, "the code is nested too deeply to be parsed".into()),
        }
    }
    sink.findings
}

/// Largest node code the checks parse.
pub const MAX_CODE_BYTES: usize = 64 * 1024;
/// Stack of the thread that parses node code: deeply nested expressions recurse deeply.
const PARSER_STACK: usize = 256 * 1024 * 1024;

/// Run `f` on a thread with a large stack (none if the thread fails).
fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> Option<T> {
    std::thread::scope(|scope| {
        std::thread::Builder::new().stack_size(PARSER_STACK).spawn_scoped(scope, f).ok()?.join().ok()
    })
}

/// The code-level findings of one node: syntax, signature, policy, field names.
fn code_findings(node: &crate::domain::DagNodeSpec, catalogue: &SchemaCatalogue) -> Vec<Finding> {
    let mut sink = FindingSink::default();
    {
        let inputs: Vec<&str> = node.inputs.keys().map(String::as_str).collect();
        let problems = code_problems(&node.code, &node.function_name, &inputs);
        let syntax_ok = !problems.iter().any(|p| p.rule == Rule::SyntaxError);
        for problem in problems {
            sink.node(node, problem.rule, problem.message);
        }
        if !syntax_ok {
            return sink.findings;
        }
        for violation in check_source(&node.code) {
            sink.node(node, violation.rule, format!("line {}: {}", violation.line, violation.message));
        }
        let dataset_params: HashMap<String, String> = node
            .inputs
            .iter()
            .filter_map(|(param, reference)| match InputRef::parse(reference) {
                Ok(InputRef::Dataset(key)) => Some((param.clone(), key)),
                _ => None,
            })
            .collect();
        for unknown in unknown_fields(&node.code, &dataset_params, catalogue) {
            let hint = unknown.suggestion.map(|s| format!("; did you mean '{s}'?")).unwrap_or_default();
            sink.node(
                node,
                Rule::UnknownField,
                format!(
                    "line {}: reads field '{}' from dataset.{}, which has no such field{hint}",
                    unknown.line, unknown.field, unknown.key
                ),
            );
        }
        for mismatch in format_mismatches(&node.code, catalogue) {
            sink.node(node, Rule::StrptimeFormat, format!("line {}: {}", mismatch.line, mismatch.message));
        }
    }
    sink.findings
}

#[cfg(test)]
mod tests;
