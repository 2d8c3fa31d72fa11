//! Answer grading: is a DAG's `final_answer` right?
//!
//! "Passed" only means a DAG ran; grading decides correctness, with
//! - ground truth, when the question carries an expected answer: tolerant
//!   matching rules ([`match_values`]) or JSON equality ([`json_equality()`]);
//! - judges loaded from TOML files ([`Judge`]): decision trees ([`DagJudge`]),
//!   score rubrics ([`Rubric`]) and answer faithfulness ([`Faithfulness`]).
//!
//! [`grade_answer`] runs all of them on one answer and returns one [`Grade`]
//! each; [`summarise`] turns many into accuracy overall and per difficulty.
//!
//! Parts:
//! - Ground-truth matching and JSON equality.
//! - LLM judges: decision-tree judges in `tree_judge.rs`, built from judge files in
//!   `tree_judge_build.rs`; their prompts in `judge_prompts.rs`. `JudgedAt` keys
//!   every judge call by the answer's attempt, epoch, draft, rejected iteration
//!   and judgement repeat.
//! - `noise.rs`: a judge's noise floor over repeated judgements, and their majority
//!   verdict (`grade --repeat-judges`).

mod error;
mod faithfulness;
mod grader;
mod json_equality;
mod judge_file;
mod judge_prompts;
mod judged;
mod matching;
mod noise;
mod questions_file;
mod rubric;
mod rubric_reply;
mod summary;
mod tree_judge;
mod tree_judge_build;

use indexmap::IndexMap;
use serde_json::Value;

pub use error::{GradeError, JudgeFileError, QuestionsFileError};
pub use faithfulness::{ClaimVerdict, Faithfulness, faithfulness_score};
pub use grader::{Answer, Grader};
pub use json_equality::{
    JsonEqualityError, JsonOperator, exact_operator, json_equality, parse_json_text, rules_operator,
};
pub use judge_file::{Judge, JudgeKind, built_in_judge, built_in_judges};
pub use judge_prompts::JudgeInput;
pub(crate) use judged::Outcome;
pub use judged::{JudgedAt, Verdict};
pub use matching::{JsonCompare, MatchMethod, MatchOptions, MatchResult, ScoreMode, match_values};
pub use noise::{JudgeNoise, judge_noise, majority};
pub use questions_file::{QuestionSpec, parse_questions_jsonl, read_questions_file};
pub use rubric::{Rubric, RubricLevel};
pub use rubric_reply::{RubricError, RubricOutput, RubricReply, normalise_score, parse_rubric_reply};
pub use summary::{Accuracy, GradeSummary, summarise};
pub use tree_judge::DagJudge;

use crate::benchmark;
use crate::domain::{Grade, GradingMethod, NodeId, Question, Scorer};
use crate::llm::{LlmClient, Repairs};
use judge_prompts::{JudgeCall, JudgePrompts};

/// Judges ready to run, with their prompt templates.
#[derive(Debug)]
pub struct JudgePanel {
    judges: Vec<Judge>,
    prompts: JudgePrompts,
    repairs: Option<Repairs>,
}

impl JudgePanel {
    /// A panel of `judges` (empty: ground truth only).
    pub fn new(judges: Vec<Judge>) -> Result<Self, GradeError> {
        Ok(Self { judges, prompts: JudgePrompts::built_in()?, repairs: None })
    }

    /// The panel with a judge's unreadable JSON reply asked for again as `repairs` says.
    pub fn with_repairs(self, repairs: Repairs) -> Self {
        Self { repairs: Some(repairs), ..self }
    }

    /// The judges, in the order their grades are returned.
    pub fn judges(&self) -> &[Judge] {
        &self.judges
    }
}

/// One answer to grade.
#[derive(Debug, Clone, Copy)]
pub struct GradeInput<'a> {
    /// The question, with its expected answer when known.
    pub question: &'a Question,
    /// Matching options for this question (global + per-question overrides).
    pub options: &'a MatchOptions,
    /// The DAG's answer; none when no answer was produced.
    pub final_answer: Option<&'a Value>,
    /// A one-sentence narrative of the answer: what answer faithfulness judges
    /// (the answer itself when none was written).
    pub narrative: Option<&'a str>,
    /// Every node's output.
    pub node_outputs: &'a IndexMap<NodeId, Value>,
    /// Which answer it is (keys the judge calls for replay).
    pub at: &'a JudgedAt,
}

const NO_ANSWER: &str = "no answer was produced";

/// Grade an answer: the ground-truth grade first (when an expected answer is
/// known), then one grade per judge in panel order. Judges run concurrently.
pub async fn grade_answer(input: &GradeInput<'_>, panel: &JudgePanel, llm: &dyn LlmClient) -> Vec<Grade> {
    let mut grades = Vec::new();
    if let Some(expected) = &input.question.expected_answer {
        grades.push(grade_truth(input.question, expected, input.final_answer, input.options));
    }
    let Some(answer) = input.final_answer else {
        grades.extend(
            panel
                .judges
                .iter()
                .map(|judge| Grade::scored(judge.method(), 0.0, judge.effective_threshold(), NO_ANSWER.into())),
        );
        return grades;
    };
    let runs = panel.judges.iter().zip(1..).map(|(judge, judge_index)| {
        let call = JudgeCall {
            prompts: &panel.prompts,
            llm,
            repairs: panel.repairs.as_ref(),
            question: input.question,
            answer,
            narrative: input.narrative,
            node_outputs: input.node_outputs,
            at: input.at,
            judge_index,
        };
        async move {
            let outcome = match &judge.kind {
                JudgeKind::Dag(dag) => dag.run(&call).await,
                JudgeKind::Rubric(rubric) => rubric.run(&call).await,
                JudgeKind::Faithfulness(faithfulness) => faithfulness.run(&call).await,
            };
            let threshold = judge.effective_threshold();
            match outcome {
                Ok(Outcome { score, reason }) => Grade::scored(judge.method(), score, threshold, reason),
                Err(error) => Grade::failed(judge.method(), threshold, error.to_string()),
            }
        }
    });
    grades.extend(futures::future::join_all(runs).await);
    grades
}

/// The ground-truth grade of `answer` to `question` against `expected`: by
/// the question's benchmark scorer when it names one (the share of parts
/// right, passing only with every part), else under `options`.
pub fn grade_truth(question: &Question, expected: &Value, answer: Option<&Value>, options: &MatchOptions) -> Grade {
    let scorer = question.scorer.unwrap_or(Scorer::Builtin);
    let scored =
        answer.map_or_else(|| benchmark::unanswered(scorer, expected), |a| benchmark::score(scorer, expected, a));
    match scored {
        None => grade_ground_truth(expected, answer, options),
        Some(Ok(score)) if answer.is_none() => {
            Grade::scored(GradingMethod::GroundTruth, 0.0, 1.0, format!("{NO_ANSWER} ({})", score.describe()))
        }
        Some(Ok(score)) => Grade::scored(GradingMethod::GroundTruth, score.share_right(), 1.0, score.describe()),
        Some(Err(err)) => {
            Grade::failed(GradingMethod::GroundTruth, 1.0, format!("{} rules: {err}", benchmark::scorer_name(scorer)))
        }
    }
}

/// The ground-truth grade of `answer` against `expected` under `options`.
pub fn grade_ground_truth(expected: &Value, answer: Option<&Value>, options: &MatchOptions) -> Grade {
    let (method, threshold) = match (options.method, options.json_compare) {
        (MatchMethod::Rules, _) => (GradingMethod::GroundTruth, options.threshold),
        (MatchMethod::JsonEquality, JsonCompare::Rules) => (GradingMethod::JsonEquality, options.threshold),
        (MatchMethod::JsonEquality, JsonCompare::Exact) => (GradingMethod::JsonEquality, 1.0),
    };
    let Some(answer) = answer else {
        return Grade::scored(method, 0.0, threshold, NO_ANSWER.into());
    };
    let result = match (options.method, options.json_compare) {
        (MatchMethod::Rules, _) => Ok(match_values(expected, answer, options)),
        (MatchMethod::JsonEquality, JsonCompare::Exact) => json_equality(answer, expected, &exact_operator),
        (MatchMethod::JsonEquality, JsonCompare::Rules) => json_equality(answer, expected, &rules_operator(options)),
    };
    match result {
        Ok(result) => Grade::scored(method.clone(), result.score, threshold, result.reason),
        Err(err @ JsonEqualityError::Prediction(_)) => Grade::scored(method.clone(), 0.0, threshold, err.to_string()),
        Err(err @ JsonEqualityError::Reference(_)) => Grade::failed(method, threshold, err.to_string()),
    }
}
