//! `eval-dag export RUN (--otlp URL | --format otlp-json --out FILE)`: a
//! recorded run as OpenTelemetry spans, sent to a tracing tool or written.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;

use crate::cli::{ExportArgs, ExportFormat};
use crate::export::{Exporter, OtlpEndpoint, RunExport, Sent};
use crate::trace::Trace;

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
    let trace = Trace::from_lines(super::recorded::read_trace(&super::report::trace_path(&args.run)?)?)?;
    let project = args.project.clone().unwrap_or_else(|| default_project(&args.run));
    match (&args.otlp, args.format, &args.out) {
        (Some(url), _, _) => {
            let batch = args.batch_size as usize;
            let mut exporter = Exporter::new(OtlpEndpoint::parse(url)?, &args.headers, project.clone(), batch)?;
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .context("cannot start the async runtime")?;
            let sent = runtime.block_on(exporter.flush(&trace, true))?;
            say!("{} (project {project})", sent_line(&sent, exporter.endpoint()));
        }
        (None, Some(ExportFormat::OtlpJson), Some(out)) => {
            let export = RunExport::from_trace(&trace, &project)?;
            let size = super::report::write_page(out, &export.to_json()?)?;
            say!(
                "trace {}: {} spans written to {} ({:.1} KiB, project {project})",
                export.trace_id_hex(),
                export.spans.len(),
                out.display(),
                size as f64 / 1024.0
            );
        }
        (None, Some(ExportFormat::Dabstep), Some(out)) => {
            let lines = crate::report::dabstep_submission(&crate::report::fold_trace(&trace).questions);
            if lines.is_empty() {
                anyhow::bail!("the run has no DABstep question (import one with `eval-dag import dabstep`)");
            }
            let mut text = String::new();
            for line in &lines {
                text.push_str(&serde_json::to_string(line)?);
                text.push('\n');
            }
            std::fs::write(out, text).with_context(|| format!("cannot write {}", out.display()))?;
            let answered = lines.iter().filter(|l| !l.agent_answer.is_empty()).count();
            say!("{} tasks ({answered} answered) written to {} as a DABstep submission", lines.len(), out.display());
        }
        _ => anyhow::bail!("say where the spans go: --otlp URL, or --format otlp-json|dabstep --out FILE"),
    }
    Ok(ExitCode::SUCCESS)
}

/// What was sent where, in one line.
pub(super) fn sent_line(sent: &Sent, endpoint: &OtlpEndpoint) -> String {
    let s = if sent.requests == 1 { "" } else { "s" };
    format!("trace {}: {} spans sent to {} in {} request{s}", sent.trace_id, sent.spans, endpoint.0, sent.requests)
}

/// How often a live export reads the trace for spans that ended.
const LIVE_EVERY: Duration = Duration::from_secs(2);

/// `run --otlp`: a run's spans sent while it runs.
pub(super) struct Live {
    exporter: Exporter,
    trace: PathBuf,
}

impl Live {
    /// A live export of the run writing `trace` (in directory `run_dir`) to
    /// `url`; a bad URL or header is an error before the run starts.
    pub(super) fn new(url: &str, headers: &[(String, String)], run_dir: &Path, trace: PathBuf) -> anyhow::Result<Self> {
        let exporter = Exporter::new(OtlpEndpoint::parse(url)?, headers, default_project(run_dir), 512)?;
        Ok(Self { exporter, trace })
    }

    /// Every [`LIVE_EVERY`], send the spans that ended, until `done` fires;
    /// then send the rest. A failed send while the run goes on is logged and
    /// tried again with the next; the last one's failure is the result.
    pub(super) async fn follow(mut self, mut done: tokio::sync::oneshot::Receiver<()>) -> anyhow::Result<String> {
        loop {
            tokio::select! {
                _ = &mut done => break,
                () = tokio::time::sleep(LIVE_EVERY) => {
                    let flushed = match Trace::read(&self.trace) {
                        Ok(trace) => self.exporter.flush(&trace, false).await.map_err(anyhow::Error::from),
                        Err(err) => Err(err.into()),
                    };
                    if let Err(err) = flushed {
                        tracing::warn!("live export: {err:#}");
                    }
                }
            }
        }
        let trace = Trace::read(&self.trace)?;
        let sent = self.exporter.flush(&trace, true).await?;
        Ok(sent_line(&sent, self.exporter.endpoint()))
    }
}
