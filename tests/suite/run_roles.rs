//! A model per role, through the real binary: the builder, the critic and the
//! judge each talk to their own scripted server (configured by flags and by
//! `[roles.<name>]` in a config file, flags winning), each server receives
//! only its role's calls, and `eval_results.json` holds every role's tokens
//! and cost, each priced as the model that served it. A run killed mid-way
//! and resumed keeps its roles, whatever the resuming command line says.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::mock_anthropic::{self, MockAnthropic};
use common::mock_llm::{MockLlm, Recorded, Reply, mock_usage};
use eval_dag::domain::LlmRole;
use eval_dag::run::EngineEvent;
use eval_dag::trace::Trace;
use serde_json::{Value, json};

const RUBRIC: &str = r#"name = "plausible"
kind = "rubric"
criteria = "Is the count plausible for the dataset?"
level = [{ score = 0, description = "implausible" }, { score = 4, description = "plausible" }]
"#;

/// Prices per million tokens (input, output) of each model of the run.
const PRICES: [(&str, f64, f64); 4] =
    [("questions-m", 1.0, 2.0), ("builder-m", 3.0, 5.0), ("critic-m", 7.0, 11.0), ("judge-m", 13.0, 17.0)];

/// One question on the fraud sample: a one-node DAG reading the row count,
/// approved, judged plausible. With `slow_review`, the review waits 3 s.
fn script(slow_review: bool) -> impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static {
    move |request, _| {
        let prompt = request.prompt();
        let text = if prompt.contains("evaluation questions") {
            json!({"questions": [{"id": "q_01", "question": "How many transactions does the dataset hold?",
                "difficulty_level": "easy"}]})
            .to_string()
        } else if prompt.contains("Is the count plausible") {
            "4".into()
        } else if prompt.contains("review one layer") {
            let approve = json!({"is_valid": true, "issues": [], "reasoning": "fine"}).to_string();
            if slow_review {
                return Reply::Delayed(Duration::from_secs(3), Box::new(Reply::Text(approve)));
            }
            approve
        } else if prompt.contains("You design small") {
            json!({"question_id": "q_01", "description": "read the row count", "edges": [],
                "final_answer_node": "count",
                "nodes": [{"node_id": "count", "operation": "read", "function_name": "count",
                    "inputs": {"overview": "dataset.overview"}, "expected_output_type": "int", "layer": 0,
                    "code": "def count(overview):\n    return overview['row_count']\n"}]})
            .to_string()
        } else {
            return Reply::Status(400, vec![], format!("unexpected prompt: {prompt}"));
        };
        Reply::Text(text)
    }
}

/// What a request was for, by its prompt.
fn kind(request: &Recorded) -> &'static str {
    let prompt = request.prompt();
    if prompt.contains("evaluation questions") {
        "questions"
    } else if prompt.contains("Is the count plausible") {
        "judge"
    } else if prompt.contains("review one layer") {
        "review"
    } else {
        "build"
    }
}

/// The kinds and models of the requests `mock` received, in order.
fn received(mock: &MockLlm) -> Vec<(&'static str, String)> {
    mock.requests().iter().map(|r| (kind(r), r.body["model"].as_str().unwrap_or_default().to_string())).collect()
}

/// A config file naming the builder's server for every role, the critic's in
/// `[roles.critic]` (its model overridden by a flag), a dead judge server
/// (overridden by a flag), and every model's price.
fn config_file(dir: &Path, builder: &MockLlm, critic: &MockLlm) -> std::path::PathBuf {
    let mut text = format!(
        "[llm]\nprovider = \"openai\"\nmodel = \"questions-m\"\nbase_url = \"{}\"\n\n\
         [roles.critic]\nmodel = \"file-critic-m\"\nbase_url = \"{}\"\ntemperature = 0\nmax_tokens = 300\n\n\
         [roles.judge]\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"file-judge-m\"\n\n",
        builder.base_url(),
        critic.base_url()
    );
    for (model, input, output) in PRICES {
        text.push_str(&format!("[prices.\"{model}\"]\ninput_per_mtok = {input}\noutput_per_mtok = {output}\n\n"));
    }
    let path = dir.join("config.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// `eval-dag run` of one question, judged by the rubric, into `dir/run`:
/// `--builder-model`, `--critic-model`, `--judge-model` and `--judge-base-url`
/// over the config file.
fn run_command(dir: &Path, config: &Path, judge: &MockLlm) -> tokio::process::Command {
    let rubric = dir.join("plausible.toml");
    std::fs::write(&rubric, RUBRIC).unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_eval-dag"));
    command
        .current_dir(common::root())
        .args(["run", "sample-data/fraud", "--headless", "--questions", "1", "--judge"])
        .arg(&rubric)
        .args(["--builder-model", "builder-m", "--critic-model", "critic-m", "--judge-model", "judge-m"])
        .arg("--judge-base-url")
        .arg(judge.base_url())
        .arg("--config")
        .arg(config)
        .arg("--out")
        .arg(dir.join("run"))
        .env_remove("EVAL_DAG_MODEL")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("EVAL_DAG_LLM")
        .env("XDG_CONFIG_HOME", dir.join("home"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env("EVAL_DAG_LOG", dir.join("log.txt"));
    command
}

/// Tokens (prompt, completion) and cost `mock` was paid for at `model`'s price.
fn paid(mock: &MockLlm, wanted: &str, model: &str) -> (u64, u64, f64) {
    let (_, input, output) = PRICES.iter().find(|(m, ..)| *m == model).copied().unwrap();
    let script = script(false);
    let (mut prompt, mut completion) = (0, 0);
    for (index, request) in mock.requests().iter().enumerate().filter(|(_, r)| kind(r) == wanted) {
        let Reply::Text(text) = script(request, index) else { panic!("every reply of the run is text") };
        let (p, c) = mock_usage(&text);
        (prompt, completion) = (prompt + p, completion + c);
    }
    (prompt, completion, (prompt as f64 * input + completion as f64 * output) / 1e6)
}

fn assert_role(results: &Value, role: &str, model: &str, calls: usize, (prompt, completion, cost): (u64, u64, f64)) {
    let played = &results["roles"][role];
    assert_eq!(played["provider"], "openai", "{role}: {played}");
    assert_eq!(played["model"], model, "{role}: {played}");
    assert_eq!(played["calls"], calls, "{role}: {played}");
    assert_eq!(
        (played["prompt_tokens"].as_u64(), played["completion_tokens"].as_u64()),
        (Some(prompt), Some(completion))
    );
    assert_eq!(played["cached_tokens"], 0);
    let written = played["cost_usd"].as_f64().unwrap();
    assert!((written - cost).abs() < 1e-12, "{role}: {written} ≠ {cost}");
}

#[tokio::test(flavor = "multi_thread")]
async fn builder_critic_and_judge_each_talk_to_their_own_server_and_are_priced_apart() {
    let (builder, critic, judge) =
        (MockLlm::start(script(false)).await, MockLlm::start(script(false)).await, MockLlm::start(script(false)).await);
    let dir = tempfile::tempdir().unwrap();
    let config = config_file(dir.path(), &builder, &critic);
    let output = run_command(dir.path(), &config, &judge).output().await.unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");

    let to_builder = received(&builder);
    assert_eq!(to_builder, [("questions", "questions-m".into()), ("build", "builder-m".into())]);
    assert!(received(&critic).iter().all(|(kind, model)| *kind == "review" && model == "critic-m"));
    assert_eq!(received(&judge), [("judge", "judge-m".into())], "the judge flag beats [roles.judge]");
    let reviews = critic.requests().len();
    assert!(reviews >= 1);
    let sent = |mock: &MockLlm, field: &str| mock.requests().iter().map(|r| r.body[field].clone()).collect::<Vec<_>>();
    assert!(sent(&critic, "temperature").iter().all(|t| *t == json!(0.0)), "[roles.critic]'s temperature is sent");
    assert!(sent(&critic, "max_tokens").iter().all(|t| *t == json!(300)));
    assert!(sent(&builder, "temperature").iter().chain(&sent(&builder, "max_tokens")).all(Value::is_null));

    let run = dir.path().join("run");
    let trace = Trace::read(&run.join("trace.jsonl")).unwrap();
    let critic_url = critic.base_url();
    let played = &trace.header.settings.roles;
    assert_eq!(played[&LlmRole::LayerReview].model, "critic-m");
    assert_eq!(played[&LlmRole::LayerReview].base_url.as_deref(), Some(critic_url.as_str()));
    assert_eq!(played[&LlmRole::Judge].model, "judge-m");
    assert_eq!(played[&LlmRole::QuestionGeneration].model, "questions-m");
    let header = std::fs::read_to_string(run.join("trace.jsonl")).unwrap();
    assert!(!header.lines().next().unwrap().contains("key"), "no key in the header");
    for record in &trace.records {
        if let EngineEvent::LlmCallStarted { key, provider, model, .. } = &record.event {
            assert_eq!((provider.name(), model.as_str()), ("openai", played[&key.role].model.as_str()));
        }
    }

    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("eval_results.json")).unwrap()).unwrap();
    assert_role(&results, "question_generation", "questions-m", 1, paid(&builder, "questions", "questions-m"));
    assert_role(&results, "dag_build", "builder-m", 1, paid(&builder, "build", "builder-m"));
    assert_role(&results, "layer_review", "critic-m", reviews, paid(&critic, "review", "critic-m"));
    assert_role(&results, "judge", "judge-m", 1, paid(&judge, "judge", "judge-m"));
    let roles = results["roles"].as_object().unwrap();
    assert_eq!(roles.len(), 4, "no narrative call was made: {roles:?}");
    let total: f64 = roles.values().map(|r| r["cost_usd"].as_f64().unwrap()).sum();
    assert!((results["summary"]["cost_usd"].as_f64().unwrap() - total).abs() < 1e-12);
    let html = std::fs::read_to_string(run.join("eval_report.html")).unwrap();
    assert!(html.contains("critic-m") && html.contains("judge-m") && html.contains("builder-m"));

    // `grade` with one more judge: the run's judge call is reused, the new one goes to --judge-base-url.
    let regrader = MockLlm::start(script(false)).await;
    let second = dir.path().join("second.toml");
    std::fs::write(&second, RUBRIC.replace("\"plausible\"", "\"plausible_again\"")).unwrap();
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_eval-dag"))
        .current_dir(common::root())
        .arg("grade")
        .arg(&run)
        .arg("--judge")
        .arg(&second)
        .args(["--model", "ignored-m", "--judge-model", "grade-judge-m", "--judge-base-url"])
        .arg(regrader.base_url())
        .env_remove("OPENAI_BASE_URL")
        .env("XDG_CONFIG_HOME", dir.path().join("home"))
        .env("XDG_CACHE_HOME", dir.path().join("cache"))
        .env("EVAL_DAG_LOG", dir.path().join("log.txt"))
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("plausible_again"), "{stdout}");
    assert_eq!(received(&regrader), [("judge", "grade-judge-m".into())], "--judge-model beats --model");
    assert_eq!(judge.requests().len(), 1, "the run's judge call is reused");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_killed_mid_way_and_resumed_keeps_its_roles() {
    let (builder, critic, judge) =
        (MockLlm::start(script(false)).await, MockLlm::start(script(true)).await, MockLlm::start(script(false)).await);
    let dir = tempfile::tempdir().unwrap();
    let config = config_file(dir.path(), &builder, &critic);
    let trace_path = dir.path().join("run").join("trace.jsonl");
    let child = run_command(dir.path(), &config, &judge)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The review is recorded as started before its request is sent: wait until
    // the critic's server holds it (it answers after 3 s), so the kill cuts a
    // review the server saw, which the resumed run must ask again.
    let reviewing = |path: &Path| {
        std::fs::read_to_string(path).unwrap_or_default().contains("\"role\":\"layer_review\"")
            && !critic.requests().is_empty()
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while !reviewing(&trace_path) {
        assert!(tokio::time::Instant::now() < deadline, "the review starts within a minute");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // SAFETY: signalling our own child process, which has not been waited for.
    assert_eq!(unsafe { libc::kill(child.id().unwrap() as i32, libc::SIGKILL) }, 0);
    child.wait_with_output().await.unwrap();
    let killed = Trace::read(&trace_path).unwrap();
    assert!(!killed.records.iter().any(|r| matches!(r.event, EngineEvent::RunFinished { .. })), "killed mid-way");

    // Resumed with other models and servers asked for every role: the run's own are kept.
    let elsewhere = MockLlm::start(script(false)).await;
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_eval-dag"))
        .current_dir(common::root())
        .args(["run", "--headless", "--model", "other-m", "--base-url"])
        .arg(elsewhere.base_url())
        .arg("--resume")
        .arg(dir.path().join("run"))
        .env_remove("EVAL_DAG_LLM")
        .env("XDG_CONFIG_HOME", dir.path().join("home"))
        .env("XDG_CACHE_HOME", dir.path().join("cache"))
        .env("EVAL_DAG_LOG", dir.path().join("log.txt"))
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(elsewhere.requests().is_empty(), "nothing went to the resuming command line's server");
    assert!(received(&critic).iter().all(|(kind, model)| *kind == "review" && model == "critic-m"));
    assert!(critic.requests().len() >= 2, "the cut review was asked again of the critic's server");
    assert_eq!(received(&judge), [("judge", "judge-m".into())]);
    assert!(received(&builder).iter().all(|(kind, _)| *kind != "review" && *kind != "judge"));
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("run/eval_results.json")).unwrap()).unwrap();
    assert_eq!(results["roles"]["layer_review"]["model"], "critic-m");
    assert_eq!(results["roles"]["judge"]["model"], "judge-m");
    assert_eq!(results["roles"]["dag_build"]["model"], "builder-m");
}

/// A critic answering the script's replies over Anthropic's wire protocol.
async fn anthropic_critic() -> MockAnthropic {
    let openai_script = script(false);
    MockAnthropic::start(move |request, index| match openai_script(request, index) {
        Reply::Text(text) => mock_anthropic::Reply::Text(text),
        _ => mock_anthropic::Reply::Status(400, vec![], "unexpected".into()),
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_critic_speaking_the_anthropic_protocol_gets_only_the_reviews() {
    let (builder, judge) = (MockLlm::start(script(false)).await, MockLlm::start(script(false)).await);
    let critic = anthropic_critic().await;
    let dir = tempfile::tempdir().unwrap();
    let config = config_file(dir.path(), &builder, &builder);
    let text = std::fs::read_to_string(&config).unwrap().replacen(
        &format!("base_url = \"{}\"\ntemperature", builder.base_url()),
        &format!("provider = \"anthropic\"\nbase_url = \"{}\"\ntemperature", critic.base_url()),
        1,
    );
    assert!(text.contains("provider = \"anthropic\""), "{text}");
    std::fs::write(&config, text).unwrap();
    let output = run_command(dir.path(), &config, &judge).env("ANTHROPIC_API_KEY", "ant-key").output().await.unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");

    assert_eq!(received(&builder), [("questions", "questions-m".into()), ("build", "builder-m".into())]);
    assert_eq!(received(&judge), [("judge", "judge-m".into())]);
    let reviews = critic.requests();
    assert!(!reviews.is_empty());
    for review in &reviews {
        assert_eq!(kind(&review.request), "review", "only reviews reach the anthropic critic");
        assert_eq!(review.request.body["model"], "critic-m");
        assert_eq!(review.api_key.as_deref(), Some("ant-key"));
        assert_eq!(review.request.body["max_tokens"], 300, "[roles.critic]'s max_tokens");
        assert_eq!(review.request.body["temperature"], json!(0.0), "[roles.critic]'s temperature");
    }

    let run = dir.path().join("run");
    let trace = Trace::read(&run.join("trace.jsonl")).unwrap();
    let played = &trace.header.settings.roles;
    assert_eq!(
        (played[&LlmRole::LayerReview].provider.name(), played[&LlmRole::DagBuild].provider.name()),
        ("anthropic", "openai")
    );
    for record in &trace.records {
        if let EngineEvent::LlmCallStarted { key, provider, .. } = &record.event {
            let expected = if key.role == LlmRole::LayerReview { "anthropic" } else { "openai" };
            assert_eq!(provider.name(), expected, "{key:?}");
        }
    }
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("eval_results.json")).unwrap()).unwrap();
    let critic_role = &results["roles"]["layer_review"];
    assert_eq!(
        (critic_role["provider"].as_str(), critic_role["calls"].as_u64()),
        (Some("anthropic"), Some(reviews.len() as u64))
    );
    let (_, input, output) = PRICES.iter().find(|(m, ..)| *m == "critic-m").copied().unwrap();
    let (mut prompt, mut completion) = (0, 0);
    for review in &reviews {
        let Reply::Text(text) = script(false)(&review.request, 0) else { panic!("text") };
        let usage = mock_anthropic::Usage::of(&text);
        (prompt, completion) = (prompt + usage.input, completion + usage.output);
    }
    assert_eq!(
        (critic_role["prompt_tokens"].as_u64(), critic_role["completion_tokens"].as_u64()),
        (Some(prompt), Some(completion))
    );
    let cost = (prompt as f64 * input + completion as f64 * output) / 1e6;
    assert!((critic_role["cost_usd"].as_f64().unwrap() - cost).abs() < 1e-12, "{critic_role} ≠ {cost}");
    assert_role(&results, "dag_build", "builder-m", 1, paid(&builder, "build", "builder-m"));
    assert_role(&results, "judge", "judge-m", 1, paid(&judge, "judge", "judge-m"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_roles_section_naming_its_provider_is_not_moved_by_the_flags_for_every_role() {
    // The reported case: `--llm openai --model M --base-url URL` sent a
    // configured anthropic critic's reviews to the builder's server.
    let builder = MockLlm::start(script(false)).await;
    let critic = anthropic_critic().await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    let section = format!(
        "[roles.critic]\nprovider = \"anthropic\"\nmodel = \"critic-m\"\nbase_url = \"{}\"\n",
        critic.base_url()
    );
    std::fs::write(&config, section).unwrap();
    let output = tokio::process::Command::from(common::eval_dag(dir.path()))
        .current_dir(common::root())
        .args(["run", "sample-data/fraud", "--headless", "--questions", "1", "--llm", "openai"])
        .args(["--model", "builder-m", "--base-url"])
        .arg(builder.base_url())
        .arg("--config")
        .arg(&config)
        .arg("--out")
        .arg(dir.path().join("run"))
        .env("ANTHROPIC_API_KEY", "ant-key")
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(received(&builder).iter().all(|(kind, model)| *kind != "review" && model == "builder-m"), "{stderr}");
    let reviews = critic.requests();
    assert!(!reviews.is_empty(), "the critic's reviews reach its own server");
    assert!(reviews.iter().all(|r| kind(&r.request) == "review" && r.request.body["model"] == "critic-m"));
    // The run's first line names who plays which role, with provider and server.
    let first = stderr.lines().next().unwrap_or_default();
    let server = critic.base_url().split("://").nth(1).unwrap().trim_end_matches('/').to_string();
    assert!(first.contains(&format!("critic anthropic/critic-m at {server}")), "{first}");
}
