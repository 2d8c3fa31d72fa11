//! The accuracy–cost frontier through the binary: real runs against a mock
//! server (a cached rerun placed at list price beside the nothing it paid),
//! and made-up results whose frontier is known — in `compare`'s table, its
//! JSON, its page, and `runs --json`'s cost per right answer.

use std::path::{Path, PathBuf};
use std::process::Output;

use eval_dag::report::eval_results;
use eval_dag::run::{EngineEvent, RunState};
use serde_json::{Value, json};

use super::harness_cache::{cached_rerun, mock};
use crate::common;

fn event(value: Value) -> EngineEvent {
    serde_json::from_value(value).unwrap()
}

/// The results of a finished run of `right.len()` questions, question `i`
/// graded right when `right[i]`, whose model is `model`, and which cost
/// `cost` over `tokens` in `wall_ms`.
fn results(model: &str, right: &[bool], cost: f64, tokens: u64, wall_ms: u64) -> Value {
    let mut state = RunState::default();
    let settings = json!({"dataset_dir": "d", "dataset_hash": "h", "provider": "openai", "model": model,
        "questions": right.len(), "max_iterations": 3, "concurrency": 3, "seed": 0, "step": false});
    state.apply(0, &event(json!({"type": "run_started", "settings": settings})));
    let questions: Vec<Value> = (1..=right.len())
        .map(|i| {
            json!({"id": format!("q{i}"), "question": format!("question {i}?"), "difficulty_rank": i,
            "difficulty_level": if i % 2 == 0 { "hard" } else { "easy" }})
        })
        .collect();
    state.apply(0, &event(json!({"type": "questions_generated", "questions": questions})));
    for (index, right) in right.iter().enumerate() {
        let at = json!({"question_id": format!("q{}", index + 1), "epoch": 1, "attempt": 1});
        state.apply(1, &event(json!({"type": "question_started", "at": at})));
        let finished = json!({"type": "question_finished", "at": at, "outcome": "passed", "iterations": 1,
            "final_answer": if *right { 1 } else { 2 }});
        state.apply(2, &event(finished));
        let grade = json!({"method": "ground_truth", "score": f64::from(u8::from(*right)), "passed": right,
            "threshold": 1.0, "reason": "against 1"});
        state.apply(3, &event(json!({"type": "graded", "at": at, "grades": [grade]})));
    }
    let mut doc = serde_json::to_value(eval_results(&state, "2026-12-05T00:00:00Z")).unwrap();
    doc["summary"]["cost_usd"] = json!(cost);
    doc["summary"]["tokens"]["total"] = json!(tokens);
    doc["summary"]["elapsed_ms"] = json!(wall_ms);
    doc
}

fn write(dir: &Path, name: &str, doc: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string(doc).unwrap()).unwrap();
    path
}

fn compare(dir: &Path, flags: &[&str], runs: &[PathBuf]) -> Output {
    common::eval_dag(dir).arg("compare").args(flags).args(runs).output().unwrap()
}

/// Four runs of four questions: A cheap and poor, B dear and good, C beaten
/// by B on both, D the best without a price for its model.
fn four_runs(dir: &Path) -> Vec<PathBuf> {
    vec![
        write(dir, "a.json", &results("mini", &[true, false, false, false], 0.01, 1_000, 20_000)),
        write(dir, "b.json", &results("large", &[true, true, true, false], 2.0, 90_000, 60_000)),
        write(dir, "c.json", &results("medium", &[true, true, false, false], 3.0, 50_000, 10_000)),
        write(dir, "d.json", &results("house-model", &[true, true, true, true], 0.0, 70_000, 90_000)),
    ]
}

#[test]
fn the_json_and_table_mark_the_runs_none_beats_and_list_the_unpriced_one() {
    let dir = tempfile::tempdir().unwrap();
    let runs = four_runs(dir.path());
    let out = compare(dir.path(), &["--json", "--significance", "1"], &runs);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let matrix: Value = serde_json::from_slice(&out.stdout).unwrap();
    let frontier = &matrix["frontier"];
    assert_eq!((frontier["basis"].as_str(), frontier["shared_questions"].as_u64()), (Some("graded"), Some(4)));
    let points = frontier["points"].as_array().unwrap();
    let flags =
        |axis: &str| -> Vec<bool> { points.iter().map(|p| p["on_frontier_by"][axis].as_bool().unwrap()).collect() };
    assert_eq!(flags("cost"), [true, true, false, false], "C is beaten by B; D has no price");
    assert_eq!(flags("tokens"), [true, false, true, true], "on tokens B is beaten by D");
    assert_eq!(flags("wall_time"), [false, true, true, true], "on time C is fastest and A beaten by it");
    assert_eq!(points[3]["cost_usd"], Value::Null);
    assert_eq!(points[1]["model"], "large");
    assert!((points[1]["cost_per_right"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12);
    let [low, high] = [0, 1].map(|i| points[1]["interval"][i].as_f64().unwrap());
    assert!((low - 0.300_642).abs() < 1e-5 && (high - 0.954_413).abs() < 1e-5, "Wilson 3/4: {low} {high}");
    assert_eq!(frontier["by_level"]["easy"]["questions"], 2);
    assert!((matrix["runs"][1]["cost_per_right"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12);

    let out = compare(dir.path(), &["--headless", "--significance", "1"], &runs);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("accuracy against cost over 4 of 4 shared questions (95 % intervals: Wilson):"), "{table}");
    let line = |label: &str| table.lines().find(|l| l.starts_with(&format!("  {label} "))).unwrap_or_default();
    assert!(line("B").contains("0.750 [0.301–0.954]  $2.0000") && line("B").ends_with("on the frontier  large · it 3"));
    assert!(line("D").contains("no price") && !line("D").contains("on the frontier"), "{}", line("D"));
    assert!(table.contains("$0.6667/right"), "cost per right answer beside accuracy: {table}");
    let start = table.find("accuracy against cost").unwrap();
    let block = &table[start..start + table[start..].find("\n\n").unwrap()];
    let guide = std::fs::read_to_string(common::root().join("docs/src/results.md")).unwrap();
    assert!(guide.contains(block), "the guide's example is this output:\n{block}");
}

#[test]
fn the_page_draws_each_axis_without_scripts_and_escapes_model_names() {
    let dir = tempfile::tempdir().unwrap();
    let mut runs = four_runs(dir.path());
    let hostile = results("<img src=x onerror=alert(1)>", &[true, false, true, false], 0.5, 5_000, 5_000);
    runs.push(write(dir.path(), "e.json", &hostile));
    let page = dir.path().join("page.html");
    let out = compare(dir.path(), &["--html", page.to_str().unwrap(), "--significance", "1"], &runs);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("<script"), "no script on the page");
    assert!(!html.contains("<img src=x"), "a model's name is text, never markup");
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
    assert_eq!(html.matches("<input type=\"radio\" name=\"frontier-axis\"").count(), 3);
    assert_eq!(html.matches(" checked>").count(), 1, "cost is the axis drawn without scripts");
    assert_eq!(html.matches("<figure class=\"frontier-chart ").count(), 3);
    // Cost places four runs (D has no price); tokens and wall time all five.
    assert_eq!(html.matches("<g class=\"point").count(), 4 + 5 + 5);
    assert_eq!(html.matches("<polyline class=\"front\"").count(), 3);
    assert!(html.contains("Not placed (no cost (USD) or no accuracy): D · house-model · it 3"));
    assert!(html.contains("(log scale)"), "costs from $0.01 to $3 spread past 100×");
    assert_eq!(html.matches("<tr class=\"on\">").count(), 3, "A, E and B on the cost frontier");
    assert!(html.contains("<title>B · large · it 3\n0.750 [0.301–0.954]  $2.0000"), "hover text");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cached_rerun_is_placed_at_list_price_beside_the_nothing_it_paid() {
    let mock = mock(2).await;
    let home = tempfile::tempdir().unwrap();
    let (first, again) = cached_rerun(&mock, home.path()).await;
    let paid = first.results["summary"]["cost_usd"].as_f64().unwrap();
    let list = again.results["summary"]["cache"]["list_cost_usd"].as_f64().unwrap();
    // Every call of the rerun is one of the first run's, priced on the usage it was stored with.
    assert!(paid > 0.0 && ((list - paid) / paid).abs() < 1e-9, "paid {paid}, list {list}");

    let runs = [home.path().join("first"), home.path().join("second")];
    let out = compare(home.path(), &["--json"], &runs);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let compared: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cached = &compared["frontier"]["points"][1];
    assert_eq!((cached["paid_usd"].as_f64(), cached["cost_usd"].as_f64()), (Some(0.0), Some(list)), "{cached}");
    assert!(cached["cached_calls"].as_u64().unwrap() >= 8);
    assert!(cached["settings"].as_str().unwrap().contains("cache"));

    let listed = common::eval_dag(home.path()).args(["runs", "--json"]).arg(home.path()).output().unwrap();
    let rows: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert!(rows.as_array().unwrap().iter().all(|r| r.get("cost_per_right").is_some()), "{rows}");
}
