//! By hand in a real terminal, through the binary inside tmux: replay the
//! sample trace, fix a rejected node in `$EDITOR` and accept it, or write a
//! note and send the iteration back to a builder (a mock LLM server) — new
//! work going to a derived run, the replayed trace left byte-identical.

use crate::common;

use std::path::Path;

use common::mock_llm::{MockLlm, Recorded, Reply};
use common::tmux::{session, tmux, wait_for, wait_for_all};
use eval_dag::domain::LlmRole;
use eval_dag::run::{Command, EngineEvent};
use eval_dag::trace::Trace;
use serde_json::{Value, json};

const TRACE: &str = "sample-data/traces/fraud-scripted.trace.jsonl";

/// Records of the sample trace.
const SOURCE_RECORDS: usize = 71;

/// The SHA-256 of `bytes`, in hex.
fn sha256(bytes: &[u8]) -> String {
    sha2::Digest::finalize(<sha2::Sha256 as sha2::Digest>::new_with_prefix(bytes))
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The derived trace in `out`, checked to begin with `source`'s records and
/// to name it by path and digest.
fn derived_trace(out: &Path, source: &Path, original: &[u8]) -> Trace {
    assert_eq!(std::fs::read(source).unwrap(), original, "the replayed trace is byte-identical");
    let derived = Trace::read(&out.join("trace.jsonl")).unwrap();
    let from = derived.header.derived_from.clone().expect("the derived trace names its source");
    assert_eq!((from.path, from.up_to_seq), (source.display().to_string(), SOURCE_RECORDS as u64));
    assert_eq!(from.sha256, sha256(original), "the derived trace pins the source's bytes");
    let source_trace = Trace::read(source).unwrap();
    assert_eq!(
        derived.records[..SOURCE_RECORDS],
        source_trace.records[..],
        "the derived trace begins with the source's events"
    );
    derived
}

#[test]
fn replay_fix_a_rejected_node_in_the_editor_accept_it_and_leave_the_source_untouched() {
    let Some(session) = session("by-hand") else { return };
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("source.trace.jsonl");
    std::fs::copy(common::root().join(TRACE), &source).unwrap();
    let original = std::fs::read(&source).unwrap();
    // The "editor": a script that rewrites the line dividing by zero, as a
    // user would, taking its time (the user types the next key meanwhile).
    let editor = dir.path().join("fix-division.sh");
    let script = "#!/bin/sh\necho EDITOR-OPEN\nsleep 1\nsed -i \"s/ - s\\['count'\\])/)/\" \"$1\"\n";
    std::fs::write(&editor, script).unwrap();
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = dir.path().join("derived");
    let command = format!(
        "env -u VISUAL -u EVAL_DAG_LLM -u EVAL_DAG_CONFIG EDITOR={editor} XDG_CONFIG_HOME={home}/config XDG_CACHE_HOME={home}/cache \
         EVAL_DAG_LOG={home}/log.txt {bin} replay {source} --out {out}; echo EXITED-$?",
        editor = editor.display(),
        home = dir.path().display(),
        bin = env!("CARGO_BIN_EXE_eval-dag"),
        source = source.display(),
        out = out.display(),
    );
    tmux(&["send-keys", "-t", &session, &command, "Enter"]);
    wait_for(&session, "REPLAY");
    for key in ["j", "Enter", "h"] {
        tmux(&["send-keys", "-t", &session, key]);
    }
    let screen = wait_for_all(&session, &["findings on this node", "a1 it2"]);
    assert!(screen.contains("findings on this node") && screen.contains("a1 it2"), "{screen}");
    tmux(&["send-keys", "-t", &session, "E"]);
    // `t` typed while the editor runs: read once the UI is back (a regression:
    // the input stream the UI dropped for the editor left a wake-up pending
    // that took the key's place, and `t` stayed unread until another key).
    wait_for(&session, "EDITOR-OPEN");
    tmux(&["send-keys", "-t", &session, "t"]);
    let wanted = ["✎ by hand", "DERIVED →", "trial run ok", "grocery_pos"];
    let screen = wait_for_all(&session, &wanted);
    assert!(wanted[..2].iter().all(|w| screen.contains(w)), "the edit came back as a new iteration by hand: {screen}");
    assert!(screen.contains("(s['count'])"), "the selected node shows the edited code: {screen}");
    assert!(screen.contains("trial run ok") && screen.contains("grocery_pos"), "`t` showed its node outputs: {screen}");
    // Round the tabs (outputs, conversation) back to the feedback.
    for key in ["t", "t"] {
        tmux(&["send-keys", "-t", &session, key]);
    }
    let screen = wait_for(&session, "not reviewed by the critic");
    assert!(screen.contains("not reviewed by the critic"), "the feedback tab: {screen}");
    tmux(&["send-keys", "-t", &session, "t"]);
    wait_for(&session, "trial run ok");
    tmux(&["send-keys", "-t", &session, "A"]);
    let screen = wait_for_all(&session, &["✎ accepted", "final answer (fixed by hand)"]);
    assert!(screen.contains("final answer (fixed by hand): grocery_pos"), "{screen}");
    tmux(&["send-keys", "-t", &session, "q"]);
    let screen = wait_for(&session, "EXITED-0");
    assert!(screen.contains("EXITED-0") && screen.contains("derived run:"), "{screen}");

    let derived = derived_trace(&out, &source, &original);
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("eval_results.json")).unwrap()).unwrap();
    assert_eq!(
        (results["summary"]["passed"].as_u64(), results["summary"]["fixed_by_hand"].as_u64()),
        (Some(1), Some(1))
    );
    let rows = results["detailed_results"].as_array().unwrap();
    let fixed = rows.iter().find(|r| r["question_id"] == "q_01").unwrap();
    assert_eq!((fixed["status"].as_str(), fixed["fixed_by_hand"].as_bool()), (Some("fixed by hand"), Some(true)));
    assert_eq!(fixed["final_answer"], "grocery_pos");
    let report = std::fs::read_to_string(out.join("eval_report.html")).unwrap();
    assert!(report.contains("fixed by hand (not the model&#x27;s)") && report.contains("written by hand"));
    let by_hand =
        derived.records[SOURCE_RECORDS..].iter().filter(|r| matches!(r.event, EngineEvent::Control(_))).count();
    assert_eq!(by_hand, 2, "the edit and the acceptance are recorded as commands");
}

/// The mock builder's answers to a send-back: the sample's approved DAG of
/// the question (in prose around a fenced block, as models answer), an
/// approving review of every layer, a one-sentence narrative.
fn builder(approved_dag: Value) -> impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static {
    move |request, _| {
        let prompt = request.prompt();
        let text = if prompt.contains("review one layer") {
            json!({"is_valid": true, "issues": [], "reasoning": "the layer does what the question asks"}).to_string()
        } else if prompt.contains("Critic feedback — fix every point") {
            format!(
                "Here is the corrected DAG, following your note.\n```json\n{approved_dag}\n```\nIt keeps the same layers."
            )
        } else {
            "The busiest category is grocery_pos.".to_string()
        };
        Reply::Text(text)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replay_note_on_a_rejected_iteration_and_send_it_back_to_the_builder() {
    let Some(session) = session("send-back") else { return };
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("source.trace.jsonl");
    std::fs::copy(common::root().join(TRACE), &source).unwrap();
    let original = std::fs::read(&source).unwrap();
    let source_trace = Trace::read(&source).unwrap();
    let approved = source_trace
        .records
        .iter()
        .find_map(|r| match &r.event {
            EngineEvent::DagBuilt { at, dag, .. } if at.question_id == "q_01" && at.iteration == 3 => Some(dag.clone()),
            _ => None,
        })
        .expect("the sample's approved DAG of q_01");
    let mock = MockLlm::start(builder(serde_json::to_value(&approved).unwrap())).await;
    let out = dir.path().join("derived");
    let command = format!(
        "env -u VISUAL -u EDITOR -u EVAL_DAG_LLM -u EVAL_DAG_CONFIG -u EVAL_DAG_MODEL OPENAI_API_KEY=test-key \
         XDG_CONFIG_HOME={home}/config XDG_CACHE_HOME={home}/cache EVAL_DAG_LOG={home}/log.txt {bin} replay {source} --out {out} \
         --llm openai --builder-model builder-model --critic-model critic-model --base-url {url}; echo EXITED-$?",
        home = dir.path().display(),
        bin = env!("CARGO_BIN_EXE_eval-dag"),
        source = source.display(),
        out = out.display(),
        url = mock.base_url(),
    );
    tmux(&["send-keys", "-t", &session, &command, "Enter"]);
    wait_for(&session, "REPLAY");
    for key in ["j", "Enter", "h"] {
        tmux(&["send-keys", "-t", &session, key]);
    }
    let screen = wait_for_all(&session, &["findings on this node", "a1 it2"]);
    assert!(screen.contains("a1 it2"), "{screen}");
    tmux(&["send-keys", "-t", &session, "N"]);
    let screen = wait_for_all(&session, &["your note on attempt 1, iteration 2", "ctrl-s add and send back"]);
    assert!(screen.contains("ctrl-s add and send back"), "the note box says what its keys do: {screen}");
    let note = "divide by the count, not by count minus one";
    tmux(&["send-keys", "-t", &session, "-l", note]);
    tmux(&["send-keys", "-t", &session, "C-s"]);
    let wanted = ["DERIVED →", "a2 it1 approved"];
    let screen = wait_for_all(&session, &wanted);
    assert!(wanted.iter().all(|w| screen.contains(w)), "the rebuilt attempt is shown: {screen}");
    // Quitting asks while the attempt still executes and grades: wait for its end.
    let finished = |line: &str| line.contains("question_finished") && line.contains("\"attempt\":2");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !std::fs::read_to_string(out.join("trace.jsonl")).unwrap_or_default().lines().any(finished) {
        assert!(std::time::Instant::now() < deadline, "attempt 2 finishes");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    tmux(&["send-keys", "-t", &session, "q"]);
    let screen = wait_for(&session, "EXITED-0");
    assert!(screen.contains("EXITED-0") && screen.contains("derived run:"), "{screen}");

    let builds: Vec<String> = mock
        .requests()
        .iter()
        .map(Recorded::prompt)
        .filter(|p| p.contains("Critic feedback — fix every point"))
        .collect();
    assert_eq!(builds.len(), 1, "one rebuild");
    assert!(
        builds[0].contains("[human note] node ") && builds[0].contains(note),
        "the rebuild prompt carries the note: {}",
        builds[0]
    );
    assert!(builds[0].contains("was rejected"), "and the rejected DAG with its findings");
    let derived = derived_trace(&out, &source, &original);
    let new: Vec<&EngineEvent> = derived.records[SOURCE_RECORDS..].iter().map(|r| &r.event).collect();
    assert!(matches!(new[0], EngineEvent::RunStarted { settings } if settings.model == "builder-model"));
    // A role's own flag chooses who plays the new calls, over the replayed run's roles. (This
    // replay said `--model builder-model` before the roles' precedence changed: the flags for
    // every role now sit below the recorded roles, so the builder's own flag names its model;
    // `--base-url` still serves both, the recorded roles naming no server.)
    let played = &derived.header.settings.roles;
    assert_eq!(
        (played[&LlmRole::DagBuild].model.as_str(), played[&LlmRole::LayerReview].model.as_str()),
        ("builder-model", "critic-model")
    );
    for request in mock.requests() {
        let model = if request.prompt().contains("review one layer") { "critic-model" } else { "builder-model" };
        assert_eq!(request.body["model"], model, "{}", request.prompt());
    }
    let commands: Vec<&Command> =
        new.iter().filter_map(|e| if let EngineEvent::Control(c) = e { Some(c) } else { None }).collect();
    assert!(matches!(commands[0], Command::Note { text, .. } if text == note), "{:?}", commands[0]);
    assert!(matches!(commands[1], Command::Fork { from } if from.attempt == 1 && from.iteration == 2));
    assert!(
        new.iter().any(
            |e| matches!(e, EngineEvent::QuestionStarted { at, forked_from: Some(from), .. } if at.attempt == 2 && (from.attempt, from.iteration) == (1, 2))
        )
    );
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("eval_results.json")).unwrap()).unwrap();
    let row = results["detailed_results"].as_array().unwrap().iter().find(|r| r["question_id"] == "q_01").unwrap();
    assert_eq!(
        (row["status"].as_str(), row["fixed_by_hand"].as_bool()),
        (Some("passed"), Some(false)),
        "a send-back's pass is the model's"
    );
}
