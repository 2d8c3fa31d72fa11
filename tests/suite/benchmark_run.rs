//! A run over a benchmark directory (`questions.jsonl` + `datasets/<name>/`):
//! three made-up datasets holding different numbers and six questions, two on
//! each, answered by a scripted model whose DAGs read `dataset.rows`. Each
//! question finds its own data when it is run, replayed with `--verify` (also
//! from a moved directory with `--dataset-root`, and with one dataset changed),
//! resumed after SIGKILL, its failed questions retried, re-criticised, worked on
//! by hand and checked on transformed copies (`--metamorphic`): the answers are
//! right only on the question's own dataset. A dry run renders each question's
//! prompts with its own dataset's schema.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::mock_llm::{MockLlm, Recorded, Reply};
use eval_dag::domain::{AttemptAt, Transform};
use eval_dag::engine::{self, EngineParts, NamedDataset, RunOptions};
use eval_dag::grade::Grader;
use eval_dag::llm::ReplayClient;
use eval_dag::prompts::Prompts;
use eval_dag::report::fold_trace;
use eval_dag::run::{Command, EngineEvent, Outcome};
use eval_dag::sandbox::SandboxPool;
use eval_dag::trace::Trace;
use eval_dag::tui::{App, Theme};
use serde_json::{Value, json};

/// Each dataset: its name, its description and the values of its rows.
const DATASETS: [(&str, &str, &[i64]); 3] = [
    ("shop", "Sales of a corner shop", &[1, 2, 3]),
    ("zoo", "Animals fed per keeper", &[10, 20]),
    ("weather", "Rainfall per day", &[100, 200, 300, 400]),
];

/// Write the benchmark directory into `root`.
pub fn write_benchmark(root: &Path) {
    let mut lines = Vec::new();
    for (name, description, values) in DATASETS {
        let dir = root.join("datasets").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let rows: Vec<Value> = values.iter().map(|v| json!({"v": v})).collect();
        std::fs::write(dir.join("data.json"), json!({ "rows": rows }).to_string()).unwrap();
        let metadata = json!({"description": description, "columns": {"v": {"type": "int"}},
            "dataset_keys": {"rows": "one row per record"}});
        std::fs::write(dir.join("metadata.json"), metadata.to_string()).unwrap();
        let sum: i64 = values.iter().sum();
        lines.push(json!({"id": format!("{name}_sum"), "question": "What is the total of v?", "difficulty": "easy",
            "expected_answer": sum, "dataset": name, "source_id": format!("{name}-1"), "scorer": "builtin"}));
        lines.push(json!({"id": format!("{name}_count"), "question": "How many rows are there?",
            "difficulty": "medium", "expected_answer": values.len(), "dataset": name}));
    }
    lines[0]["answer_format"] = json!("@total[value]");
    lines[0]["constraints"] = json!("Use every row.");
    lines[0]["curator_note"] = json!("a field this version does not know");
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    std::fs::write(root.join("questions.jsonl"), text).unwrap();
}

/// Whether `prompt` asks for a DAG.
pub fn is_build(prompt: &str) -> bool {
    prompt.contains("You design small, correct data-analysis programs")
}

/// The id of the question a build prompt asks about.
pub fn question_id(prompt: &str) -> String {
    let rest = prompt.rsplit("Question ").next().unwrap_or_default();
    rest.split(' ').next().unwrap_or_default().to_string()
}

/// A one-node DAG answering `id`: the total or the count of `dataset.rows`.
fn dag(id: &str) -> String {
    let code = match id.ends_with("_sum") {
        true => "def answer(rows):\n    return sum(row['v'] for row in rows)\n",
        false => "def answer(rows):\n    return len(rows)\n",
    };
    json!({"question_id": id, "description": "read the rows", "final_answer_node": "answer", "edges": [],
        "nodes": [{"node_id": "answer", "operation": "total or count", "function_name": "answer",
            "inputs": {"rows": "dataset.rows"}, "expected_output_type": "int", "layer": 0, "code": code}]})
    .to_string()
}

/// Approve every layer, build every question's DAG; the build of `slow`
/// waits a minute while `slowed` holds.
pub fn script(
    slow: Option<(&'static str, Arc<AtomicBool>)>,
) -> impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static {
    move |request, _| {
        let prompt = request.prompt();
        if prompt.contains("review one layer") {
            return Reply::Text(json!({"is_valid": true, "issues": [], "reasoning": "reads the rows"}).to_string());
        }
        let id = question_id(&prompt);
        let reply = Reply::Text(dag(&id));
        match &slow {
            Some((slow, slowed)) if id == *slow && slowed.load(Ordering::SeqCst) => {
                Reply::Delayed(Duration::from_secs(60), Box::new(reply))
            }
            _ => reply,
        }
    }
}

pub fn eval_dag(home: &Path, mock: &MockLlm, args: &[&str]) -> tokio::process::Command {
    let mut command = tokio::process::Command::from(common::eval_dag(home));
    command
        .current_dir(common::root())
        .args(args)
        .args(["--headless", "--llm", "openai", "--model", "scripted-model", "--base-url"])
        .arg(mock.base_url())
        .env("OPENAI_API_KEY", "test-key");
    command
}

/// The expected answer of question `id`, from the datasets' values.
pub fn expected(id: &str) -> i64 {
    let (name, values) = DATASETS.iter().find(|(name, _, _)| id.starts_with(name)).map(|(n, _, v)| (n, v)).unwrap();
    if id == format!("{name}_sum") { values.iter().sum() } else { values.len() as i64 }
}

/// Every question of the run in `out` answered right, on its own dataset.
fn assert_each_on_its_own_data(out: &Path) {
    let state = fold_trace(&Trace::read(&out.join("trace.jsonl")).unwrap());
    assert_eq!(state.questions.len(), 6);
    for q in &state.questions {
        let attempt = q.latest().unwrap();
        assert_eq!(attempt.outcome, Some(Outcome::Passed), "{}", q.question.id);
        assert_eq!(attempt.final_answer, Some(json!(expected(&q.question.id))), "{}", q.question.id);
        assert_eq!(q.correct(), Some(true), "{}", q.question.id);
    }
}

/// What the terminal UI draws of `app`, 160×40.
fn screen(app: &App) -> String {
    common::tui::screen(app, 160, 40)
}

/// `eval-dag run BENCH_DIR` in `home`, writing to `home/run`.
/// Moves the benchmark directory away, continues the run in `out` with `how`
/// (`--resume` or `--retry-failed`) finding its datasets under `--dataset-root`,
/// and checks it ends with every question right on its own data.
async fn continue_moved(home: &Path, mock: &MockLlm, bench: &Path, out: &Path, how: &str) {
    let moved = home.join("moved");
    std::fs::rename(bench, &moved).unwrap();
    let continued = eval_dag(home, mock, &["run", "--no-cache"])
        .arg(how)
        .arg(out)
        .arg("--dataset-root")
        .arg(&moved)
        .output()
        .await
        .unwrap();
    assert_eq!(continued.status.code(), Some(0), "{}", String::from_utf8_lossy(&continued.stderr));
    assert_each_on_its_own_data(out);
}

async fn run_benchmark(home: &Path, mock: &MockLlm, bench: &Path) -> PathBuf {
    run_benchmark_with(home, mock, bench, &[], "run").await
}

/// Runs the benchmark in `bench` with `flags` into `home/<name>`, which it returns, expecting exit 0.
async fn run_benchmark_with(home: &Path, mock: &MockLlm, bench: &Path, flags: &[&str], name: &str) -> PathBuf {
    let out = home.join(name);
    let output = eval_dag(home, mock, &["run"]).arg(bench).args(flags).arg("--out").arg(&out).output().await.unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn each_question_runs_verifies_and_is_recriticised_on_its_own_dataset() {
    let mock = MockLlm::start(script(None)).await;
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench");
    write_benchmark(&bench);
    let out = run_benchmark(dir.path(), &mock, &bench).await;
    assert_each_on_its_own_data(&out);

    let trace = Trace::read(&out.join("trace.jsonl")).unwrap();
    let named: Vec<(&str, usize)> =
        trace.header.settings.datasets.iter().map(|d| (d.name.as_str(), d.hash.len())).collect();
    assert_eq!(named, [("shop", 64), ("zoo", 64), ("weather", 64)], "the header names every dataset with its hash");
    let shop = fold_trace(&trace).question("shop_sum").unwrap().question.clone();
    assert_eq!(shop.extra["curator_note"], json!("a field this version does not know"));

    let builds: Vec<String> = mock.requests().iter().map(Recorded::prompt).filter(|p| is_build(p)).collect();
    let zoo = builds.iter().find(|p| question_id(p) == "zoo_count").unwrap();
    assert!(zoo.contains("Animals fed per keeper") && !zoo.contains("corner shop"), "its own schema: {zoo}");
    let shop = builds.iter().find(|p| question_id(p) == "shop_sum").unwrap();
    assert!(shop.contains("Constraints: Use every row.") && shop.contains("Answer format: @total[value]"), "{shop}");
    assert!(!zoo.contains("Answer format"), "no format line for a question without one");

    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("eval_results.json")).unwrap()).unwrap();
    let datasets: Vec<&str> =
        results["detailed_results"].as_array().unwrap().iter().filter_map(|r| r["dataset"].as_str()).collect();
    assert_eq!(datasets, ["shop", "shop", "zoo", "zoo", "weather", "weather"]);
    let by_dataset = &results["dataset_breakdown"];
    let names: Vec<&String> = by_dataset.as_object().unwrap().keys().collect();
    assert_eq!(names, ["shop", "zoo", "weather"], "in the order of their first question");
    assert_eq!((by_dataset["zoo"]["total"].as_u64(), by_dataset["zoo"]["pass_rate"].as_f64()), (Some(2), Some(1.0)));
    assert_eq!(by_dataset["zoo"]["grading"]["correct"], 2);
    let html = std::fs::read_to_string(out.join("eval_report.html")).unwrap();
    let table = html.split("<table class=\"datasets\">").nth(1).and_then(|rest| rest.split("</table>").next());
    let table = table.expect("the report's summary has a table of the datasets");
    assert!(table.contains("<td>zoo</td><td>2</td><td>2</td>"), "{table}");

    let mut app = App::new(fold_trace(&trace), Theme::dark(), None, None);
    let dashboard = screen(&app);
    assert!(dashboard.lines().any(|l| l.contains("dataset") && l.contains("question")), "{dashboard}");
    let row = dashboard.lines().find(|l| l.contains("✓ 1000")).expect(&dashboard);
    assert!(row.contains(" weather "), "{row}");
    common::press(&mut app, "/zoo\n");
    let filtered = screen(&app);
    // The id column is as wide as the longest id: every id whole.
    assert!(filtered.contains("zoo_sum ") && filtered.contains("zoo_count "), "{filtered}");
    let other_rows = filtered.lines().filter(|l| l.starts_with("shop_") || l.starts_with("weather_")).count();
    assert_eq!(other_rows, 0, "only zoo's rows in the table: {filtered}");
    common::press(&mut app, "\n");
    let question = screen(&app);
    assert!(question.contains("DAG · easy · zoo · "), "the question screen names its dataset: {question}");

    let verify = |root: Option<&Path>| {
        let mut command = common::eval_dag(dir.path());
        command.args(["replay", "--verify"]).arg(out.join("trace.jsonl"));
        if let Some(root) = root {
            command.arg("--dataset-root").arg(root);
        }
        command.output().unwrap()
    };
    let verified = verify(None);
    let stdout = String::from_utf8_lossy(&verified.stdout);
    assert_eq!(verified.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&verified.stderr));
    assert!(stdout.contains("verified 6 executed DAGs: no drift"), "{stdout}");

    let moved = dir.path().join("moved");
    std::fs::rename(&bench, &moved).unwrap();
    let lost = verify(None);
    assert_eq!(lost.status.code(), Some(2), "the datasets are not where the run found them");
    assert!(String::from_utf8_lossy(&lost.stderr).contains("--dataset-root"));
    let found = verify(Some(&moved));
    assert_eq!(found.status.code(), Some(0), "{}", String::from_utf8_lossy(&found.stdout));

    let recritic = common::eval_dag(dir.path())
        .args(["recritic", "--llm", "openai", "--base-url"])
        .arg(mock.base_url())
        .arg(&out)
        .arg("--dataset-root")
        .arg(&moved)
        .arg("--out")
        .arg(dir.path().join("recritic"))
        .env("OPENAI_API_KEY", "test-key")
        .output()
        .unwrap();
    assert_eq!(recritic.status.code(), Some(0), "{}", String::from_utf8_lossy(&recritic.stderr));
    let again = fold_trace(&Trace::read(&dir.path().join("recritic/trace.jsonl")).unwrap());
    for q in &again.questions {
        let trial = q.attempts().iter().flat_map(|a| &a.iterations).filter_map(|it| it.trial.as_ref()).next_back();
        let answer = trial.and_then(|t| t.final_answer.clone());
        assert_eq!(answer, Some(json!(expected(&q.question.id))), "re-criticised on its own data: {}", q.question.id);
    }

    let zoo_data = moved.join("datasets/zoo/data.json");
    std::fs::write(&zoo_data, json!({"rows": [{"v": 10}, {"v": 21}]}).to_string()).unwrap();
    let drifted = verify(Some(&moved));
    let stdout = String::from_utf8_lossy(&drifted.stdout);
    assert_eq!(drifted.status.code(), Some(1), "{stdout}");
    let changed: Vec<&str> = stdout.lines().filter(|l| l.contains("changed since the run")).collect();
    assert_eq!(changed.len(), 1, "one line for the one changed dataset: {stdout}");
    assert!(changed[0].contains("dataset zoo"), "{stdout}");
    assert!(stdout.contains("DRIFT zoo_sum"), "the answer on the changed data drifts: {stdout}");
    assert!(!stdout.contains("DRIFT shop_sum"), "{stdout}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_selection_runs_only_the_questions_it_names() {
    let mock = MockLlm::start(script(None)).await;
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench");
    write_benchmark(&bench);
    let out = run_benchmark_with(dir.path(), &mock, &bench, &["--dataset", "zoo"], "run").await;
    let trace = Trace::read(&out.join("trace.jsonl")).unwrap();
    let ids: Vec<String> = fold_trace(&trace).questions.iter().map(|q| q.question.id.to_string()).collect();
    assert_eq!(ids, ["zoo_sum", "zoo_count"]);
    let names: Vec<&str> = trace.header.settings.datasets.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["zoo"], "the header names the datasets the run uses");

    let flags = ["--only", "weather_count,shop_sum", "--questions", "1"];
    let only = run_benchmark_with(dir.path(), &mock, &bench, &flags, "only").await;
    let ids: Vec<String> = fold_trace(&Trace::read(&only.join("trace.jsonl")).unwrap())
        .questions
        .iter()
        .map(|q| q.question.id.to_string())
        .collect();
    assert_eq!(ids, ["shop_sum"], "the file's order, then the first one");

    let unknown = eval_dag(dir.path(), &mock, &["run"]).arg(&bench).args(["--only", "nope"]).output().await.unwrap();
    let stderr = String::from_utf8_lossy(&unknown.stderr);
    assert_eq!((unknown.status.code(), stderr.trim().lines().count()), (Some(2), 1), "{stderr}");
    assert!(stderr.contains("no question \"nope\""), "{stderr}");
}

/// SIGKILL `child` (a run writing `trace`) once `count` questions finished in
/// it, within a minute.
pub(crate) async fn kill_once_finished(child: tokio::process::Child, trace: &Path, count: usize) {
    let finished = || std::fs::read_to_string(trace).unwrap_or_default().matches("\"question_finished\"").count();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while finished() < count {
        assert!(tokio::time::Instant::now() < deadline, "{count} questions finish within a minute");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // SAFETY: signalling our own child process, which has not been waited for.
    assert_eq!(unsafe { libc::kill(child.id().unwrap() as i32, libc::SIGKILL) }, 0);
    child.wait_with_output().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn killed_and_resumed_it_finishes_every_question_on_its_own_data() {
    let slowed = Arc::new(AtomicBool::new(true));
    let mock = MockLlm::start(script(Some(("weather_count", slowed.clone())))).await;
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench");
    write_benchmark(&bench);
    let out = dir.path().join("run");
    let trace = out.join("trace.jsonl");
    let child = eval_dag(dir.path(), &mock, &["run"])
        .arg(&bench)
        .args(["--no-cache", "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    kill_once_finished(child, &trace, 5).await;
    let before = mock.requests().len();

    // The resumed run asks the server the run recorded: now without the wait.
    slowed.store(false, Ordering::SeqCst);
    continue_moved(dir.path(), &mock, &bench, &out, "--resume").await;
    let builds = mock.requests()[before..].iter().filter(|r| is_build(&r.prompt())).count();
    assert_eq!(builds, 1, "only the unfinished question is built again");
}

#[tokio::test(flavor = "multi_thread")]
async fn by_hand_a_node_reruns_on_its_questions_dataset() {
    let mock = MockLlm::start(script(None)).await;
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench");
    write_benchmark(&bench);
    let out = run_benchmark(dir.path(), &mock, &bench).await;
    let trace = Trace::read(&out.join("trace.jsonl")).unwrap();
    let prior = fold_trace(&trace);
    let config = common::sandbox_config(Duration::from_secs(2), Duration::from_secs(4));
    let named: std::collections::BTreeMap<String, NamedDataset> = DATASETS
        .iter()
        .map(|(name, _, _)| {
            let dataset = Arc::new(eval_dag::dataset::Dataset::load(bench.join("datasets").join(name)).unwrap());
            let executor = Arc::new(SandboxPool::new(&dataset.dir, config.clone()).unwrap());
            (name.to_string(), NamedDataset { dataset, executor })
        })
        .collect();
    let first = named["shop"].clone();
    let parts = EngineParts {
        dataset: first.dataset,
        executor: first.executor,
        llm: Arc::new(ReplayClient::from_trace(&trace)),
        prompts: Arc::new(Prompts::load(None).unwrap()),
        grader: Arc::new(Grader::from_settings(&trace.header.settings.grading).unwrap()),
        metamorphic: None,
        named,
        differential: None,
    };
    let options = RunOptions { keep_alive: true, prior: Some(prior.clone()), idle: true, ..RunOptions::default() };
    let mut handle = engine::start(parts, None, trace.header.settings.clone(), options);
    for id in ["weather_sum", "zoo_count"] {
        let attempt = prior.question(id).unwrap().latest().unwrap();
        let at = AttemptAt::new(id, attempt.number).iteration(1);
        let code = Some("def answer(rows):\n    return max(row['v'] for row in rows)\n".to_string());
        handle.commands.send(Command::RunNode { at, node_id: "answer".into(), code }).unwrap();
        let result = loop {
            let (_, event) =
                tokio::time::timeout(Duration::from_secs(30), handle.events.recv()).await.unwrap().unwrap();
            if let EngineEvent::NodeRan { result, .. } = event {
                break result;
            }
        };
        let largest = DATASETS.iter().find(|(name, _, _)| id.starts_with(name)).unwrap().2.iter().max().copied();
        assert_eq!(result.final_answer, largest.map(|v| json!(v)), "{id}: {:?}", result.error);
    }
    let _ = handle.commands.send(Command::CancelRun);
}

/// The low end of the prompt tokens `run --dry-run` counts over the questions `only` of `bench`.
async fn dry_run_prompt_tokens(home: &Path, mock: &MockLlm, bench: &Path, only: &str) -> u64 {
    let output = eval_dag(home, mock, &["run"]).arg(bench).args(["--dry-run", "--only", only]).output().await.unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    let total = stdout.lines().find(|l| l.starts_with("total:")).expect(&stdout);
    let tokens = total.split("prompt tokens ").nth(1).and_then(|rest| rest.split('–').next());
    tokens.and_then(|low| low.parse().ok()).expect(total)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dry_run_renders_each_questions_prompts_with_its_own_dataset() {
    let mock = MockLlm::start(script(None)).await;
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench");
    write_benchmark(&bench);
    // The weather's schema says far more than the shop's: a prompt rendered
    // with the wrong one is thousands of tokens off.
    let metadata = bench.join("datasets/weather/metadata.json");
    let mut weather: Value = serde_json::from_str(&std::fs::read_to_string(&metadata).unwrap()).unwrap();
    weather["description"] = json!("Rainfall per day, in millimetres, at one station. ".repeat(400));
    std::fs::write(&metadata, weather.to_string()).unwrap();

    let shop = dry_run_prompt_tokens(dir.path(), &mock, &bench, "shop_sum").await;
    let weather = dry_run_prompt_tokens(dir.path(), &mock, &bench, "weather_count").await;
    assert!(weather > shop + 3_000, "the weather's own schema is in its prompts: {weather} vs {shop}");
    let both = dry_run_prompt_tokens(dir.path(), &mock, &bench, "shop_sum,weather_count").await;
    assert_eq!(both, shop + weather, "the weather question after the shop's is rendered with the weather's schema");
    assert!(mock.requests().is_empty(), "a dry run calls nobody");
}

#[tokio::test(flavor = "multi_thread")]
async fn retrying_the_failed_rebuilds_only_them_each_on_its_own_dataset() {
    // The weather count's first DAGs read a key its dataset does not have: the critic rejects them.
    let broken = Arc::new(AtomicBool::new(true));
    let answer = script(None);
    let mock = MockLlm::start({
        let broken = broken.clone();
        move |request: &Recorded, n| {
            let prompt = request.prompt();
            if is_build(&prompt) && question_id(&prompt) == "weather_count" && broken.load(Ordering::SeqCst) {
                return Reply::Text(dag("weather_count").replace("dataset.rows", "dataset.nope"));
            }
            answer(request, n)
        }
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench");
    write_benchmark(&bench);
    let out = dir.path().join("run");
    let first = eval_dag(dir.path(), &mock, &["run", "--no-cache", "--max-iterations", "1"])
        .arg(&bench)
        .arg("--out")
        .arg(&out)
        .output()
        .await
        .unwrap();
    assert_eq!(first.status.code(), Some(1), "{}", String::from_utf8_lossy(&first.stderr));
    let state = fold_trace(&Trace::read(&out.join("trace.jsonl")).unwrap());
    let failed: Vec<&str> = state
        .questions
        .iter()
        .filter(|q| q.latest().and_then(|a| a.outcome) != Some(Outcome::Passed))
        .map(|q| q.question.id.as_str())
        .collect();
    assert_eq!(failed, ["weather_count"]);
    let before = mock.requests().len();

    broken.store(false, Ordering::SeqCst);
    continue_moved(dir.path(), &mock, &bench, &out, "--retry-failed").await;
    let builds: Vec<String> = mock.requests()[before..]
        .iter()
        .map(Recorded::prompt)
        .filter(|p| is_build(p))
        .map(|p| question_id(&p))
        .collect();
    assert_eq!(builds, ["weather_count"], "only the failed question is built again");
    let state = fold_trace(&Trace::read(&out.join("trace.jsonl")).unwrap());
    let weather = state.question("weather_count").unwrap();
    assert_eq!(weather.attempts().len(), 2, "a new attempt beside the failed one");
    assert_eq!(weather.latest().map(|a| a.number), Some(2));
}

#[tokio::test(flavor = "multi_thread")]
async fn metamorphic_checks_run_each_question_on_copies_of_its_own_dataset() {
    let mock = MockLlm::start(script(None)).await;
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench");
    write_benchmark(&bench);
    let out = run_benchmark_with(dir.path(), &mock, &bench, &["--metamorphic"], "run").await;
    assert_each_on_its_own_data(&out);
    let state = fold_trace(&Trace::read(&out.join("trace.jsonl")).unwrap());
    for q in &state.questions {
        let id = q.question.id.as_str();
        let metamorphic = q.latest().and_then(|a| a.metamorphic.clone()).expect(id);
        let on = |transform: Transform| {
            let check = metamorphic.checks.iter().find(|c| c.transform == transform);
            check.and_then(|c| c.answer.clone()).unwrap_or_else(|| panic!("{id}: {transform:?} {metamorphic:?}"))
        };
        assert_eq!(on(Transform::Duplicate), json!(2 * expected(id)), "{id}: every row of its own dataset twice");
        assert_eq!(on(Transform::Shuffle), json!(expected(id)), "{id}");
        assert!(metamorphic.checks.iter().all(|c| !c.broken), "{id}: {metamorphic:?}");
    }
}
