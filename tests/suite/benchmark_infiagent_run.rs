//! A published benchmark's path end to end, on made-up files in
//! InfiAgent-DABench's layout: `import infiagent` writes the benchmark
//! directory, `run` answers it with a scripted model whose DAGs return a
//! `{name: value}` dict, and the results carry InfiAgent's own figures.

use crate::suite::benchmark_import::{import, infiagent_files};
use crate::suite::benchmark_run::{eval_dag, is_build, question_id};

use crate::common::mock_llm::{MockLlm, Reply};
use serde_json::{Value, json};

/// One node reading `dataset.rows`: the mean of `x`, rounded to two decimals,
/// as the `mean_x` part (a question asking for more parts gets only this one).
fn dag(id: &str) -> String {
    let code =
        "def answer(rows):\n    xs = [row['x'] for row in rows]\n    return {'mean_x': round(sum(xs) / len(xs), 2)}\n";
    json!({"question_id": id, "description": "mean of x", "final_answer_node": "answer", "edges": [],
        "nodes": [{"node_id": "answer", "operation": "mean of x", "function_name": "answer",
            "inputs": {"rows": "dataset.rows"}, "expected_output_type": "dict", "layer": 0, "code": code}]})
    .to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_imported_infiagent_benchmark_runs_and_is_scored_by_its_own_rules() {
    let dir = tempfile::tempdir().unwrap();
    let published = dir.path().join("published");
    infiagent_files(&published);
    let bench = dir.path().join("bench");
    let imported = import("infiagent", &published, &bench);
    assert_eq!(imported.status.code(), Some(0), "{}", String::from_utf8_lossy(&imported.stderr));

    let mock = MockLlm::start(|request, _| {
        let prompt = request.prompt();
        if prompt.contains("review one layer") {
            return Reply::Text(json!({"is_valid": true, "issues": [], "reasoning": "reads x"}).to_string());
        }
        Reply::Text(dag(&question_id(&prompt)))
    })
    .await;
    let out = dir.path().join("run");
    let output = eval_dag(dir.path(), &mock, &["run"]).arg(&bench).arg("--out").arg(&out).output().await.unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "a graded answer is wrong: {said}");
    assert!(said.contains("da_0 graded wrong by ground_truth: infiagent rules: 1 of 2 parts right"), "{said}");

    let builds: Vec<String> = mock.requests().iter().map(|r| r.prompt()).filter(|p| is_build(p)).collect();
    assert_eq!(builds.len(), 2, "one build per imported question");
    for prompt in &builds {
        assert!(prompt.contains("Constraints: Round to two decimals."), "{prompt}");
        assert!(prompt.contains("Answer format: @mean_x[mean]"), "{prompt}");
        assert!(prompt.contains("each is written as @name[value]"), "the InfiAgent instruction: {prompt}");
    }

    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("eval_results.json")).unwrap()).unwrap();
    let by_id = |id: &str| {
        results["detailed_results"].as_array().unwrap().iter().find(|d| d["question_id"] == id).cloned().unwrap()
    };
    // da_1 (titled.csv: x 10, 20) asks for mean_x only: 15.0 is written "15.0", the label's text.
    let da_1 = by_id("da_1");
    assert_eq!((da_1["dataset"].as_str(), da_1["benchmark"]["correct"].as_bool()), (Some("titled"), Some(true)));
    // da_0 (hard table.csv: x 1, 2, 3) asks for mean_x and n: 2.0 is 2.00 as floats, n is missing.
    let da_0 = by_id("da_0");
    assert_eq!((da_0["dataset"].as_str(), da_0["benchmark"]["correct"].as_bool()), (Some("hard_table"), Some(false)));
    let benchmark = &results["summary"]["benchmark"];
    assert_eq!(benchmark["name"], "infiagent");
    assert_eq!(benchmark["accuracy_by_question"], json!(0.5));
    assert_eq!(benchmark["accuracy_by_sub_question"].as_f64(), Some(2.0 / 3.0), "parts: 1 of 1, 1 of 2");
    assert_eq!(benchmark["proportional_accuracy_by_sub_question"], json!(0.75), "(1 + 1/2) / 2");

    let html = std::fs::read_to_string(out.join("eval_report.html")).unwrap();
    let section = &html[html.find("id=\"benchmark\"").expect("the report has a benchmark section")..];
    let section = &section[..section.find("</section>").unwrap()];
    assert!(section.contains("Benchmark: infiagent") && section.contains("2 of 2 scored questions answered"));
    let own =
        "<tr><td>answered questions (the benchmark&#x27;s own figures)</td><td>50%</td><td>67%</td><td>75%</td></tr>";
    assert!(section.contains(own), "{section}");
}
