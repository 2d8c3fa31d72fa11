//! What the review screen works through: a run's final answers (all, or a
//! seeded sample), the reviewer's own reviews so far and everyone else's,
//! the item under the cursor and the order of what was reviewed (for undo).
//! A verdict is appended to `RUN_DIR/reviews/<reviewer>.jsonl` at once.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde_json::Value;

use crate::domain::{REVIEW_VERSION, Review, ReviewItem, ReviewKind, ReviewSelection, ReviewerName, Verdict};
use crate::report::{DetailedResult, EvalResults, RunReviews, append_review, review_items, shown};

/// A run directory as the agreement screen names it: its last component.
pub fn run_name(run_dir: &std::path::Path) -> String {
    run_dir.file_name().map_or_else(|| run_dir.display().to_string(), |name| name.to_string_lossy().into_owned())
}

/// One reviewer's queue over one run.
pub struct ReviewQueue {
    /// The run directory (where reviews are written).
    pub run_dir: PathBuf,
    /// The run's results.
    pub doc: EvalResults,
    /// Who reviews.
    pub reviewer: ReviewerName,
    /// The items, in review order, each with its question's index in `doc`.
    pub items: Vec<(ReviewItem, usize)>,
    /// The item under the cursor.
    pub position: usize,
    /// This reviewer's reviews that count, by item.
    pub mine: BTreeMap<ReviewItem, Review>,
    /// Other reviewers' reviews that count, by item.
    pub others: BTreeMap<ReviewItem, Vec<Review>>,
    /// Items passed over.
    pub skipped: BTreeSet<usize>,
    /// Positions reviewed, in order (undo goes back to the last).
    history: Vec<usize>,
    /// Whether the machines' verdicts and others' reviews show (only once this reviewer gave theirs).
    pub revealed: bool,
    /// The reason to go with the next verdict, typed beforehand.
    pub reason: Option<String>,
    /// The right answer to go with the next verdict (checked JSON).
    pub correct_answer: Option<Value>,
}

impl ReviewQueue {
    /// The queue of `reviewer` over `doc` (in `run_dir`, whose reviews are
    /// `reviews`): the items `selection` asks for.
    pub fn new(
        run_dir: PathBuf,
        doc: EvalResults,
        reviews: &RunReviews,
        reviewer: ReviewerName,
        selection: &ReviewSelection,
    ) -> Self {
        let items = review_items(&doc, selection);
        let mut mine = BTreeMap::new();
        let mut others: BTreeMap<ReviewItem, Vec<Review>> = BTreeMap::new();
        for review in reviews.current.iter().filter(|r| r.kind == ReviewKind::Answer) {
            if review.reviewer == reviewer {
                mine.insert(review.item.clone(), review.clone());
            } else {
                others.entry(review.item.clone()).or_default().push(review.clone());
            }
        }
        // Start at the first item this reviewer has not reviewed yet.
        let position = items.iter().position(|(item, _)| !mine.contains_key(item)).unwrap_or(0);
        Self {
            run_dir,
            doc,
            reviewer,
            items,
            position,
            mine,
            others,
            skipped: BTreeSet::new(),
            history: Vec::new(),
            revealed: false,
            reason: None,
            correct_answer: None,
        }
    }

    /// The item under the cursor and its question's result.
    pub fn current(&self) -> Option<(&ReviewItem, &DetailedResult)> {
        let (item, index) = self.items.get(self.position)?;
        Some((item, &self.doc.detailed_results[*index]))
    }

    /// This reviewer's review of the item under the cursor, if given.
    pub fn my_review(&self) -> Option<&Review> {
        self.mine.get(self.current()?.0)
    }

    /// Reviewed, skipped and all items.
    pub fn progress(&self) -> (usize, usize, usize) {
        let reviewed = self.items.iter().filter(|(item, _)| self.mine.contains_key(item)).count();
        (reviewed, self.skipped.len(), self.items.len())
    }

    /// Whether every item has this reviewer's verdict or was skipped.
    pub fn finished(&self) -> bool {
        let (reviewed, skipped, total) = self.progress();
        total > 0 && reviewed + skipped >= total
    }

    /// The agreement figures of the run, with this reviewer's reviews so far.
    pub fn agreement(&self) -> crate::report::AgreementReport {
        let reviews = crate::report::read_reviews(&self.run_dir, &self.doc);
        crate::report::agreement_report(&self.doc, &reviews, None)
    }

    /// Record `verdict` on the item under the cursor (written at once), then go to the next.
    pub fn give(&mut self, verdict: Verdict) -> Result<(), String> {
        let Some((item, _)) = self.current() else { return Err("nothing to review".into()) };
        let item = item.clone();
        let Some(shown) = shown(&self.doc, &item) else { return Err("the run no longer has this answer".into()) };
        let review = Review {
            version: REVIEW_VERSION,
            reviewer: self.reviewer.clone(),
            at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            item: item.clone(),
            kind: ReviewKind::Answer,
            verdict,
            reason: self.reason.take(),
            correct_answer: self.correct_answer.take(),
            shown_sha256: shown.sha256(),
            pair: None,
        };
        append_review(&self.run_dir, &review).map_err(|err| format!("cannot write the review: {err}"))?;
        self.mine.insert(item, review);
        self.skipped.remove(&self.position);
        self.history.push(self.position);
        self.move_by(true);
        Ok(())
    }

    /// The next (or previous) item; the machines' verdicts hide again.
    pub fn move_by(&mut self, forward: bool) {
        let last = self.items.len().saturating_sub(1);
        self.position = if forward { (self.position + 1).min(last) } else { self.position.saturating_sub(1) };
        self.revealed = false;
    }

    /// Pass over the item under the cursor.
    pub fn skip(&mut self) {
        let Some((item, _)) = self.items.get(self.position) else { return };
        if !self.mine.contains_key(item) {
            self.skipped.insert(self.position);
        }
        self.move_by(true);
    }

    /// Back to the item last reviewed, to give its verdict again (a new line
    /// replaces the old one; the file keeps both). None when nothing was reviewed here.
    pub fn undo(&mut self) -> Option<usize> {
        let position = self.history.pop()?;
        self.position = position;
        self.revealed = false;
        Some(position)
    }

    /// Show the machines' verdicts and the other reviews, once this reviewer gave theirs.
    pub fn reveal(&mut self) -> bool {
        self.revealed = self.my_review().is_some();
        self.revealed
    }
}
