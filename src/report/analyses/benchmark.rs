//! A published benchmark's own figures in the results: each scored
//! question's parts, and the run's metrics as the benchmark's scorer computes
//! them (over answered questions), then over every scored question, and over
//! every scored question's first trial answer (before the critic's rebuilds)
//! with the questions the loop fixed and broke.

use serde::Serialize;
use serde_json::Value;

use crate::benchmark::BenchmarkScore;
use crate::benchmark::{dabstep, score, scorer_name, unanswered};
use crate::domain::Scorer;
use crate::report::documents::{BenchmarkMetrics, BenchmarkSummary};
use crate::run::{Outcome, QuestionState, QuestionStatus};

/// The model's answer to `q` scored by its benchmark's rules (every part
/// wrong when it gave none); none for a question without a benchmark scorer,
/// an expected answer, or one the scorer can read.
pub fn benchmark_score(q: &QuestionState) -> Option<BenchmarkScore> {
    score_answer(q, model_answer(q))
}

/// `answer` to `q` scored by its benchmark's rules, as [`benchmark_score`] does.
pub(super) fn score_answer(q: &QuestionState, answer: Option<&Value>) -> Option<BenchmarkScore> {
    let scorer = q.question.scorer.filter(|s| *s != Scorer::Builtin)?;
    let expected = q.question.expected_answer.as_ref()?;
    let scored = match answer {
        Some(answer) => score(scorer, expected, answer),
        None => unanswered(scorer, expected),
    };
    scored?.ok()
}

/// The latest answer that is the model's own (none when fixed by hand).
pub(super) fn model_answer(q: &QuestionState) -> Option<&Value> {
    if q.status == QuestionStatus::Done(Outcome::FixedByHand) {
        return None;
    }
    q.latest()?.final_answer.as_ref()
}

/// The answer the latest attempt's first DAG gave in its trial run, before
/// any rebuild (none when fixed by hand).
pub(super) fn first_answer(q: &QuestionState) -> Option<&Value> {
    if q.status == QuestionStatus::Done(Outcome::FixedByHand) {
        return None;
    }
    q.latest()?.iterations.first()?.trial.as_ref()?.final_answer.as_ref()
}

/// The three metrics over `scores`; none each when there is nothing to count.
fn metrics<'a>(scores: impl Iterator<Item = &'a BenchmarkScore> + Clone) -> BenchmarkMetrics {
    let questions = scores.clone().count();
    let parts: usize = scores.clone().map(|s| s.sub_answers.len()).sum();
    let parts_right: usize = scores.clone().map(|s| s.sub_answers.iter().filter(|p| p.correct).count()).sum();
    let right = scores.clone().filter(|s| s.correct).count();
    let share: f64 = scores.map(BenchmarkScore::share_right).sum();
    let over = |n: f64, d: usize| (d > 0).then(|| n / d as f64);
    BenchmarkMetrics {
        accuracy_by_question: over(right as f64, questions),
        accuracy_by_sub_question: over(parts_right as f64, parts),
        proportional_accuracy_by_sub_question: over(share, questions),
    }
}

/// The run's benchmark metrics; none when no question is scored by a benchmark's rules.
/// Its `lift` is left to [`super::lift::benchmark_lift`], which needs the run's calls.
pub fn benchmark_summary<'a>(questions: impl IntoIterator<Item = &'a QuestionState>) -> Option<BenchmarkSummary> {
    let scored: Vec<(bool, BenchmarkScore, Option<BenchmarkScore>)> = questions
        .into_iter()
        .filter_map(|q| Some((model_answer(q).is_some(), benchmark_score(q)?, score_answer(q, first_answer(q)))))
        .collect();
    if scored.is_empty() {
        return None;
    }
    let mut names: Vec<&str> = scored.iter().map(|(_, s, _)| scorer_name(s.scorer)).collect();
    names.sort_unstable();
    names.dedup();
    let answered = metrics(scored.iter().filter(|(answered, _, _)| *answered).map(|(_, s, _)| s));
    let first_right = |first: &Option<BenchmarkScore>| first.as_ref().is_some_and(|f| f.correct);
    Some(BenchmarkSummary {
        name: names.join("+"),
        accuracy_by_question: answered.accuracy_by_question,
        accuracy_by_sub_question: answered.accuracy_by_sub_question,
        proportional_accuracy_by_sub_question: answered.proportional_accuracy_by_sub_question,
        questions: scored.len(),
        answered: scored.iter().filter(|(answered, _, _)| *answered).count(),
        over_all_questions: Some(metrics(scored.iter().map(|(_, s, _)| s))),
        first_iteration: Some(metrics(scored.iter().filter_map(|(_, _, first)| first.as_ref()))),
        fixed: scored.iter().filter(|(_, last, first)| last.correct && !first_right(first)).count(),
        broken: scored.iter().filter(|(_, last, first)| !last.correct && first_right(first)).count(),
        lift: None,
    })
}

/// One line of a DABstep submission file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SubmissionLine {
    /// The task's id in DABstep.
    pub task_id: String,
    /// The answer as DABstep reads it (empty when there is none).
    pub agent_answer: String,
    /// How the answer was reached: the DAG's plan and each node's operation.
    pub reasoning_trace: String,
}

/// A DABstep submission of every DABstep question of a run, in rank order:
/// the model's latest answer as text, an unanswered task with an empty answer.
pub fn dabstep_submission<'a>(questions: impl IntoIterator<Item = &'a QuestionState>) -> Vec<SubmissionLine> {
    questions
        .into_iter()
        .filter(|q| q.question.scorer == Some(Scorer::Dabstep))
        .map(|q| {
            let dag = q.latest().and_then(|a| a.iterations.iter().rev().find_map(|i| i.dag.as_ref()));
            let reasoning_trace = dag.map_or_else(String::new, |dag| {
                let steps = dag.nodes.iter().map(|n| format!("{}: {}", n.node_id, n.operation));
                std::iter::once(dag.description.clone()).chain(steps).collect::<Vec<_>>().join("\n")
            });
            SubmissionLine {
                task_id: q.question.source_id.clone().unwrap_or_else(|| q.question.id.to_string()),
                agent_answer: model_answer(q).map(dabstep::answer_text).unwrap_or_default(),
                reasoning_trace,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::domain::{AttemptAt, DifficultyLevel, ExecutionResult, Question};
    use crate::run::{EngineEvent, RunSettings, RunState};

    /// A run of `questions` (id, scorer, expected answer, the model's answer).
    fn run(questions: &[(&str, Scorer, Value, Option<Value>)]) -> RunState {
        let asked = questions
            .iter()
            .enumerate()
            .map(|(i, (id, scorer, expected, _))| Question {
                expected_answer: Some(expected.clone()),
                scorer: Some(*scorer),
                source_id: Some(id.trim_start_matches("q_").into()),
                ..Question::new(*id, "?", i + 1, DifficultyLevel::Easy)
            })
            .collect();
        let mut events = vec![
            EngineEvent::RunStarted { settings: RunSettings::default() },
            EngineEvent::QuestionsGenerated { questions: asked },
        ];
        for (id, _, _, answer) in questions {
            let at = AttemptAt::new(*id, 1);
            events.push(EngineEvent::QuestionStarted { at: at.clone(), forked_from: None, by_hand: false });
            let outcome = if answer.is_some() { Outcome::Passed } else { Outcome::Exhausted };
            events.push(EngineEvent::QuestionFinished {
                at,
                outcome,
                iterations: 1,
                final_answer: answer.clone(),
                reason: None,
            });
        }
        let mut state = RunState::default();
        for event in &events {
            state.apply(0, event);
        }
        state
    }

    #[test]
    fn infiagent_metrics_are_over_answered_questions_then_over_all() {
        let state = run(&[
            // Both parts right.
            ("q_1", Scorer::Infiagent, json!({"a": "1.00", "b": "yes"}), Some(json!({"a": 1.0, "b": "yes"}))),
            // One of three parts right.
            ("q_2", Scorer::Infiagent, json!({"x": "2", "y": "3", "z": "True"}), Some(json!("@x[2] @y[4] @z[true]"))),
            // The one part wrong.
            ("q_3", Scorer::Infiagent, json!({"m": "0.5"}), Some(json!(0.6))),
            // Unanswered, two parts.
            ("q_4", Scorer::Infiagent, json!({"p": "1", "q": "2"}), None),
        ]);
        let summary = benchmark_summary(state.questions.iter()).unwrap();
        assert_eq!((summary.name.as_str(), summary.questions, summary.answered), ("infiagent", 4, 3));
        // Answered: 1 of 3 questions; parts 3 of 6; mean share (1 + 1/3 + 0) / 3.
        assert_eq!(summary.accuracy_by_question, Some(1.0 / 3.0));
        assert_eq!(summary.accuracy_by_sub_question, Some(0.5));
        assert_eq!(summary.proportional_accuracy_by_sub_question, Some((1.0 + 1.0 / 3.0) / 3.0));
        // All: 1 of 4; parts 3 of 8; mean share (1 + 1/3 + 0 + 0) / 4.
        let all = summary.over_all_questions.unwrap();
        assert_eq!(all.accuracy_by_question, Some(0.25));
        assert_eq!(all.accuracy_by_sub_question, Some(3.0 / 8.0));
        assert_eq!(all.proportional_accuracy_by_sub_question, Some((1.0 + 1.0 / 3.0) / 4.0));
        // No trial run recorded: every first answer is missing, so wrong; q_1 was fixed.
        assert_eq!(summary.first_iteration.unwrap().accuracy_by_question, Some(0.0));
        assert_eq!((summary.fixed, summary.broken), (1, 0));
        let q2 = benchmark_score(&state.questions[1]).unwrap();
        let parts: Vec<(&str, Option<&str>, bool)> =
            q2.sub_answers.iter().map(|s| (s.name.as_str(), s.given.as_deref(), s.correct)).collect();
        assert_eq!(parts, [("x", Some("2"), true), ("y", Some("4"), false), ("z", Some("true"), false)]);
        let q4 = benchmark_score(&state.questions[3]).unwrap();
        assert!(!q4.correct && q4.sub_answers.iter().all(|s| s.given.is_none()));
    }

    #[test]
    fn the_first_dags_answers_give_the_accuracy_before_rebuilds_and_what_the_loop_fixed_and_broke() {
        let mut state = run(&[
            ("q_1", Scorer::Dabstep, json!("7"), Some(json!(7))),
            ("q_2", Scorer::Dabstep, json!("yes"), Some(json!("no"))),
            ("q_3", Scorer::Dabstep, json!("x"), Some(json!("x"))),
        ]);
        for (id, first) in [("q_1", json!(8)), ("q_2", json!("yes")), ("q_3", json!("x"))] {
            let result = ExecutionResult { success: true, final_answer: Some(first), ..Default::default() };
            let at = AttemptAt::new(id, 1).iteration(1);
            state.apply(1, &EngineEvent::Executed { at, trial: true, result });
        }
        let summary = benchmark_summary(state.questions.iter()).unwrap();
        assert_eq!(summary.accuracy_by_question, Some(2.0 / 3.0));
        assert_eq!(summary.first_iteration.unwrap().accuracy_by_question, Some(2.0 / 3.0));
        assert_eq!((summary.fixed, summary.broken), (1, 1), "q_1 fixed, q_2 broken");
    }

    #[test]
    fn dabstep_questions_are_one_part_each_and_make_a_submission() {
        let state = run(&[
            ("q_5", Scorer::Dabstep, json!("NexPay"), Some(json!("nexpay"))),
            ("q_6", Scorer::Dabstep, json!("A, B"), Some(json!(["B", "C"]))),
            ("q_7", Scorer::Dabstep, json!("12.5"), None),
        ]);
        let summary = benchmark_summary(state.questions.iter()).unwrap();
        assert_eq!((summary.accuracy_by_question, summary.accuracy_by_sub_question), (Some(0.5), Some(0.5)));
        assert_eq!(summary.over_all_questions.unwrap().accuracy_by_question, Some(1.0 / 3.0));
        let lines = dabstep_submission(state.questions.iter());
        let answers: Vec<(&str, &str)> = lines.iter().map(|l| (l.task_id.as_str(), l.agent_answer.as_str())).collect();
        assert_eq!(answers, [("5", "nexpay"), ("6", "B, C"), ("7", "")]);
    }

    #[test]
    fn a_run_without_benchmark_questions_has_no_benchmark_figures() {
        let state = run(&[("q_1", Scorer::Builtin, json!(1), Some(json!(1)))]);
        assert!(benchmark_summary(state.questions.iter()).is_none());
        assert!(benchmark_score(&state.questions[0]).is_none());
        assert!(dabstep_submission(state.questions.iter()).is_empty());
    }
}
