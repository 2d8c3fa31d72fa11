//! What each question's answer scores without the critic loop (`run
//! --baselines`): an empty answer, the most common expected answer, the
//! baseline model's answer without the data and without code — scored by the
//! same rules as the loop's answer — and what they add up to over the run.

use std::collections::HashMap;

use indexmap::IndexMap;
use serde_json::Value;

use super::benchmark::model_answer;
use super::lift::{run_grader, score};
use crate::domain::{Baseline, BaselineCall};
use crate::grade::Grader;
use crate::prompts::baseline_answer;
use crate::report::documents::{BaselineAnswer, BaselineFloors, BaselineLift, BaselineTally};
use crate::run::{LlmCall, QuestionState, RunState};

/// Every question's baselines, in question order, when the run asked for them
/// (empty maps otherwise).
pub fn question_baselines(state: &RunState) -> Vec<IndexMap<Baseline, BaselineAnswer>> {
    if !state.settings.as_ref().is_some_and(|s| s.baselines) {
        return vec![IndexMap::new(); state.questions.len()];
    }
    let grader = run_grader(state);
    let constants = constant_answers(state.questions.iter().map(|q| q.question.expected_answer.as_ref()));
    state
        .questions
        .iter()
        .zip(constants)
        .map(|(q, constant)| {
            Baseline::ALL
                .into_iter()
                .map(|baseline| {
                    let answer = match baseline {
                        Baseline::Empty => Some(Value::String(String::new())),
                        Baseline::Constant => constant.cloned(),
                        Baseline::NoData => reply(state, q, BaselineCall::NoData).and_then(baseline_answer),
                        Baseline::NoCode => reply(state, q, BaselineCall::NoCode).and_then(baseline_answer),
                    };
                    (baseline, scored(&grader, q, answer))
                })
                .collect()
        })
        .collect()
}

fn scored(grader: &Grader, q: &QuestionState, answer: Option<Value>) -> BaselineAnswer {
    let scored = score(grader, q, answer.as_ref());
    BaselineAnswer { answer, correct: scored.map(|s| s.right), score: scored.map(|s| s.score) }
}

/// The latest call of `q` for `baseline` that has finished with a reply.
fn call<'a>(state: &'a RunState, q: &QuestionState, baseline: BaselineCall) -> Option<&'a LlmCall> {
    q.baseline_calls
        .iter()
        .rev()
        .filter_map(|id| state.calls.get(id))
        .find(|call| call.key.baseline == Some(baseline) && call.finished && call.error.is_none())
        .map(|call| &**call)
}

fn reply<'a>(state: &'a RunState, q: &QuestionState, baseline: BaselineCall) -> Option<&'a str> {
    call(state, q, baseline).map(|call| call.response.as_str())
}

/// The JSON type of a value, as the `constant` baseline groups answers.
fn json_type(value: &Value) -> u8 {
    match value {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Number(_) => 2,
        Value::String(_) => 3,
        Value::Array(_) => 4,
        Value::Object(_) => 5,
    }
}

/// For each question, the most common expected answer of the same JSON type
/// as its own among the other questions (ties to the one first in list
/// order); none for a question without an expected answer or with no other
/// of its type. One pass to count, one to choose: only the question's own
/// answer changes its count, so the best other answer is the best answer
/// overall or that one with one occurrence less.
pub fn constant_answers<'a>(expected: impl Iterator<Item = Option<&'a Value>>) -> Vec<Option<&'a Value>> {
    let expected: Vec<Option<&Value>> = expected.collect();
    // Per answer (by its JSON text): its value, how many give it, its first two places.
    let mut counts: IndexMap<String, (&Value, usize, usize, Option<usize>)> = IndexMap::new();
    for (place, value) in expected.iter().enumerate() {
        let Some(value) = value else { continue };
        let entry = counts.entry(value.to_string()).or_insert((value, 0, place, None));
        entry.1 += 1;
        if entry.2 != place && entry.3.is_none() {
            entry.3 = Some(place);
        }
    }
    // Per JSON type, its answers best first: most given, then first given.
    let mut ranked: HashMap<u8, Vec<(&str, usize, usize)>> = HashMap::new();
    for (text, (value, count, first, _)) in &counts {
        ranked.entry(json_type(value)).or_default().push((text.as_str(), *count, *first));
    }
    for answers in ranked.values_mut() {
        answers.sort_by_key(|(_, count, first)| (std::cmp::Reverse(*count), *first));
    }
    expected
        .iter()
        .enumerate()
        .map(|(place, value)| {
            let value = (*value)?;
            let own = value.to_string();
            let (_, count, first, second) = counts[&own];
            // The question's own answer among the others: one fewer, first given elsewhere.
            let own_rank =
                second.filter(|_| count > 1).map(|next| (count - 1, if first == place { next } else { first }));
            let best_other = ranked[&json_type(value)].iter().find(|(text, _, _)| *text != own);
            let choice = match (own_rank, best_other) {
                (Some((n, at)), Some((text, m, other_at))) => {
                    if (std::cmp::Reverse(n), at) <= (std::cmp::Reverse(*m), *other_at) { own.as_str() } else { text }
                }
                (Some(_), None) => own.as_str(),
                (None, Some((text, _, _))) => text,
                (None, None) => return None,
            };
            counts.get(choice).map(|(value, ..)| *value)
        })
        .collect()
}

/// One question and its baselines.
type Asked<'a> = (&'a QuestionState, &'a IndexMap<Baseline, BaselineAnswer>);

/// The run's baselines, when it asked for them: over every question.
pub fn baselines_summary(state: &RunState, baselines: &[IndexMap<Baseline, BaselineAnswer>]) -> Option<BaselineFloors> {
    let asked: Vec<Asked> = state.questions.iter().zip(baselines).collect();
    state.settings.as_ref().is_some_and(|s| s.baselines).then(|| floors(state, &asked))
}

/// The run's baselines per group of questions (`group` names a question's,
/// none leaves it out), groups in the order of their first question; empty
/// unless the run asked for baselines.
pub fn baselines_by(
    state: &RunState,
    baselines: &[IndexMap<Baseline, BaselineAnswer>],
    group: impl Fn(&QuestionState) -> Option<String>,
) -> IndexMap<String, BaselineFloors> {
    if !state.settings.as_ref().is_some_and(|s| s.baselines) {
        return IndexMap::new();
    }
    let mut groups: IndexMap<String, Vec<Asked>> = IndexMap::new();
    for (q, answers) in state.questions.iter().zip(baselines) {
        if let Some(name) = group(q) {
            groups.entry(name).or_default().push((q, answers));
        }
    }
    groups.into_iter().map(|(name, asked)| (name, floors(state, &asked))).collect()
}

/// A tally for people: `33% (1/3)`, or a dash when nothing was scored.
pub fn tally_text(tally: &BaselineTally) -> String {
    let right = tally.accuracy.map_or(0, |rate| (rate * tally.answered as f64).round() as usize);
    match tally.answered {
        0 => "—".into(),
        answered => format!("{:.0}% ({right}/{answered})", 100.0 * right as f64 / answered as f64),
    }
}

/// Each baseline's accuracy in one line, with the loop's lift over `no_code`:
/// `empty 0% (0/3) · constant 33% (1/3) · no_data 33% (1/3) · no_code 33% (1/3), the loop +1 −1`.
pub fn baselines_text(baselines: &IndexMap<Baseline, BaselineTally>) -> String {
    let parts: Vec<String> = baselines
        .iter()
        .map(|(baseline, tally)| {
            let lift = tally.lift.as_ref().map_or(String::new(), |l| format!(", the loop +{} −{}", l.gained, l.lost));
            format!("{} {}{lift}", baseline.name(), tally_text(tally))
        })
        .collect();
    parts.join(" · ")
}

/// The run's baselines for `grade` and `run`'s closing lines, when it has them:
/// the loop's accuracy, each baseline's, and the loop's where the data is needed.
pub fn baselines_line(state: &RunState) -> Option<String> {
    let floors = baselines_summary(state, &question_baselines(state))?;
    Some(format!(
        "baselines: the loop {} · {} · the loop where the data is needed {}",
        tally_text(&floors.looped),
        baselines_text(&floors.baselines),
        tally_text(&floors.needs_data)
    ))
}

/// Share of `right` among `scored`; none for none.
fn tally(scored: &[bool], lift: Option<BaselineLift>) -> BaselineTally {
    let right = scored.iter().filter(|right| **right).count();
    let accuracy = (!scored.is_empty()).then(|| right as f64 / scored.len() as f64);
    BaselineTally { answered: scored.len(), accuracy, lift }
}

fn floors(state: &RunState, asked: &[Asked]) -> BaselineFloors {
    let grader = run_grader(state);
    let baselines = Baseline::ALL
        .into_iter()
        .map(|baseline| {
            let scored: Vec<bool> = asked.iter().filter_map(|(_, b)| b.get(&baseline)?.correct).collect();
            let lift = (baseline == Baseline::NoCode).then(|| no_code_lift(state, &grader, asked));
            (baseline, tally(&scored, lift))
        })
        .collect();
    let loop_right = |q: &QuestionState| score(&grader, q, model_answer(q)).map(|scored| scored.right);
    let needs_data: Vec<bool> = asked
        .iter()
        .filter(|(_, b)| b.get(&Baseline::NoData).and_then(|a| a.correct) == Some(false))
        .filter_map(|(q, _)| loop_right(q))
        .collect();
    let looped: Vec<bool> = asked.iter().filter_map(|(q, _)| loop_right(q)).collect();
    BaselineFloors { baselines, needs_data: tally(&needs_data, None), looped: tally(&looped, None) }
}

/// The loop's right answers against `no_code`'s, over the questions both are scored on.
fn no_code_lift(state: &RunState, grader: &Grader, asked: &[Asked]) -> BaselineLift {
    let (mut gained, mut lost, mut extra_tokens) = (0usize, 0usize, 0i64);
    for (q, answers) in asked {
        let Some(direct) = answers.get(&Baseline::NoCode).and_then(|a| a.correct) else { continue };
        let Some(looped) = score(grader, q, model_answer(q)) else { continue };
        gained += usize::from(looped.right && !direct);
        lost += usize::from(direct && !looped.right);
        let direct_tokens = call(state, q, BaselineCall::NoCode).map_or(0, |call| call.usage.total());
        extra_tokens += q.usage.total() as i64 - direct_tokens as i64;
    }
    let extra_right = gained as i64 - lost as i64;
    let tokens_per_extra_right = (extra_right > 0).then(|| extra_tokens as f64 / extra_right as f64);
    BaselineLift { gained, lost, tokens_per_extra_right }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn constants(expected: &[Option<Value>]) -> Vec<Option<Value>> {
        constant_answers(expected.iter().map(Option::as_ref)).into_iter().map(|v| v.cloned()).collect()
    }

    /// The definition, question by question over every other question: the reference the fast pass must equal.
    fn by_definition(expected: &[Option<Value>]) -> Vec<Option<Value>> {
        expected
            .iter()
            .enumerate()
            .map(|(place, own)| {
                let own = own.as_ref()?;
                let others: Vec<&Value> = expected
                    .iter()
                    .enumerate()
                    .filter(|(i, v)| *i != place && v.as_ref().is_some_and(|v| json_type(v) == json_type(own)))
                    .filter_map(|(_, v)| v.as_ref())
                    .collect();
                let count = |v: &Value| others.iter().filter(|o| **o == v).count();
                let best = others.iter().map(|v| count(v)).max()?;
                others.iter().find(|v| count(v) == best).map(|v| (*v).clone())
            })
            .collect()
    }

    #[test]
    fn the_constant_is_the_most_common_other_answer_of_the_same_type_ties_to_the_first() {
        let expected = vec![Some(json!(3)), Some(json!("a")), Some(json!(5)), Some(json!(5)), None, Some(json!("b"))];
        let got = constants(&expected);
        // For either 5: the other 5 and the 3 are given once each, and the 3 comes first.
        assert_eq!(got, vec![Some(json!(5)), Some(json!("b")), Some(json!(3)), Some(json!(3)), None, Some(json!("a"))]);
        assert_eq!(got, by_definition(&expected));
        assert_eq!(constants(&[Some(json!(1))]), vec![None], "alone, a question has no other answer");
        assert_eq!(constants(&[Some(json!(1)), Some(json!(1.0))]), by_definition(&[Some(json!(1)), Some(json!(1.0))]));
    }

    #[test]
    fn the_fast_pass_equals_the_definition_over_many_generated_lists() {
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        for _ in 0..500 {
            let len = next() % 9;
            let expected: Vec<Option<Value>> = (0..len)
                .map(|_| match next() % 5 {
                    0 => None,
                    1 => Some(json!(format!("s{}", next() % 3))),
                    2 => Some(json!(next() % 3 == 0)),
                    _ => Some(json!(next() % 3)),
                })
                .collect();
            assert_eq!(constants(&expected), by_definition(&expected), "{expected:?}");
        }
    }
}
