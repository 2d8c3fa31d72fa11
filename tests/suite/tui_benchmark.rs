//! The benchmark screen over a made-up benchmark run: five questions scored
//! by InfiAgent-DABench's rules on two datasets, answered by a scripted model
//! whose reviewer rejects every first draft that says so. One question is
//! right at once, one fixed by the rebuild, one broken by it, one half right
//! (one of two parts) and one never answered (its DAG always fails). The
//! screen shows the benchmark's figures, the critic's lift per level and per
//! dataset, and opens the fixed and broken questions. Set
//! `RECORD_BENCHMARK_TRACE=1` to refresh
//! `sample-data/traces/benchmark-scripted.trace.jsonl` from this run; the
//! screen's snapshots are drawn from that committed trace.

use crate::common;

use std::path::Path;

use common::mock_llm::{MockLlm, Recorded, Reply};
use common::press;
use common::tui::{replay_app, screen};
use eval_dag::run::{EngineEvent, RunState};
use eval_dag::trace::Trace;
use eval_dag::tui::{App, Screen, Theme};
use serde_json::{Value, json};

use crate::suite::benchmark_run::{eval_dag, is_build, question_id};

/// The committed trace of this run.
const BENCHMARK_TRACE: &str = "sample-data/traces/benchmark-scripted.trace.jsonl";

/// A question: id, dataset, level, InfiAgent's labels (part name, value).
type Labelled = (&'static str, &'static str, &'static str, &'static [(&'static str, &'static str)]);

/// Each question of the benchmark.
const QUESTIONS: [Labelled; 5] = [
    ("shop_total", "shop", "easy", &[("total", "6")]),
    ("shop_count", "shop", "medium", &[("count", "3")]),
    ("zoo_total", "zoo", "hard", &[("total", "30")]),
    ("zoo_stats", "zoo", "medium", &[("total", "30"), ("count", "2")]),
    ("zoo_max", "zoo", "hard", &[("max", "20")]),
];

/// Write the benchmark directory into `root`: `shop` holds 1, 2, 3 and `zoo` 10, 20.
fn write_benchmark(root: &Path) {
    for (name, values) in [("shop", [1, 2, 3].as_slice()), ("zoo", [10, 20].as_slice())] {
        let dir = root.join("datasets").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let rows: Vec<Value> = values.iter().map(|v| json!({"v": v})).collect();
        std::fs::write(dir.join("data.json"), json!({ "rows": rows }).to_string()).unwrap();
        let metadata = json!({"description": format!("the {name}'s records"), "columns": {"v": {"type": "int"}},
            "dataset_keys": {"rows": "one row per record"}});
        std::fs::write(dir.join("metadata.json"), metadata.to_string()).unwrap();
    }
    let lines: String = QUESTIONS
        .iter()
        .map(|(id, dataset, level, labels)| {
            let expected: serde_json::Map<String, Value> =
                labels.iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
            let format: Vec<String> = labels.iter().map(|(k, _)| format!("@{k}[value]")).collect();
            let line = json!({"id": id, "question": format!("What is {}?", id.replace('_', " ")), "difficulty": level,
                "dataset": dataset, "source_id": id, "answer_format": format.join(" "), "expected_answer": expected,
                "scorer": "infiagent"});
            format!("{line}\n")
        })
        .collect();
    std::fs::write(root.join("questions.jsonl"), lines).unwrap();
}

/// The code of question `id`'s `build`th DAG (1 is the first draft, which
/// the reviewer rejects): the sum of `v`, the row count or both, off by one
/// where the question's story says so.
fn code(id: &str, build: usize) -> String {
    let draft = if build == 1 { "    # first draft\n" } else { "" };
    let body = match (id, build) {
        ("shop_total", _) => "{'total': sum(vs)}",
        ("shop_count", 1) => "{'count': len(vs) + 1}",
        ("shop_count", _) => "{'count': len(vs)}",
        ("zoo_total", 1) => "{'total': sum(vs)}",
        ("zoo_total", _) => "{'total': sum(vs) + 1}",
        ("zoo_stats", _) => "{'total': sum(vs), 'count': len(vs) + 1}",
        _ => "{'max': max(vs) / 0}",
    };
    format!("def answer(rows):\n{draft}    vs = [row['v'] for row in rows]\n    return {body}\n")
}

fn dag(id: &str, build: usize) -> String {
    json!({"question_id": id, "description": "read the rows", "final_answer_node": "answer", "edges": [],
        "nodes": [{"node_id": "answer", "operation": "sum or count of v", "function_name": "answer",
            "inputs": {"rows": "dataset.rows"}, "expected_output_type": "dict", "layer": 0, "code": code(id, build)}]})
    .to_string()
}

/// Questions right at once (`shop_total`, `zoo_stats`) are approved as first
/// drafts; the others' first drafts are rejected.
fn script() -> impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static {
    let builds = std::sync::Mutex::new(std::collections::HashMap::<String, usize>::new());
    move |request, _| {
        let prompt = request.prompt();
        if prompt.contains("review one layer") {
            let keep = ["shop_total", "zoo_stats"].iter().any(|id| prompt.contains(&format!("Question {id} ")));
            let review = if prompt.contains("# first draft") && !keep {
                json!({"is_valid": false, "reasoning": "a first draft", "issues": [{"node_id": "answer", "message": "check the arithmetic"}]})
            } else {
                json!({"is_valid": true, "issues": [], "reasoning": "reads v"})
            };
            return Reply::Text(review.to_string());
        }
        assert!(is_build(&prompt), "only builds and reviews are asked for");
        let id = question_id(&prompt);
        let mut builds = builds.lock().unwrap();
        let build = builds.entry(id.clone()).or_default();
        *build += 1;
        Reply::Text(dag(&id, *build))
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_benchmark_screen_shows_the_figures_and_the_lift_and_opens_what_the_loop_changed() {
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench");
    write_benchmark(&bench);
    let mock = MockLlm::start(script()).await;
    let out = dir.path().join("run");
    let output = eval_dag(dir.path(), &mock, &["run"])
        .arg(&bench)
        .args(["--max-iterations", "3", "--concurrency", "1", "--out"])
        .arg(&out)
        .output()
        .await
        .unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "graded answers are wrong: {said}");

    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("eval_results.json")).unwrap()).unwrap();
    let benchmark = &results["summary"]["benchmark"];
    assert_eq!((benchmark["questions"].as_u64(), benchmark["answered"].as_u64()), (Some(5), Some(4)));
    assert_eq!((benchmark["fixed"].as_u64(), benchmark["broken"].as_u64()), (Some(1), Some(1)));

    let trace = out.join("trace.jsonl");
    let mut app = replay_app(trace.to_str().unwrap());
    press(&mut app, "B");
    assert_eq!(app.screen(), Screen::Benchmark);
    let text = screen(&app, 160, 48);
    assert!(text.contains("infiagent · 4 of 5 scored questions answered"), "{text}");
    // Answered: shop_total and shop_count right, zoo_total and zoo_stats wrong (2 of 4); parts 3 of 5;
    // (1 + 1 + 0 + 1/2) / 4.
    let rows = [
        "answered (its own figures)           50%           60%           62%",
        // Every question: 2 of 5; parts 3 of 6; (1 + 1 + 0 + 1/2 + 0) / 5.
        "every scored question                40%           50%           50%",
        // First DAGs: shop_total, zoo_total and half of zoo_stats right.
        "first DAGs' answers                  40%           50%           50%",
        "every scored question           40% → 40%    2/5 → 2/5  fixed 1  broken 1",
        "  easy                         100% → 100%   1/1 → 1/1  fixed 0  broken 0",
        "  medium                         0% → 50%    0/2 → 1/2  fixed 1  broken 0",
        "  hard                          50% → 0%     1/2 → 0/2  fixed 0  broken 1",
        "  shop                          50% → 100%   1/2 → 2/2  fixed 1  broken 0",
        "  zoo                           33% → 0%     1/3 → 0/3  fixed 0  broken 1",
        "shop_count fixed   medium shop         What is shop count?",
        "zoo_total  broken  hard   zoo          What is zoo total?",
    ];
    for row in rows {
        assert!(text.contains(row), "{row:?} in {text}");
    }
    assert!(text.contains("per extra right answer: none (+0 right"), "{text}");
    assert!(text.contains("fixed 1 · broken 1 · enter: open the question"), "{text}");
    press(&mut app, "j\n");
    assert_eq!(app.screen(), Screen::Question);
    assert_eq!(app.current_question().map(|q| q.question.id.as_str()), Some("zoo_total"), "the broken one");
    press(&mut app, "\x1bk\n");
    assert_eq!(app.current_question().map(|q| q.question.id.as_str()), Some("shop_count"), "the fixed one");

    if std::env::var_os("RECORD_BENCHMARK_TRACE").is_some() {
        // The benchmark directory by its name only: the temporary directory it was in is gone.
        let text = std::fs::read_to_string(&trace).unwrap().replace(&format!("{}/", dir.path().display()), "");
        std::fs::write(common::root().join(BENCHMARK_TRACE), text).unwrap();
    }
}

#[test]
fn without_benchmark_questions_the_key_says_so_and_the_footer_does_not_offer_it() {
    let mut app = replay_app(common::tui::SAMPLE);
    assert!(!screen(&app, 160, 48).contains("B benchmark"), "no hint in a run without benchmark questions");
    press(&mut app, "B");
    assert_eq!(app.screen(), Screen::Dashboard);
    let text = screen(&app, 160, 48);
    assert!(text.contains("no question of this run is scored by a published benchmark's rules"), "{text}");
    let app = replay_app(BENCHMARK_TRACE);
    assert!(screen(&app, 160, 48).contains("B benchmark"), "the hint in a benchmark run");
}

#[test]
fn the_benchmark_screen_follows_a_live_run_as_its_questions_finish() {
    let records = Trace::read(&common::root().join(BENCHMARK_TRACE)).unwrap().records;
    let finished: Vec<usize> =
        (0..records.len()).filter(|&i| matches!(records[i].event, EngineEvent::QuestionFinished { .. })).collect();
    assert_eq!(finished.len(), 5);
    // Up to the third question finished: zoo_max (never answered), shop_total and shop_count.
    let mut state = RunState::default();
    for record in &records[..=finished[2]] {
        state.apply(record.t_ms, &record.event);
    }
    let (commands, _engine) = tokio::sync::mpsc::unbounded_channel();
    let mut app = App::new(state, Theme::dark(), None, Some(commands));
    press(&mut app, "B");
    assert_eq!(app.screen(), Screen::Benchmark);
    let early = screen(&app, 160, 48);
    assert!(early.contains("infiagent · 2 of 5 scored questions answered"), "{early}");
    assert!(early.contains("fixed 1 · broken 0"), "shop_count fixed, zoo_total not yet broken: {early}");
    // As the UI's loop does: the events folded, then the screens refreshed once.
    for record in &records[finished[2] + 1..] {
        app.apply(record.t_ms, record.event.clone());
    }
    app.refresh();
    let late = screen(&app, 160, 48);
    assert!(late.contains("infiagent · 4 of 5 scored questions answered"), "{late}");
    assert!(late.contains("fixed 1 · broken 1"), "{late}");
}
