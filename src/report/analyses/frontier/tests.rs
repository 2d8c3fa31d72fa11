use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;

use super::*;
use crate::domain::DifficultyLevel;
use crate::report::analyses::matrix::compare_runs;
use crate::report::analyses::write_results::eval_results;
use crate::report::documents::{CacheUse, EpochResult};
use crate::report::test_run::run_with_one_pass_and_one_exhausted;

/// Point `a` beats `b`: as cheap or cheaper and as accurate or more, one strictly.
fn dominates(a: (f64, f64), b: (f64, f64)) -> bool {
    a.0 <= b.0 && a.1 >= b.1 && (a.0 < b.0 || a.1 > b.1)
}

#[test]
fn the_sweep_agrees_with_every_pair_compared_on_generated_points() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for case in 0..2_000 {
        let n = rng.random_range(0..12);
        // A small grid makes ties (same cost, same accuracy, both) common.
        let points: Vec<Option<(f64, f64)>> = (0..n)
            .map(|_| {
                (rng.random_range(0..6) > 0)
                    .then(|| (f64::from(rng.random_range(0..5u8)), f64::from(rng.random_range(0..5u8)) / 4.0))
            })
            .collect();
        let on = pareto(&points);
        for (i, point) in points.iter().enumerate() {
            let expected = point.is_some_and(|p| !points.iter().flatten().any(|q| dominates(*q, p)));
            assert_eq!(on[i], expected, "case {case}: point {i} of {points:?}");
        }
    }
    assert_eq!(pareto(&[Some((1.0, 0.5)), Some((1.0, 0.5))]), [true, true], "the same place: both on it");
    assert_eq!(pareto(&[Some((f64::NAN, 0.5)), Some((2.0, 0.1))]), [false, true], "NaN is not placed");
}

#[test]
fn wilson_intervals_match_the_published_ones() {
    // Newcombe (1998), "Two-sided confidence intervals for the single proportion", example 81/263:
    // Wilson score 0.2553 to 0.3662.
    let [low, high] = wilson(81.0, 263).unwrap();
    assert!((low - 0.2553).abs() < 5e-5 && (high - 0.3662).abs() < 5e-5, "{low} {high}");
    // 0 of 10: the lower end is 0 and the upper 0.2775 (Wilson's rule of thumb, about 3/(n + 1)).
    let [low, high] = wilson(0.0, 10).unwrap();
    assert_eq!(low, 0.0);
    assert!((high - 0.277_532_8).abs() < 1e-6, "{high}");
    let [low, high] = wilson(5.0, 10).unwrap();
    assert!((low - 0.236_593_1).abs() < 1e-6 && (high - 0.763_406_9).abs() < 1e-6);
    assert!(wilson(10.0, 10).unwrap()[1] <= 1.0);
    assert_eq!(wilson(0.0, 0), None);
}

/// A run of `right.len()` graded questions (right or wrong), costing `cost` over `tokens`.
fn run(right: &[bool], cost: f64, tokens: u64) -> EvalResults {
    let mut doc = eval_results(&run_with_one_pass_and_one_exhausted(), "2026-01-01T00:00:00Z");
    let template = doc.detailed_results[0].clone();
    doc.detailed_results = right
        .iter()
        .enumerate()
        .map(|(i, r)| DetailedResult {
            question_id: format!("q{i}"),
            question: format!("question {i}"),
            correct: Some(*r),
            difficulty_level: if i % 2 == 0 { DifficultyLevel::Easy } else { DifficultyLevel::Hard },
            cost_usd: cost / right.len() as f64,
            tokens: crate::report::documents::Tokens {
                prompt: 0,
                completion: 0,
                total: tokens / right.len() as u64,
                estimated: false,
            },
            ..template.clone()
        })
        .collect();
    doc.summary.cost_usd = cost;
    doc.summary.tokens.total = tokens;
    doc.summary.elapsed_ms = Some(1_000);
    doc
}

fn compared(docs: Vec<EvalResults>) -> Frontier {
    let names: Vec<String> = (0..docs.len()).map(|i| format!("run{i}")).collect();
    compare_runs(&names, &docs, 1.0).frontier.expect("two runs or more")
}

#[test]
fn each_run_is_placed_at_its_accuracy_and_cost_and_the_beaten_ones_are_off_the_frontier() {
    let cheap = run(&[true, false, false, false], 1.0, 400);
    let best = run(&[true, true, true, false], 4.0, 4_000);
    let beaten = run(&[true, true, false, false], 5.0, 5_000);
    let mut unpriced = run(&[true, true, true, true], 0.0, 9_000);
    unpriced.summary.settings.get_or_insert_with(Default::default).model = "local-model".into();
    let frontier = compared(vec![cheap, best, beaten, unpriced]);
    assert_eq!((frontier.basis, frontier.shared_questions), (Basis::Graded, 4));
    let got: Vec<(&str, Option<f64>, Option<f64>, bool)> =
        frontier.points.iter().map(|p| (p.label.as_str(), p.accuracy, p.cost_usd, p.on_frontier)).collect();
    assert_eq!(
        got,
        [
            ("A", Some(0.25), Some(1.0), true),
            ("B", Some(0.75), Some(4.0), true),
            ("C", Some(0.5), Some(5.0), false),
            ("D", Some(1.0), None, false),
        ]
    );
    assert_eq!(frontier.points[3].model.as_deref(), Some("local-model"));
    assert!(frontier.points[3].on_frontier_by.tokens, "on tokens D is placed, and the most accurate");
    assert_eq!(frontier.points[1].cost_per_right, Some(4.0 / 3.0));
    assert_eq!(frontier.points[1].interval_method, IntervalMethod::Wilson);
    assert_eq!(frontier.points[1].interval, wilson(3.0, 4));
    let line: Vec<&str> = frontier.line(Axis::Cost).iter().map(|p| p.label.as_str()).collect();
    assert_eq!(line, ["A", "B"]);
    let easy = &frontier.by_level["easy"];
    assert_eq!((easy.questions, easy.points[0].accuracy, easy.points[0].cost_usd), (2, Some(0.5), Some(0.5)));
    assert_eq!(frontier.by_level.keys().collect::<Vec<_>>(), ["easy", "hard"]);
    assert!(frontier.by_dataset.is_empty(), "one dataset: no slices");
}

#[test]
fn only_shared_questions_count_and_cache_hits_are_priced_at_list_price() {
    let a = run(&[true, true, false], 2.0, 300);
    let mut b = run(&[true, true], 0.5, 100);
    b.summary.cache = Some(CacheUse { hits: 4, misses: 1, list_cost_usd: 1.0 });
    let frontier = compared(vec![a, b]);
    assert_eq!(frontier.shared_questions, 2);
    let b = &frontier.points[1];
    assert_eq!((b.questions, b.accuracy, b.cost_usd, b.paid_usd, b.cached_calls), (2, Some(1.0), Some(1.5), 0.5, 4));
    assert!(b.settings.contains("cache"), "{}", b.settings);
    assert_eq!(frontier.points.iter().map(|p| p.on_frontier).collect::<Vec<_>>(), [false, true], "B beats A");
}

#[test]
fn repeats_draw_a_seeded_bootstrap_and_benchmarks_use_their_scorer() {
    let mut a = run(&[true, true, false, false], 1.0, 100);
    for (i, result) in a.detailed_results.iter_mut().enumerate() {
        let epoch = |k: u32, right: bool| -> EpochResult {
            serde_json::from_value(json!({"epoch": k, "status": "passed", "answer": 1, "correct": right,
                "iterations": 1, "tokens": {"prompt": 0, "completion": 0, "total": 0}}))
            .unwrap()
        };
        result.epochs = vec![epoch(1, i < 2), epoch(2, i < 3)];
    }
    let b = run(&[true, false, false, false], 1.0, 100);
    let frontier = compared(vec![a.clone(), b.clone()]);
    let point = &frontier.points[0];
    assert_eq!((point.accuracy, point.right, point.interval_method), (Some(0.625), 2.5, IntervalMethod::Repeats));
    let [low, high] = point.interval.unwrap();
    assert!(low < 0.625 && high > 0.625 && low >= 0.0 && high <= 1.0, "{low} {high}");
    assert_eq!(compared(vec![a, b.clone()]).points[0].interval, point.interval, "seeded");

    let mut scored = b.clone();
    scored.summary.benchmark = Some(
        serde_json::from_value(json!({"name": "dabstep",
        "accuracy_by_question": null, "accuracy_by_sub_question": null,
        "proportional_accuracy_by_sub_question": null}))
        .unwrap(),
    );
    for result in &mut scored.detailed_results {
        result.benchmark =
            Some(serde_json::from_value(json!({"scorer": "dabstep", "sub_answers": [], "correct": true})).unwrap());
    }
    let frontier = compared(vec![scored.clone(), scored]);
    assert_eq!((frontier.basis, frontier.points[0].accuracy), (Basis::Benchmark, Some(1.0)), "the scorer decides");
}

#[test]
fn without_grades_the_points_fall_back_to_the_pass_rate_and_one_run_has_no_frontier() {
    let mut a = run(&[true, false], 1.0, 10);
    for result in &mut a.detailed_results {
        result.correct = None;
    }
    let frontier = compared(vec![a.clone(), a.clone()]);
    assert_eq!(frontier.basis, Basis::PassRate);
    assert_eq!(frontier.points[0].questions, 2);
    assert!(compare_runs(&["a".into()], &[a], 1.0).frontier.is_none());
}

#[test]
fn the_run_browser_gives_no_cost_per_right_answer_to_a_run_without_a_price() {
    let mut unpriced = run(&[true, true], 0.0, 500);
    unpriced.summary.grading.correct = 2;
    assert_eq!(super::summary_cost_per_right(&unpriced.summary), None, "tokens spent, nothing charged");
    assert_eq!(run_cost_per_right(&unpriced), None);
    let mut priced = run(&[true, true], 1.0, 500);
    priced.summary.grading.correct = 2;
    assert_eq!(super::summary_cost_per_right(&priced.summary), Some(0.5));
    let mut offline = run(&[true, true], 0.0, 0);
    offline.summary.grading.correct = 2;
    assert_eq!(super::summary_cost_per_right(&offline.summary), Some(0.0), "nothing spent: free");
}
