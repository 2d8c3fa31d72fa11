//! Accuracy summaries per method, overall and per difficulty.

use super::*;
use eval_dag::domain::GradingMethod;

#[test]
fn accuracy_is_summarised_per_method_overall_and_per_difficulty() {
    let pass = Grade::scored(GradingMethod::GroundTruth, 1.0, 1.0, "ok".into());
    let fail = Grade::scored(GradingMethod::GroundTruth, 0.0, 1.0, "no".into());
    let judged = Grade::scored(GradingMethod::Judge("judge".into()), 0.6, 0.5, "fine".into());
    let broken = Grade::failed(GradingMethod::Judge("judge".into()), 0.5, "LLM down".into());
    let easy = [pass.clone(), judged.clone()];
    let easy_too = [fail.clone(), broken.clone()];
    let hard = [pass.clone(), broken];
    let summary = summarise([
        (DifficultyLevel::Easy, &easy[..]),
        (DifficultyLevel::Easy, &easy_too[..]),
        (DifficultyLevel::Hard, &hard[..]),
    ]);
    let truth = &summary.overall["ground_truth"];
    assert_eq!((truth.graded, truth.passed, truth.errors), (3, 2, 0));
    assert_eq!(truth.accuracy, Some(2.0 / 3.0));
    let judge = &summary.overall["judge"];
    assert_eq!((judge.graded, judge.passed, judge.errors), (1, 1, 2));
    assert_eq!(judge.mean_score, Some(0.6));
    let easy_truth = &summary.by_difficulty[&DifficultyLevel::Easy]["ground_truth"];
    assert_eq!(easy_truth.accuracy, Some(0.5));
    let hard_judge = &summary.by_difficulty[&DifficultyLevel::Hard]["judge"];
    assert_eq!((hard_judge.accuracy, hard_judge.errors), (None, 1));
    assert!(!summary.by_difficulty.contains_key(&DifficultyLevel::Medium));
    let json = serde_json::to_value(&summary).unwrap();
    assert_eq!(json["by_difficulty"]["easy"]["ground_truth"]["passed"], json!(1));
}

#[test]
fn tolerance_boundaries_are_inclusive_despite_float_rounding() {
    // 0.13 - 0.12 is 0.010000000000000009 in binary floating point.
    assert!(check(json!(0.12), json!(0.13)).passed);
    assert!(!check(json!(0.12), json!(0.1301)).passed);
    let exact = with(json!({"abs_tol": null}));
    assert!(match_values(&json!(0.3), &json!(0.1 + 0.2), &exact).passed);
}
