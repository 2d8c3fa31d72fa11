//! Work by hand on a saved run, through the real engine and sandbox with no
//! LLM connected: the sample run continued idle (as a replay's derived run
//! is), then edits checked and trial-run as drafts — a fix, text that is no
//! DAG, a policy breach, a loop that never ends, a memory bomb — and
//! iterations accepted as the answer, counted apart from the model's passes.

use crate::common;

use std::time::Duration;

use eval_dag::domain::{AttemptAt, ExecutionResult, GeneratedDag, IterationAt};
use eval_dag::engine::{self, RunOptions};
use eval_dag::report::{eval_results, fold_trace};
use eval_dag::run::{Command, EngineEvent, HandEdit, Outcome, RunState};
use eval_dag::trace::Trace;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

const TRACE: &str = "sample-data/traces/fraud-scripted.trace.jsonl";

struct Engine {
    events: UnboundedReceiver<(u64, EngineEvent)>,
    commands: UnboundedSender<Command>,
    state: RunState,
}

impl Engine {
    /// The sample run, continued idle with no LLM, as a replay's derived run.
    fn start() -> Self {
        let trace = Trace::read(&common::root().join(TRACE)).unwrap();
        let prior = fold_trace(&trace);
        let (settings, parts) = common::idle_engine_parts(&trace);
        let options = RunOptions { keep_alive: true, prior: Some(prior.clone()), idle: true, ..RunOptions::default() };
        let handle = engine::start(parts, None, settings, options);
        Self { events: handle.events, commands: handle.commands, state: prior }
    }

    /// The engine's next event, folded into the state.
    async fn next(&mut self) -> EngineEvent {
        let (t_ms, event) = tokio::time::timeout(Duration::from_secs(30), self.events.recv())
            .await
            .expect("the engine answers within 30 s")
            .expect("the engine goes on");
        self.state.apply(t_ms, &event);
        event
    }

    /// Send `command` and fold events until attempt `attempt` of `question`
    /// finishes with `outcome`.
    async fn until(&mut self, command: Command, question: &str, attempt: u32, outcome: Outcome) {
        self.commands.send(command).unwrap();
        loop {
            let event = self.next().await;
            if let EngineEvent::QuestionFinished { at, outcome: finished, .. } = &event
                && at.question_id == question
                && at.attempt == attempt
            {
                assert_eq!(*finished, outcome, "attempt {attempt} of {question}");
                return;
            }
        }
    }

    /// Send a `RunNode` command and fold events until its node has run.
    async fn run_node(&mut self, at: IterationAt, node_id: &str, code: Option<&str>) -> ExecutionResult {
        let command = Command::RunNode { at, node_id: node_id.into(), code: code.map(str::to_string) };
        self.commands.send(command).unwrap();
        loop {
            if let EngineEvent::NodeRan { node_id: ran, result, .. } = self.next().await
                && ran == node_id
            {
                return result;
            }
        }
    }

    fn attempt(&self, question: &str, attempt: u32) -> &eval_dag::run::Attempt {
        self.state.question(question).unwrap().attempt(attempt).unwrap()
    }
}

fn at(question: &str, attempt: u32, iteration: u32) -> IterationAt {
    AttemptAt::new(question, attempt).iteration(iteration)
}

/// The rejected iteration 2 of q_01 (ZeroDivisionError) with node `rates` written as `code`.
fn rates_written(engine: &Engine, code: &str) -> HandEdit {
    let mut dag: GeneratedDag = engine.attempt("q_01", 1).iteration(2).unwrap().dag.clone().unwrap();
    dag.nodes.iter_mut().find(|n| n.node_id == "rates").unwrap().code = code.into();
    HandEdit::Dag { dag }
}

fn rules(engine: &Engine, question: &str, attempt: u32) -> Vec<String> {
    let it = engine.attempt(question, attempt).iteration(1).unwrap();
    it.feedback.as_ref().unwrap().findings.iter().map(|f| f.rule.to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_become_drafts_with_findings_and_an_accepted_one_is_fixed_by_hand_apart_from_the_model() {
    let mut engine = Engine::start();
    let fixed = "def rates(stats):\n    return {name: s['is_fraud_count'] / s['count'] for name, s in stats.items()}\n";
    let edit = rates_written(&engine, fixed);
    engine.until(Command::TryDag { from: at("q_01", 1, 2), edit }, "q_01", 2, Outcome::Drafted).await;
    let draft = engine.attempt("q_01", 2);
    assert!(draft.by_hand && draft.forked_from == Some((1, 2).into()));
    let trial = draft.iteration(1).unwrap().trial.as_ref().expect("the draft was trial-run");
    assert_eq!(trial.final_answer, Some("grocery_pos".into()), "{trial:?}");
    assert!(rules(&engine, "q_01", 2).is_empty(), "a clean draft has no findings");
    let q = engine.state.question("q_01").unwrap();
    assert_eq!((q.latest().unwrap().number, q.status.label()), (1, "passed"), "a draft leaves the model's result");

    let not_json = HandEdit::Unreadable { text: "{\"nodes\": [".into(), error: "EOF while parsing".into() };
    engine.until(Command::TryDag { from: at("q_01", 1, 2), edit: not_json }, "q_01", 3, Outcome::Drafted).await;
    assert_eq!(rules(&engine, "q_01", 3), ["unparseable_dag"]);

    let breach = "import os\ndef rates(stats):\n    return os.listdir('/')\n";
    let edit = rates_written(&engine, breach);
    engine.until(Command::TryDag { from: at("q_01", 1, 2), edit }, "q_01", 4, Outcome::Drafted).await;
    assert!(!rules(&engine, "q_01", 4).is_empty(), "the policy finds the import");
    assert!(engine.attempt("q_01", 4).iteration(1).unwrap().trial.is_none(), "a structural error is never run");

    for (attempt, code) in [
        (5, "def rates(stats):\n    while True:\n        pass\n"),
        (6, "def rates(stats):\n    return [0] * (10 ** 10)\n"),
    ] {
        let edit = rates_written(&engine, code);
        engine.until(Command::TryDag { from: at("q_01", 1, 2), edit }, "q_01", attempt, Outcome::Drafted).await;
        let trial = engine.attempt("q_01", attempt).iteration(1).unwrap().trial.clone().unwrap();
        assert!(!trial.success && trial.error.is_some(), "attempt {attempt}: {trial:?}");
        assert!(!rules(&engine, "q_01", attempt).is_empty());
    }

    // Accepting a draft that failed copies it anew and refuses: no answer.
    engine.until(Command::Accept { at: at("q_01", 5, 1) }, "q_01", 7, Outcome::Drafted).await;
    assert_eq!(engine.attempt("q_01", 7).reason.as_deref(), Some("not accepted: the DAG did not produce an answer"));

    // Accepting the clean draft executes and finishes it as fixed by hand.
    engine.until(Command::Accept { at: at("q_01", 2, 1) }, "q_01", 2, Outcome::FixedByHand).await;
    let accepted = engine.attempt("q_01", 2);
    assert_eq!(accepted.final_answer, Some("grocery_pos".into()));
    assert!(accepted.execution.as_ref().is_some_and(|e| e.success));
    let q = engine.state.question("q_01").unwrap();
    assert_eq!((q.latest().unwrap().number, q.status.label()), (2, "fixed by hand"));

    let doc = serde_json::to_value(eval_results(&engine.state, "2026-01-01T00:00:00Z")).unwrap();
    assert_eq!((doc["summary"]["passed"].as_u64(), doc["summary"]["fixed_by_hand"].as_u64()), (Some(1), Some(1)));
    assert_eq!(doc["summary"]["pass_rate"].as_f64(), Some(0.5), "the hand fix is not the model's pass");
    let row = &doc["detailed_results"].as_array().unwrap().iter().find(|r| r["question_id"] == "q_01").unwrap();
    assert_eq!((row["success"].as_bool(), row["fixed_by_hand"].as_bool()), (Some(true), Some(true)));
    assert_eq!(row["final_answer"], "grocery_pos");
    let summary = engine.state.summary(0);
    assert_eq!((summary.passed, summary.fixed_by_hand), (1, 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accepting_a_models_rejected_iteration_checks_a_copy_and_a_failing_one_is_refused() {
    let mut engine = Engine::start();
    // Iteration 2 of q_01 divides by zero: the copy is trial-run, fails, and is not accepted.
    engine.until(Command::Accept { at: at("q_01", 1, 2) }, "q_01", 2, Outcome::Drafted).await;
    assert!(rules(&engine, "q_01", 2).contains(&"runtime_error".to_string()));
    assert_eq!(engine.state.question("q_01").unwrap().status.label(), "passed");
    // Iteration 1 of q_02 (approved) accepted anew: a hand copy, executed and fixed by hand.
    engine.until(Command::Accept { at: at("q_02", 1, 1) }, "q_02", 2, Outcome::FixedByHand).await;
    assert_eq!(engine.attempt("q_02", 2).final_answer, Some(50000.into()));
    assert!(engine.attempt("q_02", 2).by_hand);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_runs_on_its_own_as_recorded_or_as_edited_and_hostile_edits_are_contained() {
    let mut engine = Engine::start();
    // As recorded, the approved iteration's node gives what its trial gave.
    let recorded = engine.attempt("q_01", 1).iteration(3).unwrap().trial.clone().unwrap();
    let again = engine.run_node(at("q_01", 1, 3), "rates", None).await;
    assert!(again.success, "{again:?}");
    assert_eq!(again.node_outputs.get("rates"), recorded.node_outputs.get("rates"));
    assert!(!again.node_outputs.contains_key("highest"), "nothing downstream runs");

    // The rejected iteration 2 divides by zero; the edited node runs clean, as edited.
    let fixed = "def rates(stats):\n    return {name: s['is_fraud_count'] / s['count'] for name, s in stats.items()}\n";
    let edited = engine.run_node(at("q_01", 1, 2), "rates", Some(fixed)).await;
    assert_eq!(edited.node_outputs.get("rates"), recorded.node_outputs.get("rates"), "{edited:?}");
    let runs = &engine.attempt("q_01", 1).iteration(2).unwrap().node_runs;
    assert_eq!((runs.len(), runs[0].code.as_deref()), (1, Some(fixed)), "the run is recorded on its iteration");
    assert_eq!(engine.state.question("q_01").unwrap().attempts().len(), 1, "a node run starts no attempt");

    let breach = engine.run_node(at("q_01", 1, 2), "rates", Some("import os\ndef rates(stats):\n    return 1\n")).await;
    assert!(breach.error.as_deref().is_some_and(|e| e.contains("policy")), "{breach:?}");
    let endless =
        engine.run_node(at("q_01", 1, 2), "rates", Some("def rates(stats):\n    while True:\n        pass\n")).await;
    assert!(!endless.success && endless.error.is_some(), "{endless:?}");
    let missing = engine.run_node(at("q_01", 1, 2), "nowhere", None).await;
    assert!(missing.error.as_deref().is_some_and(|e| e.contains("no node nowhere")), "{missing:?}");

    // A node run changes no question: the run does not finish again after it.
    engine.commands.send(Command::Pause).unwrap();
    loop {
        let event = engine.next().await;
        assert!(!matches!(event, EngineEvent::RunFinished { .. }), "no run_finished after a node run");
        if matches!(event, EngineEvent::Control(Command::Pause)) {
            break;
        }
    }
}
