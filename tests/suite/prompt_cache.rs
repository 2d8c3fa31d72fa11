//! Prompts are ordered for providers' prefix caches: a run's prompts repeat
//! a long static prefix (system text, dataset, schema, reply format) before
//! the question and the DAG. Templates written for the old order
//! (`tests/fixtures/prompts_v1`, the built-in templates before the change)
//! still work as overrides. Cached prompt tokens a server reports are
//! recorded, shown and priced at the model's cached rate.

use crate::common;

use common::mock_llm::{MockLlm, Recorded, Reply, layered_reply, mock_usage};
use eval_dag::report::prefix_reuse;
use serde_json::Value;

/// Questions of the measured run; odd ones are rejected once and rebuilt.
const QUESTIONS: usize = 6;

/// The full prompt of a request as sent: every message's text, in order.
fn sent(request: &Recorded) -> String {
    request.body["messages"].as_array().into_iter().flatten().filter_map(|m| m["content"].as_str()).collect()
}

/// `eval-dag run` on the fraud sample against `mock`; `prompts` is a
/// template override directory, `config` a config file's text. The exit code,
/// the run's `eval_results.json` and its report page.
async fn run(mock: &MockLlm, prompts: Option<&std::path::Path>, config: &str) -> (Option<i32>, Value, String) {
    run_on(&common::root().join("sample-data/fraud"), QUESTIONS, mock, prompts, config).await
}

/// [`run`] on `dataset`, asking for `questions`.
async fn run_on(
    dataset: &std::path::Path,
    questions: usize,
    mock: &MockLlm,
    prompts: Option<&std::path::Path>,
    config: &str,
) -> (Option<i32>, Value, String) {
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("run");
    let config_path = home.path().join("config.toml");
    std::fs::write(&config_path, config).unwrap();
    let mut command = common::eval_dag(home.path());
    command
        .arg("run")
        .arg(dataset)
        .args(["--headless", "--llm", "openai", "--questions", &questions.to_string(), "--base-url"])
        .arg(mock.base_url())
        .arg("--config")
        .arg(&config_path)
        .arg("--out")
        .arg(&out)
        .env("OPENAI_API_KEY", "k")
        .env_remove("EVAL_DAG_PROMPTS");
    if let Some(dir) = prompts {
        command.env("EVAL_DAG_PROMPTS", dir);
    }
    let output = tokio::process::Command::from(command).output().await.unwrap();
    let results = std::fs::read_to_string(out.join("eval_results.json")).unwrap_or_else(|_| {
        panic!("no results: {}", String::from_utf8_lossy(&output.stderr));
    });
    let page = std::fs::read_to_string(out.join("eval_report.html")).unwrap();
    (output.status.code(), serde_json::from_str(&results).unwrap(), page)
}

#[tokio::test(flavor = "multi_thread")]
async fn most_prompt_bytes_repeat_an_earlier_prefix_and_old_template_overrides_still_work() {
    let reply = |request: &Recorded, _| Reply::Text(layered_reply(request, QUESTIONS, true));
    let (old, new) = (MockLlm::start(reply).await, MockLlm::start(reply).await);
    let old_templates = common::root().join("tests/fixtures/prompts_v1");
    let (old_code, old_results, _) = run(&old, Some(&old_templates), "").await;
    let (new_code, new_results, _) = run(&new, None, "").await;
    assert_eq!((old_code, new_code), (Some(0), Some(0)), "both runs pass every question");
    let passed = |r: &Value| r["summary"]["passed"].clone();
    assert_eq!((passed(&old_results), passed(&new_results)), (QUESTIONS.into(), QUESTIONS.into()));
    let answers = |r: &Value| {
        r["detailed_results"].as_array().unwrap().iter().map(|q| q["final_answer"].clone()).collect::<Vec<_>>()
    };
    assert_eq!(answers(&old_results), answers(&new_results), "the old templates give the same run");

    let measure = |mock: &MockLlm| prefix_reuse(mock.requests().iter().map(sent));
    let (before, after) = (measure(&old), measure(&new));
    let (before_share, after_share) = (before.fraction().unwrap(), after.fraction().unwrap());
    println!(
        "prompt bytes in a prefix shared with an earlier call: before {:.1}% of {} bytes, after {:.1}% of {} bytes ({} calls)",
        100.0 * before_share,
        before.total_bytes,
        100.0 * after_share,
        after.total_bytes,
        new.requests().len()
    );
    assert!(after_share >= 0.85, "after: {after_share}");
    assert!(after_share > before_share, "before {before_share}, after {after_share}");
    assert!(after.total_bytes as f64 <= before.total_bytes as f64 * 1.05, "{before:?} → {after:?}");
    let recorded = new_results["summary"]["token_economy"]["prompt_prefix_shared"].as_f64().unwrap();
    assert!((recorded - after_share).abs() < 1e-9, "the results file measures the same: {recorded} vs {after_share}");

    let share = new_results["summary"]["token_economy"]["rejected_iteration_token_share"].as_f64().unwrap();
    assert!(share > 0.0 && share < 0.5, "three questions spent one rejected iteration each: {share}");
}

#[tokio::test(flavor = "multi_thread")]
async fn cached_prompt_tokens_are_recorded_and_priced_at_the_cached_rate() {
    const CACHED: u64 = 64;
    let mock =
        MockLlm::start(|request: &Recorded, _| Reply::Cached(layered_reply(request, QUESTIONS, true), CACHED)).await;
    let config = "[llm]\nmodel = \"cache-model\"\n[prices.\"cache-model\"]\ninput_per_mtok = 2.0\noutput_per_mtok = 8.0\ncached_input_per_mtok = 0.5\n";
    let (code, results, page) = run(&mock, None, config).await;
    assert_eq!(code, Some(0));

    let replies: Vec<String> = mock.requests().iter().map(|r| layered_reply(r, QUESTIONS, true)).collect();
    let (mut prompt, mut completion, mut cost) = (0u64, 0u64, 0f64);
    for reply in &replies {
        let (p, c) = mock_usage(reply);
        (prompt, completion) = (prompt + p, completion + c);
        cost += ((p - CACHED) as f64 * 2.0 + CACHED as f64 * 0.5 + c as f64 * 8.0) / 1e6;
    }
    let calls = replies.len() as u64;
    let summary = &results["summary"];
    assert_eq!(summary["tokens"]["prompt"], prompt);
    assert_eq!(summary["tokens"]["completion"], completion);
    let economy = &summary["token_economy"];
    assert_eq!(economy["cached_tokens"], CACHED * calls, "every call's cached tokens are recorded");
    let hit_rate = economy["cache_hit_rate"].as_f64().unwrap();
    assert!((hit_rate - (CACHED * calls) as f64 / prompt as f64).abs() < 1e-12, "{hit_rate}");
    let recorded = summary["cost_usd"].as_f64().unwrap();
    assert!((recorded - cost).abs() < 1e-12, "priced at the cached rate: {recorded} vs {cost}");
    let per_passed = economy["cost_per_passed_question_usd"].as_f64().unwrap();
    assert!((per_passed - cost / QUESTIONS as f64).abs() < 1e-12, "{per_passed}");
    let tokens_per_question = economy["tokens_per_question"].as_f64().unwrap();
    assert!((tokens_per_question - (prompt + completion) as f64 / QUESTIONS as f64).abs() < 1e-9);
    let shown = format!("prompt cache hits: <b>{:.0}%</b> of prompt tokens", 100.0 * hit_rate);
    assert!(page.contains(&shown), "the report shows the hit rate: {shown}");
}

/// A small weather table: five columns, thirty days.
fn weather_csv() -> String {
    let mut csv = String::from("date,city,temp_c,rain_mm,wind\n");
    for day in 1..=30u32 {
        let city = ["Oslo", "Lima", "Pune"][(day % 3) as usize];
        let wind = ["calm", "breeze", "gale"][(day * 7 % 3) as usize];
        csv.push_str(&format!(
            "2024-03-{day:02},{city},{:.1},{},{wind}\n",
            f64::from(day * 37 % 300) / 10.0 - 5.0,
            day * 11 % 9
        ));
    }
    csv
}

/// A five-question run on a small schema: the schema is a small part of each
/// prompt, so the first call of each role weighs; every role's prompt begins
/// with the same schema head, which the first build and review calls reuse.
#[tokio::test(flavor = "multi_thread")]
async fn a_small_schema_shares_its_prompt_prefix_too() {
    const FIVE: usize = 5;
    let home = tempfile::tempdir().unwrap();
    let csv = home.path().join("weather.csv");
    std::fs::write(&csv, weather_csv()).unwrap();
    let dataset = home.path().join("weather");
    let prepared = common::eval_dag(home.path()).arg("prepare").arg(&csv).arg("--out").arg(&dataset).output().unwrap();
    assert!(prepared.status.success(), "{}", String::from_utf8_lossy(&prepared.stderr));
    let mock = MockLlm::start(|request: &Recorded, _| Reply::Text(layered_reply(request, FIVE, true))).await;
    let (code, results, _) = run_on(&dataset, FIVE, &mock, None, "").await;
    assert_eq!(code, Some(0));
    assert_eq!(results["summary"]["passed"], FIVE);
    let prompts: Vec<String> = mock.requests().iter().map(sent).collect();
    // Every role's prompt begins with the schema: the first build and the first
    // review reuse the question generation's head.
    let head = prompts[0].find("\n\nYou are a senior").expect("the question generation comes first");
    for (i, prompt) in prompts.iter().enumerate().skip(1) {
        let shared = prompts[..i].iter().map(|p| p.bytes().zip(prompt.bytes()).take_while(|(a, b)| a == b).count());
        assert!(shared.max().unwrap_or(0) >= head, "call {i} does not repeat the schema head: {prompt}");
    }
    let reuse = prefix_reuse(prompts.iter());
    let share = reuse.fraction().unwrap();
    println!(
        "small schema: {:.1}% of {} prompt bytes in a shared prefix ({} calls)",
        100.0 * share,
        reuse.total_bytes,
        prompts.len()
    );
    assert!(share >= 0.85, "{share}");
}
