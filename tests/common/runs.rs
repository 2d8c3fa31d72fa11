//! Three runs of the sample for the comparison of several runs, edited in
//! memory from the scripted sample's results.

use eval_dag::report::{EvalResults, load_results};
use eval_dag::run::Outcome;
use serde_json::json;

/// Their names, as a user would give them.
pub const NAMES: [&str; 3] = ["runs/a/trace.jsonl", "runs/b/eval_results.json", "runs/c/trace.jsonl"];

/// A: the sample as recorded. B: q_02 fails (a regression) and q_01 answers
/// otherwise. C asks other questions: q_01 under another id (matched by its
/// text), not q_02, and three questions of its own.
pub fn three_runs() -> Vec<EvalResults> {
    let a = load_results(&super::root().join(super::tui::SAMPLE)).unwrap();
    let mut b = a.clone();
    for result in &mut b.detailed_results {
        match result.question_id.as_str() {
            "q_02" => {
                result.success = false;
                result.status = Outcome::Failed.into();
                result.final_answer = None;
                result.correct = None;
            }
            "q_01" => result.final_answer = Some(json!("shopping_net")),
            _ => {}
        }
    }
    (b.summary.passed, b.summary.failed, b.summary.pass_rate) = (1, 1, 0.5);
    let mut c = a.clone();
    let q_01 = c.detailed_results.iter().find(|r| r.question_id == "q_01").unwrap().clone();
    c.detailed_results = vec![eval_dag::report::DetailedResult { question_id: "c_01".into(), ..q_01.clone() }];
    c.question_traces.retain(|t| t.question_id == "q_01");
    c.question_traces[0].question_id = "c_01".into();
    for (n, text) in
        [(7, "Which merchant sees the most fraud?"), (8, "What is the mean amount?"), (9, "How many states?")]
    {
        c.detailed_results.push(eval_dag::report::DetailedResult {
            question_id: format!("c_0{n}"),
            question: text.into(),
            final_answer: Some(json!(n)),
            correct: None,
            ..q_01.clone()
        });
    }
    vec![a, b, c]
}

/// The names as owned strings.
pub fn names() -> Vec<String> {
    NAMES.map(String::from).into()
}
