//! `run --baselines` through the real binary against a scripted server whose
//! direct answers are right for chosen questions: each question's flags, the
//! summary and per-level tables, the loop's lift over answering directly, the
//! report's section, `grade` and `compare`, resume in the middle of the
//! baselines, a cached rerun that sends nothing, and the offline refusal.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use crate::common;
use common::mock_llm::{MockLlm, Recorded, Reply};

/// The questions: the loop answers every one with the row count (50,000).
/// q_01 is answerable without the data, q_02 only from the schema, q_03 by
/// neither, and q_04's scorer accepts an empty answer.
const QUESTIONS: &str = r#"{"id": "q_01", "question": "How many transactions does the dataset hold?", "difficulty": "easy", "expected_answer": 50000}
{"id": "q_02", "question": "How many thousand transactions are there?", "difficulty": "medium", "expected_answer": 50}
{"id": "q_03", "question": "How many rows does the table have?", "difficulty": "medium", "expected_answer": 50000}
{"id": "q_04", "question": "Which column is never filled in?", "difficulty": "hard", "expected_answer": ""}
"#;

/// The baseline model's direct answers: (question text, without the data, from the schema).
const DIRECT: [(&str, &str, &str); 4] = [
    ("How many transactions does the dataset hold?", r#"{"answer": 50000}"#, r#"{"answer": 50000}"#),
    ("How many thousand transactions are there?", r#"{"answer": 7}"#, "Here you go:\n```json\n{\"answer\": 50,}\n```"),
    ("How many rows does the table have?", "I cannot know that without the data.", r#"{"answer": 49000}"#),
    ("Which column is never filled in?", r#"{"answer": "merch_zipcode"}"#, r#"{"answer": "merch_zipcode"}"#),
];

fn is_baseline(request: &Recorded) -> bool {
    request.prompt().contains("You answer data-analysis questions directly")
}

/// The scripted server: baseline prompts get [`DIRECT`]'s answers (`no_code`'s
/// prompts show the schema: "Dataset keys:"), every build the row-count DAG,
/// every review an approval.
pub(crate) fn script(request: &Recorded) -> Reply {
    let prompt = request.prompt();
    if is_baseline(request) {
        let with_data = prompt.contains("Dataset keys:");
        let (_, no_data, no_code) = DIRECT.iter().find(|(question, ..)| prompt.contains(question)).unwrap();
        return Reply::Text((if with_data { no_code } else { no_data }).to_string());
    }
    if prompt.contains("review one layer") {
        return Reply::Text(json!({"is_valid": true, "issues": [], "reasoning": "reads the count"}).to_string());
    }
    let id = prompt.split("Question q_").nth(1).map_or("01", |rest| &rest[..2]);
    Reply::Text(
        json!({"question_id": format!("q_{id}"), "description": "read the row count", "final_answer_node": "count",
            "edges": [], "nodes": [{"node_id": "count", "operation": "read the row count", "function_name": "count",
            "inputs": {"overview": "dataset.overview"}, "expected_output_type": "int", "layer": 0,
            "code": "def count(overview):\n    return overview['row_count']\n"}]})
        .to_string(),
    )
}

/// `eval-dag ARGS` against `base_url` with a key, its config and cache under `home`.
async fn eval_dag(home: &Path, base_url: &str, args: &[&str]) -> Output {
    let mut command = tokio::process::Command::from(common::eval_dag(home));
    command.current_dir(common::root()).args(args).env("OPENAI_API_KEY", "test-key");
    if matches!(args.first(), Some(&"run" | &"baseline")) {
        command.args(["--llm", "openai", "--base-url", base_url]);
    }
    command.output().await.unwrap()
}

/// A run of [`QUESTIONS`] into `home/<name>`, with `extra` flags (`--baselines` among them, or not).
pub(crate) async fn run(home: &Path, mock: &MockLlm, name: &str, extra: &[&str]) -> (Output, std::path::PathBuf) {
    let questions = home.join("questions.jsonl");
    std::fs::write(&questions, QUESTIONS).unwrap();
    let out = home.join(name);
    let mut args = vec!["run", "sample-data/fraud", "--headless", "--questions-file"];
    args.extend([questions.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    args.extend(extra);
    (eval_dag(home, &mock.base_url(), &args).await, out)
}

fn results(run: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(run.join("eval_results.json")).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn baselines_say_which_questions_need_the_data_and_what_the_loop_adds() {
    let mock = MockLlm::start(|request, _| script(request)).await;
    let home = tempfile::tempdir().unwrap();
    let (output, out) = run(home.path(), &mock, "run", &["--baselines", "--no-cache"]).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "two of the loop's answers are wrong: {stderr}");
    assert_eq!(mock.requests().iter().filter(|r| is_baseline(r)).count(), 8, "two baseline calls per question");
    let doc = results(&out);
    assert!(common::schema_errors(&doc).is_empty(), "{:#?}", common::schema_errors(&doc));
    let rows = doc["detailed_results"].as_array().unwrap();
    let flags: Vec<(&Value, &Value)> =
        rows.iter().map(|r| (&r["answerable_without_data"], &r["scorer_accepts_empty"])).collect();
    let (yes, no) = (&json!(true), &json!(false));
    assert_eq!(flags, [(yes, no), (no, no), (no, no), (no, yes)]);
    assert_eq!(rows[1]["baselines"]["no_code"], json!({"answer": 50, "correct": true, "score": 1.0}));
    assert_eq!(rows[2]["baselines"]["no_data"]["answer"], "I cannot know that without the data.");
    // constant: the most common other expected answer of the same type, ties to the first in list
    // order: q_01's is q_02's 50 (50 and 50000 once each), q_02's and q_03's 50000, q_04 has none.
    let constants: Vec<&Value> = rows.iter().map(|r| &r["baselines"]["constant"]["answer"]).collect();
    assert_eq!(constants, [&json!(50), &json!(50000), &json!(50000), &Value::Null]);

    let summary = &doc["summary"];
    let accuracy = |name: &str| summary["baselines"][name]["accuracy"].as_f64().unwrap();
    assert_eq!(summary["baselines"]["empty"]["answered"], 4);
    let accuracies = (accuracy("empty"), accuracy("constant"), accuracy("no_data"), accuracy("no_code"));
    assert_eq!(accuracies, (0.25, 0.25, 0.25, 0.5));
    // The loop gets q_01 and q_03 right; no_code q_01 and q_02: q_03 gained, q_02 lost.
    let lift = &summary["baselines"]["no_code"]["lift"];
    assert_eq!((&lift["gained"], &lift["lost"], &lift["tokens_per_extra_right"]), (&json!(1), &json!(1), &Value::Null));
    // Needing the data: q_02, q_03 and q_04 (no_data wrong), of which the loop gets q_03.
    assert_eq!(summary["needs_data"], json!({"answered": 3, "accuracy": 1.0 / 3.0}));
    let medium = &doc["difficulty_breakdown"]["medium"];
    assert_eq!(medium["baselines"]["no_code"]["accuracy"], 0.5, "per level: q_02 of q_02 and q_03");
    assert_eq!(medium["needs_data"], json!({"answered": 2, "accuracy": 0.5}));
    assert_eq!(doc["roles"]["baseline"]["calls"], 8, "the baseline role's calls: {:#}", doc["roles"]);
    assert!(summary["settings"]["roles"]["baseline"].is_object(), "a run with baselines lists the role");
    assert!(stderr.contains("baselines: the loop 50% (2/4) · empty 25% (1/4)"), "{stderr}");

    let report = std::fs::read_to_string(out.join("eval_report.html")).unwrap();
    let section = &report[report.find("id=\"baselines\"").unwrap()..];
    assert!(section.contains("<h3>Answerable without the data (1)</h3>"), "{section}");
    assert!(section.contains("<h3>Scored right with an empty answer (1)</h3>"));

    let graded = eval_dag(home.path(), "", &["grade", out.to_str().unwrap()]).await;
    let graded_text = String::from_utf8_lossy(&graded.stdout);
    assert!(graded_text.contains("baselines: the loop 50% (2/4)"), "{graded_text}");

    let compared =
        eval_dag(home.path(), "", &["compare", "--json", out.to_str().unwrap(), out.to_str().unwrap()]).await;
    let compared: Value = serde_json::from_slice(&compared.stdout).unwrap();
    assert_eq!(compared["runs"][1]["baselines"]["no_data"]["accuracy"], 0.25, "{compared:#}");
    assert!(compared["rows"].is_array());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_resumed_run_asks_only_the_baselines_it_has_no_reply_for_and_a_cached_rerun_sends_nothing() {
    // q_03's no_code call is refused (400) the first time only.
    let refused = std::sync::atomic::AtomicBool::new(false);
    let mock = MockLlm::start(move |request, _| {
        let prompt = request.prompt();
        if is_baseline(request)
            && prompt.contains("How many rows does the table have?")
            && prompt.contains("Dataset keys:")
            && !refused.swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            return Reply::Status(400, vec![], "{\"error\": {\"message\": \"overloaded\"}}".into());
        }
        script(request)
    })
    .await;
    let home = tempfile::tempdir().unwrap();
    let cache = home.path().join("responses.sqlite");
    let cache = cache.to_str().unwrap();
    let (_, out) = run(home.path(), &mock, "run", &["--baselines", "--cache", cache]).await;
    assert_eq!(results(&out)["detailed_results"][2]["baselines"]["no_code"]["answer"], Value::Null);
    let before = mock.requests().len();
    let base_url = mock.base_url();
    let resume = ["run", "--headless", "--resume", out.to_str().unwrap(), "--cache", cache];
    let resumed = eval_dag(home.path(), &base_url, &resume).await;
    let asked: Vec<Recorded> = mock.requests()[before..].to_vec();
    assert_eq!(asked.len(), 1, "only the unanswered baseline: {}", String::from_utf8_lossy(&resumed.stderr));
    assert!(asked[0].prompt().contains("How many rows does the table have?"));
    assert_eq!(results(&out)["detailed_results"][2]["baselines"]["no_code"]["answer"], 49000);

    let before = mock.requests().len();
    let (again, rerun) = run(home.path(), &mock, "again", &["--baselines", "--cache", cache]).await;
    let sent: Vec<String> = mock.requests()[before..].iter().map(|r| r.prompt().chars().take(300).collect()).collect();
    assert!(sent.is_empty(), "every call answered from the cache: {sent:#?}");
    assert_eq!(results(&rerun)["summary"]["baselines"], results(&out)["summary"]["baselines"]);
    assert_eq!(again.status.code(), Some(1));
}

#[tokio::test(flavor = "multi_thread")]
async fn baselines_with_the_offline_planner_are_refused_in_one_line() {
    let home = tempfile::tempdir().unwrap();
    let output = tokio::process::Command::from(common::eval_dag(home.path()))
        .current_dir(common::root())
        .args(["run", "sample-data/fraud", "--headless", "--llm", "offline", "--baselines", "--questions", "1"])
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("baselines need an LLM"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_finished_run_gets_its_baselines_as_a_derived_run_and_is_never_written_to() {
    let mock = MockLlm::start(|request, _| script(request)).await;
    let home = tempfile::tempdir().unwrap();
    let (_, source) = run(home.path(), &mock, "source", &["--no-cache"]).await;
    assert!(results(&source)["summary"].get("baselines").is_none(), "no baselines asked");
    let original = std::fs::read(source.join("trace.jsonl")).unwrap();
    let derived = home.path().join("derived");
    let before = mock.requests().len();
    let args = ["baseline", source.to_str().unwrap(), "--out", derived.to_str().unwrap()];
    let output = eval_dag(home.path(), &mock.base_url(), &args).await;
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("baselines: the loop 50% (2/4) · empty 25% (1/4)"), "{stdout}");
    let asked = &mock.requests()[before..];
    assert!(asked.len() == 8 && asked.iter().all(is_baseline), "only the baseline calls: {}", asked.len());
    assert_eq!(std::fs::read(source.join("trace.jsonl")).unwrap(), original, "the source is never written to");
    let doc = results(&derived);
    assert_eq!(doc["summary"]["baselines"]["no_code"]["accuracy"], 0.5);
    assert_eq!(doc["detailed_results"][0]["answerable_without_data"], true);
    let header: Value =
        serde_json::from_str(std::fs::read_to_string(derived.join("trace.jsonl")).unwrap().lines().next().unwrap())
            .unwrap();
    assert_eq!(header["derived_from"]["path"], source.join("trace.jsonl").to_str().unwrap());
    assert_eq!(header["settings"]["baselines"], true);

    let again = eval_dag(home.path(), &mock.base_url(), &args).await;
    assert_eq!(again.status.code(), Some(2), "an --out holding a run is refused");
}
