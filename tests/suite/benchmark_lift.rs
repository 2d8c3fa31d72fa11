//! The critic's lift end to end, on a made-up benchmark of four questions on
//! two datasets scored by DABstep's rules. A scripted model builds the same
//! first DAG in both runs; run 1 (`--max-iterations 1`) has a critic that
//! approves everything, run 2 (`--max-iterations 3`) one that rejects three
//! first DAGs: two wrong ones whose rebuild is right (fixed) and a right one
//! whose rebuild is wrong (broken). `compare` of the two runs (JSON, table,
//! HTML) and run 2's own results and report show the same figures.

use std::path::Path;

use crate::common;
use crate::common::mock_llm::{MockLlm, Reply, mock_usage};
use crate::suite::benchmark_run::eval_dag;
use serde_json::{Value, json};

/// Each dataset: its name and the values of its rows.
const DATASETS: [(&str, &[i64]); 2] = [("shop", &[1, 2, 3]), ("zoo", &[10, 20])];

/// One question: id, dataset, level, text, expected answer, the first DAG's
/// expression of `vs` and the rebuilt DAG's.
struct Asked {
    id: &'static str,
    dataset: &'static str,
    level: &'static str,
    text: &'static str,
    expected: &'static str,
    first: &'static str,
    rebuilt: &'static str,
}

const QUESTIONS: [Asked; 4] = [
    // Wrong first, rejected, right rebuilt: fixed.
    Asked {
        id: "shop_total",
        dataset: "shop",
        level: "easy",
        text: "What is the total of v?",
        expected: "6",
        first: "sum(vs) - 1",
        rebuilt: "sum(vs)",
    },
    // Right first, rejected all the same, wrong rebuilt: broken.
    Asked {
        id: "shop_count",
        dataset: "shop",
        level: "medium",
        text: "How many rows are there?",
        expected: "3",
        first: "len(vs)",
        rebuilt: "len(vs) + 1",
    },
    // Right first, approved.
    Asked {
        id: "zoo_total",
        dataset: "zoo",
        level: "hard",
        text: "What is the total of v?",
        expected: "30",
        first: "sum(vs)",
        rebuilt: "sum(vs)",
    },
    // Wrong first, rejected, right rebuilt: fixed.
    Asked {
        id: "zoo_count",
        dataset: "zoo",
        level: "easy",
        text: "How many rows are there?",
        expected: "2",
        first: "len(vs) + 1",
        rebuilt: "len(vs)",
    },
];

/// Write the benchmark directory into `root`.
fn write_benchmark(root: &Path) {
    for (name, values) in DATASETS {
        let dir = root.join("datasets").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let rows: Vec<Value> = values.iter().map(|v| json!({"v": v})).collect();
        std::fs::write(dir.join("data.json"), json!({ "rows": rows }).to_string()).unwrap();
        let metadata = json!({"description": format!("{name} records"), "columns": {"v": {"type": "int"}},
            "dataset_keys": {"rows": "one row per record"}});
        std::fs::write(dir.join("metadata.json"), metadata.to_string()).unwrap();
    }
    let lines: String = QUESTIONS
        .iter()
        .map(|q| {
            let line = json!({"id": q.id, "question": q.text, "difficulty": q.level, "expected_answer": q.expected,
                "dataset": q.dataset, "scorer": "dabstep"});
            format!("{line}\n")
        })
        .collect();
    std::fs::write(root.join("questions.jsonl"), lines).unwrap();
}

/// The question a prompt is about.
fn asked(prompt: &str) -> &'static Asked {
    QUESTIONS.iter().find(|q| prompt.contains(&format!("Question {}", q.id))).unwrap()
}

/// The scripted model's reply to `prompt`: a DAG (the rebuilt one once a
/// DAG was rejected), or a review that rejects the first DAG of every
/// question but `zoo_total` when `strict`.
fn reply(prompt: &str, strict: bool) -> String {
    let q = asked(prompt);
    if prompt.contains("review one layer") {
        if strict && q.id != "zoo_total" && !prompt.contains("(rebuilt)") {
            return json!({"is_valid": false, "issues": [{"node_id": "answer", "message": "check the rows again"}],
                "reasoning": "doubtful"})
            .to_string();
        }
        return json!({"is_valid": true, "issues": [], "reasoning": "reads the rows"}).to_string();
    }
    let (expression, plan) = if prompt.contains("was rejected") { (q.rebuilt, "(rebuilt)") } else { (q.first, "") };
    let code = format!("def answer(rows):\n    vs = [row['v'] for row in rows]\n    return {expression}\n");
    json!({"question_id": q.id, "description": format!("read the rows {plan}"), "final_answer_node": "answer",
        "edges": [], "nodes": [{"node_id": "answer", "operation": "total or count", "function_name": "answer",
            "inputs": {"rows": "dataset.rows"}, "expected_output_type": "int", "layer": 0, "code": code}]})
    .to_string()
}

/// Run the benchmark in `bench` into `out` with at most `iterations` per
/// question; the tokens the mock reported over the run. No response cache:
/// the second mock may get the first one's port, and so its cached replies.
async fn run(home: &Path, bench: &Path, out: &Path, iterations: &str, strict: bool) -> u64 {
    let mock = MockLlm::start(move |request, _| Reply::Text(reply(&request.prompt(), strict))).await;
    let output = eval_dag(home, &mock, &["run", "--no-cache", "--max-iterations", iterations])
        .arg(bench)
        .arg("--out")
        .arg(out)
        .output()
        .await
        .unwrap();
    assert!(out.join("eval_results.json").is_file(), "{}", String::from_utf8_lossy(&output.stderr));
    let requests = mock.requests();
    requests
        .iter()
        .map(|r| mock_usage(&reply(&r.prompt(), strict)))
        .map(|(prompt, completion)| prompt + completion)
        .sum()
}

/// A tally as `[questions, right before, right after, fixed, broken]`.
fn tally(t: &Value) -> [u64; 5] {
    ["questions", "right_before", "right_after", "fixed", "broken"].map(|k| t[k].as_u64().unwrap())
}

/// The sorted ids of a lift's `fixed` or `broken` list.
fn ids(list: &Value) -> Vec<&str> {
    let mut ids: Vec<&str> = list.as_array().unwrap().iter().map(|q| q["question_id"].as_str().unwrap()).collect();
    ids.sort_unstable();
    ids
}

/// The lift's figures every view shows: overall, per level, per dataset, fixed and broken.
fn assert_lift(lift: &Value) {
    assert_eq!(tally(&lift["overall"]), [4, 2, 3, 2, 1], "{lift}");
    assert_eq!(
        (lift["overall"]["accuracy_before"].as_f64(), lift["overall"]["accuracy_after"].as_f64()),
        (Some(0.5), Some(0.75))
    );
    let levels: Vec<(String, [u64; 5])> =
        lift["by_level"].as_object().unwrap().iter().map(|(l, t)| (l.clone(), tally(t))).collect();
    let expected = [("easy", [2, 0, 2, 2, 0]), ("medium", [1, 1, 0, 0, 1]), ("hard", [1, 1, 1, 0, 0])];
    assert_eq!(levels, expected.map(|(l, t)| (l.to_string(), t)), "easiest first");
    assert_eq!(tally(&lift["by_dataset"]["shop"]), [2, 1, 1, 1, 1]);
    assert_eq!(tally(&lift["by_dataset"]["zoo"]), [2, 1, 2, 1, 0]);
    assert_eq!((ids(&lift["fixed"]), ids(&lift["broken"])), (vec!["shop_total", "zoo_count"], vec!["shop_count"]));
    assert_eq!(lift["extra_right"], json!(1));
}

#[tokio::test(flavor = "multi_thread")]
async fn compare_of_one_and_three_iterations_shows_the_critics_lift_and_one_run_shows_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench");
    write_benchmark(&bench);
    let (one, three) = (dir.path().join("one"), dir.path().join("three"));
    let tokens_one = run(dir.path(), &bench, &one, "1", false).await;
    let tokens_three = run(dir.path(), &bench, &three, "3", true).await;
    // Run 2 rebuilt three questions: twice the builds and reviews of run 1 less zoo_total's.
    assert!(tokens_three > tokens_one, "{tokens_one} {tokens_three}");

    let compare = |flags: &[&str]| {
        common::eval_dag(dir.path()).arg("compare").args(flags).arg(&one).arg(&three).output().unwrap()
    };
    let out = compare(&["--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["rows"].as_array().unwrap().len(), 4, "the rows beside the lift");
    let lift = &json["lift"];
    assert_lift(lift);
    // Every token of either run is spent on a compared question.
    let extra = tokens_three - tokens_one;
    assert_eq!(
        (lift["extra_tokens"].as_u64(), lift["tokens_per_extra_right"].as_f64()),
        (Some(extra), Some(extra as f64))
    );

    let out = compare(&["--headless"]);
    let table = String::from_utf8_lossy(&out.stdout);
    for line in [
        "the critic's lift, B (more iterations) over A:",
        "  accuracy without → with rebuilds: 50% → 75% (2/4 → 3/4; fixed 2, broken 1)",
        "    easy: 0% → 100% (0/2 → 2/2; fixed 2, broken 0)",
        "    medium: 100% → 0% (1/1 → 0/1; fixed 0, broken 1)",
        "    hard: 100% → 100% (1/1 → 1/1; fixed 0, broken 0)",
        "    shop: 50% → 50% (1/2 → 1/2; fixed 1, broken 1)",
        "    zoo: 50% → 100% (1/2 → 2/2; fixed 1, broken 0)",
        "  broken by the loop: shop_count",
        &format!("  per extra right answer: {extra} tokens, $"),
    ] {
        assert!(table.contains(line), "{line:?} in:\n{table}");
    }
    let guide = std::fs::read_to_string(common::root().join("docs/src/benchmarks.md")).unwrap();
    let block = &table[table.find("the critic's lift, B").unwrap()..];
    assert!(guide.contains(block.trim_end()), "the guide's example is this output:\n{block}");

    let page = dir.path().join("compare.html");
    let out = compare(&["--html", page.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    let section = &html[html.find("id=\"lift-B\"").expect("a lift section for run B")..];
    let section = &section[..section.find("</section>").unwrap()];
    for row in [
        "<tr><td>all</td><td>4</td><td>50% (2)</td><td>75% (3)</td><td>2</td><td>1</td></tr>",
        "<tr><td>easy</td><td>2</td><td>0% (0)</td><td>100% (2)</td><td>2</td><td>0</td></tr>",
        "<tr><td>dataset zoo</td><td>2</td><td>50% (1)</td><td>100% (2)</td><td>1</td><td>0</td></tr>",
    ] {
        assert!(section.contains(row), "{row} in {section}");
    }
    assert!(section.contains(&format!("per extra right answer: {extra} tokens")), "{section}");

    // Run 2 alone: each question's first DAG's answer beside its final one gives the same lift.
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(three.join("eval_results.json")).unwrap()).unwrap();
    let within = &results["summary"]["benchmark"]["lift"];
    assert_lift(within);
    let first: Vec<(&str, bool)> = results["detailed_results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["question_id"].as_str().unwrap(), d["first_iteration"]["right"].as_bool().unwrap()))
        .collect();
    for (id, right) in [("shop_total", false), ("shop_count", true), ("zoo_total", true), ("zoo_count", false)] {
        assert!(first.contains(&(id, right)), "{id} first right {right}: {first:?}");
    }
    let zoo_total = results["detailed_results"].as_array().unwrap().iter().find(|d| d["question_id"] == "zoo_total");
    let zoo_total = zoo_total.unwrap();
    assert_eq!(zoo_total["first_iteration"]["tokens"], zoo_total["tokens"]["total"], "one iteration: all its tokens");
    let report = std::fs::read_to_string(three.join("eval_report.html")).unwrap();
    let section = &report[report.find("id=\"benchmark\"").unwrap()..];
    let section = &section[..section.find("</section>").unwrap()];
    assert!(section.contains("<h3>First DAG's answer against the final one</h3>"), "{section}");
    assert!(
        section.contains("<tr><td>medium</td><td>1</td><td>100% (1)</td><td>0% (0)</td><td>0</td><td>1</td></tr>"),
        "{section}"
    );

    // Run 1 alone: one iteration, nothing fixed or broken.
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(one.join("eval_results.json")).unwrap()).unwrap();
    assert_eq!(tally(&results["summary"]["benchmark"]["lift"]["overall"]), [4, 2, 2, 0, 0]);
}
