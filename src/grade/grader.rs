//! The grading a run does: its settings (recorded in the trace so that a
//! resumed run or `eval-dag grade` grades the same way) and the [`Grader`]
//! the engine calls once a DAG has produced an answer.

use std::path::Path;

use indexmap::IndexMap;
use serde_json::Value;

use super::judge_file::built_in_judge;
use super::{GradeError, GradeInput, Judge, JudgeKind, JudgePanel, JudgedAt, MatchOptions, grade_answer};
use crate::domain::{Grade, GradingMethod};
use crate::domain::{GradingSettings, NodeId, Question};
use crate::llm::{LlmClient, Repairs};

/// What is graded: a DAG's answer, its narrative and the node outputs behind it.
#[derive(Debug, Clone, Copy)]
pub struct Answer<'a> {
    /// The final answer; none when the DAG produced none.
    pub value: Option<&'a Value>,
    /// The one-sentence narrative of the answer, when one was written.
    pub narrative: Option<&'a str>,
    /// Every node's output.
    pub node_outputs: &'a IndexMap<NodeId, Value>,
}

/// Grades answers: ground truth when a question has an expected answer, then
/// every judge of the panel.
#[derive(Debug)]
pub struct Grader {
    options: MatchOptions,
    panel: JudgePanel,
    judge_rejected: bool,
}

impl Grader {
    /// The grader `settings` describe: matching options validated, judges loaded.
    pub fn from_settings(settings: &GradingSettings) -> Result<Self, GradeError> {
        let options = MatchOptions::default().overridden(&settings.match_options)?;
        let judges = settings.judges.iter().map(|spec| load_judge(spec)).collect::<Result<Vec<_>, _>>()?;
        Ok(Self { options, panel: JudgePanel::new(judges)?, judge_rejected: settings.judge_rejected })
    }

    /// This grader with a judge's unreadable JSON reply asked for again as `repairs` says.
    pub fn with_repairs(self, repairs: Repairs) -> Self {
        Self { panel: self.panel.with_repairs(repairs), ..self }
    }

    /// Ground truth with the matching options of `settings`, its judges left
    /// out (no file read, no LLM); default matching when the options are invalid.
    pub fn ground_truth_with(settings: &GradingSettings) -> Self {
        let matching = GradingSettings { judges: Vec::new(), ..settings.clone() };
        Self::from_settings(&matching).unwrap_or_else(|_| Self::ground_truth_only())
    }

    /// Ground truth with default matching, no judges.
    #[allow(clippy::expect_used, reason = "the built-in judge templates, which the tests compile")]
    pub fn ground_truth_only() -> Self {
        Self::from_settings(&GradingSettings::default()).expect("the built-in judge templates compile")
    }

    /// Whether any judge (and so an LLM) takes part.
    pub fn has_judges(&self) -> bool {
        !self.panel.judges().is_empty()
    }

    /// Whether the judges also grade rejected iterations' answers (`run --judge-rejected`).
    pub fn judges_rejected(&self) -> bool {
        self.judge_rejected && self.has_judges()
    }

    /// The matching options of `question`: the run's, with the question's overrides.
    pub fn options_for(&self, question: &Question) -> Result<MatchOptions, GradeError> {
        self.options.overridden(&question.match_overrides)
    }

    /// Whether a judge grades a narrative answer (answer faithfulness), so the
    /// run should have one written.
    pub fn wants_narrative(&self) -> bool {
        self.panel.judges().iter().any(|judge| matches!(judge.kind, JudgeKind::Faithfulness(_)))
    }

    /// The ground-truth grade of `answer` to `question` alone (no judges, no
    /// LLM); none when the question has no expected answer.
    pub fn ground_truth(&self, question: &Question, answer: Option<&Value>) -> Option<Grade> {
        let expected = question.expected_answer.as_ref()?;
        Some(match self.options_for(question) {
            Ok(options) => super::grade_truth(question, expected, answer, &options),
            Err(err) => Grade::failed(GradingMethod::GroundTruth, self.options.threshold, err.to_string()),
        })
    }

    /// Every grade of `answer` to `question` (none when there is nothing to grade
    /// against and no judge). Judge calls go through `llm`, keyed by `at`.
    pub async fn grade(
        &self,
        question: &Question,
        answer: &Answer<'_>,
        at: &JudgedAt,
        llm: &dyn LlmClient,
    ) -> Vec<Grade> {
        let (options, truth_error) = match self.options_for(question) {
            Ok(options) => (options, None),
            Err(err) => (
                self.options.clone(),
                Some(Grade::failed(GradingMethod::GroundTruth, self.options.threshold, err.to_string())),
            ),
        };
        let without_truth;
        let question = match truth_error {
            Some(_) => {
                without_truth = Question { expected_answer: None, ..question.clone() };
                &without_truth
            }
            None => question,
        };
        let input = GradeInput {
            question,
            options: &options,
            final_answer: answer.value,
            narrative: answer.narrative,
            node_outputs: answer.node_outputs,
            at,
        };
        truth_error.into_iter().chain(grade_answer(&input, &self.panel, llm).await).collect()
    }
}

/// A judge by file path, else by built-in name.
fn load_judge(spec: &str) -> Result<Judge, GradeError> {
    let path = Path::new(spec);
    if path.exists() {
        return Judge::load(path);
    }
    built_in_judge(spec)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::domain::{DifficultyLevel, Scorer};

    fn question(scorer: Scorer, expected: serde_json::Value) -> Question {
        Question {
            expected_answer: Some(expected),
            scorer: Some(scorer),
            ..Question::new("q_1", "?", 1, DifficultyLevel::Easy)
        }
    }

    #[test]
    fn a_benchmark_question_is_graded_by_its_scorer_all_parts_or_nothing() {
        let grader = Grader::ground_truth_only();
        let parts = question(Scorer::Infiagent, json!({"a": "1.00", "b": "no"}));
        let partial = grader.ground_truth(&parts, Some(&json!({"a": 1, "b": "No"}))).unwrap();
        assert_eq!((partial.score, partial.passed), (Some(0.5), false));
        assert_eq!(partial.reason, "infiagent rules: 1 of 2 parts right (b: expected \"no\", got \"No\")");
        let right = grader.ground_truth(&parts, Some(&json!("@b[no] @a[1.0000001]"))).unwrap();
        assert_eq!((right.score, right.passed), (Some(1.0), true));
        let none = grader.ground_truth(&parts, None).unwrap();
        assert!(!none.passed && none.reason.starts_with("no answer was produced"), "{}", none.reason);
        // DABstep's rounding: 1.004 is 1.0 at one decimal, 1.05 (just above its half) is 1.1.
        let dabstep = question_with_dabstep();
        assert!(!grader.ground_truth(&dabstep, Some(&json!(1.05))).unwrap().passed);
        assert!(grader.ground_truth(&dabstep, Some(&json!(1.004))).unwrap().passed);
        let malformed = grader.ground_truth(&question(Scorer::Infiagent, json!("1")), Some(&json!(1))).unwrap();
        assert!(malformed.error.is_some(), "an unreadable label is a failed grade, neither right nor wrong");
    }

    fn question_with_dabstep() -> Question {
        question(Scorer::Dabstep, json!("1.0"))
    }
}
