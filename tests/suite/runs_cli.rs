//! `eval-dag runs` through the real binary over real runs it made: two
//! finished offline runs and a live one (its review held back by a mock
//! Anthropic server) that is `running` while the binary holds its trace's
//! lock and `interrupted` once SIGKILL freed it; the table off a terminal, a
//! missing directory, `eval-dag` alone off a terminal; and the browser in a
//! real terminal: three runs, one opened and left, two marked and compared.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::mock_anthropic::{MockAnthropic, Reply};
use common::mock_llm::row_count_reply;
use serde_json::Value;

/// The keys of each run in `runs --json`, in order.
const KEYS: [&str; 15] = [
    "path",
    "started",
    "dataset",
    "models",
    "questions",
    "status",
    "pass_rate",
    "accuracy",
    "benchmark_accuracy",
    "epochs",
    "drafts",
    "tokens",
    "cost_usd",
    "cost_per_right",
    "wall_ms",
];

/// A finished offline run of two questions at `out`.
fn offline_run(home: &Path, out: &Path) {
    let run = common::eval_dag(home)
        .arg("run")
        .arg(common::root().join("sample-data/fraud"))
        .args(["--headless", "--questions", "2", "--seed", "7", "--out"])
        .arg(out)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
}

/// `runs --json` over `dir`, by path.
fn listed(home: &Path, dir: &Path) -> std::collections::BTreeMap<String, Value> {
    let out = common::eval_dag(home).args(["runs", "--json"]).arg(dir).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    rows.into_iter()
        .map(|row| {
            let name = Path::new(row["path"].as_str().unwrap()).file_name().unwrap().to_string_lossy().into_owned();
            (name, row)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn runs_json_lists_finished_live_and_killed_runs() {
    let home = tempfile::tempdir().unwrap();
    let runs = home.path().join("runs");
    offline_run(home.path(), &runs.join("a"));
    offline_run(home.path(), &runs.join("b"));
    // The review never answers while the test looks: the run stays live.
    let slow = MockAnthropic::start(move |request, _| {
        let reply = Reply::Text(row_count_reply(request));
        if request.prompt().contains("review one layer") {
            Reply::Delayed(Duration::from_secs(60), Box::new(reply))
        } else {
            reply
        }
    })
    .await;
    let live = runs.join("live");
    let trace = live.join("trace.jsonl");
    let mut command = common::eval_dag(home.path());
    command
        .arg("run")
        .arg(common::root().join("sample-data/fraud"))
        .args(["--headless", "--questions", "1", "--llm", "anthropic", "--base-url", &slow.base_url(), "--out"])
        .arg(&live)
        .env("ANTHROPIC_API_KEY", "k")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let child = tokio::process::Command::from(command).spawn().unwrap();
    let built = || std::fs::read_to_string(&trace).unwrap_or_default().contains("\"type\":\"dag_built\"");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while !built() {
        assert!(tokio::time::Instant::now() < deadline, "the DAG is built within a minute");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    let rows = listed(home.path(), &runs);
    assert_eq!(rows.keys().collect::<Vec<_>>(), ["a", "b", "live"]);
    for row in rows.values() {
        let keys: Vec<&str> = row.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, KEYS, "{row}");
    }
    let a = &rows["a"];
    assert_eq!(
        (a["status"].as_str(), a["questions"].as_u64(), a["dataset"].as_str()),
        (Some("finished"), Some(2), Some("fraud"))
    );
    assert_eq!((a["pass_rate"].as_f64(), a["epochs"].as_u64(), a["drafts"].as_u64()), (Some(1.0), Some(1), Some(1)));
    assert_eq!(a["models"]["dag_build"], "schema-planner");
    assert!(a["accuracy"].is_number() && a["benchmark_accuracy"].is_null() && a["wall_ms"].is_u64(), "{a}");
    let running = &rows["live"];
    assert_eq!((running["status"].as_str(), running["questions"].as_u64()), (Some("running"), Some(1)), "{running}");
    assert!(running["tokens"].as_u64().is_some_and(|t| t > 0), "tokens folded from the trace: {running}");

    // SAFETY: signalling our own child process, which has not been waited for.
    assert_eq!(unsafe { libc::kill(child.id().unwrap() as i32, libc::SIGKILL) }, 0);
    child.wait_with_output().await.unwrap();
    let killed = &listed(home.path(), &runs)["live"];
    assert_eq!(killed["status"].as_str(), Some("interrupted"), "SIGKILL freed the lock: {killed}");
}

#[test]
fn off_a_terminal_runs_prints_a_table_and_bad_directories_are_one_line() {
    let home = tempfile::tempdir().unwrap();
    let runs = home.path().join("runs");
    offline_run(home.path(), &runs.join("a"));
    let out = common::eval_dag(home.path()).arg("runs").arg(&runs).output().unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert!(table.lines().count() == 1 && table.contains("finished") && table.contains("2 questions"), "{table}");

    let out = common::eval_dag(home.path()).args(["runs", "no-such-dir"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!((out.status.code(), stderr.trim().lines().count()), (Some(2), 1), "{stderr}");
    assert!(stderr.contains("no-such-dir is not a directory"), "{stderr}");

    // With no command off a terminal: the usage error, as before.
    let out = common::eval_dag(home.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Usage"));
}

#[test]
fn on_a_terminal_the_browser_opens_a_run_comes_back_and_compares_two() {
    let Some(session) = common::tmux::session("browser") else { return };
    let home = tempfile::tempdir().unwrap();
    let runs = home.path().join("runs");
    for name in ["first", "second", "third"] {
        offline_run(home.path(), &runs.join(name));
    }
    common::tmux::run(&session, &format!("runs {}", runs.display()));
    let screen = common::tmux::wait_for_all(&session, &["3 under", "first", "second", "third"]);
    assert!(screen.contains("finished") && screen.contains("████████ 100%"), "{screen}");
    common::tmux::tmux(&["send-keys", "-t", &session, "Enter"]);
    let screen = common::tmux::wait_for_all(&session, &["REPLAY", "2 questions · 2 passed"]);
    assert!(screen.contains("2 questions · 2 passed"), "the run opened in the replay screens: {screen}");
    common::tmux::tmux(&["send-keys", "-t", &session, "Escape"]);
    let screen = common::tmux::wait_for(&session, "3 under");
    assert!(!screen.contains("REPLAY"), "back in the browser: {screen}");
    for key in ["Space", "Space"] {
        common::tmux::tmux(&["send-keys", "-t", &session, key]);
    }
    // Compare once both marks are drawn: a loaded machine may still be
    // drawing the browser it came back to.
    common::tmux::wait_for(&session, "2 marked");
    common::tmux::tmux(&["send-keys", "-t", &session, "c"]);
    let screen = common::tmux::wait_for_all(&session, &["eval-dag compare", "2 questions · 2 same"]);
    // The screen's blank lines left out: a long log is cut in its middle,
    // where the browser's status line would be.
    let shown: Vec<&str> = screen.lines().filter(|line| !line.trim().is_empty()).collect();
    assert!(screen.contains("2 questions · 2 same"), "the two marked runs compared: {}", shown.join("\n"));
    common::tmux::tmux(&["send-keys", "-t", &session, "Escape"]);
    let screen = common::tmux::wait_for(&session, "2 marked");
    assert!(screen.contains("3 under"), "back in the browser, the marks kept: {screen}");
    common::tmux::tmux(&["send-keys", "-t", &session, "q"]);
    let screen = common::tmux::wait_for(&session, "EXITED-0");
    assert!(screen.contains("EXITED-0"), "{screen}");
}
