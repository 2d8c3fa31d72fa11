//! `eval_results.json`'s types (`eval_dag::report::EvalResults`) and its JSON
//! Schema (`src/report/eval_results.schema.json`) describe the same document:
//! a document with every optional part present follows the schema, reads
//! back unchanged, and writes exactly the properties the schema lists, object
//! by object. A field added to one and not the other fails here.

use std::collections::{BTreeMap, BTreeSet};

use eval_dag::domain::{
    CriticFeedback, DagEdge, DagNodeSpec, DifficultyLevel, ExecutionResult, Finding, FindingSource, GeneratedDag,
    Grade, GradingSettings, LayerValidation, LlmRole, RoleModel, Scorer, Severity,
};
use eval_dag::report::{
    AnswerGrade, ApprovalHistogram, AttemptTrace, BenchmarkScore, BenchmarkSummary, BudgetUse, CacheUse, CallMeta,
    Consensus, Convergence, CriticScorecard, DetailedResult, DifficultyBreakdown, DraftAnswer, EpochResult,
    EvalResults, FailureAnalysis, FateCounts, FindingGroup, FindingsTaxonomy, GradedBy, Grading, IterationTrace,
    JudgedIteration, LevelBreakdown, LogEntry, LogRole, Metamorphic, MetamorphicCheck, Oscillation, OscillationKind,
    QuestionTrace, ReferenceLogEntry, ReferenceRole, Relation, Repeats, RoleUsage, StageTiming, SubAnswer, Summary,
    TokenEconomy, Tokens, Transform, VerdictFate,
};
use eval_dag::run::{AnswerLabel, Budget, DatasetRef, Outcome, RunSettings, Stage};
use serde_json::{Value, json};

use crate::common;

/// Objects keyed by names from the data (nodes, options), not by fields.
const MAPS: [&str; 10] = [
    "inputs",
    "match_options",
    "node_outputs",
    "node_timings_ms",
    "printed",
    "by_difficulty",
    "by_source",
    "by_rule",
    "roles",
    "pass_at_k",
];

fn finding() -> Finding {
    Finding {
        node_id: Some("total".into()),
        layer: Some(1),
        rule: "unknown_field".into(),
        source: FindingSource::TrialRun,
        message: "no field amount; did you mean amt?".into(),
        severity: Severity::Warning,
    }
}

fn iteration() -> IterationTrace {
    let node = DagNodeSpec {
        node_id: "total".into(),
        operation: "sum".into(),
        function_name: "total".into(),
        inputs: [("rows".to_string(), "dataset.transactions".to_string())].into_iter().collect(),
        expected_output_type: "float".into(),
        layer: 1,
        code: "def total(rows):\n    return 1.0\n".into(),
    };
    IterationTrace {
        iteration: 1,
        dag: Some(GeneratedDag {
            question_id: "q_01".into(),
            description: "sum the amounts".into(),
            nodes: vec![node],
            edges: vec![DagEdge { source: "load".into(), target: "total".into() }],
            final_answer_node: "total".into(),
        }),
        critic_feedback: Some(CriticFeedback {
            is_approved: false,
            overall_reasoning: "the field is misspelt".into(),
            layer_validations: vec![LayerValidation {
                layer_index: 1,
                nodes_in_layer: vec!["total".into()],
                is_valid: false,
                issues: vec!["amount".into()],
            }],
            specific_errors: vec!["no field amount".into()],
            suggestions: vec!["use amt".into()],
            findings: vec![finding()],
        }),
        trial_run: Some(ExecutionResult {
            question_id: "q_01".into(),
            success: false,
            final_answer: Some(json!(1.5)),
            node_outputs: [("total".to_string(), json!(1.5))].into_iter().collect(),
            error: Some("KeyError".into()),
            execution_time_ms: 2.5,
            node_timings_ms: [("total".to_string(), 2.0)].into_iter().collect(),
            printed: [("total".to_string(), "hello\n".to_string())].into_iter().collect(),
            error_node: Some("total".into()),
            traceback: Some("Traceback ...".into()),
        }),
        stages: vec![StageTiming { stage: Stage::TrialRun, started_ms: 5, ok: Some(false), duration_ms: Some(3) }],
        labels: vec![AnswerLabel { right: true, reason: "checked by hand against the CSV".into(), t_ms: 40 }],
    }
}

fn level() -> LevelBreakdown {
    LevelBreakdown { total: 1, passed: 1, failed: 0, unfinished: 0, pass_rate: 1.0, grading: grading() }
}

fn grading() -> Grading {
    Grading { graded: 1, correct: 1, accuracy: Some(1.0) }
}

/// A document with every optional part present and every list non-empty.
fn full_document() -> EvalResults {
    let tokens = Tokens { prompt: 10, completion: 5, total: 15, estimated: true };
    let settings = RunSettings {
        dataset_dir: "sample-data/fraud".into(),
        dataset_hash: "abc".into(),
        provider: "offline".into(),
        model: "schema-planner".into(),
        questions: 1,
        max_iterations: 3,
        concurrency: 2,
        review_concurrency: 1,
        seed: 7,
        step: false,
        grading: GradingSettings {
            match_options: [("abs_tol".to_string(), json!(0.5))].into_iter().collect(),
            judges: vec!["faithful".into()],
            judge_rejected: true,
        },
        roles: [(
            LlmRole::LayerReview,
            RoleModel {
                provider: "openai".into(),
                model: "critic".into(),
                base_url: Some("http://127.0.0.1:1/v1".into()),
            },
        )]
        .into_iter()
        .collect(),
        datasets: vec![DatasetRef { name: "fraud".into(), dir: "bench/datasets/fraud".into(), hash: "abc".into() }],
        repeat: 3,
        repair: Some(1),
        budget: Some(Budget { max_cost_usd: Some(0.5), max_tokens: Some(10_000), per_question_usd: Some(0.1) }),
    };
    let log = |role, meta: &CallMeta| LogEntry { role, content: "text".into(), meta: meta.clone() };
    let build = CallMeta::Loop {
        attempt: 2,
        iteration: 1,
        call: LlmRole::LayerReview,
        layer: Some(1),
        epoch: 2,
        draft: 3,
        repair: 1,
        from_cache: true,
    };
    let judge =
        CallMeta::Judge { attempt: 2, judge: 1, call: LlmRole::Judge, step: Some(0), judged_iteration: Some(1) };
    EvalResults {
        summary: Summary {
            total_questions: 1,
            passed: 1,
            failed: 0,
            unfinished: 0,
            pass_rate: 1.0,
            generated_at: "2026-01-01T00:00:00Z".into(),
            exhausted: 0,
            execution_failed: 0,
            cancelled: 0,
            fixed_by_hand: 1,
            budget: Some(BudgetUse { max_cost_usd: Some(1.0), spent_usd: 0.25, stopped: 1 }),
            cache: Some(CacheUse { hits: 1, misses: 2 }),
            repeats: Some(Repeats {
                r: 3,
                accuracy_mean: Some(0.5),
                accuracy_std: Some(0.1),
                pass_at_k: [("1".to_string(), 0.5), ("3".to_string(), 0.9)].into_iter().collect(),
                pass_all_k: Some(0.2),
            }),
            benchmark: Some(BenchmarkSummary {
                name: "infiagent".into(),
                accuracy_by_question: Some(0.5),
                accuracy_by_sub_question: Some(0.6),
                proportional_accuracy_by_sub_question: Some(0.55),
            }),
            successful_executions: 1,
            execution_failures: 0,
            critic_loop_exhausted: 0,
            grading: grading(),
            tokens,
            cost_usd: 0.25,
            token_economy: TokenEconomy {
                cached_tokens: 4,
                cache_hit_rate: Some(0.4),
                cache_write_tokens: 2,
                prompt_prefix_shared: Some(0.9),
                tokens_per_question: Some(15.0),
                cost_per_question_usd: Some(0.25),
                tokens_per_passed_question: Some(15.0),
                cost_per_passed_question_usd: Some(0.25),
                rejected_iteration_tokens: 6,
                rejected_iteration_token_share: Some(0.4),
            },
            elapsed_ms: Some(1200),
            run_failure: Some("the server went away".into()),
            settings: Some(settings),
        },
        difficulty_breakdown: DifficultyBreakdown { easy: level(), medium: level(), hard: level() },
        detailed_results: vec![DetailedResult {
            question_id: "q_01".into(),
            question: "What is the total?".into(),
            question_text: "What is the total?".into(),
            dataset: Some("fraud".into()),
            difficulty_rank: 1,
            difficulty_level: DifficultyLevel::Easy,
            success: true,
            fixed_by_hand: false,
            status: "passed".into(),
            final_answer: Some(json!(1.5)),
            narrative: Some("The total is 1.5.".into()),
            expected_answer: Some(json!(1.5)),
            correct: Some(true),
            grades: vec![Grade {
                method: "faithful".into(),
                score: Some(1.0),
                passed: true,
                threshold: 0.5,
                reason: "every claim holds".into(),
                error: Some("a retried call".into()),
            }],
            error: Some("rejected once".into()),
            iterations: 1,
            attempts: 2,
            execution_time_ms: Some(2.5),
            node_timings_ms: Some([("total".to_string(), 2.0)].into_iter().collect()),
            findings_per_iteration: vec![1],
            tokens,
            cost_usd: 0.25,
            elapsed_ms: Some(900),
            epochs: vec![EpochResult {
                epoch: 2,
                status: "passed".into(),
                answer: Some(json!(1.5)),
                correct: Some(true),
                iterations: 1,
                tokens,
            }],
            metamorphic: Some(Metamorphic {
                checks: vec![MetamorphicCheck {
                    transform: Transform::Duplicate,
                    relation: Relation::Doubles,
                    answer: Some(json!(3.0)),
                    broken: false,
                    informational: false,
                    note: Some("a sum doubles".into()),
                }],
                order_dependent: false,
            }),
            consensus: Some(Consensus {
                answers: vec![DraftAnswer { draft: 1, answer: Some(json!(1.5)), in_majority: true }],
                agreement: 1.0,
            }),
            benchmark: Some(BenchmarkScore {
                scorer: Scorer::Infiagent,
                sub_answers: vec![SubAnswer {
                    name: "total".into(),
                    expected: "1.5".into(),
                    given: Some("1.50".into()),
                    correct: true,
                }],
                correct: true,
            }),
        }],
        failure_analysis: vec![FailureAnalysis {
            question_id: "q_01".into(),
            question: "What is the total?".into(),
            difficulty_level: DifficultyLevel::Easy,
            status: "failed".into(),
            reason: Some("the final execution failed".into()),
            last_errors: vec!["no field amount".into()],
            last_findings: vec![finding()],
        }],
        question_traces: vec![QuestionTrace {
            question_id: "q_01".into(),
            question: "What is the total?".into(),
            question_text: "What is the total?".into(),
            dataset: Some("fraud".into()),
            difficulty: Some(DifficultyLevel::Easy),
            difficulty_rank: 1,
            total_iterations: 1,
            success: true,
            fixed_by_hand: true,
            final_answer: Some(json!(1.5)),
            execution_error: Some("rejected once".into()),
            execution_time_ms: Some(2.5),
            node_outputs: Some([("total".to_string(), json!(1.5))].into_iter().collect()),
            iterations: vec![iteration()],
            attempts: vec![
                AttemptTrace {
                    attempt: 2,
                    epoch: 2,
                    draft: 3,
                    forked_from: Some((1, 1)),
                    by_hand: false,
                    outcome: Some(Outcome::Passed),
                    reason: Some("rejected once".into()),
                    final_answer: Some(json!(1.4)),
                    iterations: vec![iteration()],
                },
                AttemptTrace {
                    attempt: 3,
                    epoch: 1,
                    draft: 1,
                    forked_from: Some((2, 1)),
                    by_hand: true,
                    outcome: Some(Outcome::FixedByHand),
                    reason: Some("the model's answer was off by 0.1".into()),
                    final_answer: Some(json!(1.5)),
                    iterations: vec![iteration()],
                },
            ],
            conversation_log: [ReferenceRole::DagBuilder, ReferenceRole::Executor, ReferenceRole::Critic]
                .into_iter()
                .map(|role| ReferenceLogEntry { role, content: "text".into() })
                .collect(),
            llm_exchanges: vec![
                log(LogRole::User, &build),
                log(LogRole::Assistant, &build),
                log(LogRole::User, &judge),
                log(LogRole::Assistant, &judge),
            ],
        }],
        critic_scorecard: scorecard(),
        findings_taxonomy: taxonomy(),
        convergence: convergence(),
        roles: [(
            LlmRole::LayerReview,
            RoleUsage {
                provider: "openai".into(),
                model: "critic".into(),
                calls: 2,
                prompt_tokens: 10,
                completion_tokens: 5,
                cached_tokens: 4,
                cost_usd: 0.25,
            },
        )]
        .into_iter()
        .collect(),
    }
}

/// A findings taxonomy with every part present: a group, and an
/// oscillation of each kind.
fn taxonomy() -> FindingsTaxonomy {
    let at = |iteration, kind| Oscillation { question_id: "q_01".into(), attempt: 1, iteration, kind };
    FindingsTaxonomy {
        total_findings: 2,
        groups: vec![FindingGroup {
            source: FindingSource::TrialRun,
            rule: "runtime_error".into(),
            exception: Some("KeyError".into()),
            count: 2,
            questions: vec!["q_01".into()],
            resolved: 2,
            iterations_caused: 2,
            tokens: 240,
            oscillations: 1,
        }],
        oscillations: vec![
            at(
                3,
                OscillationKind::FindingBack {
                    source: FindingSource::TrialRun,
                    rule: "runtime_error".into(),
                    node_id: Some("total".into()),
                    message: "node total: KeyError: 'amount'".into(),
                    resolved_at: 2,
                },
            ),
            at(3, OscillationKind::NodeReverted { node_id: "total".into(), to_iteration: 1 }),
        ],
    }
}

/// Iterations to approval with every part present.
fn convergence() -> Convergence {
    let histogram =
        ApprovalHistogram { approved_at: vec![0, 1, 1], never_approved: 1, mean: Some(2.5), median: Some(2.5) };
    Convergence { run: histogram.clone(), by_difficulty: [("easy".to_string(), histogram)].into_iter().collect() }
}

/// A scorecard with every part present.
fn scorecard() -> CriticScorecard {
    let counts = FateCounts {
        correct_approvals: 1,
        wrong_approvals: 1,
        correct_rejections: 1,
        wrong_rejections: 1,
        answer_neutral_rejections: 1,
        ungraded_approvals: 1,
        ungraded_rejections: 1,
        rejections_without_answer: 1,
    };
    CriticScorecard {
        total: counts,
        by_difficulty: [("easy".to_string(), counts)].into_iter().collect(),
        by_source: [("trial_run".to_string(), counts)].into_iter().collect(),
        by_rule: [("runtime_error".to_string(), counts)].into_iter().collect(),
        wrong_rejection_iterations: 1,
        wrong_rejection_tokens: 120,
        iterations: vec![JudgedIteration {
            question_id: "q_01".into(),
            attempt: 1,
            iteration: 1,
            approved: false,
            answer: Some(json!(3)),
            grade: AnswerGrade::Right,
            labelled: true,
            graded_by: Some(GradedBy::Label),
            fate: VerdictFate::WrongRejection,
            sources: vec![FindingSource::TrialRun],
            rules: vec!["runtime_error".into()],
            tokens: 120,
        }],
    }
}

/// Where `value` holds a null, an empty list or an empty object.
fn holes(value: &Value, at: &str, out: &mut Vec<String>) {
    match value {
        Value::Null => out.push(at.to_string()),
        Value::Array(items) if items.is_empty() => out.push(at.to_string()),
        Value::Object(fields) if fields.is_empty() => out.push(at.to_string()),
        Value::Array(items) => items.iter().for_each(|item| holes(item, &format!("{at}[]"), out)),
        Value::Object(fields) => fields.iter().for_each(|(key, item)| holes(item, &format!("{at}/{key}"), out)),
        _ => {}
    }
}

/// Per object location (list indices folded to `[]`): the properties the
/// schema lists there, and the ones the document writes.
#[derive(Default)]
struct Shapes {
    listed: BTreeMap<String, BTreeSet<String>>,
    written: BTreeMap<String, BTreeSet<String>>,
}

/// Walk `schema` and `instance` together from `at`, following `$ref`s.
fn walk(root: &Value, schema: &Value, instance: &Value, at: &str, shapes: &mut Shapes) {
    let schema = match schema["$ref"].as_str() {
        Some(reference) => root.pointer(reference.trim_start_matches('#')).expect("every $ref resolves"),
        None => schema,
    };
    if let (Some(listed), Some(written)) = (schema["properties"].as_object(), instance.as_object()) {
        shapes.listed.entry(at.to_string()).or_default().extend(listed.keys().cloned());
        shapes.written.entry(at.to_string()).or_default().extend(written.keys().cloned());
        for (key, value) in written {
            if let Some(property) = listed.get(key) {
                walk(root, property, value, &format!("{at}/{key}"), shapes);
            }
        }
    }
    if let Some(items) = instance.as_array() {
        items.iter().for_each(|item| walk(root, &schema["items"], item, &format!("{at}[]"), shapes));
    }
}

/// Locations of every object in `value`, maps keyed by data left out.
fn objects(value: &Value, at: &str, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(fields) => {
            out.insert(at.to_string());
            for (key, item) in fields.iter().filter(|(key, _)| !MAPS.contains(&key.as_str())) {
                objects(item, &format!("{at}/{key}"), out);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| objects(item, &format!("{at}[]"), out)),
        _ => {}
    }
}

fn schema() -> Value {
    let text = std::fs::read_to_string(common::root().join("src/report/eval_results.schema.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn a_full_document_follows_the_schema_and_reads_back_unchanged() {
    let document = full_document();
    let value = serde_json::to_value(&document).unwrap();
    let mut missing = Vec::new();
    holes(&value, "", &mut missing);
    assert!(missing.is_empty(), "the test document leaves parts out, so the schema is not checked there: {missing:#?}");
    let schema = schema();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&value).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let back: EvalResults = serde_json::from_value(value).unwrap();
    assert_eq!(back, document, "every part reads back into the same types (judge and loop calls apart)");
}

#[test]
fn the_schema_lists_exactly_the_properties_the_types_write() {
    let schema = schema();
    let value = serde_json::to_value(full_document()).unwrap();
    let mut shapes = Shapes::default();
    walk(&schema, &schema, &value, "", &mut shapes);
    let mut drift = Vec::new();
    for (at, listed) in &shapes.listed {
        let written = &shapes.written[at];
        drift.extend(
            listed.difference(written).map(|key| format!("the schema lists {at}/{key}; the types never write it")),
        );
        drift.extend(
            written.difference(listed).map(|key| format!("the types write {at}/{key}; the schema does not list it")),
        );
    }
    let mut all = BTreeSet::new();
    objects(&value, "", &mut all);
    drift.extend(
        all.iter()
            .filter(|at| !shapes.listed.contains_key(*at))
            .map(|at| format!("the schema lists no properties for the object at {at:?}")),
    );
    assert!(drift.is_empty(), "eval_results.schema.json and the report's types differ:\n{}", drift.join("\n"));
    assert!(shapes.listed.len() > 20, "the walk reached the nested objects: {:?}", shapes.listed.keys());
}

/// The type of a JSON value, as the reference's tooling expects it.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_u64() || n.is_i64() => "int",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[test]
fn the_reference_implementations_keys_are_written_with_their_types() {
    let trace = eval_dag::trace::Trace::read(&common::root().join("sample-data/traces/fraud-scripted.trace.jsonl"));
    let state = eval_dag::report::fold_trace(&trace.unwrap());
    let doc = serde_json::to_value(eval_dag::report::eval_results(&state, "2026-01-01T00:00:00Z")).unwrap();
    let expect = |value: &Value, key: &str, kinds: &[&str]| {
        let got = value.get(key).unwrap_or_else(|| panic!("{key} is written: {value}"));
        assert!(kinds.contains(&kind(got)), "{key} is {}, expected one of {kinds:?}", kind(got));
    };
    let summary = &doc["summary"];
    for key in ["successful_executions", "execution_failures", "critic_loop_exhausted", "total_questions"] {
        expect(summary, key, &["int"]);
    }
    expect(summary, "pass_rate", &["number", "int"]);
    assert_eq!(summary["successful_executions"], summary["passed"]);
    for row in doc["detailed_results"].as_array().unwrap() {
        expect(row, "question_text", &["string"]);
        assert_eq!(row["question_text"], row["question"]);
    }
    for trace in doc["question_traces"].as_array().unwrap() {
        expect(trace, "question_text", &["string"]);
        assert!(["easy", "medium", "hard"].contains(&trace["difficulty"].as_str().unwrap()), "{trace}");
        for key in ["difficulty_rank", "total_iterations"] {
            expect(trace, key, &["int"]);
        }
        expect(trace, "success", &["bool"]);
        expect(trace, "final_answer", &["string", "int", "number", "bool", "array", "object", "null"]);
        expect(trace, "execution_error", &["string", "null"]);
        expect(trace, "execution_time_ms", &["number", "null"]);
        expect(trace, "node_outputs", &["object", "null"]);
        for iteration in trace["iterations"].as_array().unwrap() {
            expect(iteration, "iteration", &["int"]);
            expect(iteration, "dag", &["object"]);
            let feedback = &iteration["critic_feedback"];
            expect(feedback, "is_approved", &["bool"]);
            expect(feedback, "overall_reasoning", &["string"]);
            for key in ["specific_errors", "suggestions", "layer_validations"] {
                expect(feedback, key, &["array"]);
            }
        }
        for entry in trace["conversation_log"].as_array().unwrap() {
            assert_eq!(entry.as_object().unwrap().len(), 2, "only role and content: {entry}");
            expect(entry, "content", &["string"]);
        }
    }
    // q_01: rejected by the structural check, then by the trial run, then approved and executed.
    let q01 = doc["question_traces"].as_array().unwrap().iter().find(|t| t["question_id"] == "q_01").unwrap();
    let roles: Vec<&str> =
        q01["conversation_log"].as_array().unwrap().iter().map(|e| e["role"].as_str().unwrap()).collect();
    let expected =
        ["dag_builder", "critic", "dag_builder", "executor", "critic", "dag_builder", "executor", "critic", "executor"];
    assert_eq!(roles, expected);
    let last = q01["conversation_log"].as_array().unwrap().last().unwrap()["content"].as_str().unwrap();
    assert_eq!(last, "final execution: grocery_pos");
    assert!(q01["llm_exchanges"].as_array().unwrap().len() >= 8, "every prompt and reply is still there");
}
