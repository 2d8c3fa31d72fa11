//! Was the critic right? Every iteration the critic judged is set against
//! the answer its trial run reached, graded with the run's matching rules
//! (no LLM) — or, where a question has no expected answer, by a person's
//! label, else by the run's LLM judges when they graded the iteration
//! (`run --judge-rejected`): approvals of right and wrong answers, rejections of wrong and
//! right ones, and rejections that did not change the answer finally approved. Broken down by
//! difficulty, by the source and rule of the findings behind each
//! rejection, with the iterations and tokens spent on wrong rejections.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::consensus::consensus_summary;
use super::metamorphic::metamorphic_summary;
use crate::domain::Severity;
use crate::grade::Grader;
use crate::report::documents::{
    AnswerGrade, CriticScorecard, GradedBy, JudgedIteration, LabelFreeSignal, SignalAgainstLabels, VerdictFate,
};
use crate::run::{Attempt, Iteration, QuestionState, RunState};

/// A value's name in JSON (`trial_run`, `easy`).
fn serde_name(value: impl Serialize) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// The answer an iteration's trial run reached.
fn trial_answer(it: &Iteration) -> Option<&Value> {
    it.trial.as_ref().filter(|t| t.success).and_then(|t| t.final_answer.as_ref())
}

/// The answer graded against the expected answer, else by a person's label
/// of the iteration, else by the judges' grades of it — with what graded it.
fn grade_answer(
    grader: &Grader,
    q: &QuestionState,
    it: &Iteration,
    answer: Option<&Value>,
) -> (AnswerGrade, Option<GradedBy>) {
    let Some(answer) = answer else { return (AnswerGrade::DidNotRun, None) };
    let right_or_wrong = |right: bool| if right { AnswerGrade::Right } else { AnswerGrade::Wrong };
    match (grader.ground_truth(&q.question, Some(answer)), it.label(), it.judge_verdict()) {
        (Some(grade), _, _) if grade.error.is_none() => (right_or_wrong(grade.passed), Some(GradedBy::ExpectedAnswer)),
        (None, Some(label), _) => (right_or_wrong(label.right), Some(GradedBy::Label)),
        (None, None, Some(right)) => (right_or_wrong(right), Some(GradedBy::Judge)),
        _ => (AnswerGrade::Ungraded, None),
    }
}

fn fate(
    grader: &Grader,
    q: &QuestionState,
    attempt: &Attempt,
    approved: bool,
    grade: AnswerGrade,
    answer: Option<&Value>,
) -> VerdictFate {
    match (approved, grade) {
        (true, AnswerGrade::Right) => VerdictFate::CorrectApproval,
        (true, AnswerGrade::Wrong) => VerdictFate::WrongApproval,
        (true, _) => VerdictFate::UngradedApproval,
        (false, AnswerGrade::Right) => VerdictFate::WrongRejection,
        (false, AnswerGrade::Wrong) => VerdictFate::CorrectRejection,
        (false, AnswerGrade::DidNotRun) => VerdictFate::RejectedWithoutAnswer,
        (false, AnswerGrade::Ungraded) => {
            // The same answer as the one the critic finally approved, by the run's matching rules?
            let approved = attempt.iterations.iter().rev().find(|i| i.feedback.as_ref().is_some_and(|f| f.is_approved));
            let same = approved.and_then(trial_answer).zip(answer).is_some_and(|(approved, answer)| {
                grader
                    .options_for(&q.question)
                    .is_ok_and(|options| crate::grade::match_values(approved, answer, &options).passed)
            });
            if same { VerdictFate::NeutralRejection } else { VerdictFate::UngradedRejection }
        }
    }
}

/// Every iteration of the model's attempts the critic judged, graded.
pub fn judged_iterations(state: &RunState, grader: &Grader) -> Vec<JudgedIteration> {
    let mut judged = Vec::new();
    for q in &state.questions {
        for attempt in q.attempts().iter().filter(|a| !a.by_hand) {
            for it in &attempt.iterations {
                let Some(feedback) = &it.feedback else { continue };
                let answer = trial_answer(it);
                let (grade, graded_by) = grade_answer(grader, q, it, answer);
                let fate = fate(grader, q, attempt, feedback.is_approved, grade, answer);
                let blocking = feedback.findings.iter().filter(|f| f.severity == Severity::Error);
                let (mut sources, mut rules): (Vec<_>, Vec<_>) = if feedback.is_approved {
                    (Vec::new(), Vec::new())
                } else {
                    blocking.map(|f| (f.source, f.rule.clone())).unzip()
                };
                sources.sort();
                sources.dedup();
                rules.sort();
                rules.dedup();
                let tokens = it.calls.iter().filter_map(|id| state.calls.get(id)).map(|c| c.usage.total()).sum();
                judged.push(JudgedIteration {
                    question_id: q.question.id.clone(),
                    attempt: attempt.number,
                    iteration: it.number,
                    approved: feedback.is_approved,
                    answer: answer.cloned(),
                    grade,
                    labelled: graded_by == Some(GradedBy::Label),
                    graded_by,
                    fate,
                    sources,
                    rules,
                    tokens,
                });
            }
        }
    }
    judged
}

/// Where answers were graded, each label-free flag the run raised (consensus
/// disagreement, a broken metamorphic invariant) set against right and wrong:
/// how far to trust it on data without labels. Empty when the run raised
/// neither or graded nothing they flag.
pub fn label_free_signals(state: &RunState) -> Vec<(LabelFreeSignal, SignalAgainstLabels)> {
    let consensus = consensus_summary(state).and_then(|s| s.against_labels);
    let metamorphic = metamorphic_summary(state).and_then(|s| s.against_labels);
    [(LabelFreeSignal::DraftsDisagree, consensus), (LabelFreeSignal::BrokenInvariant, metamorphic)]
        .into_iter()
        .filter_map(|(signal, counts)| Some((signal, counts?)))
        .collect()
}

/// The critic's scorecard for `state`, answers graded with the run's own
/// matching rules (no judge, no LLM).
pub fn critic_scorecard(state: &RunState) -> CriticScorecard {
    let grader =
        state.settings.as_ref().map_or_else(Grader::ground_truth_only, |s| Grader::ground_truth_with(&s.grading));
    scorecard_graded_by(state, &grader)
}

/// The critic's scorecard for `state`, answers graded by `grader`'s matching rules.
pub fn scorecard_graded_by(state: &RunState, grader: &Grader) -> CriticScorecard {
    let iterations = judged_iterations(state, grader);
    let mut card = CriticScorecard::default();
    let levels: BTreeMap<&str, String> =
        state.questions.iter().map(|q| (q.question.id.as_str(), serde_name(q.question.difficulty_level))).collect();
    // (question, attempt) whose wrong rejection came first, and at which iteration.
    let mut wrongly_rejected: Option<(&str, u32, u32)> = None;
    for it in &iterations {
        card.total.add(it.fate);
        let level = levels.get(it.question_id.as_str()).cloned().unwrap_or_default();
        card.by_difficulty.entry(level).or_default().add(it.fate);
        for source in &it.sources {
            card.by_source.entry(serde_name(source)).or_default().add(it.fate);
        }
        for rule in &it.rules {
            card.by_rule.entry(rule.to_string()).or_default().add(it.fate);
        }
        match wrongly_rejected {
            Some((question, attempt, at))
                if question == it.question_id && attempt == it.attempt && it.iteration > at =>
            {
                card.wrong_rejection_iterations += 1;
                card.wrong_rejection_tokens += it.tokens;
            }
            Some((question, attempt, _)) if question == it.question_id && attempt == it.attempt => {}
            _ => {
                wrongly_rejected = (it.fate == VerdictFate::WrongRejection).then_some((
                    it.question_id.as_str(),
                    it.attempt,
                    it.iteration,
                ));
            }
        }
    }
    card.iterations = iterations;
    let order = |level: &str| ["easy", "medium", "hard"].iter().position(|l| *l == level).unwrap_or(3);
    card.by_difficulty.sort_by(|a, _, b, _| order(a).cmp(&order(b)));
    card
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::domain::{
        AttemptAt, CriticFeedback, DifficultyLevel, ExecutionResult, Finding, FindingSource, Question,
    };
    use crate::report::documents::FateCounts;
    use crate::run::{EngineEvent, RunSettings};

    fn question(id: &str, expected: Option<Value>) -> Question {
        Question { expected_answer: expected, ..Question::new(id, format!("question {id}"), 1, DifficultyLevel::Easy) }
    }

    /// Iteration `n` of `id`'s attempt 1: its trial's answer (none: it did not
    /// run) and the verdict, blamed on `rule` of `source` when rejected.
    fn judged(
        id: &str,
        n: u32,
        answer: Option<Value>,
        approved: bool,
        source: FindingSource,
        rule: &str,
    ) -> Vec<EngineEvent> {
        let at = AttemptAt::new(id, 1).iteration(n);
        let mut events = Vec::new();
        if let Some(answer) = answer {
            let result = ExecutionResult { success: true, final_answer: Some(answer), ..Default::default() };
            events.push(EngineEvent::Executed { at: at.clone(), trial: true, result });
        }
        let findings = if approved {
            vec![]
        } else {
            vec![Finding {
                node_id: None,
                layer: None,
                rule: rule.into(),
                source,
                message: "m".into(),
                severity: Severity::Error,
            }]
        };
        events.push(EngineEvent::CriticVerdict {
            at,
            feedback: CriticFeedback { is_approved: approved, findings, ..Default::default() },
        });
        events
    }

    /// The planted cases: a right answer rejected then approved (q_right),
    /// a wrong answer approved (q_wrong), a structural rejection then a wrong
    /// answer rejected then a right one approved (q_mixed), and a rejection
    /// without expected answer that kept the answer approved later (q_open).
    fn planted() -> RunState {
        let mut events = vec![
            EngineEvent::RunStarted { settings: RunSettings::default() },
            EngineEvent::QuestionsGenerated {
                questions: vec![
                    question("q_right", Some(json!(42))),
                    question("q_wrong", Some(json!(42))),
                    question("q_mixed", Some(json!("a"))),
                    question("q_open", None),
                ],
            },
        ];
        for id in ["q_right", "q_wrong", "q_mixed", "q_open"] {
            events.push(EngineEvent::QuestionStarted { at: AttemptAt::new(id, 1), forked_from: None, by_hand: false });
        }
        events.extend(judged("q_right", 1, Some(json!(42)), false, FindingSource::Semantic, "layer_review"));
        events.extend(judged("q_right", 2, Some(json!(42.0)), true, FindingSource::Semantic, ""));
        events.extend(judged("q_wrong", 1, Some(json!(41)), true, FindingSource::Semantic, ""));
        events.extend(judged("q_mixed", 1, None, false, FindingSource::Structural, "unknown_field"));
        events.extend(judged("q_mixed", 2, Some(json!("b")), false, FindingSource::TrialRun, "empty_output"));
        events.extend(judged("q_mixed", 3, Some(json!("A")), true, FindingSource::Semantic, ""));
        events.extend(judged("q_open", 1, Some(json!([1, 2])), false, FindingSource::Semantic, "layer_review"));
        events.extend(judged("q_open", 2, Some(json!([1, 2])), true, FindingSource::Semantic, ""));
        let mut state = RunState::default();
        for (t, event) in events.iter().enumerate() {
            state.apply(t as u64, event);
        }
        state
    }

    #[test]
    fn the_planted_cases_give_exactly_the_scorecard_they_imply() {
        let card = critic_scorecard(&planted());
        let expected = FateCounts {
            correct_approvals: 2,
            wrong_approvals: 1,
            correct_rejections: 1,
            wrong_rejections: 1,
            answer_neutral_rejections: 1,
            ungraded_approvals: 1,
            ungraded_rejections: 0,
            rejections_without_answer: 1,
        };
        assert_eq!(card.total, expected);
        assert_eq!(card.total.agreement(), Some(3.0 / 5.0));
        assert_eq!(card.by_difficulty["easy"], expected);
        assert_eq!(card.by_source["semantic"].wrong_rejections, 1);
        assert_eq!(card.by_source["semantic"].answer_neutral_rejections, 1);
        assert_eq!(card.by_source["structural"].rejections_without_answer, 1);
        assert_eq!(card.by_source["trial_run"].correct_rejections, 1);
        assert_eq!(card.by_rule["layer_review"].graded(), 1);
        assert!(!card.by_source.contains_key("human"));
        assert_eq!(card.wrong_rejection_iterations, 1, "q_right's one rebuild");
        let fates: Vec<(&str, u32, VerdictFate)> =
            card.iterations.iter().map(|i| (i.question_id.as_str(), i.iteration, i.fate)).collect();
        assert_eq!(
            fates,
            [
                ("q_right", 1, VerdictFate::WrongRejection),
                ("q_right", 2, VerdictFate::CorrectApproval),
                ("q_wrong", 1, VerdictFate::WrongApproval),
                ("q_mixed", 1, VerdictFate::RejectedWithoutAnswer),
                ("q_mixed", 2, VerdictFate::CorrectRejection),
                ("q_mixed", 3, VerdictFate::CorrectApproval),
                ("q_open", 1, VerdictFate::NeutralRejection),
                ("q_open", 2, VerdictFate::UngradedApproval),
            ]
        );
        assert_eq!(card.iterations[3].grade, AnswerGrade::DidNotRun);
    }
}
