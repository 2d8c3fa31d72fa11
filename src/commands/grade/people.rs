//! What people said of a run's final answers, for `grade`: their verdicts
//! (the reviews beside the run and its sources', stale ones apart) grade the questions without
//! an expected answer ahead of the judges, and a verdict that contradicts an
//! expected answer is named (a label or scorer problem).

use std::collections::BTreeMap;
use std::path::Path;

use crate::domain::{Grade, GradingMethod, QuestionId, ReviewItem};
use crate::report::{HumanVerdict, eval_results, has_reviews, human_verdicts, read_reviews};
use crate::run::RunState;

/// The human verdicts of one run's answers.
#[derive(Debug, Default)]
pub(super) struct People {
    verdicts: BTreeMap<ReviewItem, HumanVerdict>,
    reviewers: usize,
    stale: usize,
}

impl People {
    /// The reviews of the run whose trace is `trace_file` (folded into
    /// `state`, started at `created_at`): its own and its sources'.
    pub(super) fn of(trace_file: &Path, state: &RunState, created_at: &str) -> Self {
        let Some(run_dir) = trace_file.parent().filter(|dir| has_reviews(dir)) else { return Self::default() };
        let reviews = read_reviews(run_dir, &eval_results(state, created_at));
        let mut reviewers: Vec<_> = reviews.current.iter().map(|r| &r.reviewer).collect();
        reviewers.sort();
        reviewers.dedup();
        Self {
            verdicts: human_verdicts(&reviews.current, None),
            reviewers: reviewers.len(),
            stale: reviews.stale.len(),
        }
    }

    /// The verdict people gave question `id`'s final answer, unless they are split.
    fn verdict(&self, id: &QuestionId) -> Option<HumanVerdict> {
        self.verdicts.get(&ReviewItem::final_answer(id.clone())).copied().filter(|v| v.right.is_some())
    }

    /// Question `id`'s grade by people.
    pub(super) fn grade(&self, id: &QuestionId) -> Option<Grade> {
        let verdict = self.verdict(id)?;
        let right = verdict.right?;
        let reason = crate::text::reviewed_by(verdict.reviewers);
        Some(Grade::scored(GradingMethod::Label, f64::from(u8::from(right)), 1.0, reason))
    }

    /// A line naming question `id` when people's verdict contradicts its expected answer's grade among `grades`.
    pub(super) fn contradiction(&self, id: &QuestionId, grades: &[Grade]) -> Option<String> {
        let right = self.verdict(id)?.right?;
        let expected =
            grades.iter().find(|g| matches!(g.method, GradingMethod::GroundTruth | GradingMethod::JsonEquality))?;
        let says = |right: bool| if right { "right" } else { "wrong" };
        (expected.passed != right).then(|| {
            format!(
                "{id}: people say {}, its expected answer says {} — a label or scorer problem",
                says(right),
                says(expected.passed)
            )
        })
    }

    /// One line on the reviews read, when there were any.
    pub(super) fn line(&self) -> Option<String> {
        (self.reviewers > 0 || self.stale > 0).then(|| {
            format!(
                "reviews: {} by {} ({} stale, not counted)",
                crate::text::plural(self.verdicts.len(), "answer"),
                crate::text::plural(self.reviewers, "reviewer"),
                self.stale
            )
        })
    }
}
