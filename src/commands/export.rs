//! `eval-dag export RUN (--otlp URL | --format otlp-json --out FILE)`: a
//! recorded run as OpenTelemetry spans, sent to a tracing tool or written.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;

use crate::cli::{ExportArgs, ExportFormat};
use crate::export::{OtlpEndpoint, RunExport, http::Sender};

/// The project a run's spans go to unless `--project` names one: the run
/// directory's name (a run's `trace.jsonl` counts as its directory), else the
/// trace file's name without `.jsonl` and `.trace`.
fn default_project(run: &Path) -> String {
    let named = |path: &Path| path.file_name().map(|n| n.to_string_lossy().into_owned());
    let run = std::fs::canonicalize(run).unwrap_or_else(|_| run.to_path_buf());
    let name = if run.is_dir() {
        named(&run)
    } else if run.file_name().is_some_and(|n| n == "trace.jsonl") {
        run.parent().and_then(named)
    } else {
        named(&run).map(|n| n.trim_end_matches(".jsonl").trim_end_matches(".trace").to_string())
    };
    name.filter(|n| !n.is_empty()).unwrap_or_else(|| "eval-dag".to_string())
}

/// Run the `export` subcommand.
pub fn run(args: ExportArgs) -> anyhow::Result<ExitCode> {
    let trace = super::read_trace(&super::report::trace_path(&args.run)?)?;
    let project = args.project.clone().unwrap_or_else(|| default_project(&args.run));
    let export = RunExport::from_trace(&trace, &project)?;
    match (&args.otlp, args.format, &args.out) {
        (Some(url), _, _) => {
            let endpoint = OtlpEndpoint::parse(url)?;
            let sender = Sender::new(endpoint.clone(), &args.headers)?;
            let requests = export.requests(args.batch_size as usize);
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .context("cannot start the runtime")?;
            runtime.block_on(async {
                for request in &requests {
                    sender.send(request).await?;
                }
                Ok::<(), crate::export::ExportError>(())
            })?;
            say!(
                "trace {}: {} spans sent to {} in {} request{} (project {project})",
                export.trace_id_hex(),
                export.spans.len(),
                endpoint.0,
                requests.len(),
                if requests.len() == 1 { "" } else { "s" }
            );
        }
        (None, Some(ExportFormat::OtlpJson), Some(out)) => {
            let size = super::report::write_page(out, &export.to_json())?;
            say!(
                "trace {}: {} spans written to {} ({:.1} KiB, project {project})",
                export.trace_id_hex(),
                export.spans.len(),
                out.display(),
                size as f64 / 1024.0
            );
        }
        _ => anyhow::bail!("say where the spans go: --otlp URL, or --format otlp-json --out FILE"),
    }
    Ok(ExitCode::SUCCESS)
}
