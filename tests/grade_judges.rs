//! Judges: judge-file validation, DAG traversal, rubric and faithfulness, run
//! through `grade_answer` against a scripted LLM that answers by matching the
//! prompt (the LLM boundary, not the thing under test).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use eval_dag::grade::{
    ClaimVerdict, Grade, GradeError, GradeInput, Judge, JudgeKind, JudgePanel, MatchOptions,
    RubricOutput, built_in_judges, faithfulness_score, grade_answer, normalise_score,
    parse_rubric_reply,
};
use eval_dag::llm::{
    CallKey, DeltaSink, LlmClient, LlmError, LlmErrorKind, LlmRequest, LlmResponse, LlmRole,
};
use eval_dag::model::{DifficultyLevel, Question};
use futures::future::BoxFuture;
use indexmap::IndexMap;
use serde_json::{Value, json};

// ---------------------------------------------------------------- scripted LLM

struct Rule {
    needle: String,
    reply: String,
    delay_ms: u64,
}

/// Replies with the first rule whose needle occurs in the user prompt.
#[derive(Default)]
struct Script {
    rules: Vec<Rule>,
    calls: Mutex<Vec<LlmRequest>>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
}

impl Script {
    fn on(self, needle: &str, reply: Value) -> Self {
        self.on_delayed(needle, reply, 0)
    }

    fn on_text(mut self, needle: &str, reply: &str) -> Self {
        self.rules.push(Rule {
            needle: needle.into(),
            reply: reply.into(),
            delay_ms: 0,
        });
        self
    }

    fn on_delayed(mut self, needle: &str, reply: Value, delay_ms: u64) -> Self {
        self.rules.push(Rule {
            needle: needle.into(),
            reply: reply.to_string(),
            delay_ms,
        });
        self
    }

    fn prompts(&self) -> Vec<String> {
        self.calls.lock().unwrap().iter().map(user_prompt).collect()
    }

    fn keys(&self) -> Vec<CallKey> {
        self.calls
            .lock()
            .unwrap()
            .iter()
            .map(|r| r.key.clone())
            .collect()
    }

    /// Index of the (single) call whose prompt holds `needle`.
    fn call_index(&self, needle: &str) -> usize {
        let prompts = self.prompts();
        let hits: Vec<usize> = (0..prompts.len())
            .filter(|i| prompts[*i].contains(needle))
            .collect();
        assert_eq!(hits.len(), 1, "{needle:?} was asked {} times", hits.len());
        hits[0]
    }
}

fn user_prompt(request: &LlmRequest) -> String {
    request
        .messages
        .iter()
        .filter(|m| m.role == "user")
        .map(|m| m.content.clone())
        .collect()
}

impl LlmClient for Script {
    fn provider(&self) -> &str {
        "script"
    }

    fn model(&self) -> &str {
        "script"
    }

    fn complete<'a>(
        &'a self,
        request: &'a LlmRequest,
        _sink: DeltaSink,
    ) -> BoxFuture<'a, Result<LlmResponse, LlmError>> {
        Box::pin(async move {
            self.calls.lock().unwrap().push(request.clone());
            let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            self.max_in_flight.fetch_max(now, Ordering::SeqCst);
            let prompt = user_prompt(request);
            let result = match self.rules.iter().find(|r| prompt.contains(&r.needle)) {
                Some(rule) => {
                    tokio::time::sleep(Duration::from_millis(rule.delay_ms)).await;
                    Ok(LlmResponse {
                        text: rule.reply.clone(),
                        ..LlmResponse::default()
                    })
                }
                None => Err(LlmError::new(LlmErrorKind::BadRequest, "no scripted reply")),
            };
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
            result
        })
    }
}

// ---------------------------------------------------------------- helpers

fn question(expected: Option<Value>) -> Question {
    Question {
        id: "q_01".into(),
        question: "What share of transactions is fraudulent?".into(),
        difficulty_rank: 1,
        difficulty_level: DifficultyLevel::Easy,
        reasoning: String::new(),
        relevant_data_keys: vec![],
        expected_answer: expected,
    }
}

async fn grade_with(judges: Vec<Judge>, script: &Script, answer: Option<Value>) -> Vec<Grade> {
    let question = question(None);
    let outputs: IndexMap<String, Value> = [("step_1".to_string(), json!(0.0058))].into();
    let panel = JudgePanel::new(judges).unwrap();
    let options = MatchOptions::default();
    let input = GradeInput {
        question: &question,
        options: &options,
        final_answer: answer.as_ref(),
        node_outputs: &outputs,
        attempt: 3,
    };
    grade_answer(&input, &panel, script).await
}

async fn grade_one(judge: Judge, script: &Script) -> Grade {
    let mut grades = grade_with(vec![judge], script, Some(json!(0.0058))).await;
    assert_eq!(grades.len(), 1);
    grades.remove(0)
}

fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/judges")
        .join(name)
}

fn fixture(name: &str) -> Judge {
    Judge::load(&fixture_path(name)).unwrap()
}

fn dag(nodes: &[&str]) -> Judge {
    let text = format!(
        "name = \"test\"\nkind = \"dag\"\nnode = [\n{}\n]\n",
        nodes.join(",\n")
    );
    Judge::parse(&text, "inline").unwrap()
}

fn task(id: &str, label: &str, children: &[&str]) -> String {
    format!(
        r#"{{ id = "{id}", kind = "task", instructions = "do {id}", output_label = "{label}", children = {children:?} }}"#
    )
}

fn binary(id: &str, yes: &str, no: &str) -> String {
    format!(
        r#"{{ id = "{id}", kind = "binary_judgement", criteria = "is {id}?", children = ["{yes}", "{no}"] }}"#
    )
}

fn verdict(id: &str, verdict: bool, score: u8) -> String {
    format!(r#"{{ id = "{id}", kind = "verdict", verdict = {verdict}, score = {score} }}"#)
}

fn said(verdict: Value, reason: &str) -> Value {
    json!({"reason": reason, "verdict": verdict})
}

// ---------------------------------------------------------------- judge files

#[test]
fn judge_files_that_break_a_rule_say_which_node_and_why() {
    let cases = [
        (
            "no_nodes.toml",
            "a dag judge needs [[node]] tables, found none",
        ),
        ("missing_id.toml", "node #2 has no \"id\""),
        ("duplicate_id.toml", "node \"yes\" is declared twice"),
        (
            "unknown_child.toml",
            "node \"t\" names unknown child \"zzz\"",
        ),
        (
            "unknown_field.toml",
            "node \"j\": unknown field `criterias`",
        ),
        (
            "unknown_kind.toml",
            "node \"j\": unknown variant `judgement`",
        ),
        ("empty_criteria.toml", "node \"j\": \"criteria\" is empty"),
        ("duplicate_child.toml", "node \"t\" lists child \"j\" twice"),
        ("cycle.toml", "the nodes form a cycle through"),
        (
            "two_roots.toml",
            "exactly one node (the root) may have no parent, found 2: \"s\", \"t\"",
        ),
        ("verdict_root.toml", "verdict node \"stray\" has no parent"),
        (
            "task_without_children.toml",
            "task node \"u\" has no children: every path must end in a verdict",
        ),
        (
            "task_verdict_child.toml",
            "task node \"t\" has verdict child \"yes\": verdicts belong under judgement nodes",
        ),
        (
            "judgement_task_child.toml",
            "judgement node \"j\" has child \"u\", which is not a verdict",
        ),
        (
            "binary_three_verdicts.toml",
            "binary judgement \"j\" needs exactly two verdict children, true and false; it has 3",
        ),
        (
            "binary_one_verdict.toml",
            "binary judgement \"j\" needs exactly two verdict children, true and false; it has 1",
        ),
        (
            "binary_string_verdict.toml",
            "verdict node \"yes\" says \"yes\" but its parent \"j\" is a binary judgement",
        ),
        (
            "non_binary_bool_verdict.toml",
            "verdict node \"b\" says true but its parent \"n\" is a non-binary judgement",
        ),
        (
            "non_binary_duplicate_verdict.toml",
            "non-binary judgement \"n\" has the verdict",
        ),
        (
            "non_binary_one_verdict.toml",
            "non-binary judgement \"n\" needs at least two verdict children, it has 1",
        ),
        (
            "verdict_score_and_child.toml",
            "verdict node \"yes\" has both a score and a child",
        ),
        (
            "verdict_without_outcome.toml",
            "verdict node \"yes\" needs a score (0-10) or a child",
        ),
        (
            "verdict_score_range.toml",
            "verdict node \"yes\": score must be 0-10, got 11",
        ),
        (
            "verdict_child_verdict.toml",
            "verdict node \"yes\" leads to verdict \"no\"",
        ),
        (
            "verdict_two_parents.toml",
            "verdict node \"yes\" has 2 parents (\"j\", \"k\")",
        ),
        (
            "duplicate_label.toml",
            "task nodes \"t\" and \"u\" share the output label \"t\"",
        ),
        (
            "bad_threshold.toml",
            "\"threshold\" must be between 0 and 1, got 1.5",
        ),
        ("unknown_top_field.toml", "unknown field `treshold`"),
        (
            "rubric_one_level.toml",
            "a rubric needs at least two [[level]] tables, found 1",
        ),
        ("rubric_duplicate_level.toml", "two levels have score 3"),
        (
            "faithfulness_zero_limit.toml",
            "\"truths_limit\" must be at least 1",
        ),
    ];
    for (file, needle) in cases {
        let err = Judge::load(&fixture_path(file)).unwrap_err();
        assert!(matches!(err, GradeError::Judge { .. }), "{file}: {err:?}");
        let message = err.to_string();
        assert!(
            message.starts_with("judge ") && message.contains(file),
            "{message}"
        );
        assert!(
            message.contains(needle),
            "{file}: {message:?} lacks {needle:?}"
        );
    }
}

#[test]
fn valid_judge_files_load() {
    let judge = fixture("valid.toml");
    assert_eq!(
        (judge.name.as_str(), judge.threshold, judge.strict_mode),
        ("fixture", 0.5, false)
    );
    assert!(matches!(judge.kind, JudgeKind::Dag(_)));
    let rubric = fixture("rubric_valid.toml");
    assert_eq!(rubric.effective_threshold(), 1.0);
    let JudgeKind::Rubric(r) = &rubric.kind else {
        panic!("not a rubric")
    };
    let scores: Vec<i64> = r.levels.iter().map(|l| l.score).collect();
    assert_eq!(scores, [1, 3, 5]);
    assert_eq!(r.output, RubricOutput::Tagged);
    let JudgeKind::Faithfulness(f) = fixture("faithfulness.toml").kind else {
        panic!("not faithfulness")
    };
    assert!(f.penalize_unknown);
    assert_eq!(f.truths_limit, Some(10));
    let missing = Judge::load(&fixture_path("nope.toml"))
        .unwrap_err()
        .to_string();
    assert!(missing.contains("nope.toml"), "{missing}");
    let not_toml = Judge::parse("name = ", "broken").unwrap_err().to_string();
    assert!(not_toml.starts_with("judge broken: "), "{not_toml}");
}

#[test]
fn the_shipped_judges_load() {
    let judges = built_in_judges().unwrap();
    let names: Vec<&str> = judges.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["well_formed_value", "addresses_question"]);
    assert!(judges.iter().all(|j| matches!(j.kind, JudgeKind::Dag(_))));
}

// ---------------------------------------------------------------- DAG traversal

#[tokio::test]
async fn a_verdict_with_a_child_node_continues_the_path() {
    let script = Script::default()
        .on("Task: do t", json!({"output": "T-OUT"}))
        .on("Criterion: is j?", said(json!(true), "because j"))
        .on("Criterion: which n?", said(json!("B"), "looks like b"));
    let grade = grade_one(fixture("valid.toml"), &script).await;
    assert_eq!(grade.error, None);
    assert_eq!(
        (grade.score, grade.passed, grade.threshold),
        (Some(0.4), false, 0.5)
    );
    assert_eq!(
        grade.reason,
        r#"t → j: true (because j) → n: "b" (looks like b) → 4/10"#
    );
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
    for part in [
        "R-label:\nR-OUT",
        "A-label:\nA-OUT",
        "B-label:\n{\"rows\":3}",
    ] {
        assert!(prompt.contains(part), "{part:?} missing from {prompt}");
    }
    assert!(
        script.max_in_flight.load(Ordering::SeqCst) >= 2,
        "a and b run concurrently"
    );
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
    assert_eq!(
        grade.reason,
        "r → j: false (no j) → 3/10 (lowest of 2 reached verdicts)"
    );
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
        .on_delayed(
            "Criterion: is s?",
            said(json!(false), "s not ok"),
            delays[2],
        )
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
            assert!(
                script.max_in_flight.load(Ordering::SeqCst) >= 3,
                "branches run concurrently"
            );
            let mut keys = script.keys();
            keys.sort();
            results.push((grade, keys));
        }
    }
    let (first, first_keys) = &results[0];
    // q_yes and s_no both score 5: the tie goes to the smaller id, q_yes.
    assert_eq!(first.score, Some(0.5));
    assert_eq!(
        first.reason,
        "r → q: true (q ok) → 5/10 (lowest of 3 reached verdicts)"
    );
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
    assert_eq!(
        (grade.score, grade.threshold, grade.passed),
        (Some(1.0), 1.0, true)
    );
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
            Script::default()
                .on("Task: do t", json!({"output": "T"}))
                .on("Criterion: is j?", json!({"reason": "r"})),
            "node \"j\": the reply has no \"verdict\"",
        ),
        (
            Script::default().on("Task: do t", json!({"result": "T"})),
            "node \"t\": the reply has no \"output\"",
        ),
        (
            Script::default().on_text("Task: do t", "I would rather not."),
            "node \"t\": the reply holds no JSON object",
        ),
        (
            Script::default(),
            "node \"t\": judge call failed: no scripted reply",
        ),
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
        .on(
            "Say what kind of value the question asks for",
            json!({"output": "a proportion"}),
        )
        .on("The answer is one value", said(json!(true), "one number"))
        .on(
            "Compare the answer's kind",
            said(json!("matches"), "a proportion"),
        )
        .on(
            "List what the question asks for",
            json!({"output": "(1) fraud share"}),
        )
        .on(
            "reports the quantity or entity",
            said(json!(true), "it is the share"),
        )
        .on(
            "Compare the answer's scope",
            said(json!("partial"), "no breakdown"),
        );
    let grades = grade_with(built_in_judges().unwrap(), &script, Some(json!(0.0058))).await;
    assert_eq!(grades[0].method, "well_formed_value");
    assert_eq!(grades[0].score, Some(1.0));
    assert_eq!(
        grades[0].reason,
        r#"requested_kind → single_value: true (one number) → kind_matches: "matches" (a proportion) → 10/10"#
    );
    assert_eq!(grades[1].method, "addresses_question");
    assert_eq!((grades[1].score, grades[1].passed), (Some(0.5), true));
    assert_eq!(
        grades[1].reason,
        r#"asked → scope: "partial" (no breakdown) → 5/10 (lowest of 2 reached verdicts)"#
    );
    let kind_prompt = &script.prompts()[script.call_index("Compare the answer's kind")];
    assert!(
        kind_prompt.contains("Requested kind of value:\na proportion"),
        "{kind_prompt}"
    );
}

// ---------------------------------------------------------------- rubric

#[test]
fn rubric_replies_are_parsed_or_rejected() {
    let plain = |text| parse_rubric_reply(text, RubricOutput::Plain).map(|r| r.raw);
    assert_eq!(plain("4"), Ok(4.0));
    assert_eq!(plain("  3,5 \n"), Ok(3.5));
    assert_eq!(plain("-1.25"), Ok(-1.25));
    for bad in [
        "Score: 4",
        "4 out of 5",
        "",
        "four",
        "[RESULT] 4 [END]",
        "3,5,1",
    ] {
        let err = plain(bad).unwrap_err();
        assert!(
            err.contains("the reply holds no score (expected a number alone)"),
            "{bad}: {err}"
        );
    }
    let tagged = parse_rubric_reply(
        "[FEEDBACK] Mostly right,\nminor slip. [RESULT] 4 [END]",
        RubricOutput::Tagged,
    )
    .unwrap();
    assert_eq!(tagged.raw, 4.0);
    assert_eq!(
        tagged.feedback.as_deref(),
        Some("Mostly right,\nminor slip.")
    );
    let bare = parse_rubric_reply("I think... [result] 2,5 [end]", RubricOutput::Tagged).unwrap();
    assert_eq!((bare.raw, bare.feedback), (2.5, None));
    for bad in ["4", "[RESULT] four [END]", "[FEEDBACK] ok [RESULT] 4"] {
        let err = parse_rubric_reply(bad, RubricOutput::Tagged).unwrap_err();
        assert!(
            err.contains("expected [RESULT] <number> [END]"),
            "{bad}: {err}"
        );
    }
}

#[test]
fn rubric_scores_are_normalised_and_clamped() {
    assert_eq!(normalise_score(3.0, 1.0, 5.0), 0.5);
    assert_eq!(normalise_score(1.0, 1.0, 5.0), 0.0);
    assert_eq!(normalise_score(5.0, 1.0, 5.0), 1.0);
    assert_eq!(normalise_score(7.0, 1.0, 5.0), 1.0);
    assert_eq!(normalise_score(-3.0, 1.0, 5.0), 0.0);
    assert_eq!(normalise_score(3.0, 2.0, 2.0), 0.0);
}

const PLAIN_RUBRIC: &str = r#"
name = "plausible"
kind = "rubric"
criteria = "Is the number plausible?"
inputs = ["question", "answer", "node_outputs"]
level = [{ score = 1, description = "impossible" }, { score = 5, description = "plausible" }]
"#;

#[tokio::test]
async fn a_rubric_judge_scores_one_reply() {
    let script = Script::default().on_text("Is the number plausible?", " 4,5 ");
    let grade = grade_one(Judge::parse(PLAIN_RUBRIC, "inline").unwrap(), &script).await;
    assert_eq!(
        (grade.score, grade.passed, grade.threshold),
        (Some(0.875), true, 0.5)
    );
    assert_eq!(grade.reason, "4.5 on 1-5");
    let calls = script.calls.lock().unwrap().clone();
    assert_eq!(calls.len(), 1);
    assert!(!calls[0].json);
    let prompt = user_prompt(&calls[0]);
    assert!(
        prompt.contains("- 1: impossible\n- 5: plausible"),
        "{prompt}"
    );
    assert!(prompt.contains("step_1: 0.0058"), "{prompt}");

    let script = Script::default().on_text(
        "Is the value plausible?",
        "[FEEDBACK] Odd but possible. [RESULT] 3 [END]",
    );
    let grade = grade_one(fixture("rubric_valid.toml"), &script).await;
    assert_eq!(
        (grade.score, grade.passed, grade.threshold),
        (Some(0.5), false, 1.0)
    );
    assert_eq!(grade.reason, "3 on 1-5: doubtful — Odd but possible.");
}

#[tokio::test]
async fn an_unparseable_rubric_reply_is_an_error_not_a_zero() {
    let script = Script::default().on_text("Is the number plausible?", "I would give it a 4.");
    let grade = grade_one(Judge::parse(PLAIN_RUBRIC, "inline").unwrap(), &script).await;
    assert_eq!((grade.score, grade.passed), (None, false));
    assert!(grade.error.unwrap().contains("the reply holds no score"));
    let script = Script::default().on_text("Is the number plausible?", "9");
    let grade = grade_one(Judge::parse(PLAIN_RUBRIC, "inline").unwrap(), &script).await;
    assert_eq!(grade.score, Some(1.0));
    assert_eq!(grade.reason, "9 on 1-5 (outside the scale, clamped)");
}

// ---------------------------------------------------------------- faithfulness

#[test]
fn faithfulness_is_the_share_of_claims_not_contradicted() {
    use ClaimVerdict::{Contradicted, Supported, Unknown};
    assert_eq!(faithfulness_score(&[], false), 1.0);
    assert_eq!(faithfulness_score(&[], true), 1.0);
    assert_eq!(
        faithfulness_score(&[Supported, Contradicted, Unknown], false),
        2.0 / 3.0
    );
    assert_eq!(
        faithfulness_score(&[Supported, Contradicted, Unknown], true),
        1.0 / 3.0
    );
    assert_eq!(faithfulness_score(&[Unknown, Unknown], false), 1.0);
    assert_eq!(faithfulness_score(&[Unknown, Unknown], true), 0.0);
    assert_eq!(faithfulness_score(&[Contradicted], false), 0.0);
}

fn faithfulness_script(verdicts: Value) -> Script {
    Script::default()
        .on("List the factual claims", json!({"claims": ["The fraud share is 0.58%.", "Fraud is rising.", "Data covers 2020."]}))
        .on("List the facts these outputs establish", json!({"truths": ["step_1 computed a fraud share of 0.0058."]}))
        .on("For each claim", json!({"verdicts": verdicts}))
}

#[tokio::test]
async fn faithfulness_judges_claims_against_node_outputs() {
    let verdicts = json!([
        {"reason": "matches step_1", "verdict": "supported"},
        {"reason": "step_1 shows no trend", "verdict": "contradicted"},
        {"reason": "nothing about years", "verdict": "idk"},
    ]);
    let script = faithfulness_script(verdicts.clone());
    let grade = grade_one(fixture("faithfulness.toml"), &script).await;
    assert_eq!(grade.score, Some(1.0 / 3.0));
    assert!(!grade.passed);
    assert_eq!(
        grade.reason,
        r#"1 of 3 claims supported, 1 contradicted, 1 unknown; contradicted: "Fraud is rising." (step_1 shows no trend)"#
    );
    let prompts = script.prompts();
    assert!(prompts[script.call_index("List the facts")].contains("step_1: 0.0058"));
    assert!(prompts[script.call_index("List the facts")].contains("at most 10 facts"));
    assert!(prompts[script.call_index("For each claim")].contains("2. Fraud is rising."));
    assert!(
        script.max_in_flight.load(Ordering::SeqCst) >= 2,
        "claims and truths run together"
    );

    let lenient = Judge::parse("name = \"f\"\nkind = \"faithfulness\"", "inline").unwrap();
    let grade = grade_one(lenient, &faithfulness_script(verdicts)).await;
    assert_eq!((grade.score, grade.passed), (Some(2.0 / 3.0), true));
}

#[tokio::test]
async fn faithfulness_without_claims_scores_one_and_bad_verdicts_are_errors() {
    let script = Script::default()
        .on("List the factual claims", json!({"claims": []}))
        .on(
            "List the facts these outputs establish",
            json!({"truths": []}),
        );
    let grade = grade_one(fixture("faithfulness.toml"), &script).await;
    assert_eq!(
        (grade.score, grade.reason.as_str()),
        (Some(1.0), "the answer makes no claims")
    );
    assert_eq!(script.prompts().len(), 2);

    let short = faithfulness_script(json!([{"verdict": "supported"}]));
    let grade = grade_one(fixture("faithfulness.toml"), &short).await;
    assert_eq!(grade.error.as_deref(), Some("1 verdicts for 3 claims"));
    let odd = faithfulness_script(
        json!([{"verdict": "supported"}, {"verdict": "maybe"}, {"verdict": "no"}]),
    );
    let grade = grade_one(fixture("faithfulness.toml"), &odd).await;
    assert_eq!(
        grade.error.as_deref(),
        Some("verdict 2 is not supported, contradicted or unknown")
    );
}

// ---------------------------------------------------------------- grade_answer

#[tokio::test]
async fn grades_come_in_order_with_keys_for_replay() {
    let script = Script::default()
        .on("Task: do t", json!({"output": "T"}))
        .on("Criterion: is j?", said(json!(false), "no"))
        .on_text("Is the number plausible?", "5");
    let question = question(Some(json!(0.0058)));
    let outputs = IndexMap::new();
    let panel = JudgePanel::new(vec![
        fixture("valid.toml"),
        Judge::parse(PLAIN_RUBRIC, "inline").unwrap(),
    ])
    .unwrap();
    let options = MatchOptions::default();
    let answer = json!(0.006);
    let input = GradeInput {
        question: &question,
        options: &options,
        final_answer: Some(&answer),
        node_outputs: &outputs,
        attempt: 2,
    };
    let grades = grade_answer(&input, &panel, &script).await;
    let methods: Vec<&str> = grades.iter().map(|g| g.method.as_str()).collect();
    assert_eq!(methods, ["ground_truth", "fixture", "plausible"]);
    assert!(grades[0].passed);
    let mut keys = script.keys();
    keys.sort();
    let expected: Vec<CallKey> = [(1, 0), (1, 1), (2, 0)]
        .into_iter()
        .map(|(iteration, layer)| CallKey {
            question_id: Some("q_01".into()),
            role: LlmRole::Judge,
            attempt: 2,
            iteration,
            layer: Some(layer),
        })
        .collect();
    assert_eq!(keys, expected);
}

#[tokio::test]
async fn without_an_answer_every_method_fails_and_no_llm_is_called() {
    let script = Script::default();
    let grades = grade_with(
        vec![fixture("valid.toml"), fixture("faithfulness.toml")],
        &script,
        None,
    )
    .await;
    assert_eq!(grades.len(), 2);
    for grade in &grades {
        assert_eq!(
            (grade.score, grade.passed, grade.error.as_deref()),
            (Some(0.0), false, None)
        );
        assert_eq!(grade.reason, "no answer was produced");
    }
    assert!(script.prompts().is_empty());
    let json = serde_json::to_value(&grades[0]).unwrap();
    assert_eq!(
        json,
        json!({"method": "fixture", "score": 0.0, "passed": false, "threshold": 0.5, "reason": "no answer was produced"})
    );
}
