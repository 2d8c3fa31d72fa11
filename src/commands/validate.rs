//! `eval-dag validate DAG.json --dataset DIR`: the structural findings as JSON
//! (exit 1 when any finding is an error).

use std::process::ExitCode;

use serde_json::json;

use super::exec::read_dag;
use crate::cli::ValidateArgs;
use crate::dag::check_dag;
use crate::dataset::Dataset;
use crate::domain::Severity;

/// Run the `validate` subcommand.
pub fn run(args: ValidateArgs) -> anyhow::Result<ExitCode> {
    let dag = read_dag(&args.dag)?;
    let dataset = Dataset::load(&args.dataset)?;
    let findings = check_dag(&dag, &dataset.catalogue);
    let valid = !findings.iter().any(|f| f.severity == Severity::Error);
    let report = json!({"valid": valid, "findings": findings});
    say!("{}", serde_json::to_string_pretty(&report)?);
    Ok(if valid { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
