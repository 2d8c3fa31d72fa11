//! A results document with every optional part present and every list non-empty.

use eval_dag::benchmark::{BenchmarkScore, SubAnswer};
use eval_dag::domain::{Baseline, BaselineCall, Budget, GradingMethod, Shard};
use eval_dag::domain::{
    Consensus, CriticFeedback, DagEdge, DagNodeSpec, DifficultyLevel, DraftAnswer, ExecutionResult, Finding,
    FindingSource, GeneratedDag, Grade, GradingSettings, LayerValidation, LlmRole, Metamorphic, MetamorphicCheck,
    Relation, RoleModel, Scorer, Severity, Transform,
};
use eval_dag::report::{
    AgreementReport, AgreementTable, KappaFigure, MachineAgreement, PairAgreement, krippendorff_alpha,
};
use eval_dag::report::{
    AnswerGrade, ApprovalHistogram, AttemptTrace, BaselineAnswer, BaselineLift, BaselineTally, BatchUse,
    BenchmarkMetrics, BenchmarkSummary, BudgetUse, CacheUse, CallMeta, ConsensusSummary, Convergence, CriticScorecard,
    DetailedResult, DifficultyBreakdown, EpochResult, EvalResults, FailureAnalysis, FateCounts, FindingGroup,
    FindingsTaxonomy, GradedBy, Grading, IterationTrace, JudgedIteration, LevelBreakdown, Lift, LiftQuestion, LiftSide,
    LiftTally, LogEntry, LogRole, MetamorphicSummary, Oscillation, OscillationKind, QuestionTrace, ReferenceLogEntry,
    ReferenceRole, Repeats, RoleUsage, SignalAgainstLabels, StageTiming, Summary, TokenEconomy, Tokens, VerdictFate,
};
use eval_dag::run::{AnswerLabel, DatasetRef, Outcome, RunSettings, Stage};
use indexmap::IndexMap;
use serde_json::json;

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
            node_outputs: [("total".into(), json!(1.5))].into_iter().collect(),
            error: Some("KeyError".into()),
            execution_time_ms: 2.5,
            node_timings_ms: [("total".into(), 2.0)].into_iter().collect(),
            printed: [("total".into(), "hello\n".to_string())].into_iter().collect(),
            error_node: Some("total".into()),
            traceback: Some("Traceback ...".into()),
            engine: eval_dag::domain::Engine::CPython,
            failure: None,
        }),
        stages: vec![StageTiming { stage: Stage::TrialRun, started_ms: 5, ok: Some(false), duration_ms: Some(3) }],
        labels: vec![AnswerLabel { right: true, reason: "checked by hand against the CSV".into(), t_ms: 40 }],
    }
}

fn level() -> LevelBreakdown {
    LevelBreakdown {
        total: 1,
        passed: 1,
        failed: 0,
        unfinished: 0,
        pass_rate: 1.0,
        grading: grading(),
        baselines: baselines(),
        needs_data: Some(tally(None)),
    }
}

fn tally(lift: Option<BaselineLift>) -> BaselineTally {
    BaselineTally { answered: 3, accuracy: Some(1.0 / 3.0), lift }
}

/// Every baseline's tally, `no_code` with its lift.
fn baselines() -> IndexMap<Baseline, BaselineTally> {
    let over_no_code = BaselineLift { gained: 2, lost: 1, tokens_per_extra_right: Some(900.0) };
    Baseline::ALL.into_iter().map(|b| (b, tally((b == Baseline::NoCode).then_some(over_no_code.clone())))).collect()
}

fn lift() -> Lift {
    let tally = LiftTally {
        questions: 2,
        right_before: 1,
        right_after: 1,
        accuracy_before: Some(0.5),
        accuracy_after: Some(0.5),
        fixed: 1,
        broken: 1,
    };
    let question = |id: &str| LiftQuestion {
        question_id: id.into(),
        question: "What is the total?".into(),
        level: DifficultyLevel::Easy,
        dataset: Some("fraud".into()),
    };
    Lift {
        overall: tally,
        by_level: [(DifficultyLevel::Easy, tally)].into_iter().collect(),
        by_dataset: [("fraud".to_string(), tally), ("shop".to_string(), tally)].into_iter().collect(),
        fixed: vec![question("q_01")],
        broken: vec![question("q_02")],
        extra_right: 1,
        extra_tokens: 120,
        extra_cost_usd: 0.2,
        tokens_per_extra_right: Some(120.0),
        cost_per_extra_right_usd: Some(0.2),
    }
}

fn grading() -> Grading {
    Grading { graded: 1, correct: 1, accuracy: Some(1.0) }
}

/// Run settings with every optional field present.
fn full_settings() -> RunSettings {
    RunSettings {
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
        consensus: 3,
        metamorphic: true,
        budget: Some(Budget { max_cost_usd: Some(0.5), max_tokens: Some(10_000), per_question_usd: Some(0.1) }),
        shard: Some(Shard { index: 2, count: 8, questions_hash: "ef01".into() }),
        baselines: true,
        now: Some(eval_dag::domain::RunClock::parse("2026-12-05T14:30:00+01:00").unwrap()),
        engine: eval_dag::domain::Engine::CPython,
        differential: true,
        python: Some(eval_dag::domain::PythonRecord { path: "/usr/bin/python3".into(), version: "3.11.7".into() }),
    }
}

/// The call record of a loop call with every field present.
fn loop_meta() -> CallMeta {
    CallMeta::Loop {
        attempt: 2,
        iteration: 1,
        call: LlmRole::LayerReview,
        layer: Some(1),
        epoch: 2,
        draft: 3,
        repair: 1,
        from_cache: true,
        batch_id: Some("batch_1".into()),
        baseline: Some(BaselineCall::NoCode),
    }
}

/// The call record of a judge's call with every field present.
fn judge_meta() -> CallMeta {
    CallMeta::Judge {
        attempt: 2,
        judge: 1,
        call: LlmRole::Judge,
        step: Some(0),
        judged_iteration: Some(1),
        batch_id: Some("batch_2".into()),
    }
}

/// A document with every optional part present and every list non-empty.
pub(super) fn full_document() -> EvalResults {
    let (tokens, settings) = (Tokens { prompt: 10, completion: 5, total: 15, estimated: true }, full_settings());
    let log = |role, meta: &CallMeta| LogEntry { role, content: "text".into(), meta: meta.clone() };
    let (build, judge) = (loop_meta(), judge_meta());
    let answer = BaselineAnswer { answer: Some(json!(7)), correct: Some(false), score: Some(0.0) };
    let mut document = EvalResults {
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
            cache: Some(CacheUse { hits: 1, misses: 2, list_cost_usd: 0.25 }),
            repeats: Some(Repeats {
                r: 3,
                accuracy_mean: Some(0.5),
                accuracy_std: Some(0.1),
                pass_at_k: [("1".to_string(), 0.5), ("3".to_string(), 0.9)].into_iter().collect(),
                pass_all_k: Some(0.2),
            }),
            consensus: Some(ConsensusSummary {
                k: 3,
                questions: 1,
                mean_agreement: 0.66,
                unanimous: 0,
                against_labels: Some(SignalAgainstLabels { flagged_right: 1, ..Default::default() }),
            }),
            differential: Some(super::engines::differential()),
            metamorphic: Some(MetamorphicSummary {
                checked: 2,
                broken: 1,
                order_dependent: 1,
                against_labels: Some(SignalAgainstLabels {
                    flagged_wrong: 1,
                    unflagged_right: 1,
                    ..Default::default()
                }),
            }),
            benchmark: Some(BenchmarkSummary {
                name: "infiagent".into(),
                accuracy_by_question: Some(0.5),
                accuracy_by_sub_question: Some(0.6),
                proportional_accuracy_by_sub_question: Some(0.55),
                questions: 3,
                answered: 2,
                over_all_questions: Some(BenchmarkMetrics {
                    accuracy_by_question: Some(1.0 / 3.0),
                    accuracy_by_sub_question: Some(0.5),
                    proportional_accuracy_by_sub_question: Some(0.4),
                }),
                first_iteration: Some(BenchmarkMetrics {
                    accuracy_by_question: Some(0.0),
                    accuracy_by_sub_question: Some(0.25),
                    proportional_accuracy_by_sub_question: Some(0.2),
                }),
                fixed: 1,
                broken: 0,
                lift: Some(lift()),
            }),
            reviews: Some(reviews()),
            batches: Some(BatchUse {
                batches: 2,
                batched_calls: 40,
                live_calls: 3,
                batched_cost_usd: 0.2,
                live_cost_usd: 0.05,
            }),
            baselines: Some(baselines()),
            needs_data: Some(tally(None)),
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
        dataset_breakdown: [("fraud".to_string(), level())].into_iter().collect(),
        detailed_results: vec![DetailedResult {
            question_id: "q_01".into(),
            question: "What is the total?".into(),
            question_text: "What is the total?".into(),
            dataset: Some("fraud".into()),
            difficulty_rank: 1,
            difficulty_level: DifficultyLevel::Easy,
            success: true,
            fixed_by_hand: false,
            status: Outcome::Passed.into(),
            final_answer: Some(json!(1.5)),
            narrative: Some("The total is 1.5.".into()),
            expected_answer: Some(json!(1.5)),
            correct: Some(true),
            grades: vec![Grade {
                method: GradingMethod::Judge("faithful".into()),
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
                status: Outcome::Passed.into(),
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
            divergence: Some(super::engines::divergence()),
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
            first_iteration: Some(LiftSide { right: false, tokens: 6, cost_usd: 0.1 }),
            baselines: Baseline::ALL.into_iter().map(|b| (b, answer.clone())).collect(),
            answerable_without_data: Some(false),
            scorer_accepts_empty: Some(false),
        }],
        failure_analysis: vec![FailureAnalysis {
            question_id: "q_01".into(),
            question: "What is the total?".into(),
            difficulty_level: DifficultyLevel::Easy,
            status: Outcome::Failed.into(),
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
    };
    super::engines::with_reversed_divergence(&mut document);
    document
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

/// Agreement figures with every optional part present (a real κ is either
/// defined or says why not; the schema is checked on both fields at once).
fn reviews() -> AgreementReport {
    let item = eval_dag::domain::ReviewItem {
        iteration: Some(2),
        ..eval_dag::domain::ReviewItem::final_answer("q_01".into())
    };
    let table = AgreementTable { yes_yes: 3, yes_no: 1, no_yes: 1, no_no: 2 };
    let figure =
        KappaFigure { undefined: Some("each side gave one value to every item".into()), ..KappaFigure::of(table) };
    AgreementReport {
        reviewers: vec!["ana".into(), "bo".into()],
        items_reviewed: 7,
        stale: 1,
        pairs: vec![PairAgreement { reviewers: ["ana".into(), "bo".into()], unsure: 1, figure: figure.clone() }],
        alpha: krippendorff_alpha(&[vec![0, 0], vec![1, 1], vec![0, 1], vec![1, 1, 0]]),
        machines: vec![MachineAgreement { machine: "critic".into(), figure, disagreements: vec![item.clone()] }],
        disputed: vec![item],
        pairwise: vec![eval_dag::report::PairwiseTally {
            other_run: "runs/b".into(),
            reviews: 12,
            wins: 9,
            losses: 1,
            ties: 1,
            both_wrong: 1,
            win_rate: Some(0.9),
            interval: Some([0.596, 0.982]),
            sign_test_p: 0.0215,
        }],
    }
}
