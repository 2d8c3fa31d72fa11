//! `eval-dag report RESULTS_OR_TRACE --out FILE`: the self-contained HTML report.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

use crate::cli::ReportArgs;
use crate::report::{REPORT_TEMPLATES, ReportTemplates, fold_indexed, is_trace};
use crate::run::RunState;

/// The trace behind `input`: the file itself, the `trace.jsonl` beside a results
/// file, or the one inside a run directory.
pub fn trace_path(input: &Path) -> anyhow::Result<PathBuf> {
    if is_trace(input) {
        return Ok(input.to_path_buf());
    }
    if input.is_dir() {
        let inside = input.join("trace.jsonl");
        if is_trace(&inside) {
            return Ok(inside);
        }
        anyhow::bail!("{} holds no trace.jsonl: is it a run's output directory?", input.display());
    }
    if !input.is_file() {
        anyhow::bail!("{} does not exist or is not a file", input.display());
    }
    let sibling = input.parent().unwrap_or(Path::new(".")).join("trace.jsonl");
    if is_trace(&sibling) {
        return Ok(sibling);
    }
    anyhow::bail!(
        "{} is not a trace, and no trace.jsonl lies beside it; the report is drawn from the run's trace",
        input.display()
    )
}

/// The report templates: the built-in ones, each replaced by a same-named file
/// in `$EVAL_DAG_TEMPLATES` or `<config dir>/eval-dag/templates/`.
pub fn templates() -> anyhow::Result<ReportTemplates> {
    Ok(ReportTemplates::load(REPORT_TEMPLATES.override_dir().as_deref())?)
}

/// Write the report of `state` to `out` with `templates`, with a section on
/// people's reviews when the run in `run_dir` (or a run it comes from) has
/// any; returns its size in bytes.
pub fn write_report(
    out: &Path,
    templates: &ReportTemplates,
    state: &RunState,
    run_dir: &Path,
    generated_at: &chrono::DateTime<chrono::FixedOffset>,
) -> anyhow::Result<u64> {
    if !crate::report::has_reviews(run_dir) {
        return write_page(out, &templates.report_html(state, generated_at));
    }
    let doc = crate::report::eval_results(state, "");
    let reviews = crate::report::read_reviews(run_dir, &doc);
    write_page(out, &templates.reviewed_report_html(state, generated_at, Some((&doc, &reviews))))
}

/// Write the page `html` to `out`, creating its directory; returns its size in bytes.
pub fn write_page(out: &Path, html: &str) -> anyhow::Result<u64> {
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).with_context(|| format!("cannot create directory {}", parent.display()))?;
    }
    std::fs::write(out, html).with_context(|| format!("cannot write {}", out.display()))?;
    Ok(html.len() as u64)
}

/// Run the `report` subcommand.
pub fn run(args: ReportArgs) -> anyhow::Result<ExitCode> {
    let templates = templates()?;
    let trace = super::recorded::read_trace(&trace_path(&args.input)?)?;
    let state = fold_indexed(&trace, |_| {})?;
    let run_dir = trace_path(&args.input)?.parent().map(Path::to_path_buf).unwrap_or_default();
    let size = write_report(&args.out, &templates, &state, &run_dir, &chrono::Local::now().fixed_offset())?;
    eprintln!("report: {} ({:.1} KiB, {} questions)", args.out.display(), size as f64 / 1024.0, state.questions.len());
    Ok(ExitCode::SUCCESS)
}
