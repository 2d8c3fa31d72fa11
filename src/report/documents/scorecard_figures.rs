//! The critic's scorecard as the results document holds it: each judged
//! iteration's fate and the counts per level, source and rule (computed in
//! `report/analyses/scorecard.rs`), and the label-free flags set against the labels.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::{FindingSource, QuestionId, Rule};

/// What an iteration's answer was, graded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerGrade {
    /// It matched the expected answer.
    Right,
    /// It did not.
    Wrong,
    /// There was an answer but nothing to grade it against (or grading failed).
    Ungraded,
    /// The trial run did not reach an answer (never ran, failed, or a structural rejection).
    DidNotRun,
}

/// What graded an iteration's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GradedBy {
    /// The question's expected answer, with the run's matching rules.
    ExpectedAnswer,
    /// A person's label (the question has no expected answer).
    Label,
    /// The run's LLM judges (no expected answer, no label; `run --judge-rejected`).
    Judge,
}

impl GradedBy {
    /// How a grade's source is marked beside it; none for an expected answer.
    pub fn mark(self) -> Option<&'static str> {
        match self {
            Self::ExpectedAnswer => None,
            Self::Label => Some("labelled by a person"),
            Self::Judge => Some("judged by an LLM"),
        }
    }
}

/// How one critic verdict fares against the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictFate {
    /// Approved a right answer.
    CorrectApproval,
    /// Approved a wrong answer.
    WrongApproval,
    /// Rejected a wrong answer.
    CorrectRejection,
    /// Rejected a right answer.
    WrongRejection,
    /// Rejected an ungraded answer the same as the one finally approved.
    NeutralRejection,
    /// Approved an answer with nothing to grade it against.
    UngradedApproval,
    /// Rejected an answer with nothing to grade it against (and different from the approved one).
    UngradedRejection,
    /// Rejected before any answer existed.
    RejectedWithoutAnswer,
}

/// Counts of verdict fates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FateCounts {
    /// Approvals of right answers.
    pub correct_approvals: usize,
    /// Approvals of wrong answers.
    pub wrong_approvals: usize,
    /// Rejections of wrong answers.
    pub correct_rejections: usize,
    /// Rejections of right answers.
    pub wrong_rejections: usize,
    /// Rejections that did not change the finally approved (ungraded) answer.
    pub answer_neutral_rejections: usize,
    /// Approvals with nothing to grade against.
    pub ungraded_approvals: usize,
    /// Rejections with nothing to grade against.
    pub ungraded_rejections: usize,
    /// Rejections before any answer existed.
    pub rejections_without_answer: usize,
}

impl FateCounts {
    pub(in crate::report) fn add(&mut self, fate: VerdictFate) {
        let count = match fate {
            VerdictFate::CorrectApproval => &mut self.correct_approvals,
            VerdictFate::WrongApproval => &mut self.wrong_approvals,
            VerdictFate::CorrectRejection => &mut self.correct_rejections,
            VerdictFate::WrongRejection => &mut self.wrong_rejections,
            VerdictFate::NeutralRejection => &mut self.answer_neutral_rejections,
            VerdictFate::UngradedApproval => &mut self.ungraded_approvals,
            VerdictFate::UngradedRejection => &mut self.ungraded_rejections,
            VerdictFate::RejectedWithoutAnswer => &mut self.rejections_without_answer,
        };
        *count += 1;
    }

    /// Verdicts whose answer was graded right or wrong.
    pub fn graded(&self) -> usize {
        self.correct_approvals + self.wrong_approvals + self.correct_rejections + self.wrong_rejections
    }

    /// Share of graded verdicts that were right; none when none was graded.
    pub fn agreement(&self) -> Option<f64> {
        let graded = self.graded();
        (graded > 0).then(|| (self.correct_approvals + self.correct_rejections) as f64 / graded as f64)
    }

    /// Share of graded rejections that rejected a right answer; none when no
    /// rejected answer was graded.
    pub fn wrong_rejection_rate(&self) -> Option<f64> {
        let rejected = self.correct_rejections + self.wrong_rejections;
        (rejected > 0).then(|| self.wrong_rejections as f64 / rejected as f64)
    }
}

/// One iteration the critic judged, with its answer graded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgedIteration {
    /// Question id.
    pub question_id: QuestionId,
    /// Attempt number.
    pub attempt: u32,
    /// Iteration number.
    pub iteration: u32,
    /// Whether the critic approved it.
    pub approved: bool,
    /// The answer its trial run reached.
    pub answer: Option<Value>,
    /// That answer, graded.
    pub grade: AnswerGrade,
    /// Whether the grade is a person's label (the question has no expected answer).
    #[serde(default)]
    pub labelled: bool,
    /// What graded the answer; none when it was not graded.
    #[serde(default)]
    pub graded_by: Option<GradedBy>,
    /// How the verdict fares.
    pub fate: VerdictFate,
    /// Sources of the blocking findings behind a rejection.
    pub sources: Vec<FindingSource>,
    /// Rules of the blocking findings behind a rejection.
    pub rules: Vec<Rule>,
    /// Tokens the iteration's LLM calls spent.
    pub tokens: u64,
}

/// The critic's scorecard for a run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CriticScorecard {
    /// Over every judged iteration of the model's attempts.
    pub total: FateCounts,
    /// Per difficulty level, easy to hard.
    pub by_difficulty: IndexMap<String, FateCounts>,
    /// Rejections per source of their blocking findings.
    pub by_source: BTreeMap<String, FateCounts>,
    /// Rejections per rule of their blocking findings.
    pub by_rule: BTreeMap<String, FateCounts>,
    /// Iterations built after an attempt's first wrong rejection: the work
    /// a right answer was sent back for.
    pub wrong_rejection_iterations: usize,
    /// Tokens those iterations spent.
    pub wrong_rejection_tokens: u64,
    /// Every judged iteration, in run order.
    pub iterations: Vec<JudgedIteration>,
}

impl CriticScorecard {
    /// Which graded verdicts were graded other than by an expected answer, in
    /// words (`2 labelled by a person, 1 judged by an LLM`); none when the
    /// expected answers graded them all.
    pub fn graded_by_note(&self) -> Option<String> {
        let graded = |by: GradedBy| self.iterations.iter().filter(|it| it.graded_by == Some(by)).count();
        let parts: Vec<String> = [GradedBy::Label, GradedBy::Judge]
            .into_iter()
            .filter_map(|by| Some((graded(by), by.mark()?)))
            .filter(|(count, _)| *count > 0)
            .map(|(count, mark)| format!("{count} {mark}"))
            .collect();
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

/// A label-free flag the scorecard sets against the graded answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LabelFreeSignal {
    /// The drafts of a consensus run did not all agree (`run --consensus`).
    DraftsDisagree,
    /// The approved DAG broke an invariant on transformed data (`run --metamorphic`).
    BrokenInvariant,
}

impl LabelFreeSignal {
    /// Its name for people.
    pub fn label(self) -> &'static str {
        match self {
            Self::DraftsDisagree => "drafts disagree",
            Self::BrokenInvariant => "broken invariant",
        }
    }
}
