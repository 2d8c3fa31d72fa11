//! The config file through the real binary against a mock server on
//! 127.0.0.1: found in `$XDG_CONFIG_HOME`, its prices reaching the run's cost,
//! flag > environment > file, the review concurrency setting, and a broken
//! file as one line with its path and line (exit 2), and a theme file with a wrong
//! or missing colour likewise.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::mock_llm::{MockLlm, Reply, layered_reply, row_count_reply};
use eval_dag::domain::LlmRole;
use eval_dag::run::EngineEvent;
use eval_dag::trace::Trace;
use serde_json::Value;

/// Write `text` as the config file of the isolated `home`.
fn write_default_config(home: &Path, text: &str) -> PathBuf {
    let path = home.join("config/eval-dag/config.toml");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

fn fraud() -> PathBuf {
    common::root().join("sample-data/fraud")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_configured_price_reaches_the_runs_cost() {
    let mock = MockLlm::start(|request, _| Reply::Text(row_count_reply(request))).await;
    let home = tempfile::tempdir().unwrap();
    write_default_config(
        home.path(),
        &format!(
            "[llm]\nprovider = \"openai\"\nmodel = \"house-model\"\nbase_url = \"{}\"\napi_key_env = \"HOUSE_KEY\"\n\n\
             [prices.\"house-model\"]\ninput_per_mtok = 1000\noutput_per_mtok = 4000\n",
            mock.base_url()
        ),
    );
    let out = home.path().join("run");
    let mut command = common::eval_dag(home.path());
    command.arg("run").arg(fraud()).arg("--headless").arg("--out").arg(&out).env("HOUSE_KEY", "house-secret");
    let output = tokio::process::Command::from(command).output().await.unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));

    let requests = mock.requests();
    assert_eq!(requests.len(), 3, "questions, build, review");
    for request in &requests {
        assert_eq!(request.body["model"], "house-model");
        assert_eq!(request.authorization.as_deref(), Some("Bearer house-secret"), "the key from api_key_env");
    }
    let trace = Trace::read(&out.join("trace.jsonl")).unwrap();
    let expected: f64 = trace
        .records
        .iter()
        .filter_map(|r| match &r.event {
            EngineEvent::LlmCallFinished { usage, .. } => {
                Some((usage.prompt_tokens as f64 * 1000.0 + usage.completion_tokens as f64 * 4000.0) / 1e6)
            }
            _ => None,
        })
        .sum();
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("eval_results.json")).unwrap()).unwrap();
    let cost = results["summary"]["cost_usd"].as_f64().unwrap();
    assert!(expected > 0.1, "the configured price is far above any built-in one: {expected}");
    assert!((cost - expected).abs() < 1e-9, "cost {cost}, priced by the config {expected}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(&format!("(${cost:.4})")), "the summary line shows the cost: {stderr}");
}

/// Run against `mock` (which refuses every call, so the run stops after question
/// generation) and return the model and the prompt of the request it received.
async fn asked(
    mock: &MockLlm,
    home: &Path,
    flags: &[&str],
    env: &[(&str, &Path)],
    model_env: Option<&str>,
) -> (String, String) {
    let before = mock.requests().len();
    let mut command = common::eval_dag(home);
    command.arg("run").arg(fraud()).arg("--headless").arg("--out").arg(home.join("run")).args(flags);
    command.env("OPENAI_API_KEY", "k").env("OPENAI_BASE_URL", mock.base_url());
    for (name, value) in env {
        command.env(name, value);
    }
    if let Some(model) = model_env {
        command.env("EVAL_DAG_MODEL", model);
    }
    let output = tokio::process::Command::from(command).output().await.unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
    let requests = mock.requests();
    assert_eq!(requests.len(), before + 1);
    let last = &requests[before];
    (last.body["model"].as_str().unwrap().to_string(), last.prompt())
}

#[tokio::test(flavor = "multi_thread")]
async fn flags_beat_the_environment_which_beats_the_file() {
    let mock = MockLlm::start(|_, _| Reply::Status(400, vec![], r#"{"error": {"message": "refused"}}"#.into())).await;
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    write_default_config(home, "[llm]\nmodel = \"file-model\"\n[run]\nquestions = 4\n");
    let other = home.join("other.toml");
    std::fs::write(&other, "[llm]\nmodel = \"other-file-model\"\n").unwrap();
    let third = home.join("third.toml");
    std::fs::write(&third, "[llm]\nmodel = \"third-file-model\"\n").unwrap();

    let (model, prompt) = asked(&mock, home, &[], &[], None).await;
    assert_eq!(model, "file-model", "the default config file is read");
    assert!(prompt.contains("Write 4 analytical questions"), "questions from the file");
    let (model, prompt) = asked(&mock, home, &["--questions", "2"], &[], Some("env-model")).await;
    assert_eq!(model, "env-model", "the environment beats the file");
    assert!(prompt.contains("Write 2 analytical questions"), "the flag beats the file");
    let (model, _) = asked(&mock, home, &["--model", "flag-model"], &[], Some("env-model")).await;
    assert_eq!(model, "flag-model", "the flag beats the environment");

    let (model, prompt) = asked(&mock, home, &[], &[("EVAL_DAG_CONFIG", &other)], None).await;
    assert_eq!(model, "other-file-model", "EVAL_DAG_CONFIG replaces the default file");
    assert!(prompt.contains("Write 10 analytical questions"), "nothing is merged from the default file");
    let flag = ["--config", third.to_str().unwrap()];
    let (model, _) = asked(&mock, home, &flag, &[("EVAL_DAG_CONFIG", &other)], None).await;
    assert_eq!(model, "third-file-model", "--config beats EVAL_DAG_CONFIG");
}

fn run_with(home: &Path, flags: &[&str]) -> (Option<i32>, String) {
    let output = common::eval_dag(home)
        .arg("run")
        .arg(fraud())
        .arg("--headless")
        .arg("--out")
        .arg(home.join("run"))
        .args(flags)
        .output()
        .unwrap();
    (output.status.code(), String::from_utf8_lossy(&output.stderr).to_string())
}

#[test]
fn a_broken_config_file_is_one_line_with_its_path_and_line_and_exit_2() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let path = write_default_config(home, "theme = \"dark\"\n\n[run\nquestions = 3\n");
    let (code, stderr) = run_with(home, &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with(&format!("error: config {}:3:", path.display())), "{stderr}");
    assert!(!home.join("run").exists(), "nothing ran");

    write_default_config(home, "[run]\nquestions = 3\nmax_iteration = 2\n");
    let (code, stderr) = run_with(home, &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        format!("error: config {}:3:1: unknown key `max_iteration`; did you mean `max_iterations`?", path.display())
    );

    let (code, stderr) = run_with(home, &["--config", "/nonexistent/eval-dag.toml"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.starts_with("error: config /nonexistent/eval-dag.toml: cannot read it"), "{stderr}");
}

#[test]
fn an_unknown_provider_in_the_file_or_a_flag_is_refused_with_the_choices_and_exit_2() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    for (text, line) in [("[llm]\nprovider = \"nonsense\"\n", 2), ("[roles.critic]\n\nprovider = \"nonsense\"\n", 3)] {
        let path = write_default_config(home, text);
        let (code, stderr) = run_with(home, &[]);
        assert_eq!(code, Some(2), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with(&format!("error: config {}:{line}:", path.display())), "{stderr}");
        assert!(stderr.contains("`nonsense`") && stderr.contains("`offline`, `openai`, `anthropic`"), "{stderr}");
    }
    assert!(!home.join("run").exists(), "nothing ran");

    write_default_config(home, "");
    let (code, stderr) = run_with(home, &["--llm", "nonsense"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("'nonsense'") && stderr.contains("offline, openai, anthropic"), "{stderr}");
    assert!(!home.join("run").exists(), "nothing ran");
}

/// `(started, finished)` ms of every layer-review call of a run, in start order.
fn review_spans(out: &Path) -> Vec<(u64, u64)> {
    let trace = Trace::read(&out.join("trace.jsonl")).unwrap();
    let mut started = std::collections::HashMap::new();
    let mut spans = Vec::new();
    for record in &trace.records {
        match &record.event {
            EngineEvent::LlmCallStarted { call_id, key, .. } if key.role == LlmRole::LayerReview => {
                started.insert(*call_id, record.t_ms);
            }
            EngineEvent::LlmCallFinished { call_id, .. } => {
                if let Some(start) = started.get(call_id) {
                    spans.push((*start, record.t_ms));
                }
            }
            _ => {}
        }
    }
    spans.sort_unstable();
    spans
}

#[tokio::test(flavor = "multi_thread")]
async fn review_concurrency_from_the_file_reviews_one_layer_at_a_time_and_the_flag_overrides_it() {
    let mock = MockLlm::start(|request, _| {
        Reply::Delayed(Duration::from_millis(150), Box::new(Reply::Text(layered_reply(request, 1, false))))
    })
    .await;
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    write_default_config(
        home,
        &format!("[llm]\nprovider = \"openai\"\nbase_url = \"{}\"\n[run]\nreview_concurrency = 1\n", mock.base_url()),
    );
    let mut spans = Vec::new();
    // Without the response cache: the second run's reviews go to the server too.
    let concurrent = ["--no-cache", "--review-concurrency", "0"];
    for (name, flags, recorded) in [("sequential", &["--no-cache"][..], 1), ("concurrent", &concurrent[..], 0)] {
        let out = home.join(name);
        let mut command = common::eval_dag(home);
        command.arg("run").arg(fraud()).arg("--headless").arg("--out").arg(&out).args(flags).env("OPENAI_API_KEY", "k");
        let output = tokio::process::Command::from(command).output().await.unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        let header = Trace::read(&out.join("trace.jsonl")).unwrap().header;
        assert_eq!(header.settings.review_concurrency, recorded, "the trace header records the setting");
        spans.push(review_spans(&out));
    }
    let (sequential, concurrent) = (&spans[0], &spans[1]);
    assert_eq!((sequential.len(), concurrent.len()), (3, 3), "three layers reviewed in each run");
    assert!(sequential.windows(2).all(|w| w[1].0 >= w[0].1), "one review after another: {sequential:?}");
    let first_end = concurrent.iter().map(|s| s.1).min().unwrap();
    assert!(concurrent.iter().all(|s| s.0 < first_end), "all three in flight at once: {concurrent:?}");
}

#[test]
fn a_theme_with_a_misspelt_or_missing_colour_is_one_line_with_its_file_and_key_and_exit_2() {
    let home = tempfile::tempdir().unwrap();
    let themes = home.path().join("config/eval-dag/themes");
    std::fs::create_dir_all(&themes).unwrap();
    let dark = std::fs::read_to_string(common::root().join("themes/dark.toml")).unwrap();
    let trace = common::root().join("sample-data/traces/fraud-scripted.trace.jsonl");
    let cases = [
        (
            "misspelt",
            dark.replace("node_flagged =", "node_flaged ="),
            "node_flaged: not a colour this eval-dag draws (did you mean node_flagged?)",
        ),
        (
            "missing",
            dark.lines().filter(|l| !l.starts_with("border")).collect::<Vec<_>>().join("\n"),
            "border: missing",
        ),
    ];
    for (name, text, expected) in cases {
        let file = themes.join(format!("{name}.toml"));
        std::fs::write(&file, text).unwrap();
        // The theme is loaded before the replay touches the terminal.
        let out = common::eval_dag(home.path()).arg("replay").arg(&trace).env("EVAL_DAG_THEME", name).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
        assert!(stderr.contains(&format!("theme {}: {expected}", file.display())), "{name}: {stderr}");
    }
}
