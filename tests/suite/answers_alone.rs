//! A question's answer depends on its DAG and its data only, never on the
//! questions run beside it: a run's answers, question by question, equal
//! each question's answer run alone — for the offline planner's runs on both
//! sample datasets, and for a benchmark run whose scripted DAGs each read,
//! then change, state node code can reach (the decimal context and its
//! traps, the default context, the rows and a row): right only on the state
//! a fresh worker has.

use crate::common;
use crate::suite::benchmark_run::{eval_dag, question_id, write_benchmark};

use std::collections::BTreeMap;
use std::path::Path;

use common::mock_llm::{MockLlm, Recorded, Reply};
use serde_json::{Value, json};

/// Each question's status and final answer in the results of the run in `out`.
fn answers(out: &Path) -> BTreeMap<String, (Value, Value)> {
    let text = std::fs::read_to_string(out.join("eval_results.json")).expect("the run wrote its results");
    let results: Value = serde_json::from_str(&text).unwrap();
    let detailed = results["detailed_results"].as_array().expect("detailed results").iter();
    detailed
        .map(|d| (d["question_id"].as_str().unwrap().to_string(), (d["status"].clone(), d["final_answer"].clone())))
        .collect()
}

/// Run `eval-dag` with `args` under `home`; it must succeed.
fn offline(home: &Path, args: &[&str]) {
    let output = common::eval_dag(home).current_dir(common::root()).args(args).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn each_sample_question_answers_alone_what_it_answers_in_the_run() {
    for dataset in ["sample-data/fraud", "sample-data/penguins"] {
        let home = tempfile::tempdir().unwrap();
        let together = home.path().join("together");
        let flags = ["--llm", "offline", "--headless", "--concurrency", "1", "--out"];
        offline(
            home.path(),
            &[&["run", dataset, "--questions", "10"][..], &flags, &[together.to_str().unwrap()]].concat(),
        );
        let run = answers(&together);
        assert_eq!(run.len(), 10, "{dataset}");
        let text = std::fs::read_to_string(together.join("eval_results.json")).unwrap();
        let results: Value = serde_json::from_str(&text).unwrap();
        for question in results["detailed_results"].as_array().unwrap() {
            let id = question["question_id"].as_str().unwrap();
            let file = home.path().join(format!("{id}.jsonl"));
            let line = json!({"id": id, "question": question["question"], "difficulty": question["difficulty_level"]});
            std::fs::write(&file, format!("{line}\n")).unwrap();
            let alone = home.path().join(id);
            let args =
                [&["run", dataset, "--questions-file", file.to_str().unwrap()][..], &flags, &[alone.to_str().unwrap()]];
            offline(home.path(), &args.concat());
            assert_eq!(answers(&alone).get(id), run.get(id), "{dataset} {id}: alone against in the run");
        }
    }
}

/// Node code of the benchmark's DAGs: each reads some state (right answer
/// when it is as a fresh worker has it, a wrong one otherwise), then
/// changes it. `VALUE` is the question's total or count.
const SPOILERS: [&str; 3] = [
    "def answer(rows):\n    value = VALUE\n    context = decimal.getcontext()\n    \
     fresh = context.prec == 28 and context.traps[decimal.DivisionByZero]\n    \
     decimal.setcontext(decimal.Context(prec=2, rounding=decimal.ROUND_DOWN))\n    \
     decimal.getcontext().traps[decimal.DivisionByZero] = False\n    return value if fresh else -value - 1\n",
    "def answer(rows):\n    value = VALUE\n    values = [r['v'] for r in rows]\n    \
     fresh = values == sorted(values) and min(values) > 0\n    rows.sort(key=lambda r: -r['v'])\n    \
     rows[0]['v'] = -1\n    rows.pop()\n    return value if fresh else -value - 1\n",
    "def answer(rows):\n    value = VALUE\n    fresh = not decimal.DefaultContext.traps[decimal.Inexact]\n    \
     decimal.DefaultContext.traps[decimal.Inexact] = True\n    return value if fresh else -value - 1\n",
];

/// The benchmark's question ids, in its file's order.
const IDS: [&str; 6] = ["shop_sum", "shop_count", "zoo_sum", "zoo_count", "weather_sum", "weather_count"];

/// Approve every layer; build each question's DAG with a spoiler of its own.
fn spoiling(request: &Recorded, _: usize) -> Reply {
    let prompt = request.prompt();
    if prompt.contains("review one layer") {
        return Reply::Text(json!({"is_valid": true, "issues": [], "reasoning": "reads the rows"}).to_string());
    }
    let index = IDS.iter().position(|id| *id == question_id(&prompt)).expect("a question of the benchmark");
    let value = if IDS[index].ends_with("_sum") { "sum(r['v'] for r in rows)" } else { "len(rows)" };
    let code = SPOILERS[index % SPOILERS.len()].replace("VALUE", value);
    Reply::Text(
        json!({"question_id": IDS[index], "description": "read, then change", "final_answer_node": "answer",
            "edges": [], "nodes": [{"node_id": "answer", "operation": "spoil", "function_name": "answer",
            "inputs": {"rows": "dataset.rows"}, "expected_output_type": "list", "layer": 0,
            "code": code}]})
        .to_string(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn each_benchmark_question_answers_alone_what_it_answers_in_the_run() {
    let mock = MockLlm::start(spoiling).await;
    let home = tempfile::tempdir().unwrap();
    let bench = home.path().join("bench");
    write_benchmark(&bench);
    let run = |out: &Path, only: Option<&str>| {
        let mut command = eval_dag(home.path(), &mock, &["run"]);
        command.arg(&bench).args(["--concurrency", "1", "--out"]).arg(out);
        if let Some(id) = only {
            command.args(["--only", id]);
        }
        command.output()
    };
    let together = home.path().join("together");
    let output = run(&together, None).await.unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let all = answers(&together);
    assert_eq!(all.keys().map(String::as_str).collect::<Vec<_>>().len(), IDS.len());
    for id in IDS {
        let alone = home.path().join(id);
        let output = run(&alone, Some(id)).await.unwrap();
        assert_eq!(output.status.code(), Some(0), "{id}: {}", String::from_utf8_lossy(&output.stderr));
        let (status, answer) = answers(&alone).remove(id).expect("the question ran");
        assert_eq!((&status, &answer), (&json!("passed"), &json!(crate::suite::benchmark_run::expected(id))), "{id}");
        assert_eq!(Some(&(status, answer)), all.get(id), "{id}: alone against in the run");
    }
}
