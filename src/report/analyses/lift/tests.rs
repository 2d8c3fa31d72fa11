//! The critic's lift's tests: tallies, prices, text and both ways of pairing questions.
use serde_json::json;

use super::*;
use crate::domain::GradingMethod;
use crate::domain::{AttemptAt, CallKey, ChatMessage, ExecutionResult, LlmRole, Question, TokenUsage};
use crate::report::analyses::write_results::eval_results;
use crate::report::test_run::run_with_one_pass_and_one_exhausted;
use crate::run::{EngineEvent, Outcome, RunSettings};

/// Each pair as (id, scored by, right before, right after, tokens before, tokens after).
fn outline(pairs: &[LiftPair]) -> Vec<(&str, ScoredBy, bool, bool, u64, u64)> {
    pairs
        .iter()
        .map(|p| (p.question_id.as_str(), p.scored_by, p.before.right, p.after.right, p.before.tokens, p.after.tokens))
        .collect()
}

/// A pair of `id` on `level` and `dataset`: right before and after, tokens before and after.
fn pair(id: &str, level: DifficultyLevel, dataset: &str, right: (bool, bool), tokens: (u64, u64)) -> LiftPair {
    LiftPair {
        question_id: id.into(),
        question: format!("question {id}"),
        level,
        dataset: Some(dataset.into()),
        scored_by: ScoredBy::Benchmark,
        before: LiftSide { right: right.0, tokens: tokens.0, cost_usd: tokens.0 as f64 / 1000.0 },
        after: LiftSide { right: right.1, tokens: tokens.1, cost_usd: tokens.1 as f64 / 1000.0 },
    }
}

#[test]
fn the_lift_counts_accuracy_per_level_and_dataset_and_prices_each_extra_right_answer() {
    use DifficultyLevel::{Easy, Hard};
    let pairs = [
        pair("h1", Hard, "shop", (false, true), (100, 400)),
        pair("e1", Easy, "zoo", (true, true), (100, 100)),
        pair("e2", Easy, "shop", (true, false), (100, 300)),
        pair("h2", Hard, "zoo", (false, true), (100, 500)),
        pair("e3", Easy, "zoo", (false, false), (100, 300)),
    ];
    let lift = lift(&pairs).unwrap();
    let o = lift.overall;
    assert_eq!((o.questions, o.right_before, o.right_after, o.fixed, o.broken), (5, 2, 3, 2, 1));
    assert_eq!((o.accuracy_before, o.accuracy_after), (Some(0.4), Some(0.6)));
    let levels: Vec<(DifficultyLevel, usize, usize, usize)> =
        lift.by_level.iter().map(|(l, t)| (*l, t.questions, t.right_before, t.right_after)).collect();
    assert_eq!(levels, [(Easy, 3, 2, 1), (Hard, 2, 0, 2)], "easiest first, no medium");
    let datasets: Vec<(&str, usize, usize, usize)> =
        lift.by_dataset.iter().map(|(d, t)| (d.as_str(), t.questions, t.right_before, t.right_after)).collect();
    assert_eq!(datasets, [("shop", 2, 1, 1), ("zoo", 3, 1, 2)]);
    let ids = |qs: &[LiftQuestion]| qs.iter().map(|q| q.question_id.clone()).collect::<Vec<_>>();
    assert_eq!((ids(&lift.fixed), ids(&lift.broken)), (vec!["h1".to_string(), "h2".into()], vec!["e2".to_string()]));
    // 1600 tokens after less 500 before, over one extra right answer.
    assert_eq!((lift.extra_right, lift.extra_tokens), (1, 1100));
    assert_eq!(lift.tokens_per_extra_right, Some(1100.0));
    assert!((lift.cost_per_extra_right_usd.unwrap() - 1.1).abs() < 1e-9);
    let lines = lift_lines(&lift);
    assert_eq!(lines[0], "accuracy without → with rebuilds: 40% → 60% (2/5 → 3/5; fixed 2, broken 1)");
    assert_eq!(lines[1], "  easy: 67% → 33% (2/3 → 1/3; fixed 0, broken 1)");
    assert!(lines.contains(&"fixed by the loop: h1, h2".to_string()), "{lines:?}");
    assert_eq!(
        lines.last().unwrap(),
        "per extra right answer: 1100 tokens, $1.1000 (+1 right, +1100 tokens, +$1.1000)"
    );
}

#[test]
fn a_negative_lift_has_no_price_per_extra_right_answer_and_one_dataset_no_breakdown() {
    let pairs = [
        pair("a", DifficultyLevel::Medium, "shop", (true, false), (10, 30)),
        pair("b", DifficultyLevel::Medium, "shop", (true, true), (10, 30)),
    ];
    let lift = lift(&pairs).unwrap();
    assert_eq!((lift.extra_right, lift.tokens_per_extra_right, lift.cost_per_extra_right_usd), (-1, None, None));
    assert!(lift.by_dataset.is_empty());
    assert_eq!(per_extra_right_line(&lift), "per extra right answer: none (-1 right, +40 tokens, +$0.0400)");
    assert_eq!((signed_usd(-0.004), signed_usd(0.0)), ("-$0.0040".to_string(), "+$0.0000".to_string()));
    let json = serde_json::to_value(&lift).unwrap();
    assert!(json.get("by_dataset").is_none() && json["by_level"]["medium"]["questions"] == json!(2));
    assert_eq!(serde_json::from_value::<Lift>(json).unwrap(), lift, "reads back");
    assert!(super::lift(&[]).is_none());
}

/// A results document of questions `rows`: id, benchmark verdict, ground-truth verdict, tokens.
fn doc(rows: &[(&str, Option<bool>, Option<bool>, u64)]) -> EvalResults {
    let mut doc = eval_results(&run_with_one_pass_and_one_exhausted(), "2026-01-01T00:00:00Z");
    let template = doc.detailed_results[0].clone();
    doc.detailed_results = rows
        .iter()
        .map(|(id, benchmark, truth, tokens)| DetailedResult {
            question_id: id.to_string(),
            question: format!("question {id}"),
            benchmark: benchmark.map(|correct| crate::benchmark::BenchmarkScore {
                scorer: Scorer::Dabstep,
                sub_answers: vec![],
                correct,
            }),
            grades: truth
                .map(|right| Grade::scored(GradingMethod::GroundTruth, f64::from(u8::from(right)), 1.0, String::new()))
                .into_iter()
                .chain([Grade::scored(GradingMethod::Judge("rubric".into()), 1.0, 0.5, String::new())])
                .collect(),
            tokens: crate::report::documents::Tokens {
                prompt: *tokens,
                completion: 0,
                total: *tokens,
                estimated: false,
            },
            cost_usd: 0.0,
            ..template.clone()
        })
        .collect();
    doc
}

#[test]
fn two_runs_pair_their_matched_questions_scored_the_same_way() {
    let one = doc(&[
        ("q1", Some(false), None, 10),
        ("q2", None, Some(true), 10),
        ("q3", None, None, 10),
        ("q4", Some(true), None, 10),
        ("q5", Some(true), None, 10),
    ]);
    let three = doc(&[
        ("q2", None, Some(false), 40),
        ("q1", Some(true), Some(true), 30),
        ("q3", None, Some(true), 10),
        ("q4", None, Some(true), 10),
    ]);
    let pairs = pairs_between_runs(&one, &three);
    let got = outline(&pairs);
    // q3 is ungraded in A, q4 scored otherwise in B, q5 only in A: left out.
    assert_eq!(
        got,
        [("q1", ScoredBy::Benchmark, false, true, 10, 30), ("q2", ScoredBy::ExpectedAnswer, true, false, 10, 40)]
    );
}

/// Question `id` scored by DABstep's rules, expecting `expected`.
fn dabstep(id: &str, expected: &str) -> Question {
    Question {
        expected_answer: Some(json!(expected)),
        scorer: Some(Scorer::Dabstep),
        ..Question::new(id, format!("question {id}"), 1, DifficultyLevel::Hard)
    }
}

/// A call of iteration `iteration` of `id` costing `tokens` tokens and a thousandth of a dollar per token.
fn call(call_id: u64, id: &str, iteration: u32, tokens: u64) -> [EngineEvent; 2] {
    let key = CallKey::for_iteration(&AttemptAt::new(id, 1).iteration(iteration), LlmRole::DagBuild, None);
    [
        EngineEvent::LlmCallStarted {
            call_id,
            key: key.clone(),
            provider: "openai".into(),
            model: "m".into(),
            messages: vec![ChatMessage::user("build")],
        },
        EngineEvent::LlmCallFinished {
            call_id,
            key,
            response: Some("{}".into()),
            usage: TokenUsage { prompt_tokens: tokens, ..Default::default() },
            latency_ms: 1,
            error: None,
            retries: 0,
            cost_usd: tokens as f64 / 1000.0,
            finish_reason: None,
            from_cache: false,
            list_cost_usd: None,
            estimated: false,
            batch_id: None,
        },
    ]
}

/// Iteration `iteration` of `id`: a build call of `tokens` tokens and a trial answer.
fn trial(call_id: u64, id: &str, iteration: u32, tokens: u64, answer: &str) -> Vec<EngineEvent> {
    let result = ExecutionResult { success: true, final_answer: Some(json!(answer)), ..Default::default() };
    let at = AttemptAt::new(id, 1).iteration(iteration);
    let mut events = call(call_id, id, iteration, tokens).to_vec();
    events.push(EngineEvent::Executed { at, trial: true, result });
    events
}

#[test]
fn one_run_pairs_each_first_dags_answer_and_its_calls_with_the_final_answer() {
    let mut events = vec![
        EngineEvent::RunStarted { settings: RunSettings::default() },
        EngineEvent::QuestionsGenerated {
            questions: vec![
                dabstep("fixed", "7"),
                dabstep("broken", "yes"),
                Question { expected_answer: Some(json!(3)), ..Question::new("plain", "q", 2, DifficultyLevel::Easy) },
                Question::new("unscored", "u", 3, DifficultyLevel::Easy),
            ],
        },
    ];
    let finish = |id: &str, answer: serde_json::Value| EngineEvent::QuestionFinished {
        at: AttemptAt::new(id, 1),
        outcome: Outcome::Passed,
        iterations: 2,
        final_answer: Some(answer),
        reason: None,
    };
    for (n, (id, first, last)) in
        [("fixed", "8", "7"), ("broken", "yes", "no"), ("plain", "3", "3"), ("unscored", "1", "1")]
            .into_iter()
            .enumerate()
    {
        let n = n as u64 * 2;
        events.push(EngineEvent::QuestionStarted { at: AttemptAt::new(id, 1), forked_from: None, by_hand: false });
        events.extend(trial(n + 1, id, 1, 100, first));
        events.extend(trial(n + 2, id, 2, 250, last));
        events.push(finish(id, json!(last)));
    }
    let mut state = RunState::default();
    for event in &events {
        state.apply(0, event);
    }
    let pairs = pairs_within_run(&state);
    let got = outline(&pairs);
    assert_eq!(
        got,
        [
            ("fixed", ScoredBy::Benchmark, false, true, 100, 350),
            ("broken", ScoredBy::Benchmark, true, false, 100, 350),
            ("plain", ScoredBy::ExpectedAnswer, true, true, 100, 350),
        ]
    );
    assert!((pairs[0].before.cost_usd - 0.1).abs() < 1e-9 && (pairs[0].after.cost_usd - 0.35).abs() < 1e-9);
    let first = first_iteration(&state, state.questions.iter().next().unwrap()).unwrap();
    assert_eq!((first.right, first.tokens), (false, 100));
    assert!(first_iteration(&state, state.questions.iter().last().unwrap()).is_none());
    let lift = lift(&pairs).unwrap();
    assert_eq!((lift.extra_right, lift.extra_tokens, lift.tokens_per_extra_right), (0, 750, None));
}
