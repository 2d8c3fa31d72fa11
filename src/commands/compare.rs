//! `eval-dag compare A B [C …]` (each a trace, a results file or a run
//! directory): per question status, answer, iterations and
//! tokens of each run against the first (the baseline) — in the terminal UI
//! when stdout is a terminal, as a table (or JSON) otherwise or with
//! `--headless`; `--html` also writes the matrix as a page. Two runs keep the
//! two-column table and JSON rows; three or more give the matrix of questions
//! × runs. Each later run gets a paired significance test against the
//! baseline; exit 1 when one is worse beyond chance (`--significance`).
//! A later run allowed more iterations than the baseline also gets the
//! critic's lift (`report::rebuild_lift`): lines under the table and under
//! `lift` in the JSON. Every comparison ends with the accuracy–cost frontier
//! (`report/analyses/frontier/`): lines under the table, `frontier` in the JSON (two
//! runs print `{"rows": [...], "frontier": {...}}`), a chart in `--html`.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::cli::CompareArgs;
use crate::report::{
    AnswerSpread, Change, EvalResults, Lift, Matrix, Row, Side, baselines_text, compare, compare_runs, lift_lines,
    load_results,
};
use crate::text::{percent, preview};

fn cell(side: Option<&Side>) -> String {
    match side {
        None => "—".to_string(),
        Some(s) => {
            format!("{:<13} {:<22} it {:>2} {:>7} tok", s.status, preview(&s.answer, 22), s.iterations, s.tokens)
        }
    }
}

/// A change's name in the table; regressions shout.
fn label(change: Change) -> &'static str {
    match change {
        Change::Regression => "REGRESSION",
        other => other.label(),
    }
}

fn table(rows: &[Row]) -> String {
    let mut out = format!("{:<8} {:<15} {:<54} | {}\n", "question", "change", "A", "B");
    for row in rows {
        out.push_str(&format!(
            "{:<8} {:<15} {:<54} | {}\n",
            row.question_id,
            label(row.change),
            cell(row.a.as_ref()),
            cell(row.b.as_ref())
        ));
    }
    let count = |c| rows.iter().filter(|r| r.change == c).count();
    out.push_str(&format!(
        "{} regressions, {} improvements, {} changed answers, {} fixed by hand, {} unchanged\n",
        count(Change::Regression),
        count(Change::Improvement),
        count(Change::AnswerChanged),
        count(Change::FixedByHand),
        count(Change::Unchanged)
    ));
    out
}

/// One run's entry in the matrix table: status, answer, grade, iterations.
fn matrix_cell(entry: Option<&crate::report::Entry>) -> String {
    let Some(e) = entry else { return format!("{:<40}", "—") };
    let grade = match e.correct {
        Some(true) => "right",
        Some(false) => "wrong",
        None => "",
    };
    format!("{:<13} {:<14} {grade:<5} it {:>2}", e.side.status, preview(&e.side.answer, 14), e.side.iterations)
}

/// What the runs make of a question; a regression names the runs that regress.
fn agreement_text(row: &crate::report::MatrixRow, matrix: &Matrix) -> String {
    if row.agreement != AnswerSpread::Regression {
        return row.agreement.label().to_string();
    }
    let who: Vec<&str> = row
        .runs
        .iter()
        .zip(&matrix.runs)
        .filter(|(e, _)| e.as_ref().is_some_and(|e| e.change == Some(Change::Regression)))
        .map(|(_, run)| run.label.as_str())
        .collect();
    format!("REGRESSION {}", who.join(","))
}

/// Each later run's paired test against the baseline, one line each.
fn verdicts(matrix: &Matrix) -> Vec<String> {
    matrix
        .runs
        .iter()
        .filter_map(|run| Some(format!("{} vs A: {}", run.label, run.significance.as_ref()?.sentence())))
        .collect()
}

/// Each later run's lift over the baseline, when the baseline allowed fewer
/// iterations: a heading line, then the lift's lines indented.
fn lifts(matrix: &Matrix) -> String {
    let mut out = String::new();
    for run in &matrix.runs {
        let Some(lift) = &run.lift else { continue };
        out.push_str(&format!("the critic's lift, {} (more iterations) over A:\n", run.label));
        for line in lift_lines(lift) {
            out.push_str(&format!("  {line}\n"));
        }
    }
    out
}

/// Each run's own baselines (`run --baselines`), a line per run that has them.
fn baselines(matrix: &Matrix) -> String {
    let mut out = String::new();
    for run in &matrix.runs {
        if let Some(floors) = &run.baselines {
            out.push_str(&format!("{}'s own baselines: {}\n", run.label, baselines_text(floors)));
        }
    }
    out
}

/// Two runs' JSON: `{"rows": [...], "frontier": {...}}`, with `"lift"` when
/// B allowed more iterations and `"runs"` when a run has its own baselines
/// (under `runs[i].baselines`).
#[derive(serde::Serialize)]
struct TwoRuns<'a> {
    rows: &'a [Row],
    #[serde(skip_serializing_if = "Option::is_none")]
    lift: Option<&'a Lift>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    runs: &'a [crate::report::RunSummary],
    frontier: Option<&'a crate::report::Frontier>,
}

/// The frontier's lines: what it measures, then a point per run.
fn frontier_lines(matrix: &Matrix) -> String {
    let Some(frontier) = &matrix.frontier else { return String::new() };
    if frontier.shared_questions == 0 {
        return format!("{}\n", frontier.heading());
    }
    let mut out = format!("{}:\n", frontier.heading());
    for point in &frontier.points {
        out.push_str(&format!("  {:<3} {}  {}\n", point.label, point.figures(), point.description()));
    }
    out
}

fn matrix_table(matrix: &Matrix) -> String {
    let mut out = String::from("runs (A is the baseline)\n");
    for (index, run) in matrix.runs.iter().enumerate() {
        let regressions =
            if index == 0 { "baseline".to_string() } else { crate::text::plural(run.regressions, "regression") };
        let per_right = crate::text::dollars(run.cost_per_right);
        out.push_str(&format!(
            "{:<3} pass {:>4}  accuracy {:>4}  critic wrong rejections {:>4}  iterations {:>4.1}  tokens {:>8}  ${:.4}  {per_right}/right  {regressions:<14} {}\n",
            run.label,
            percent(Some(run.pass_rate)),
            percent(run.accuracy),
            percent(run.critic_wrong_rejection_rate),
            run.mean_iterations,
            run.tokens,
            run.cost_usd,
            run.name
        ));
    }
    for note in matrix.runs.iter().filter_map(|r| r.misalignment()) {
        out.push_str(&format!("{note}\n"));
    }
    for verdict in verdicts(matrix) {
        out.push_str(&format!("{verdict}\n"));
    }
    out.push_str(&lifts(matrix));
    out.push_str(&baselines(matrix));
    out.push_str(&frontier_lines(matrix));
    out.push_str(&format!("\n{:<8} {:<16}", "question", "runs"));
    for run in &matrix.runs {
        out.push_str(&format!(" | {:<40}", run.label));
    }
    out.push_str(" | text\n");
    for row in &matrix.questions {
        out.push_str(&format!("{:<8} {:<16}", row.question_id, agreement_text(row, matrix)));
        for entry in &row.runs {
            out.push_str(&format!(" | {}", matrix_cell(entry.as_ref())));
        }
        // The text tells apart questions that share an id in different runs.
        out.push_str(&format!(" | {}\n", preview(&serde_json::Value::String(row.question.clone()), 60)));
    }
    let counts: Vec<String> =
        [AnswerSpread::Regression, AnswerSpread::Disagree, AnswerSpread::Partial, AnswerSpread::Agree]
            .into_iter()
            .map(|a| format!("{} {}", matrix.count(a), a.label()))
            .collect();
    out.push_str(&format!("{} questions: {}\n", matrix.questions.len(), counts.join(", ")));
    out
}

/// Two runs as today: the two-column table, the JSON rows, the compare view.
fn two_runs(
    args: &CompareArgs,
    names: Vec<String>,
    docs: &[EvalResults],
    matrix: &Matrix,
    interactive: bool,
) -> anyhow::Result<()> {
    let rows = compare(&docs[0], &docs[1]);
    if interactive {
        let names = [names[0].clone(), names[1].clone()];
        let comparison = crate::tui::Comparison::new(names, rows, &docs[0], &docs[1]);
        crate::tui::compare(comparison, ui_options(false)?, Box::pin(super::signals::interrupted()))?;
    } else if args.json {
        let lift = matrix.runs.get(1).and_then(|run| run.lift.as_ref());
        let runs: &[crate::report::RunSummary] =
            if matrix.runs.iter().any(|run| run.baselines.is_some()) { &matrix.runs } else { &[] };
        let frontier = matrix.frontier.as_ref();
        say!("{}", serde_json::to_string_pretty(&TwoRuns { rows: &rows, lift, runs, frontier })?);
    } else {
        let verdicts = verdicts(matrix).into_iter().map(|v| format!("{v}\n")).collect::<String>();
        let text =
            format!("{}{}{verdicts}{}{}", table(&rows), frontier_lines(matrix), lifts(matrix), baselines(matrix));
        say!("{}", text.trim_end_matches('\n'));
    }
    Ok(())
}

/// What `compare` reads of a run: a trace or a results file as given, the
/// trace inside a run directory (found as `report`, `grade` and `export` find it).
fn results_source(run: &Path) -> anyhow::Result<PathBuf> {
    if run.is_dir() { super::report::trace_path(run) } else { Ok(run.to_path_buf()) }
}

/// How the comparison UI shows: the theme and keys of the config file;
/// `from_browser` when the run browser opened it.
pub(super) fn ui_options(from_browser: bool) -> anyhow::Result<crate::tui::CompareOptions> {
    let theme = crate::tui::Theme::load(&crate::config::theme_name())?;
    Ok(crate::tui::CompareOptions { theme, keys: crate::config::load_default()?.keys, from_browser })
}

/// The run browser's comparison of the run directories `runs`: two side by
/// side, more as a matrix against the first (at the default significance).
pub(super) fn from_browser(runs: &[PathBuf]) -> anyhow::Result<Option<crate::tui::Ended>> {
    let docs = runs.iter().map(|run| load_run(run)).collect::<anyhow::Result<Vec<_>>>()?;
    let names: Vec<String> = runs.iter().map(|p| p.display().to_string()).collect();
    let stop = Box::pin(super::signals::interrupted());
    if let ([a, b], [name_a, name_b]) = (docs.as_slice(), names.as_slice()) {
        let comparison = crate::tui::Comparison::new([name_a.clone(), name_b.clone()], compare(a, b), a, b);
        return crate::tui::compare(comparison, ui_options(true)?, stop);
    }
    let matrix = compare_runs(&names, &docs, crate::cli::DEFAULT_SIGNIFICANCE);
    crate::tui::compare_runs(crate::tui::RunsMatrix::new(matrix, docs), ui_options(true)?, stop)
}

/// The results of `run`; a run directory's are graded by its reviewers where
/// nothing surer grades a question (`report::apply_human_verdicts`).
fn load_run(run: &Path) -> anyhow::Result<EvalResults> {
    let mut doc = load_results(&results_source(run)?)?;
    if run.is_dir() {
        let reviews = crate::report::read_reviews(run, &doc);
        crate::report::apply_human_verdicts(&mut doc, &reviews);
    }
    Ok(doc)
}

/// Run the `compare` subcommand.
pub fn run(args: CompareArgs) -> anyhow::Result<ExitCode> {
    let docs = args.runs.iter().map(|run| load_run(run)).collect::<anyhow::Result<Vec<_>>>()?;
    let names: Vec<String> = args.runs.iter().map(|p| p.display().to_string()).collect();
    let matrix = compare_runs(&names, &docs, args.significance);
    if let Some(out) = &args.html {
        let size = super::report::write_page(
            out,
            &super::report::templates()?.matrix_html(&matrix, &chrono::Local::now().fixed_offset()),
        )?;
        eprintln!(
            "compare: {} ({:.1} KiB, {} runs, {} questions)",
            out.display(),
            size as f64 / 1024.0,
            matrix.runs.len(),
            matrix.questions.len()
        );
    }
    let interactive = !args.json && !args.headless && args.html.is_none() && std::io::stdout().is_terminal();
    let regressed = matrix.regressed();
    if args.json || interactive {
        // The table carries the verdicts; JSON's rows and the views keep their shape, so say them aside.
        for line in verdicts(&matrix) {
            eprintln!("{line}");
        }
    }
    if docs.len() == 2 {
        two_runs(&args, names, &docs, &matrix, interactive)?;
    } else if interactive {
        let view = crate::tui::RunsMatrix::new(matrix, docs);
        crate::tui::compare_runs(view, ui_options(false)?, Box::pin(super::signals::interrupted()))?;
    } else if args.json {
        say!("{}", serde_json::to_string_pretty(&matrix)?);
    } else {
        say!("{}", matrix_table(&matrix).trim_end_matches('\n'));
    }
    Ok(if regressed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
