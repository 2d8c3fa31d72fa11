//! The critic's lift: each scored question right or wrong without the
//! critic's rebuilds and with them, and what that adds up to — accuracy before
//! and after, per difficulty level and per dataset, the questions the loop
//! fixed and broke, and the tokens and cost of each extra right answer.
//!
//! The pairs come from two runs of the same questions (one with
//! `--max-iterations 1`, one with more), or from one run, its first DAG's
//! trial answer set beside its final answer.

use indexmap::IndexMap;
use serde_json::Value;

use super::benchmark::{first_answer, model_answer, score_answer};
use super::compare::matched;
use crate::domain::{DifficultyLevel, Grade, Scorer};
use crate::grade::Grader;
use crate::report::documents::{DetailedResult, EvalResults};
use crate::report::documents::{Lift, LiftPair, LiftQuestion, LiftSide, LiftTally, ScoredBy};
use crate::run::{QuestionState, RunState};

/// The lift over `pairs`; none when there is no pair.
pub fn lift(pairs: &[LiftPair]) -> Option<Lift> {
    if pairs.is_empty() {
        return None;
    }
    let mut overall = LiftTally::default();
    let mut by_level: IndexMap<DifficultyLevel, LiftTally> = IndexMap::new();
    let mut by_dataset: IndexMap<String, LiftTally> = IndexMap::new();
    for pair in pairs {
        overall.add(pair);
        by_level.entry(pair.level).or_default().add(pair);
        if let Some(dataset) = &pair.dataset {
            by_dataset.entry(dataset.clone()).or_default().add(pair);
        }
    }
    by_level.sort_keys();
    if by_dataset.len() < 2 {
        by_dataset.clear();
    }
    let named = |pair: &LiftPair| LiftQuestion {
        question_id: pair.question_id.clone(),
        question: pair.question.clone(),
        level: pair.level,
        dataset: pair.dataset.clone(),
    };
    let fixed = pairs.iter().filter(|p| !p.before.right && p.after.right).map(named).collect();
    let broken = pairs.iter().filter(|p| p.before.right && !p.after.right).map(named).collect();
    let extra_right = overall.right_after as i64 - overall.right_before as i64;
    let extra_tokens: i64 = pairs.iter().map(|p| p.after.tokens as i64 - p.before.tokens as i64).sum();
    let extra_cost_usd: f64 = pairs.iter().map(|p| p.after.cost_usd - p.before.cost_usd).sum();
    let per_extra_right = |amount: f64| (extra_right > 0).then(|| amount / extra_right as f64);
    Some(Lift {
        overall,
        by_level,
        by_dataset,
        fixed,
        broken,
        extra_right,
        extra_tokens,
        extra_cost_usd,
        tokens_per_extra_right: per_extra_right(extra_tokens as f64),
        cost_per_extra_right_usd: per_extra_right(extra_cost_usd),
    })
}

/// Whether `result` is right, and by what: its benchmark score, else its
/// grade against the expected answer; none when it has neither.
fn verdict(result: &DetailedResult) -> Option<(ScoredBy, bool)> {
    if let Some(score) = &result.benchmark {
        return Some((ScoredBy::Benchmark, score.correct));
    }
    let graded = |g: &&Grade| g.method.uses_expected_answer() && g.error.is_none();
    result.grades.iter().find(graded).map(|g| (ScoredBy::ExpectedAnswer, g.passed))
}

/// The pairs of two runs of the same questions: `before` is run A (say,
/// `--max-iterations 1`), `after` run B, questions matched as
/// [`super::compare::compare()`] matches them. A question counts when both runs scored
/// it the same way (see [`ScoredBy`]); the others are left out.
pub fn pairs_between_runs(before: &EvalResults, after: &EvalResults) -> Vec<LiftPair> {
    matched(before, after)
        .into_iter()
        .filter_map(|(a, b)| {
            let (a, b) = (a?, b?);
            let ((scored_a, right_a), (scored_b, right_b)) = (verdict(a)?, verdict(b)?);
            (scored_a == scored_b).then(|| LiftPair {
                question_id: a.question_id.clone(),
                question: a.question.clone(),
                level: a.difficulty_level,
                dataset: a.dataset.clone(),
                scored_by: scored_a,
                before: LiftSide { right: right_a, tokens: a.tokens.total, cost_usd: a.cost_usd },
                after: LiftSide { right: right_b, tokens: b.tokens.total, cost_usd: b.cost_usd },
            })
        })
        .collect()
}

/// The lift of run `after` over run `before` (paired by `pairs_between_runs`),
/// when `before` allowed fewer iterations than `after` (say, 1 and 3) so that
/// the difference is the critic's rebuilds; none otherwise, for results
/// without settings, or when no question is scored in both.
pub fn rebuild_lift(before: &EvalResults, after: &EvalResults) -> Option<Lift> {
    let iterations = |doc: &EvalResults| doc.summary.settings.as_ref().map(|s| s.max_iterations);
    if iterations(before)? >= iterations(after)? {
        return None;
    }
    lift(&pairs_between_runs(before, after))
}

/// Whether `answer` to `q` is right: by its benchmark's rules when it has a
/// benchmark scorer, else by `grader` against its expected answer; none when
/// neither can say.
fn right(grader: &Grader, q: &QuestionState, answer: Option<&Value>) -> Option<(ScoredBy, bool)> {
    score(grader, q, answer).map(|scored| (scored.by, scored.right))
}

/// An answer to a question scored: what scored it, whether it is right, and
/// its score (the share of a benchmark answer's parts that are right; 1 or 0
/// against an expected answer).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(in crate::report) struct Scored {
    /// What scored it.
    pub by: ScoredBy,
    /// Whether it is right.
    pub right: bool,
    /// Its score, from 0 to 1.
    pub score: f64,
}

/// `answer` to `q` scored by its benchmark's rules, else against its expected
/// answer with `grader`'s matching rules (no judge); none when neither scores it.
pub(in crate::report) fn score(grader: &Grader, q: &QuestionState, answer: Option<&Value>) -> Option<Scored> {
    if q.question.scorer.is_some_and(|s| s != Scorer::Builtin) {
        let scored = score_answer(q, answer)?;
        let parts = scored.sub_answers.len();
        let right_parts = scored.sub_answers.iter().filter(|part| part.correct).count();
        let share = if parts == 0 { f64::from(u8::from(scored.correct)) } else { right_parts as f64 / parts as f64 };
        return Some(Scored { by: ScoredBy::Benchmark, right: scored.correct, score: share });
    }
    let grade = grader.ground_truth(&q.question, answer)?;
    let right = grade.passed;
    grade.error.is_none().then_some(Scored { by: ScoredBy::ExpectedAnswer, right, score: f64::from(u8::from(right)) })
}

/// The grader of `state`'s answers: its own matching rules, no judge.
pub(in crate::report) fn run_grader(state: &RunState) -> Grader {
    state.settings.as_ref().map_or_else(Grader::ground_truth_only, |s| Grader::ground_truth_with(&s.grading))
}

/// `q`'s first DAG's trial answer, graded as [`pairs_within_run`] grades it,
/// with the tokens and cost of the first iteration's calls; none when `q`
/// is not scored.
fn first_iteration_side(state: &RunState, grader: &Grader, q: &QuestionState) -> Option<(ScoredBy, LiftSide)> {
    let (scored_by, right) = right(grader, q, first_answer(q))?;
    let first = q.latest().and_then(|a| a.iterations.first());
    let calls = first.into_iter().flat_map(|i| &i.calls).filter_map(|id| state.calls.get(id));
    let (tokens, cost_usd) = calls.fold((0, 0.0), |(t, c), call| (t + call.usage.total(), c + call.cost_usd));
    Some((scored_by, LiftSide { right, tokens, cost_usd }))
}

/// `q`'s first iteration's verdict (see [`pairs_within_run`]); none when `q` is not scored.
pub fn first_iteration(state: &RunState, q: &QuestionState) -> Option<LiftSide> {
    first_iteration_side(state, &run_grader(state), q).map(|(_, side)| side)
}

/// The pairs of one run: `before` is each question's first DAG's trial
/// answer (what a run with `--max-iterations 1` would have answered), with
/// the tokens and cost of the first iteration's calls alone; `after` its
/// final answer, with every token and cost spent on the question. Graded by
/// the question's benchmark rules, else against its expected answer with the
/// run's matching rules (no judge); questions neither grades are left out.
pub fn pairs_within_run(state: &RunState) -> Vec<LiftPair> {
    let grader = run_grader(state);
    state
        .questions
        .iter()
        .filter_map(|q| {
            let (scored_by, before) = first_iteration_side(state, &grader, q)?;
            let (_, right) = right(&grader, q, model_answer(q))?;
            Some(LiftPair {
                question_id: q.question.id.to_string(),
                question: q.question.question.clone(),
                level: q.question.difficulty_level,
                dataset: q.question.dataset.clone(),
                scored_by,
                before,
                after: LiftSide { right, tokens: q.usage.total(), cost_usd: q.cost_usd },
            })
        })
        .collect()
}

/// The lift of one run over its questions scored by a benchmark's rules
/// (paired by `pairs_within_run`); none when there are none.
pub fn benchmark_lift(state: &RunState) -> Option<Lift> {
    let pairs: Vec<LiftPair> =
        pairs_within_run(state).into_iter().filter(|p| p.scored_by == ScoredBy::Benchmark).collect();
    lift(&pairs)
}

/// The lift in a few lines of text: accuracy without and with rebuilds
/// (overall, per level, per dataset), the questions fixed and broken, and the
/// tokens and cost per extra right answer.
pub fn lift_lines(lift: &Lift) -> Vec<String> {
    let tally = |name: &str, t: &LiftTally| {
        format!(
            "{name}: {} → {} ({}/{} → {}/{}; fixed {}, broken {})",
            crate::text::percent(t.accuracy_before),
            crate::text::percent(t.accuracy_after),
            t.right_before,
            t.questions,
            t.right_after,
            t.questions,
            t.fixed,
            t.broken,
        )
    };
    let mut lines = vec![tally("accuracy without → with rebuilds", &lift.overall)];
    for (level, t) in &lift.by_level {
        lines.push(tally(&format!("  {}", level.as_str()), t));
    }
    for (dataset, t) in &lift.by_dataset {
        lines.push(tally(&format!("  {dataset}"), t));
    }
    let ids = |questions: &[LiftQuestion]| {
        if questions.is_empty() {
            "none".to_string()
        } else {
            questions.iter().map(|q| q.question_id.as_str()).collect::<Vec<_>>().join(", ")
        }
    };
    lines.push(format!("fixed by the loop: {}", ids(&lift.fixed)));
    lines.push(format!("broken by the loop: {}", ids(&lift.broken)));
    lines.push(per_extra_right_line(lift));
    lines
}

/// The tokens and cost per extra right answer, or why there are none.
pub fn per_extra_right_line(lift: &Lift) -> String {
    match (lift.tokens_per_extra_right, lift.cost_per_extra_right_usd) {
        (Some(tokens), Some(cost)) => format!(
            "per extra right answer: {tokens:.0} tokens, ${cost:.4} ({:+} right, {:+} tokens, {})",
            lift.extra_right,
            lift.extra_tokens,
            signed_usd(lift.extra_cost_usd)
        ),
        _ => format!(
            "per extra right answer: none ({:+} right, {:+} tokens, {})",
            lift.extra_right,
            lift.extra_tokens,
            signed_usd(lift.extra_cost_usd)
        ),
    }
}

/// A cost with its sign before the currency: `+$0.0120`, `-$0.0040`.
fn signed_usd(usd: f64) -> String {
    let sign = if usd < 0.0 { '-' } else { '+' };
    format!("{sign}${:.4}", usd.abs())
}

#[cfg(test)]
mod tests;
