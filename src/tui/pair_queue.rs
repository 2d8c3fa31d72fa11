//! What the pairwise review screen works through: the questions two runs
//! share, each with both runs' final answers and which side this run's
//! answer is shown on (drawn per item, seeded), the reviewer's pairwise
//! reviews against the other run so far, and the cursor. A verdict is
//! appended at once to the first run's `reviews/<reviewer>.jsonl`, naming
//! the other run and the hash of its results.

use std::collections::BTreeMap;
use std::path::PathBuf;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

use crate::domain::{PairShown, REVIEW_VERSION, Review, ReviewItem, ReviewKind, ReviewerName, Verdict};
use crate::report::{DetailedResult, EvalResults, RunReviews, append_review, shared_questions, shown};

/// The run on the other side, as the reviews name it.
pub struct OtherRun {
    /// Its directory, as given.
    pub name: String,
    /// Its results.
    pub doc: EvalResults,
    /// SHA-256 of its results when reviewed.
    pub results_sha256: String,
}

/// One question side by side.
pub struct PairItem {
    /// The item in this run.
    pub item: ReviewItem,
    /// Its question's index in this run's results.
    pub this: usize,
    /// Its question's index in the other run's results.
    pub other: usize,
    /// Whether this run's answer is on the left.
    pub this_left: bool,
}

/// One reviewer's pairwise queue over two runs.
pub struct PairQueue {
    /// This run's directory (where the reviews are written).
    pub run_dir: PathBuf,
    /// This run's results.
    pub doc: EvalResults,
    /// The other run.
    pub other: OtherRun,
    /// Who reviews.
    pub reviewer: ReviewerName,
    /// The shared questions, in this run's order.
    pub items: Vec<PairItem>,
    /// The item under the cursor.
    pub position: usize,
    /// This reviewer's pairwise reviews against the other run, by item.
    pub mine: BTreeMap<ReviewItem, Review>,
}

impl PairQueue {
    /// The queue of `reviewer` over the questions `doc` (in `run_dir`, whose
    /// reviews are `reviews`) shares with `other`, sides drawn with `seed`.
    pub fn new(
        run_dir: PathBuf,
        doc: EvalResults,
        other: OtherRun,
        reviews: &RunReviews,
        reviewer: ReviewerName,
        seed: u64,
    ) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let items = shared_questions(&doc, &other.doc)
            .into_iter()
            .map(|(this, index)| PairItem {
                item: ReviewItem::final_answer(doc.detailed_results[this].question_id.as_str().into()),
                this,
                other: index,
                this_left: rng.random_bool(0.5),
            })
            .collect();
        let mine = reviews
            .current
            .iter()
            .filter(|r| r.kind == ReviewKind::Pairwise && r.reviewer == reviewer)
            .filter(|r| r.pair.as_ref().is_some_and(|p| p.other_run == other.name))
            .map(|r| (r.item.clone(), r.clone()))
            .collect();
        let mut queue = Self { run_dir, doc, other, reviewer, items, position: 0, mine };
        queue.position = queue.items.iter().position(|i| !queue.mine.contains_key(&i.item)).unwrap_or(0);
        queue
    }

    /// The item under the cursor, its question in this run, and its two answers as shown (left, right).
    pub fn current(&self) -> Option<(&PairItem, &DetailedResult, [Option<&Value>; 2])> {
        let pair = self.items.get(self.position)?;
        let this = self.doc.detailed_results[pair.this].final_answer.as_ref();
        let other = self.other.doc.detailed_results[pair.other].final_answer.as_ref();
        let sides = if pair.this_left { [this, other] } else { [other, this] };
        Some((pair, &self.doc.detailed_results[pair.this], sides))
    }

    /// This reviewer's verdict on the item under the cursor, if given.
    pub fn my_review(&self) -> Option<&Review> {
        self.items.get(self.position).and_then(|pair| self.mine.get(&pair.item))
    }

    /// Record `verdict` (one of the pairwise four) on the item under the cursor, then go to the next.
    pub fn give(&mut self, verdict: Verdict) -> Result<(), String> {
        let Some(pair) = self.items.get(self.position) else { return Err("nothing to review".into()) };
        let Some(shown) = shown(&self.doc, &pair.item) else { return Err("the run no longer has this answer".into()) };
        let review = Review {
            version: REVIEW_VERSION,
            reviewer: self.reviewer.clone(),
            at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            item: pair.item.clone(),
            kind: ReviewKind::Pairwise,
            verdict,
            reason: None,
            correct_answer: None,
            shown_sha256: shown.sha256(),
            pair: Some(PairShown {
                other_run: self.other.name.clone(),
                other_results_sha256: self.other.results_sha256.clone(),
                left: if pair.this_left { "this" } else { "other" }.into(),
            }),
        };
        append_review(&self.run_dir, &review).map_err(|err| format!("cannot write the review: {err}"))?;
        self.mine.insert(pair.item.clone(), review);
        self.move_by(true);
        Ok(())
    }

    /// The next (or previous) item.
    pub fn move_by(&mut self, forward: bool) {
        let last = self.items.len().saturating_sub(1);
        self.position = if forward { (self.position + 1).min(last) } else { self.position.saturating_sub(1) };
    }
}
