//! DAG judge traversal: paths, shared children, skipped branches, order independence.

use super::*;

#[tokio::test]
async fn a_verdict_with_a_child_node_continues_the_path() {
    let script = Script::default()
        .on("Task: do t", json!({"output": "T-OUT"}))
        .on("Criterion: is j?", said(json!(true), "because j"))
        .on("Criterion: which n?", said(json!("B"), "looks like b"));
    let grade = grade_one(fixture("valid.toml"), &script).await;
    assert_eq!(grade.error, None);
    assert_eq!((grade.score, grade.passed, grade.threshold), (Some(0.4), false, 0.5));
    assert_eq!(grade.reason, r#"t → j: true (because j) → n: "b" (looks like b) → 4/10"#);
    assert_eq!(script.prompts().len(), 3);
    // The node below the verdict still sees the task output, by label.
    let n_prompt = &script.prompts()[script.call_index("Criterion: which n?")];
    assert!(n_prompt.contains("t:\nT-OUT"), "{n_prompt}");
    assert!(n_prompt.contains(r#""a", "b""#), "{n_prompt}");
    // The judge is asked for its reason before its verdict.
    let j_prompt = &script.prompts()[script.call_index("Criterion: is j?")];
    let reply_format = &j_prompt[j_prompt.find("Reply as JSON").unwrap()..];
    assert!(reply_format.find("\"reason\"").unwrap() < reply_format.find("\"verdict\"").unwrap());
    assert!(j_prompt.contains("What share of transactions is fraudulent?"));

    let script = Script::default()
        .on("Task: do t", json!({"output": "T-OUT"}))
        .on("Criterion: is j?", said(json!("No"), "not j"));
    let grade = grade_one(fixture("valid.toml"), &script).await;
    assert_eq!((grade.score, grade.passed), (Some(0.0), false));
    assert_eq!(grade.reason, "t → j: false (not j) → 0/10");
    assert_eq!(script.prompts().len(), 2, "the branch not taken is not run");
}

#[tokio::test]
async fn a_shared_child_runs_once_after_both_parents_and_sees_both_outputs() {
    let judge = dag(&[
        &task("r", "R-label", &["a", "b"]),
        &task("a", "A-label", &["j"]),
        &task("b", "B-label", &["j"]),
        &binary("j", "y", "n"),
        &verdict("y", true, 10),
        &verdict("n", false, 2),
    ]);
    let script = Script::default()
        .on("Task: do r", json!({"output": "R-OUT"}))
        .on_delayed("Task: do a", json!({"output": "A-OUT"}), 60)
        .on_delayed("Task: do b", json!({"output": {"rows": 3}}), 5)
        .on("Criterion: is j?", said(json!(true), "both agree"));
    let grade = grade_one(judge, &script).await;
    assert_eq!((grade.score, grade.passed), (Some(1.0), true));
    assert_eq!(grade.reason, "r → a → j: true (both agree) → 10/10");
    let j = script.call_index("Criterion: is j?");
    assert_eq!(j, 3, "j runs last, once");
    let prompt = &script.prompts()[j];
    for part in ["R-label:\nR-OUT", "A-label:\nA-OUT", "B-label:\n{\"rows\":3}"] {
        assert!(prompt.contains(part), "{part:?} missing from {prompt}");
    }
    assert!(script.max_in_flight.load(Ordering::SeqCst) >= 2, "a and b run concurrently");
}

#[tokio::test]
async fn a_node_reached_by_one_parent_waits_for_the_parent_that_skips_it() {
    // x is a child of task r and of verdict jy; j chooses jn, so jy skips x, but r reaches it.
    let judge = dag(&[
        &task("r", "R", &["j", "x"]),
        &binary("j", "jy", "jn"),
        r#"{ id = "jy", kind = "verdict", verdict = true, child = "x" }"#,
        &verdict("jn", false, 3),
        &binary("x", "xy", "xn"),
        &verdict("xy", true, 10),
        &verdict("xn", false, 0),
    ]);
    let script = Script::default()
        .on("Task: do r", json!({"output": "R-OUT"}))
        .on_delayed("Criterion: is j?", said(json!(false), "no j"), 40)
        .on("Criterion: is x?", said(json!(true), "x holds"));
    let grade = grade_one(judge, &script).await;
    assert_eq!(grade.score, Some(0.3));
    assert_eq!(grade.reason, "r → j: false (no j) → 3/10 (lowest of 2 reached verdicts)");
    assert!(script.call_index("Criterion: is x?") > script.call_index("Criterion: is j?"));
    assert_eq!(script.prompts().len(), 3);
}

fn parallel_nodes() -> Vec<String> {
    vec![
        task("r", "R", &["p", "q", "s"]),
        binary("p", "p_yes", "p_no"),
        verdict("p_yes", true, 8),
        verdict("p_no", false, 2),
        binary("q", "q_yes", "q_no"),
        verdict("q_yes", true, 5),
        verdict("q_no", false, 0),
        binary("s", "s_yes", "s_no"),
        verdict("s_yes", true, 9),
        verdict("s_no", false, 5),
    ]
}

fn parallel_script(delays: [u64; 3]) -> Script {
    Script::default()
        .on("Task: do r", json!({"output": "R-OUT"}))
        .on_delayed("Criterion: is p?", said(json!(true), "p ok"), delays[0])
        .on_delayed("Criterion: is q?", said(json!(true), "q ok"), delays[1])
        .on_delayed("Criterion: is s?", said(json!(false), "s not ok"), delays[2])
}

#[tokio::test]
async fn parallel_branches_score_the_lowest_leaf_whatever_the_order() {
    let forward = parallel_nodes();
    let mut backward = forward.clone();
    backward.reverse();
    let mut results = Vec::new();
    for nodes in [&forward, &backward] {
        for delays in [[50, 20, 1], [1, 20, 50], [0, 0, 0]] {
            let refs: Vec<&str> = nodes.iter().map(String::as_str).collect();
            let script = parallel_script(delays);
            let grade = grade_one(dag(&refs), &script).await;
            assert!(script.max_in_flight.load(Ordering::SeqCst) >= 3, "branches run concurrently");
            let mut keys = script.keys();
            keys.sort();
            results.push((grade, keys));
        }
    }
    let (first, first_keys) = &results[0];
    // q_yes and s_no both score 5: the tie goes to the smaller id, q_yes.
    assert_eq!(first.score, Some(0.5));
    assert_eq!(first.reason, "r → q: true (q ok) → 5/10 (lowest of 3 reached verdicts)");
    for (grade, keys) in &results {
        assert_eq!(grade, first);
        assert_eq!(keys, first_keys, "call keys do not depend on order either");
    }
}

#[tokio::test]
async fn strict_mode_needs_a_perfect_score() {
    let text = std::fs::read_to_string(fixture_path("valid.toml")).unwrap();
    let strict = Judge::parse(&format!("strict_mode = true\n{text}"), "strict").unwrap();
    let script = || {
        Script::default()
            .on("Task: do t", json!({"output": "T"}))
            .on("Criterion: is j?", said(json!(true), "j"))
            .on("Criterion: which n?", said(json!("a"), "a"))
    };
    let grade = grade_one(strict, &script()).await;
    assert_eq!((grade.score, grade.threshold, grade.passed), (Some(1.0), 1.0, true));
    let text = text.replace("score = 10", "score = 9");
    let strict = Judge::parse(&format!("strict_mode = true\n{text}"), "strict").unwrap();
    let grade = grade_one(strict, &script()).await;
    assert_eq!((grade.score, grade.passed), (Some(0.9), false));
}

#[tokio::test]
async fn unusable_replies_and_failed_calls_are_errors_naming_the_node() {
    let cases = [
        (
            Script::default()
                .on("Task: do t", json!({"output": "T"}))
                .on("Criterion: is j?", said(json!("maybe"), "unsure")),
            "node \"j\": the verdict \"maybe\" is not one of true, false",
        ),
        (
            Script::default().on("Task: do t", json!({"output": "T"})).on("Criterion: is j?", json!({"reason": "r"})),
            "node \"j\": the reply has no \"verdict\"",
        ),
        (Script::default().on("Task: do t", json!({"result": "T"})), "node \"t\": the reply has no \"output\""),
        (Script::default().on_text("Task: do t", "I would rather not."), "node \"t\": the reply holds no JSON object"),
        (Script::default(), "node \"t\": judge call failed: no scripted reply"),
    ];
    for (script, needle) in cases {
        let grade = grade_one(fixture("valid.toml"), &script).await;
        assert_eq!((grade.score, grade.passed), (None, false));
        let error = grade.error.unwrap_or_default();
        assert!(error.contains(needle), "{error:?} lacks {needle:?}");
    }
}

#[tokio::test]
async fn the_shipped_judges_run_on_their_own_prompts() {
    let script = Script::default()
        .on("Say what kind of value the question asks for", json!({"output": "a proportion"}))
        .on("The answer is one value", said(json!(true), "one number"))
        .on("Compare the answer's kind", said(json!("matches"), "a proportion"))
        .on("List what the question asks for", json!({"output": "(1) fraud share"}))
        .on("reports the quantity or entity", said(json!(true), "it is the share"))
        .on("Compare the answer's scope", said(json!("partial"), "no breakdown"));
    let grades = grade_with(built_in_judges().unwrap(), &script, Some(json!(0.0058))).await;
    assert_eq!(grades[0].method, "well_formed_value");
    assert_eq!(grades[0].score, Some(1.0));
    assert_eq!(
        grades[0].reason,
        r#"requested_kind → single_value: true (one number) → kind_matches: "matches" (a proportion) → 10/10"#
    );
    assert_eq!(grades[1].method, "addresses_question");
    assert_eq!((grades[1].score, grades[1].passed), (Some(0.5), true));
    assert_eq!(grades[1].reason, r#"asked → scope: "partial" (no breakdown) → 5/10 (lowest of 2 reached verdicts)"#);
    let kind_prompt = &script.prompts()[script.call_index("Compare the answer's kind")];
    assert!(kind_prompt.contains("Requested kind of value:\na proportion"), "{kind_prompt}");
}
