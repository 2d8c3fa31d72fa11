//! Spending limits and the dry run through the binary against a mock server
//! that counts requests: a budget reached mid-run stops the rest as `budget`
//! (exit 1, one line naming the limit and the spend) and `--resume` with a
//! larger one finishes it; a bad limit is one line and exit 2 before any call;
//! a dry run calls nobody, its call range holds the real run's count and
//! counts every epoch and draft; a prompt past the model's context window is
//! warned of by the dry run and refused before any call.

use crate::common;

use super::harness_cache::{command, finish, mock};
use eval_dag::run::{EngineEvent, Outcome};

/// Every finished question's outcome and reason.
fn finished(events: &[EngineEvent]) -> Vec<(Outcome, Option<String>)> {
    events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::QuestionFinished { outcome, reason, .. } => Some((*outcome, reason.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_budget_reached_mid_run_stops_the_rest_and_resume_with_a_larger_one_finishes() {
    let mock = mock(3).await;
    let home = tempfile::tempdir().unwrap();
    // The whole run, unlimited, for the number of calls it takes.
    let whole = finish(command(&mock, home.path(), "whole", 3, &["--no-cache"]), &home.path().join("whole")).await;
    assert_eq!(whole.code, Some(0), "{}", whole.stderr);
    let whole_calls = mock.requests().len();

    let limited = ["--no-cache", "--concurrency", "1", "--max-tokens", "1000"];
    let out = home.path().join("limited");
    let stopped = finish(command(&mock, home.path(), "limited", 3, &limited), &out).await;
    assert_eq!(stopped.code, Some(1), "{}", stopped.stderr);
    let sent = mock.requests().len() - whole_calls;
    assert!(sent < whole_calls, "the limit stopped the run early: {sent} of {whole_calls} calls");
    let line = stopped.stderr.lines().find(|l| l.starts_with("budget:")).expect("a budget line");
    assert!(line.contains("--max-tokens 1000 reached") && line.contains("tokens"), "{line}");
    let tokens = stopped.results["summary"]["tokens"]["total"].as_u64().unwrap();
    assert!(tokens >= 1000, "the run reached the limit: {tokens}");
    let budgeted: Vec<_> = finished(&stopped.events).into_iter().filter(|(o, _)| *o == Outcome::Budget).collect();
    assert!(!budgeted.is_empty(), "{:?}", finished(&stopped.events));
    assert!(budgeted.iter().all(|(_, reason)| reason.as_deref().is_some_and(|r| r.contains("--max-tokens 1000"))));
    let budget = &stopped.results["summary"]["budget"];
    assert_eq!(budget["stopped"].as_u64(), Some(budgeted.len() as u64), "{budget}");
    assert!(stopped.stderr.contains("resume:"), "{}", stopped.stderr);

    let mut resume = common::eval_dag(home.path());
    resume
        .current_dir(common::root())
        .args(["run", "--headless", "--no-cache", "--max-tokens", "1000000", "--resume"])
        .arg(&out)
        .env("OPENAI_API_KEY", "test-key");
    let resumed = finish(resume, &out).await;
    assert_eq!(resumed.code, Some(0), "{}", resumed.stderr);
    let outcomes = resumed.results["detailed_results"].as_array().unwrap();
    assert_eq!(outcomes.len(), 3);
    assert!(outcomes.iter().all(|q| q["status"] == "passed"), "{outcomes:?}");
    let resent = mock.requests().len() - whole_calls - sent;
    assert_eq!(sent + resent, whole_calls, "the resumed run sent only what the stopped one had not");
    assert!(resumed.results["summary"].get("budget").is_none(), "nothing is stopped any more");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_negative_budget_is_one_line_and_exit_2_before_any_call() {
    let mock = mock(1).await;
    let home = tempfile::tempdir().unwrap();
    for flags in [["--max-cost", "-1"], ["--max-tokens", "-5"]] {
        let ran = finish(command(&mock, home.path(), "run", 1, &flags), &home.path().join("run")).await;
        assert_eq!(ran.code, Some(2), "{}", ran.stderr);
        assert_eq!(ran.stderr.trim().lines().count(), 1, "{}", ran.stderr);
        assert!(ran.stderr.starts_with(&format!("error: {} must be", flags[0])), "{}", ran.stderr);
    }
    assert!(mock.requests().is_empty());
    assert!(!home.path().join("run").exists());
}

/// The `low–high` range of the dry run's line starting with `label`.
fn calls_range(stdout: &str, label: &str) -> (usize, usize) {
    let line = stdout.lines().find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("no {label} line: {stdout}"));
    let range = line.split("calls ").nth(1).and_then(|rest| rest.split(',').next()).expect("a calls range");
    let (low, high) = range.split_once('–').expect("low–high");
    (low.parse().unwrap(), high.parse().unwrap())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dry_run_calls_nobody_and_its_range_holds_the_real_runs_count() {
    let mock = mock(4).await;
    let home = tempfile::tempdir().unwrap();
    let dry = command(&mock, home.path(), "dry", 4, &["--dry-run"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&dry.stdout).into_owned();
    assert_eq!(dry.status.code(), Some(0), "{}", String::from_utf8_lossy(&dry.stderr));
    assert!(mock.requests().is_empty(), "a dry run calls nobody");
    assert!(!home.path().join("dry").exists(), "and writes no run");
    let (low, high) = calls_range(&stdout, "total:");
    assert_eq!(calls_range(&stdout, "openai/gpt-4o-mini:"), (low, high), "one model plays every role");
    assert!(stdout.contains("prompt tokens") && stdout.contains("cost $"), "{stdout}");

    let real = finish(command(&mock, home.path(), "real", 4, &["--no-cache"]), &home.path().join("real")).await;
    assert_eq!(real.code, Some(0), "{}", real.stderr);
    let calls = mock.requests().len();
    assert!(low <= calls && calls <= high, "the real run's {calls} calls are within {low}–{high}");
    let usd = |text: &str| text.trim_start_matches('$').parse::<f64>().unwrap();
    let line = stdout.lines().find(|l| l.starts_with("total:")).unwrap();
    let (live, batched) = line.rsplit("cost ").next().unwrap().split_once(" (in batches ").unwrap();
    let (cost_low, cost_high) = live.split_once('–').unwrap();
    assert!(usd(cost_low) > 0.0 && usd(cost_low) < usd(cost_high), "priced as gpt-4o-mini: {line}");
    let (batch_low, batch_high) = batched.trim_end_matches(')').split_once('–').unwrap();
    let halves =
        (usd(batch_low) - usd(cost_low) / 2.0).abs() < 1e-4 && (usd(batch_high) - usd(cost_high) / 2.0).abs() < 1e-4;
    assert!(halves, "the batch price beside the live one is half of it: {line}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dry_run_counts_every_draft_and_epoch_and_sets_its_estimate_against_the_budget() {
    let mock = mock(4).await;
    let home = tempfile::tempdir().unwrap();
    let dry = |flags: &[&str]| {
        let output = command(&mock, home.path(), "dry", 4, flags).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let single = dry(&["--dry-run"]);
    let loops = dry(&["--dry-run", "--consensus", "3", "--repeat", "2", "--max-cost", "0.000001"]);
    assert!(mock.requests().is_empty(), "a dry run calls nobody");
    assert!(loops.contains("4 questions (to generate), 2 epochs of 3 drafts each"), "{loops}");
    let (low, high) = calls_range(&single, "total:");
    // One question-generation call, then every question's loops: six times as many.
    assert_eq!(calls_range(&loops, "total:"), (1 + 6 * (low - 1), 1 + 6 * (high - 1)), "{single}\n{loops}");
    assert!(loops.contains("budget: --max-cost $0.000001: even the low estimate exceeds it"), "{loops}");
    assert!(!single.contains("budget:"), "no budget, no line: {single}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_prompt_past_the_models_context_is_warned_of_in_a_dry_run_and_refused_before_any_call() {
    let mock = mock(3).await;
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config/eval-dag");
    std::fs::create_dir_all(&config).unwrap();
    let priced = "[prices.\"tiny\"]\ninput_per_mtok = 1\noutput_per_mtok = 1\ncontext_tokens = 1000\n";
    std::fs::write(config.join("config.toml"), priced).unwrap();
    let dry = command(&mock, home.path(), "dry", 3, &["--model", "tiny", "--dry-run"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&dry.stdout);
    assert_eq!(dry.status.code(), Some(0), "{}", String::from_utf8_lossy(&dry.stderr));
    let warned = stdout.lines().find(|l| l.starts_with("warning: the largest build call of about")).unwrap_or_default();
    assert!(warned.contains("does not fit tiny's context of 1000 tokens"), "{stdout}");

    let refused = command(&mock, home.path(), "refused", 3, &["--model", "tiny"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains("the smallest questions call of about") && stderr.contains("context of 1000"), "{stderr}");
    assert!(mock.requests().is_empty(), "refused before any call");
    assert!(!home.path().join("refused/trace.jsonl").exists());
}

#[test]
fn the_header_shows_the_spend_against_the_budget() {
    use common::tui::screen;
    use eval_dag::domain::Budget;
    use eval_dag::run::{RunSettings, RunState};
    use eval_dag::tui::{App, Theme};
    let budget = Budget { max_cost_usd: Some(0.5), max_tokens: Some(50_000), per_question_usd: None };
    let mut state = RunState::default();
    state.apply(
        0,
        &EngineEvent::RunStarted { settings: RunSettings { budget: Some(budget), ..RunSettings::default() } },
    );
    state.cost_usd = 0.0123;
    state.usage.prompt_tokens = 1200;
    state.usage.completion_tokens = 34;
    let frame = screen(&App::new(state, Theme::dark(), None, None), 140, 30);
    let first = frame.lines().next().unwrap();
    assert!(first.contains("1234 / 50000 tokens") && first.contains("$0.0123 / $0.50"), "{first}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_per_question_budget_stops_each_question_that_reaches_it() {
    let mock = mock(2).await;
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config.toml");
    // One call of a question (priced as gpt-4o-mini) costs more than this.
    std::fs::write(&config, "[budget]\nper_question_usd = 0.00001\n").unwrap();
    let flags = ["--no-cache", "--config", config.to_str().unwrap()];
    let ran = finish(command(&mock, home.path(), "run", 2, &flags), &home.path().join("run")).await;
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    let outcomes = finished(&ran.events);
    assert_eq!(outcomes.len(), 2, "{outcomes:?}");
    assert!(
        outcomes
            .iter()
            .all(|(o, r)| *o == Outcome::Budget && r.as_deref().is_some_and(|r| r.contains("per_question_usd")))
    );
    assert_eq!(mock.requests().len(), 1 + 2, "question generation, then one build per question");
    let line = ran.stderr.lines().find(|l| l.starts_with("budget:")).expect("a budget line");
    assert!(line.contains("per_question_usd $0.00001 reached by 2 questions"), "{line}");
}
