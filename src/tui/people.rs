//! The people reviewing a run from its own screens (`V`, `L`, the agreement
//! screen): the run directory whose `reviews/` they read and write, who is
//! reviewing, and the human verdicts as of the last read. Reviews are kept
//! beside the run, never in its trace (`report/analyses/reviews.rs`): `L` on an
//! iteration appends one like the review screen does, so a replay needs no
//! derived run for it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::domain::{
    IterationAt, REVIEW_VERSION, Review, ReviewItem, ReviewKind, ReviewSelection, ReviewerName, Verdict,
};
use crate::report::{
    AgreementReport, EvalResults, HumanVerdict, agreement_report, append_review, eval_results, has_reviews,
    human_verdicts, kappa_text, read_reviews, shown,
};
use crate::run::RunState;

/// Who reviews a run shown in the app, and what people said of it so far.
#[derive(Debug, Clone)]
pub struct People {
    /// The run directory whose `reviews/` is read and written.
    pub run_dir: PathBuf,
    /// Who reviews (`[review] reviewer`, else the login name), or why no one can.
    pub reviewer: Result<ReviewerName, String>,
    /// Each reviewed item's human verdict, as of the last read.
    verdicts: BTreeMap<ReviewItem, HumanVerdict>,
    /// The critic against people, in words, as of the last read (none without reviews).
    critic: Option<String>,
}

impl People {
    /// `reviewer` reviewing the run in `run_dir` (nothing read yet).
    pub fn new(run_dir: PathBuf, reviewer: Result<ReviewerName, String>) -> Self {
        Self { run_dir, reviewer, verdicts: BTreeMap::new(), critic: None }
    }

    /// The run's results as `state` shows them now (what reviews are checked against).
    fn doc(state: &RunState) -> EvalResults {
        eval_results(state, "")
    }

    /// Read the reviews again against the run as `state` shows it.
    pub fn read(&mut self, state: &RunState) {
        (self.verdicts, self.critic) = (BTreeMap::new(), None);
        if !has_reviews(&self.run_dir) {
            return;
        }
        let doc = Self::doc(state);
        let reviews = read_reviews(&self.run_dir, &doc);
        self.verdicts = human_verdicts(&reviews.current, None);
        let report = agreement_report(&doc, &reviews, None);
        self.critic = report.machines.iter().find(|m| m.machine == "critic").map(|m| {
            let people = report.reviewers.len();
            format!("critic vs people: {} — {}", kappa_text(&m.figure), crate::text::reviewed_by(people))
        });
    }

    /// The critic against people, in words, as of the last read.
    pub fn critic(&self) -> Option<&str> {
        self.critic.as_deref()
    }

    /// People's verdict on `item`, as of the last read.
    pub fn verdict(&self, item: &ReviewItem) -> Option<HumanVerdict> {
        self.verdicts.get(item).copied()
    }

    /// The reviewer, or why there is none, for the status line.
    fn reviewer(&self) -> Result<&ReviewerName, String> {
        self.reviewer.as_ref().map_err(|why| format!("no review written: {why}"))
    }

    /// The review screen's queue over the run as `state` shows it: every final answer.
    pub fn queue(&self, state: &RunState) -> Result<super::ReviewQueue, String> {
        let reviewer = self.reviewer()?.clone();
        let doc = Self::doc(state);
        let reviews = read_reviews(&self.run_dir, &doc);
        Ok(super::ReviewQueue::new(self.run_dir.clone(), doc, &reviews, reviewer, &ReviewSelection::default()))
    }

    /// The agreement figures of the run as `state` shows it.
    pub fn agreement(&self, state: &RunState) -> AgreementReport {
        let doc = Self::doc(state);
        agreement_report(&doc, &read_reviews(&self.run_dir, &doc), None)
    }

    /// Record this reviewer's verdict (`right`, with `reason`) on the answer
    /// of iteration `at` — as the final answer's review when that iteration
    /// gave the final answer — and read the reviews again. What it did, for
    /// the status line.
    pub fn review_iteration(
        &mut self,
        state: &RunState,
        at: &IterationAt,
        right: bool,
        reason: String,
    ) -> Result<String, String> {
        let reviewer = self.reviewer()?.clone();
        let doc = Self::doc(state);
        let of =
            |iteration| ReviewItem { question_id: at.question_id.clone(), epoch: at.epoch, draft: at.draft, iteration };
        let iteration = of(Some(at.iteration));
        let Some(answer) = shown(&doc, &iteration) else { return Err("no answer to review here".into()) };
        let is_final = shown(&doc, &of(None)).is_some_and(|f| f.answer.is_some() && f.answer == answer.answer);
        let item = if is_final { of(None) } else { iteration };
        let review = Review {
            version: REVIEW_VERSION,
            reviewer: reviewer.clone(),
            at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            item,
            kind: ReviewKind::Answer,
            verdict: if right { Verdict::Right } else { Verdict::Wrong },
            reason: Some(reason.replace(['\n', '\r'], " ")).filter(|r| !r.trim().is_empty()),
            correct_answer: None,
            shown_sha256: answer.sha256(),
            pair: None,
        };
        append_review(&self.run_dir, &review).map_err(|err| format!("cannot write the review: {err}"))?;
        self.read(state);
        let path = self.run_dir.join(crate::report::REVIEWS_DIR).join(format!("{reviewer}.jsonl"));
        Ok(format!("reviewed {} as {reviewer}: written to {}", review.verdict.name(), path.display()))
    }
}
