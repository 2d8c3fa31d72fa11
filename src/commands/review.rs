//! `eval-dag review RUN_DIR --reviewer NAME --import FILE`: reviews made
//! elsewhere recorded as that reviewer's reviews of what the run shows now;
//! `eval-dag agreement RUN_DIR…`: how far the run's reviewers agree with each
//! other and the machines with them (`report::agreement_report`).

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, bail};
use serde::Deserialize;
use serde_json::Value;

use crate::cli::{AgreementArgs, ReviewArgs};
use crate::domain::{REVIEW_VERSION, Review, ReviewItem, ReviewKind, ReviewSelection, ReviewerName, Verdict};
use crate::report::{AgreementReport, EvalResults, agreement_report, append_review, load_results, read_reviews};

/// One imported row, as CSV or JSON Lines give it.
#[derive(Debug, Deserialize)]
struct ImportRow {
    question_id: String,
    #[serde(default)]
    epoch: Option<u32>,
    #[serde(default)]
    draft: Option<u32>,
    #[serde(default)]
    iteration: Option<u32>,
    verdict: String,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    correct_answer: Option<Value>,
}

/// The rows of `file`: JSON Lines when it ends in `.jsonl`, `.ndjson` or
/// `.json` or starts with `{`, CSV otherwise (`correct_answer` then JSON text).
fn import_rows(file: &Path) -> anyhow::Result<Vec<(usize, ImportRow)>> {
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let json_lines = file.extension().is_some_and(|e| e == "jsonl" || e == "ndjson" || e == "json")
        || text.trim_start().starts_with('{');
    let at = |row: usize| format!("{}:{row}", file.display());
    if json_lines {
        return text
            .lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty())
            .map(|(i, line)| Ok((i + 1, serde_json::from_str(line).with_context(|| at(i + 1))?)))
            .collect();
    }
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let mut rows = Vec::new();
    for (i, record) in reader.deserialize::<std::collections::HashMap<String, String>>().enumerate() {
        let record = record.with_context(|| at(i + 2))?;
        let field = |name: &str| record.get(name).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        let number = |name: &str| -> anyhow::Result<Option<u32>> {
            field(name)
                .map(|v| v.parse().with_context(|| format!("{}: {name} {v:?} is not a number", at(i + 2))))
                .transpose()
        };
        let correct_answer = field("correct_answer")
            .map(|v| {
                serde_json::from_str(&v).with_context(|| format!("{}: correct_answer is not JSON: {v}", at(i + 2)))
            })
            .transpose()?;
        let Some(question_id) = field("question_id") else { bail!("{}: no question_id", at(i + 2)) };
        let verdict = field("verdict").unwrap_or_default();
        rows.push((
            i + 2,
            ImportRow {
                question_id,
                epoch: number("epoch")?,
                draft: number("draft")?,
                iteration: number("iteration")?,
                verdict,
                reason: field("reason"),
                correct_answer,
            },
        ));
    }
    Ok(rows)
}

/// The reviewer: the flag, else `[review] reviewer`, else the user's login name.
fn reviewer(flag: Option<&ReviewerName>) -> anyhow::Result<ReviewerName> {
    match flag {
        Some(name) => Ok(name.clone()),
        None => configured_reviewer(&crate::config::load_default()?).map_err(anyhow::Error::msg),
    }
}

/// The reviewer `file` names (`[review] reviewer`), else the user's login
/// name, or why there is none.
pub(super) fn configured_reviewer(file: &crate::config::Config) -> Result<ReviewerName, String> {
    if let Some(name) = &file.review.reviewer {
        return Ok(name.clone());
    }
    let login = std::env::var("USER").or_else(|_| std::env::var("LOGNAME")).unwrap_or_default();
    login.parse().map_err(|_| "no reviewer: set [review] reviewer in the config, or give review --reviewer NAME".into())
}

/// The reviewers of the run in `run_dir` shown by the app (`V`, `L`), as `file` names them.
pub(super) fn people(run_dir: &Path, file: &crate::config::Config) -> crate::tui::People {
    crate::tui::People::new(run_dir.to_path_buf(), configured_reviewer(file))
}

/// The run's results, read as `compare` reads a run directory.
fn results_of(run: &Path) -> anyhow::Result<EvalResults> {
    load_results(&super::report::trace_path(run)?)
}

/// `rows` as `reviewer`'s reviews of what `doc` shows now; the first bad row is the error.
fn reviews_of(
    rows: Vec<(usize, ImportRow)>,
    reviewer: &ReviewerName,
    doc: &EvalResults,
    file: &Path,
) -> anyhow::Result<Vec<Review>> {
    let at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let mut reviews = Vec::new();
    for (row, given) in rows {
        let place = format!("{}:{row}", file.display());
        let verdict = Verdict::of(ReviewKind::Answer).iter().find(|v| v.name() == given.verdict);
        let Some(verdict) = verdict else {
            bail!("{place}: verdict {:?} is not right, wrong or unsure", given.verdict)
        };
        let item = ReviewItem {
            question_id: given.question_id.as_str().into(),
            epoch: given.epoch.unwrap_or(1),
            draft: given.draft.unwrap_or(1),
            iteration: given.iteration,
        };
        let Some(shown) = crate::report::shown(doc, &item) else {
            bail!(
                "{place}: the run has no {} (question {:?}, epoch {}, draft {}{})",
                "such answer",
                item.question_id.as_str(),
                item.epoch,
                item.draft,
                item.iteration.map_or(String::new(), |i| format!(", iteration {i}"))
            )
        };
        let reason = given.reason.map(|r| r.replace(['\n', '\r'], " ")).filter(|r| !r.is_empty());
        reviews.push(Review {
            version: REVIEW_VERSION,
            reviewer: reviewer.clone(),
            at: at.clone(),
            kind: ReviewKind::Answer,
            verdict: *verdict,
            reason,
            correct_answer: given.correct_answer,
            shown_sha256: shown.sha256(),
            pair: None,
            item,
        });
    }
    Ok(reviews)
}

/// The review screen of `reviewer` over `run` (whose results are `doc`);
/// `from_browser`: Escape goes back to the run browser.
fn screen(
    run: &Path,
    doc: EvalResults,
    reviewer: ReviewerName,
    selection: &ReviewSelection,
    from_browser: bool,
) -> anyhow::Result<Option<crate::tui::Ended>> {
    let reviews = read_reviews(run, &doc);
    let queue = crate::tui::ReviewQueue::new(run.to_path_buf(), doc, &reviews, reviewer, selection);
    crate::tui::review(queue, super::compare::ui_options(from_browser)?, Box::pin(super::signals::interrupted()))
}

/// The pairwise review screen of `reviewer` over `run` (results `doc`) and `other`.
fn pair_screen(run: &Path, doc: EvalResults, other: &Path, reviewer: ReviewerName, seed: u64) -> anyhow::Result<()> {
    let other_doc = results_of(other)?;
    let other_file = [other.join(crate::report::RESULTS_FILE), super::report::trace_path(other)?]
        .into_iter()
        .find(|file| file.is_file())
        .with_context(|| format!("{} has neither results nor a trace", other.display()))?;
    let bytes = std::fs::File::open(&other_file).with_context(|| format!("cannot read {}", other_file.display()))?;
    let results_sha256 = crate::domain::sha256_hex_of(bytes)?;
    let other = crate::tui::OtherRun { name: other.display().to_string(), doc: other_doc, results_sha256 };
    let reviews = read_reviews(run, &doc);
    let queue = crate::tui::PairQueue::new(run.to_path_buf(), doc, other, &reviews, reviewer, seed);
    if queue.items.is_empty() {
        bail!("{} and {} share no question (the same id and text)", run.display(), queue.other.name);
    }
    crate::tui::pair_review(queue, super::compare::ui_options(false)?, Box::pin(super::signals::interrupted()))?;
    Ok(())
}

/// The run browser's review of `run`: every final answer, by the configured reviewer.
pub(super) fn from_browser(run: &Path) -> anyhow::Result<Option<crate::tui::Ended>> {
    screen(run, results_of(run)?, reviewer(None)?, &ReviewSelection::default(), true)
}

/// Run the `review` subcommand: the review screen, or `--import`.
pub fn run(args: &ReviewArgs) -> anyhow::Result<ExitCode> {
    let reviewer = reviewer(args.reviewer.as_ref())?;
    let doc = results_of(&args.run)?;
    let Some(file) = &args.import else {
        if !std::io::stdout().is_terminal() {
            bail!("the review screen needs a terminal; --import FILE records reviews without one");
        }
        match &args.other {
            Some(other) => pair_screen(&args.run, doc, other, reviewer, args.seed)?,
            None => drop(screen(&args.run, doc, reviewer, &args.selection(), false)?),
        }
        return Ok(ExitCode::SUCCESS);
    };
    let reviews = reviews_of(import_rows(file)?, &reviewer, &doc, file)?;
    for review in &reviews {
        append_review(&args.run, review)
            .with_context(|| format!("cannot write {}'s reviews under {}", reviewer, args.run.display()))?;
    }
    eprintln!(
        "review: {} recorded as {reviewer}'s in {}",
        crate::text::plural(reviews.len(), "review"),
        args.run.join(crate::report::REVIEWS_DIR).display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The figures of one run, for people.
fn agreement_text(run: &Path, report: &AgreementReport) -> String {
    let mut lines = crate::report::agreement_lines(report).into_iter();
    let mut out = format!("{}: {}\n", run.display(), lines.next().unwrap_or_default());
    for line in lines {
        out.push_str(&format!("  {line}\n"));
    }
    out
}

/// One run's figures in `agreement --json`.
#[derive(serde::Serialize)]
struct RunAgreement<'a> {
    run: String,
    #[serde(flatten)]
    report: &'a AgreementReport,
    unreadable: &'a [String],
}

/// Run the `agreement` subcommand.
pub fn agreement(args: &AgreementArgs) -> anyhow::Result<ExitCode> {
    let mut reports = Vec::new();
    for run in &args.runs {
        let doc = results_of(run)?;
        let reviews = read_reviews(run, &doc);
        for line in &reviews.unreadable {
            eprintln!("warning: a review line was skipped: {line}");
        }
        reports.push((run, agreement_report(&doc, &reviews, args.adjudicator.as_ref()), reviews.unreadable));
    }
    if args.json {
        let runs: Vec<RunAgreement> = reports
            .iter()
            .map(|(run, report, unreadable)| RunAgreement { run: run.display().to_string(), report, unreadable })
            .collect();
        say!("{}", serde_json::to_string_pretty(&runs)?);
    } else {
        let text: String = reports.iter().map(|(run, report, _)| agreement_text(run, report)).collect();
        say!("{}", text.trim_end());
    }
    Ok(ExitCode::SUCCESS)
}
