//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Duration;

use eval_dag::domain::Engine;
use eval_dag::sandbox::{CPython, Interpreter, SandboxConfig, SandboxPool};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The eval-dag binary, isolated from the developer's setup: its config
/// directory is `home/config` (empty unless a test writes there), its response
/// cache is under `home/cache`, it logs to `home/log.txt`, and no LLM setting
/// leaks in from the environment.
pub fn eval_dag(home: &std::path::Path) -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_eval-dag"));
    isolate(&mut command, home);
    command
}

/// Keep `command` (the binary, or a shell that runs it) away from the
/// developer's setup: its config, cache and log under `home`, and none of the
/// environment variables eval-dag reads.
pub fn isolate(command: &mut std::process::Command, home: &std::path::Path) {
    command
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("EVAL_DAG_LOG", home.join("log.txt"));
    for name in [
        "EVAL_DAG_CONFIG",
        "EVAL_DAG_CACHE",
        "EVAL_DAG_LLM",
        "EVAL_DAG_MODEL",
        "EVAL_DAG_THEME",
        "EVAL_DAG_TEMPLATES",
        "EVAL_DAG_PROMPTS",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
    ] {
        command.env_remove(name);
    }
}

/// Press keys in an app from a script (see `press_keys`).
#[allow(unused_imports, reason = "the benches share this module and use only part of it")]
pub use eval_dag::tui::press_keys as press;

/// The sandbox tests' dataset.
pub fn sandbox_dataset() -> PathBuf {
    root().join("tests/fixtures/sandbox/dataset")
}

/// `tests/fixtures/sandbox/seeded.py`: the row generator of the differential
/// cases, put before their code (node code cannot import).
pub fn seeded_generator() -> String {
    std::fs::read_to_string(root().join("tests/fixtures/sandbox/seeded.py")).expect("seeded.py")
}

/// [`seeded_generator`] followed by the case file `name` of `tests/fixtures/sandbox`.
pub fn seeded_cases(name: &str) -> String {
    let cases = std::fs::read_to_string(root().join("tests/fixtures/sandbox").join(name)).expect("a case file");
    format!("{}\n\n{cases}", seeded_generator())
}

/// A DAG of one node `a` running `f(rows)` over the sandbox dataset's transactions.
pub fn rows_dag(code: &str) -> eval_dag::domain::GeneratedDag {
    serde_json::from_value(serde_json::json!({
        "question_id": "rows", "final_answer_node": "a",
        "nodes": [{"node_id": "a", "function_name": "f", "inputs": {"rows": "dataset.transactions"},
                   "layer": 0, "code": code}]
    }))
    .expect("a DAG")
}

/// One worker served by the real binary, with these deadlines.
pub fn sandbox_config(node_timeout: Duration, dag_timeout: Duration) -> SandboxConfig {
    SandboxConfig {
        workers: 1,
        node_timeout,
        dag_timeout,
        executable: Some(PathBuf::from(env!("CARGO_BIN_EXE_eval-dag"))),
        ..SandboxConfig::default()
    }
}

/// A one-worker pool over the sandbox dataset, served by the real binary.
pub fn pool(node_timeout: Duration, dag_timeout: Duration) -> SandboxPool {
    SandboxPool::new(&sandbox_dataset(), sandbox_config(node_timeout, dag_timeout)).expect("pool")
}

/// The workers of `engine`: RustPython, or the machine's CPython (the first
/// `python3` on `PATH`, or `EVAL_DAG_PYTHON`; the CPython engine's tests need one).
pub fn interpreter(engine: Engine) -> Interpreter {
    match engine {
        Engine::RustPython => Interpreter::RustPython,
        Engine::CPython => {
            let explicit = std::env::var_os("EVAL_DAG_PYTHON").map(PathBuf::from);
            Interpreter::CPython(
                CPython::find(explicit.as_deref()).expect("a CPython 3.10 or newer for the engine's tests"),
            )
        }
    }
}

/// [`sandbox_config`] with `engine`'s workers.
pub fn sandbox_config_on(engine: Engine, node_timeout: Duration, dag_timeout: Duration) -> SandboxConfig {
    sandbox_config(node_timeout, dag_timeout).with_interpreter(interpreter(engine))
}

/// [`pool`] with `engine`'s workers.
pub fn pool_on(engine: Engine, node_timeout: Duration, dag_timeout: Duration) -> SandboxPool {
    SandboxPool::new(&sandbox_dataset(), sandbox_config_on(engine, node_timeout, dag_timeout)).expect("pool")
}

/// For each `name`, two tests of the async `name(engine)` beside it: `name::rustpython`
/// and `name::cpython`, so every sandbox test holds on both engines.
#[allow(unused_macros, reason = "the benches share this module and run no engine suite")]
macro_rules! on_both_engines {
    ($($name:ident),+ $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread")]
            async fn rustpython() {
                super::$name(eval_dag::domain::Engine::RustPython).await;
            }
            #[tokio::test(flavor = "multi_thread")]
            async fn cpython() {
                super::$name(eval_dag::domain::Engine::CPython).await;
            }
        }
    )+};
}
#[allow(unused_imports, reason = "the benches share this module and run no engine suite")]
pub(crate) use on_both_engines;

/// Whether two JSON values are equal, floats within `rel` relative tolerance.
pub fn json_close(a: &serde_json::Value, b: &serde_json::Value, rel: f64) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap_or(f64::NAN), y.as_f64().unwrap_or(f64::NAN));
            x == y || (x - y).abs() <= rel * x.abs().max(y.abs())
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_close(a, b, rel)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_close(v, w, rel)))
        }
        _ => a == b,
    }
}
/// The settings and engine parts that continue `trace` idle, as a replay's
/// derived run does: over the sample dataset, in a sandbox with short
/// deadlines, answering only from the trace's recorded replies.
pub fn idle_engine_parts(
    trace: &eval_dag::trace::Trace,
) -> (eval_dag::run::RunSettings, eval_dag::engine::EngineParts) {
    use std::sync::Arc;
    let mut settings = trace.header.settings.clone();
    settings.dataset_dir = root().join("sample-data/fraud");
    let dataset = Arc::new(eval_dag::dataset::Dataset::load(&settings.dataset_dir).unwrap());
    let config = sandbox_config(Duration::from_secs(2), Duration::from_secs(4));
    let parts = eval_dag::engine::EngineParts::new(
        dataset.clone(),
        Arc::new(eval_dag::llm::ReplayClient::from_trace(trace)),
        Arc::new(eval_dag::sandbox::SandboxPool::new(&dataset.dir, config).unwrap()),
        Arc::new(eval_dag::prompts::Prompts::load(None).unwrap()),
        Arc::new(eval_dag::grade::Grader::from_settings(&settings.grading).unwrap()),
    );
    (settings, parts)
}

/// Where `results` departs from `eval_results.schema.json`, one line each (none: it follows it).
pub fn schema_errors(results: &serde_json::Value) -> Vec<String> {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../src/report/documents/eval_results.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    validator.iter_errors(results).map(|e| format!("{e} at {}", e.instance_path())).collect()
}

pub mod dags;
pub mod mock_anthropic;
pub mod mock_batch;
pub mod mock_llm;
pub mod mutate;
pub mod otlp;
pub mod runs;
pub mod svg;
pub mod tmux;
pub mod tools;
pub mod tui;

/// The scripted sample trace with every string's final newline cut (node code
/// included), written into `dir`: code as models often send it.
pub fn sample_without_final_newlines(dir: &std::path::Path) -> PathBuf {
    let text = std::fs::read_to_string(root().join(tui::SAMPLE)).unwrap();
    let path = dir.join("no-final-newlines.trace.jsonl");
    std::fs::write(&path, text.replace("\\n\"", "\"")).unwrap();
    path
}
