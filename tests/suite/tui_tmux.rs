//! End to end in a real terminal: the binary inside tmux replays the sample
//! trace (navigating to the rejected question, its diff and conversation,
//! opening a question from the command palette, playing it at ×1 to its end, its clock
//! moving between events), compares runs, and runs live against a mock
//! LLM server — interrupted by Ctrl-C, SIGTERM or a closed terminal and then
//! resumed, or with a drawing fault planted; a batched run whose Ctrl-C
//! cancels its batches at the provider (or gives up on a slow cancel), then resumed — checking the screen
//! text, the run's records and that the terminal was restored.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::mock_batch::{Behaviour, MockBatch};
use common::mock_llm::{MockLlm, Recorded, Reply, layered_reply};
use common::tmux::{run, session, tmux, wait_for, wait_for_all, wait_until};
use eval_dag::run::EngineEvent;
use eval_dag::trace::Trace;
use serde_json::Value;

const TRACE: &str = "sample-data/traces/fraud-scripted.trace.jsonl";

#[test]
fn compare_opens_its_view_on_a_terminal_and_headless_prints_the_table() {
    let Some(session) = session("compare") else { return };
    run(&session, &format!("compare {TRACE} {TRACE}"));
    // Wait for every line asserted on: a capture can catch a frame half written.
    let source = format!("A: {TRACE}");
    let screen = wait_for_all(&session, &["2 questions · 2 same", &source, "q_01"]);
    assert!(screen.contains(&source) && screen.contains("q_01"), "{screen}");
    tmux(&["send-keys", "-t", &session, "Enter"]);
    let screen = wait_for_all(&session, &["final DAG: changes from A to B", "the final DAGs are the same"]);
    assert!(screen.contains("the final DAGs are the same"), "{screen}");
    tmux(&["send-keys", "-t", &session, "q"]);
    let screen = wait_for(&session, "EXITED-0");
    assert!(screen.contains("EXITED-0") && !screen.contains("2 questions · 2 same"), "left cleanly: {screen}");
    tmux(&["send-keys", "-t", &session, "clear", "Enter"]);
    run(&session, &format!("compare --headless {TRACE} {TRACE}"));
    // The first command's EXITED-0 may still be on screen until `clear` runs.
    let screen = wait_for_all(&session, &["EXITED-0", "0 regressions, 0 improvements", "question change"]);
    assert!(screen.contains("0 regressions, 0 improvements") && screen.contains("question change"), "{screen}");
}

#[test]
fn replay_navigate_to_the_rejected_question_and_open_the_diff() {
    let Some(session) = session("replay") else { return };
    run(&session, &format!("replay {TRACE}"));
    let screen = wait_for_all(&session, &["REPLAY", "q_01", "Which category has the highest fraud rate?"]);
    assert!(screen.contains("q_01") && screen.contains("Which category has the highest fraud rate?"), "{screen}");
    for key in ["j", "Enter", "h"] {
        tmux(&["send-keys", "-t", &session, key]);
    }
    let screen = wait_for_all(&session, &["findings on this node", "ZeroDivisionError"]);
    assert!(screen.contains("findings on this node") && screen.contains("ZeroDivisionError"), "{screen}");
    tmux(&["send-keys", "-t", &session, "d"]);
    let wanted = ["iteration 1 → 2", "resolved", "unknown_field", "~ changed rates"];
    let screen = wait_for_all(&session, &wanted);
    assert!(wanted.iter().all(|w| screen.contains(w)), "{screen}");
    // Escape goes alone: an escape byte followed at once by `t` reads as Alt-t on any terminal.
    tmux(&["send-keys", "-t", &session, "Escape"]);
    let screen = wait_for(&session, "findings on this node");
    assert!(screen.contains("findings on this node"), "Esc leaves the diff for the question: {screen}");
    for key in ["t", "t", "Tab", "Tab", "z"] {
        tmux(&["send-keys", "-t", &session, key]);
    }
    let wanted =
        ["changes since the last build", "━━ attempt 1 · iteration 2", "Your previous DAG (iteration 1) was rejected"];
    let screen = wait_for_all(&session, &wanted);
    assert!(
        screen.contains("━━ attempt 1 · iteration 2")
            && screen.contains("Your previous DAG (iteration 1) was rejected"),
        "the conversation tab opens at the selected iteration and shows what the rebuild prompt added: {screen}"
    );
    tmux(&["send-keys", "-t", &session, "q"]);
    let screen = wait_for(&session, "EXITED-0");
    assert!(screen.contains("EXITED-0"), "the app quit cleanly: {screen}");
    assert!(!screen.contains("REPLAY"), "the alternate screen was left and the terminal restored: {screen}");
}

/// The charts over the run's time above the dashboard, and the command
/// palette: Ctrl-P opens it, a few letters find a question, Enter opens it;
/// `:` opens it again over the question screen and Escape closes it.
#[test]
fn replay_shows_the_charts_and_the_palette_opens_a_question() {
    let Some(session) = session("palette") else { return };
    run(&session, &format!("replay {TRACE}"));
    let screen = wait_for_all(&session, &["REPLAY", "q_01", "finished ✓2 ✗0", "calls in flight"]);
    assert!(screen.contains("finished ✓2 ✗0"), "the charts count the finished questions: {screen}");
    tmux(&["send-keys", "-t", &session, "C-p"]);
    wait_for(&session, "palette ·");
    tmux(&["send-keys", "-t", &session, "-l", "many trans"]);
    let screen = wait_for_all(&session, &[": many trans", "How many transactions does the dataset hold?"]);
    assert!(screen.contains("q_02 How many transactions"), "the question is listed by its text: {screen}");
    tmux(&["send-keys", "-t", &session, "Enter"]);
    let screen = wait_for(&session, "esc back");
    assert!(!screen.contains("palette ·") && screen.contains("q_02"), "q_02's screen is open: {screen}");
    tmux(&["send-keys", "-t", &session, ":"]);
    wait_for(&session, "palette ·");
    tmux(&["send-keys", "-t", &session, "-l", "count"]);
    let screen = wait_for(&session, ": count");
    assert!(screen.contains("│node "), "the palette lists the DAG's nodes: {screen}");
    tmux(&["send-keys", "-t", &session, "Escape"]);
    // `q` only once the palette has closed: an Escape and a key that reach
    // the terminal in one read are Alt and that key (as in every terminal).
    let screen = wait_until(&session, |screen| !screen.contains("palette ·"));
    assert!(!screen.contains("palette ·") && screen.contains("esc back"), "Escape closed the palette: {screen}");
    tmux(&["send-keys", "-t", &session, "q"]);
    let screen = wait_for(&session, "EXITED-0");
    assert!(screen.contains("EXITED-0"), "the app quit cleanly: {screen}");
}

#[test]
fn replay_plays_the_sample_trace_at_x1_to_its_end() {
    let Some(session) = session("play") else { return };
    run(&session, &format!("replay {TRACE} --from-start"));
    let screen = wait_for(&session, "REPLAY ⏸ 0/71 ×1");
    assert!(screen.contains("REPLAY ⏸ 0/71 ×1"), "{screen}");
    tmux(&["send-keys", "-t", &session, "Space"]);
    let pressed = Instant::now();
    let screen = wait_for(&session, "REPLAY ⏸ 71/71 ×1");
    let took = pressed.elapsed();
    assert!(screen.contains("REPLAY ⏸ 71/71 ×1") && screen.contains("2 passed"), "played to the end: {screen}");
    // The events span 629 ms: at ×1 they take that long, not less.
    assert!(took >= Duration::from_millis(600), "played at the recorded pace, not at once: {took:?}");
    tmux(&["send-keys", "-t", &session, "q"]);
    assert!(wait_for(&session, "EXITED-0").contains("EXITED-0"));
}

/// A replay playing at ×1 moves its clock with its cursor between events: in
/// the sample trace with a 6 s pause after its third event, the header's
/// time goes on while the position stays at 3.
#[test]
fn a_replays_clock_moves_with_its_cursor_between_events() {
    let Some(session) = session("replay-clock") else { return };
    let dir = tempfile::tempdir().unwrap();
    let paused = dir.path().join("paused.trace.jsonl");
    let text = std::fs::read_to_string(common::root().join(TRACE)).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for line in lines.iter_mut().skip(4) {
        let mut record: Value = serde_json::from_str(line).unwrap();
        record["t_ms"] = (record["t_ms"].as_u64().unwrap() + 6_000).into();
        *line = record.to_string();
    }
    std::fs::write(&paused, lines.join("\n") + "\n").unwrap();
    run(&session, &format!("replay {} --from-start", paused.display()));
    wait_for(&session, "REPLAY ⏸ 0/71 ×1");
    tmux(&["send-keys", "-t", &session, "Space"]);
    let first = wait_for(&session, "REPLAY ▶ 3/71 ×1");
    std::thread::sleep(Duration::from_millis(2_000));
    let second = wait_for(&session, "REPLAY ▶ 3/71 ×1");
    assert!(second.contains("REPLAY ▶ 3/71 ×1"), "still waiting for the fourth event: {second}");
    let (before, after) = (header_clock(&first).unwrap(), header_clock(&second).unwrap());
    assert!(after >= before + 10 && after < 60, "the clock went from {before} to {after} tenths: {second}");
    tmux(&["send-keys", "-t", &session, "q"]);
    assert!(wait_for(&session, "EXITED-0").contains("EXITED-0"));
}

/// Replies of a four-question run on the sample data, each after `delay`:
/// every odd question's first DAG is rejected once.
fn slow_layered(delay: u64) -> impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static {
    move |request, _| {
        Reply::Delayed(Duration::from_millis(delay), Box::new(Reply::Text(layered_reply(request, 4, true))))
    }
}

/// The flags of a run against the scripted OpenAI-compatible server at `url`.
fn openai_at(url: &str) -> String {
    format!("--llm openai --model scripted-model --base-url {url}")
}

/// The environment and binary for a live run in a shell, isolated from the
/// developer's settings (config and log under `home`), its model given by
/// `llm` (flags), with `extra_args`.
fn live_command(home: &Path, llm: &str, out: &Path, extra_env: &str, extra_args: &str) -> String {
    format!(
        "env -u EVAL_DAG_CONFIG -u EVAL_DAG_LLM -u EVAL_DAG_MODEL -u EVAL_DAG_THEME -u OPENAI_BASE_URL \
         XDG_CONFIG_HOME={home}/config XDG_CACHE_HOME={home}/cache EVAL_DAG_LOG={home}/log.txt \
         OPENAI_API_KEY=test-key ANTHROPIC_API_KEY=test-key {extra_env} \
         {bin} run sample-data/fraud {llm} --questions 4 \
         --concurrency 2 --out {out} {extra_args}; echo EXITED-$?",
        home = home.display(),
        out = out.display(),
        bin = env!("CARGO_BIN_EXE_eval-dag"),
    )
}

/// Wait (at most 30 s) until `done` holds.
fn poll(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn count_in(path: &Path, needle: &str) -> usize {
    std::fs::read_to_string(path).unwrap_or_default().matches(needle).count()
}

/// The pid of the `eval-dag run` writing to `out` (not its sandbox workers).
fn run_pid(out: &Path) -> Option<u32> {
    let out = out.display().to_string();
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|entry| {
        let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
        let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
        let args: Vec<String> = cmdline.split(|b| *b == 0).map(|a| String::from_utf8_lossy(a).into_owned()).collect();
        (args.iter().any(|a| a == "run") && args.contains(&out)).then_some(pid)
    })
}

/// Per question: status, iterations and final answer, from `eval_results.json`.
fn outcomes(out: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(out.join("eval_results.json")).expect("eval_results.json is written");
    let results: Value = serde_json::from_str(&text).unwrap();
    results["detailed_results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| serde_json::json!([r["question_id"], r["status"], r["final_answer"]]))
        .collect()
}

/// The prompts (role and content of each message) of every call the trace
/// recorded an answer for.
fn answered_prompts(trace: &Trace) -> Vec<Vec<(String, String)>> {
    let mut prompts = std::collections::HashMap::new();
    let mut answered = Vec::new();
    for record in &trace.records {
        match &record.event {
            EngineEvent::LlmCallStarted { call_id, messages, .. } => {
                prompts.insert(*call_id, messages.iter().map(|m| (m.role.to_string(), m.content.clone())).collect());
            }
            EngineEvent::LlmCallFinished { call_id, error: None, response: Some(_), .. } => {
                answered.extend(prompts.remove(call_id));
            }
            _ => {}
        }
    }
    answered
}

fn request_prompt(request: &Recorded) -> Vec<(String, String)> {
    request.body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| (m["role"].as_str().unwrap_or("").to_string(), m["content"].as_str().unwrap_or("").to_string()))
        .collect()
}

#[derive(Clone, Copy, Debug)]
enum Interrupt {
    /// Ctrl-C in the TUI, then `y`.
    CtrlC,
    /// SIGTERM from another process.
    Term,
    /// The terminal closes (the tmux session is killed: SIGHUP).
    Hangup,
}

/// Start a live TUI run, interrupt it once a question has finished, then
/// resume it headless: nothing finished is lost or asked for again, and the
/// answers are those of an uninterrupted run (`reference`).
async fn interrupt_and_resume(how: Interrupt, reference: &[Value]) {
    let Some(session) = session(&format!("{how:?}").to_lowercase()) else { return };
    let mock = MockLlm::start(slow_layered(150)).await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let trace_path = out.join("trace.jsonl");
    tmux(&[
        "send-keys",
        "-t",
        &session,
        &live_command(dir.path(), &openai_at(&mock.base_url()), &out, "", ""),
        "Enter",
    ]);
    poll("a finished question", || count_in(&trace_path, "\"type\":\"question_finished\"") >= 1);
    let pid = run_pid(&out).expect("the run's process");
    match how {
        Interrupt::CtrlC => {
            tmux(&["send-keys", "-t", &session, "C-c"]);
            let screen = wait_for(&session, "still working. Quit now?");
            assert!(screen.contains("eval-dag run --resume"), "the question says how to continue: {screen}");
            tmux(&["send-keys", "-t", &session, "y"]);
        }
        Interrupt::Term => assert!(Command::new("kill").args(["-TERM", &pid.to_string()]).status().unwrap().success()),
        Interrupt::Hangup => {
            tmux(&["kill-session", "-t", &session]);
        }
    }
    poll("the interrupted run to exit", || !Path::new(&format!("/proc/{pid}")).exists());
    let trace = Trace::read(&trace_path).unwrap();
    let last = &trace.records.last().unwrap().event;
    let EngineEvent::RunFinished { summary } = last else { panic!("{how:?}: the trace ends with {last:?}") };
    assert!(summary.cancelled >= 1, "{how:?}: the interrupt came while questions worked: {summary:?}");
    assert!(summary.passed >= 1, "{how:?}: {summary:?}");
    let interrupted = outcomes(&out);
    assert!(
        interrupted.iter().any(|o| o[1] == "cancelled"),
        "{how:?}: cancelled questions are counted: {interrupted:?}"
    );
    for record in &trace.records {
        if let EngineEvent::Executed { result, .. } = &record.event {
            assert!(
                result.error.as_deref().is_none_or(|e| !e.contains("worker")),
                "{how:?}: a worker died: {result:?}"
            );
        }
    }
    let answered = answered_prompts(&trace);
    let asked_before = mock.requests().len();

    let resumed = tokio::process::Command::from(common::eval_dag(dir.path()))
        .args(["run", "--headless", "--llm", "openai", "--model", "scripted-model", "--resume"])
        .arg(&out)
        .arg("--base-url")
        .arg(mock.base_url())
        .env("OPENAI_API_KEY", "test-key")
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert_eq!(resumed.status.code(), Some(0), "{how:?}: {stderr}");
    assert_eq!(outcomes(&out), reference, "{how:?}: the resumed run answers as an uninterrupted one");
    let asked_again: Vec<Vec<(String, String)>> = mock.requests()[asked_before..].iter().map(request_prompt).collect();
    assert!(!asked_again.is_empty(), "{how:?}: the resumed run had work left");
    for prompt in &asked_again {
        assert!(!answered.contains(prompt), "{how:?}: a call answered before the interrupt was sent again");
    }
}

async fn reference_outcomes() -> Vec<Value> {
    let mock = MockLlm::start(slow_layered(0)).await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let output = tokio::process::Command::from(common::eval_dag(dir.path()))
        .current_dir(common::root())
        .args(["run", "sample-data/fraud", "--headless", "--llm", "openai", "--model", "scripted-model"])
        .args(["--questions", "4", "--concurrency", "2", "--base-url", &mock.base_url(), "--out"])
        .arg(&out)
        .env("OPENAI_API_KEY", "test-key")
        .output()
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    outcomes(&out)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_run_stopped_by_ctrl_c_sigterm_or_a_closed_terminal_resumes_to_the_same_answers() {
    if session("probe").is_none() {
        return;
    }
    let reference = reference_outcomes().await;
    for how in [Interrupt::CtrlC, Interrupt::Term, Interrupt::Hangup] {
        interrupt_and_resume(how, &reference).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drawing_fault_in_a_live_run_loses_nothing() {
    let Some(session) = session("fault") else { return };
    let mock = MockLlm::start(slow_layered(50)).await;
    let dir = tempfile::tempdir().unwrap();
    let out: PathBuf = dir.path().join("run");
    let trace_path = out.join("trace.jsonl");
    let command = live_command(dir.path(), &openai_at(&mock.base_url()), &out, "EVAL_DAG_INJECT_DRAW_PANIC=4", "");
    tmux(&["send-keys", "-t", &session, &command, "Enter"]);
    let screen =
        wait_for_all(&session, &["the screen could not be drawn", "injected drawing fault", "the run goes on"]);
    assert!(screen.contains("injected drawing fault") && screen.contains("the run goes on"), "{screen}");
    poll("the run to finish", || count_in(&trace_path, "\"type\":\"run_finished\"") == 1);
    // The faulted screen still says where the run stands; quit once it says finished.
    let screen = wait_for(&session, "Run finished: 4 of 4 questions passed.");
    assert!(screen.contains("Run finished: 4 of 4"), "the fault screen shows progress: {screen}");
    tmux(&["send-keys", "-t", &session, "q"]);
    let screen = wait_for(&session, "EXITED-0");
    assert!(screen.contains("EXITED-0"), "every question passed: {screen}");
    assert!(!screen.contains("the screen could not be drawn"), "the terminal was restored: {screen}");
    let trace = Trace::read(&trace_path).unwrap();
    assert!(matches!(trace.records.last().unwrap().event, EngineEvent::RunFinished { .. }));
    assert_eq!(outcomes(&out).len(), 4, "eval_results.json holds every question");
    let log = std::fs::read_to_string(dir.path().join("log.txt")).unwrap_or_default();
    assert!(log.contains("terminal UI fault (contained)"), "the fault is logged: {log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_in_a_batched_run_can_cancel_its_batches_and_resume_asks_their_calls_again() {
    let script = |request: &Recorded, _| Reply::Text(layered_reply(request, 4, true));
    let held = || Behaviour { hold_from: Some(1), ..Behaviour::default() };
    let openai = MockBatch::openai(held(), script).await;
    cancel_then_resume("openai", &openai, &openai_at(&openai.base_url())).await;
    let anthropic = MockBatch::anthropic(held(), script).await;
    let flags = format!("--llm anthropic --model claude-sonnet-4-20250514 --base-url {}", anthropic.root_url());
    cancel_then_resume("anthropic", &anthropic, &flags).await;
}

/// Ctrl-C in a live run batched by `mock` (`llm`: the run's flags),
/// answered `c`: the batch in flight is cancelled at the provider and
/// recorded `cancelled`, the lines it finished kept as finished calls, the
/// others cancelled; `--resume` asks those again (and only those: no
/// finished line is submitted twice).
async fn cancel_then_resume(name: &str, mock: &MockBatch, llm: &str) {
    let Some(session) = session(&format!("batch-cancel-{name}")) else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let trace_path = out.join("trace.jsonl");
    let command = live_command(dir.path(), llm, &out, "", "--no-cache --batch --batch-window 1");
    tmux(&["send-keys", "-t", &session, &command, "Enter"]);
    poll("the builds' batch", || count_in(&trace_path, "\"type\":\"batch_submitted\"") >= 2);
    let pid = run_pid(&out).expect("the run's process");
    tmux(&["send-keys", "-t", &session, "C-c"]);
    let screen = wait_for(&session, "1 batch in flight at the provider with 4 calls.");
    assert!(screen.contains("cancel them there"), "the question offers to cancel them: {screen}");
    tmux(&["send-keys", "-t", &session, "c"]);
    poll("the cancelled run to exit", || !Path::new(&format!("/proc/{pid}")).exists());
    let screen = wait_for(&session, "EXITED-1");
    assert!(screen.contains("cancelling the batches in flight at the provider (1)"), "{name}: {screen}");
    assert_eq!(mock.cancels(), 1, "{name}: the batch in flight was cancelled: {screen}");

    let trace = Trace::read(&trace_path).unwrap();
    let ended: Vec<_> = trace
        .records
        .iter()
        .filter_map(|r| match &r.event {
            EngineEvent::BatchEnded { status, succeeded, .. } => Some((status.label(), *succeeded)),
            _ => None,
        })
        .collect();
    assert_eq!(ended, vec![("completed", 1), ("cancelled", 2)], "{name}: recorded as the provider ended them");
    let state = eval_dag::report::fold_trace(&trace);
    let builds = state.batches.values().find(|b| b.role == eval_dag::domain::LlmRole::DagBuild).unwrap();
    let (answered, cancelled): (Vec<_>, Vec<_>) =
        builds.calls.iter().map(|id| &state.calls[id]).partition(|call| call.finished && call.error.is_none());
    assert_eq!(answered.len(), 2, "the lines the cancelled batch finished are finished calls");
    assert!(answered.iter().all(|call| call.batch_id.as_ref() == Some(&builds.batch_id)));
    assert!(cancelled.iter().all(|call| call.error.as_deref() == Some("cancelled")), "the rest are cancelled");
    assert_eq!(state.calls_waiting_in_batches(), 0, "no call waits in a batch any more");

    let ids = mock.submitted();
    mock.release();
    let resumed = tokio::process::Command::from(common::eval_dag(dir.path()))
        .args(["run", "--headless", "--no-cache", "--batch", "--resume"])
        .arg(&out)
        .env("OPENAI_API_KEY", "test-key")
        .env("ANTHROPIC_API_KEY", "test-key")
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert_eq!(resumed.status.code(), Some(0), "{name}: {stderr}");
    let again = mock.submitted();
    let times = |id: &String| again.iter().filter(|seen| *seen == id).count();
    let (first_half, second_half) = ids[1..].split_at(2);
    assert!(first_half.iter().all(|id| times(id) == 1), "a finished line is never submitted again");
    assert!(second_half.iter().all(|id| times(id) == 2), "the cancelled lines are asked again");
    let state = eval_dag::report::fold_trace(&Trace::read(&trace_path).unwrap());
    assert!(state.questions.iter().all(|q| q.latest().unwrap().final_answer.is_some()), "{stderr}");
}

/// Ctrl-C, `c`, in a batched run whose provider does not end its batch when
/// asked to cancel it: the run waits `--batch-cancel-wait` and no longer,
/// says the batch was left running with the command that fetches it, and
/// `--resume` fetches it without sending a line of it again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_that_outlasts_its_wait_leaves_the_batch_for_resume() {
    let Some(session) = session("batch-cancel-slow") else { return };
    let script = |request: &Recorded, _| Reply::Text(layered_reply(request, 4, true));
    let mock =
        MockBatch::openai(Behaviour { hold_from: Some(1), slow_cancel: true, ..Behaviour::default() }, script).await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let trace_path = out.join("trace.jsonl");
    let flags = "--no-cache --batch --batch-window 1 --batch-cancel-wait 1";
    let command = live_command(dir.path(), &openai_at(&mock.base_url()), &out, "", flags);
    tmux(&["send-keys", "-t", &session, &command, "Enter"]);
    poll("the builds' batch", || count_in(&trace_path, "\"type\":\"batch_submitted\"") >= 2);
    tmux(&["send-keys", "-t", &session, "C-c"]);
    wait_for(&session, "cancel them there");
    let asked = Instant::now();
    tmux(&["send-keys", "-t", &session, "c"]);
    let left = "batches: 1 left running at the provider with 4 calls";
    let screen = wait_for_all(&session, &[left, "EXITED-1"]);
    assert!(asked.elapsed() < Duration::from_secs(12), "the cancel waited {:?}: {screen}", asked.elapsed());
    assert_eq!(mock.cancels(), 1, "the batch was asked to cancel: {screen}");
    assert!(screen.contains(left) && screen.contains("--resume"), "the run says what it left: {screen}");
    assert_eq!(count_in(&trace_path, "\"type\":\"batch_ended\""), 1, "only the questions' batch ended");

    let submitted = mock.submitted();
    mock.release();
    let resumed = tokio::process::Command::from(common::eval_dag(dir.path()))
        .args(["run", "--headless", "--no-cache", "--batch", "--resume"])
        .arg(&out)
        .env("OPENAI_API_KEY", "test-key")
        .output()
        .await
        .unwrap();
    assert_eq!(resumed.status.code(), Some(0), "{}", String::from_utf8_lossy(&resumed.stderr));
    let again = mock.submitted();
    assert!(submitted.iter().all(|id| again.iter().filter(|seen| *seen == id).count() == 1), "no line sent twice");
    let state = eval_dag::report::fold_trace(&Trace::read(&trace_path).unwrap());
    assert!(state.questions.iter().all(|q| q.latest().unwrap().final_answer.is_some()), "every question answered");
}

/// The header's elapsed time on `screen` (`⏱ 3.4s`), in tenths of a second.
fn header_clock(screen: &str) -> Option<u64> {
    let after = screen.split("⏱ ").nth(1)?;
    let seconds = after.split('s').next()?.trim();
    let (whole, tenth) = seconds.split_once('.')?;
    Some(whole.parse::<u64>().ok()? * 10 + tenth.parse::<u64>().ok()?)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_runs_clock_moves_while_it_waits_on_the_model() {
    let Some(session) = session("clock") else { return };
    // Every call waits 4 s: the header must not stand still meanwhile.
    let mock = MockLlm::start(slow_layered(4_000)).await;
    let dir = tempfile::tempdir().unwrap();
    let out: PathBuf = dir.path().join("run");
    tmux(&[
        "send-keys",
        "-t",
        &session,
        &live_command(dir.path(), &openai_at(&mock.base_url()), &out, "", ""),
        "Enter",
    ]);
    poll("the first call to be asked", || !mock.requests().is_empty());
    let first = header_clock(&wait_for(&session, "⏱ ")).expect("the header shows the elapsed time");
    std::thread::sleep(Duration::from_millis(1_500));
    let screen = tmux(&["capture-pane", "-p", "-t", &session]);
    let later = header_clock(&screen).expect("the header shows the elapsed time");
    assert_eq!(mock.requests().len(), 1, "still waiting on the first call: {screen}");
    assert!(later >= first + 10, "1.5 s later the clock moved a second or more: {first} → {later} tenths: {screen}");
    tmux(&["send-keys", "-t", &session, "Q"]);
    wait_for(&session, "EXITED-");
}
