//! People's reviews of a run's answers, kept beside it in
//! `RUN_DIR/reviews/<reviewer>.jsonl` (one file per reviewer, append-only,
//! several people merge by copying files) and read back against what the
//! run shows now: the latest line per reviewer, item and kind counts; a
//! review whose `shown_sha256` no longer matches the item (a rerun, a derived
//! run) is stale — listed, never counted. The trace's labels (`L` in the
//! TUI) are read as the reviews of a reviewer named `label`. A derived,
//! re-criticised or merged run reads the reviews of the runs it comes from
//! too: the hash keeps only those of answers it still shows.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::domain::{Review, ReviewItem, ReviewKind, ReviewerName, Verdict, shown_sha256};
use crate::report::documents::{DetailedResult, EvalResults};

/// The directory of a run's reviews.
pub const REVIEWS_DIR: &str = "reviews";

/// A run's reviews, as they stand against what it shows now.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunReviews {
    /// The reviews that count: the latest per reviewer, item and kind, of what the run shows now.
    pub current: Vec<Review>,
    /// The latest reviews of items whose answer has changed since.
    pub stale: Vec<Review>,
    /// Lines that could not be read, each `file:line: why`.
    pub unreadable: Vec<String>,
}

/// What a review item shows: the question, the dataset's hash and the answer.
pub struct Shown<'a> {
    /// The question's text.
    pub question: &'a str,
    /// The hash of the dataset it was asked of.
    pub dataset_hash: &'a str,
    /// The answer judged; none when there was none.
    pub answer: Option<&'a Value>,
}

impl Shown<'_> {
    /// Its [`shown_sha256`].
    pub fn sha256(&self) -> String {
        shown_sha256(self.question, self.dataset_hash, self.answer)
    }
}

/// The hash of the dataset `result` was asked of.
fn dataset_hash<'a>(doc: &'a EvalResults, result: &DetailedResult) -> &'a str {
    let Some(settings) = &doc.summary.settings else { return "" };
    let named = result.dataset.as_ref().and_then(|name| settings.datasets.iter().find(|d| &d.name == name));
    named.map_or(settings.dataset_hash.as_str(), |d| d.hash.as_str())
}

/// What `item` shows in `doc`; none when the run has no such question,
/// epoch, draft or iteration.
pub fn shown<'a>(doc: &'a EvalResults, item: &ReviewItem) -> Option<Shown<'a>> {
    let index = doc.detailed_results.iter().position(|r| r.question_id == item.question_id.as_str())?;
    let result = &doc.detailed_results[index];
    let answer = match item.iteration {
        None if item.draft == 1 && (item.epoch == 1 && result.epochs.is_empty()) => result.final_answer.as_ref(),
        None if item.draft == 1 => result.epochs.iter().find(|e| e.epoch == item.epoch)?.answer.as_ref(),
        None => attempts(doc, index, item).last()?.final_answer.as_ref(),
        Some(iteration) => attempts(doc, index, item)
            .flat_map(|a| &a.iterations)
            .filter(|i| i.iteration == iteration)
            .last()?
            .trial_run
            .as_ref()
            .and_then(|run| run.final_answer.as_ref()),
    };
    Some(Shown { question: &result.question, dataset_hash: dataset_hash(doc, result), answer })
}

/// The attempts of `item`'s epoch and draft of question `index`, in order.
fn attempts<'a>(
    doc: &'a EvalResults,
    index: usize,
    item: &ReviewItem,
) -> impl Iterator<Item = &'a crate::report::documents::AttemptTrace> {
    let trace = doc.question_traces.get(index);
    trace.into_iter().flat_map(|t| &t.attempts).filter(move |a| a.epoch == item.epoch && a.draft == item.draft)
}

/// The labels in `doc`'s traces as reviews of the reviewer `label`.
fn labels(doc: &EvalResults) -> Vec<Review> {
    let Ok(reviewer) = ReviewerName::try_from("label".to_string()) else { return Vec::new() };
    let mut reviews = Vec::new();
    for trace in &doc.question_traces {
        for attempt in &trace.attempts {
            for iteration in &attempt.iterations {
                let Some(label) = iteration.labels.last() else { continue };
                let item = ReviewItem {
                    question_id: trace.question_id.as_str().into(),
                    epoch: attempt.epoch,
                    draft: attempt.draft,
                    iteration: Some(iteration.iteration),
                };
                let Some(shown) = shown(doc, &item) else { continue };
                reviews.push(Review {
                    version: crate::domain::REVIEW_VERSION,
                    reviewer: reviewer.clone(),
                    at: String::new(),
                    kind: ReviewKind::Answer,
                    verdict: if label.right { Verdict::Right } else { Verdict::Wrong },
                    reason: Some(label.reason.clone()).filter(|r| !r.is_empty()),
                    correct_answer: None,
                    shown_sha256: shown.sha256(),
                    pair: None,
                    item,
                });
            }
        }
    }
    reviews
}

/// Every reviewer's file under `run_dir/reviews/`, by name.
fn review_files(run_dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(run_dir.join(REVIEWS_DIR)) else { return Vec::new() };
    let mut files: Vec<PathBuf> =
        entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "jsonl")).collect();
    files.sort();
    files
}

/// The run directories a run in `run_dir` comes from, as its trace's header
/// names them: the source of a derived or re-criticised run, the shards of a
/// merged one (each a trace or its directory, as given: from the current
/// directory, else from `run_dir`); those no longer there are left out.
fn source_dirs(run_dir: &Path) -> Vec<PathBuf> {
    let Ok(scan) = crate::trace::TraceScan::open(&run_dir.join(super::listing::TRACE_FILE)) else { return Vec::new() };
    let header = scan.header;
    let given = header.derived_from.iter().map(|d| &d.path).chain(header.merged_from.iter().map(|s| &s.path));
    given
        .filter_map(|path| [PathBuf::from(path), run_dir.join(path)].into_iter().find(|p| p.exists()))
        .filter_map(|path| if path.is_dir() { Some(path) } else { path.parent().map(Path::to_path_buf) })
        .filter(|dir| !same_dir(dir, run_dir))
        .collect()
}

/// Whether the run in `run_dir` has reviews to read: its own or its sources'.
pub fn has_reviews(run_dir: &Path) -> bool {
    !review_files(run_dir).is_empty() || source_dirs(run_dir).iter().any(|dir| !review_files(dir).is_empty())
}

/// Whether `a` and `b` are the same directory.
fn same_dir(a: &Path, b: &Path) -> bool {
    matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b)
}

/// The reviews of the run in `run_dir`, whose results are `doc`: its own and
/// those of the runs it comes from (as its trace's header names them; its own win), each
/// counted only where the item still shows what was reviewed.
pub fn read_reviews(run_dir: &Path, doc: &EvalResults) -> RunReviews {
    let mut latest: BTreeMap<(ReviewerName, ReviewItem, ReviewKind), Review> = BTreeMap::new();
    let mut unreadable = Vec::new();
    for review in labels(doc) {
        latest.insert((review.reviewer.clone(), review.item.clone(), review.kind), review);
    }
    let files = source_dirs(run_dir)
        .iter()
        .chain([&run_dir.to_path_buf()])
        .flat_map(|dir| review_files(dir))
        .collect::<Vec<_>>();
    for file in files {
        let text = match std::fs::read_to_string(&file) {
            Ok(text) => text,
            Err(err) => {
                unreadable.push(format!("{}: {err}", file.display()));
                continue;
            }
        };
        for (number, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            match serde_json::from_str::<Review>(line) {
                Ok(review) => {
                    latest.insert((review.reviewer.clone(), review.item.clone(), review.kind), review);
                }
                Err(err) => unreadable.push(format!("{}:{}: {err}", file.display(), number + 1)),
            }
        }
    }
    let mut reviews = RunReviews { unreadable, ..RunReviews::default() };
    for review in latest.into_values() {
        let current = review.kind == ReviewKind::Pairwise
            || shown(doc, &review.item).is_some_and(|s| s.sha256() == review.shown_sha256);
        if current { reviews.current.push(review) } else { reviews.stale.push(review) }
    }
    reviews
}

/// Append `review` to its reviewer's file under `run_dir` (created with its
/// directory), one line, flushed.
pub fn append_review(run_dir: &Path, review: &Review) -> std::io::Result<()> {
    let dir = run_dir.join(REVIEWS_DIR);
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(format!("{}.jsonl", review.reviewer));
    let mut line = serde_json::to_string(review).map_err(std::io::Error::other)?;
    line.push('\n');
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
    file.write_all(line.as_bytes())?;
    file.flush()
}

/// Grade `doc` by people where nothing surer does: each question without an
/// expected answer or a benchmark score whose final answer people reviewed
/// takes their verdict (ahead of any judge) — `correct`, and a `label` grade
/// saying how many reviewed it — and the summary's grading follows. Returns
/// how many questions people graded.
pub fn apply_human_verdicts(doc: &mut EvalResults, reviews: &RunReviews) -> usize {
    let verdicts = human_verdicts(&reviews.current, None);
    let mut graded = 0;
    for result in &mut doc.detailed_results {
        if result.expected_answer.is_some() || result.benchmark.is_some() {
            continue;
        }
        let item = ReviewItem::final_answer(result.question_id.as_str().into());
        let Some(HumanVerdict { right: Some(right), reviewers }) = verdicts.get(&item).copied() else { continue };
        result.correct = Some(right);
        result.grades.push(crate::domain::Grade {
            method: crate::domain::GradingMethod::Label,
            score: Some(f64::from(u8::from(right))),
            passed: right,
            threshold: 1.0,
            reason: crate::text::reviewed_by(reviewers),
            error: None,
        });
        graded += 1;
    }
    let counted: Vec<bool> =
        doc.detailed_results.iter().filter(|r| !r.fixed_by_hand).filter_map(|r| r.correct).collect();
    let right = counted.iter().filter(|c| **c).count();
    doc.summary.grading = crate::report::documents::Grading {
        graded: counted.len(),
        correct: right,
        accuracy: (!counted.is_empty()).then(|| right as f64 / counted.len() as f64),
    };
    graded
}

/// An item's verdict by people: the majority of its reviewers' right and
/// wrong (unsure left out), or the adjudicator's when they reviewed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HumanVerdict {
    /// Right or wrong; none for a tie.
    pub right: Option<bool>,
    /// Reviewers who said right or wrong.
    pub reviewers: usize,
}

/// Each reviewed item's [`HumanVerdict`] (answer reviews only).
pub fn human_verdicts(reviews: &[Review], adjudicator: Option<&ReviewerName>) -> BTreeMap<ReviewItem, HumanVerdict> {
    let mut votes: BTreeMap<ReviewItem, (usize, usize, Option<bool>)> = BTreeMap::new();
    for review in reviews.iter().filter(|r| r.kind == ReviewKind::Answer) {
        let Some(right) = review.verdict.right() else { continue };
        let entry = votes.entry(review.item.clone()).or_default();
        if right {
            entry.0 += 1
        } else {
            entry.1 += 1
        }
        if Some(&review.reviewer) == adjudicator {
            entry.2 = Some(right);
        }
    }
    votes
        .into_iter()
        .map(|(item, (right, wrong, adjudicated))| {
            let majority = match right.cmp(&wrong) {
                std::cmp::Ordering::Greater => Some(true),
                std::cmp::Ordering::Less => Some(false),
                std::cmp::Ordering::Equal => None,
            };
            (item, HumanVerdict { right: adjudicated.or(majority), reviewers: right + wrong })
        })
        .collect()
}
