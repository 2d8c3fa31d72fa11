//! `eval_results.json`: the base schema (summary, difficulty_breakdown,
//! detailed_results, failure_analysis, question_traces) with the base keys
//! (ARCHITECTURE.md, "Decisions the code relies on"), plus
//! attempts, findings, every LLM exchange, tokens, cost and timings, built as
//! the types of [`crate::report::documents`].

use std::io::Write;

use indexmap::IndexMap;
use serde::{Serialize, Serializer};

use crate::domain::{Baseline, LlmRole};
use crate::domain::{DifficultyLevel, ExecutionResult, NodeId, TokenUsage};
use crate::run::conversation::{Entry, entries, user_prompt};
use crate::run::{Attempt, Iteration, LlmCall, Outcome, QuestionState, QuestionStatus, RunState};
use crate::text::preview;

use super::baselines::{baselines_by, baselines_summary, question_baselines};
use super::benchmark::{benchmark_score, benchmark_summary};
use super::consensus::consensus_summary;
use super::convergence::convergence;
use super::differential::differential_summary;
use super::economy::token_economy;
use super::lift::{benchmark_lift, first_iteration};
use super::metamorphic::metamorphic_summary;
use super::repeats::repeats;
use super::roles::role_usage;
use super::scorecard::critic_scorecard;
use super::taxonomy::findings_taxonomy;
use crate::report::documents::{
    AttemptTrace, BaselineAnswer, BaselineFloors, CallMeta, DetailedResult, DifficultyBreakdown, EvalResults,
    FailureAnalysis, Grading, IterationTrace, LevelBreakdown, LogEntry, LogRole, QuestionTrace, ReferenceLogEntry,
    ReferenceRole, ResultStatus, StageTiming, Summary, Tokens,
};
use crate::report::documents::{BatchUse, BenchmarkSummary, BudgetUse, CacheUse, EpochResult};

/// How many of `questions` the model answered and were graded, and how many
/// of those were right (answers fixed by hand are not the model's).
pub fn graded_tally<'a>(questions: impl IntoIterator<Item = &'a QuestionState>) -> (usize, usize) {
    let graded: Vec<bool> =
        questions.into_iter().filter(|q| !fixed_by_hand(q)).filter_map(QuestionState::correct).collect();
    (graded.len(), graded.iter().filter(|c| **c).count())
}

/// Graded questions and how many were right.
fn grading<'a>(questions: impl Iterator<Item = &'a QuestionState>) -> Grading {
    let (graded, correct) = graded_tally(questions);
    Grading { graded, correct, accuracy: (graded > 0).then(|| rate(correct, graded)) }
}

fn rate(passed: usize, total: usize) -> f64 {
    if total == 0 { 0.0 } else { passed as f64 / total as f64 }
}

/// Whether the model's latest attempt passed.
fn passed(q: &QuestionState) -> bool {
    q.status == QuestionStatus::Done(Outcome::Passed)
}

/// Whether the question finished (with any outcome).
fn finished(q: &QuestionState) -> bool {
    matches!(q.status, QuestionStatus::Done(_))
}

/// Whether the user accepted an answer by hand.
fn fixed_by_hand(q: &QuestionState) -> bool {
    q.status == QuestionStatus::Done(Outcome::FixedByHand)
}

fn conversation_log(state: &RunState, q: &QuestionState) -> Vec<LogEntry> {
    let mut log = Vec::new();
    for entry in entries(state, q) {
        let Entry::Call { call, .. } = entry else { continue };
        let key = &call.key;
        let meta = match key.role {
            LlmRole::Judge => CallMeta::Judge {
                attempt: key.attempt,
                judge: key.judge.unwrap_or(key.iteration),
                call: key.role,
                step: key.layer,
                judged_iteration: key.judge.map(|_| key.iteration),
                batch_id: call.batch_id.clone(),
            },
            _ => CallMeta::Loop {
                attempt: key.attempt,
                iteration: key.iteration,
                call: key.role,
                layer: key.layer,
                epoch: key.epoch,
                draft: key.draft,
                repair: key.repair,
                from_cache: call.from_cache,
                batch_id: call.batch_id.clone(),
                baseline: key.baseline,
            },
        };
        if let Some(prompt) = user_prompt(call) {
            log.push(LogEntry { role: LogRole::User, content: prompt.to_string(), meta: meta.clone() });
        }
        let content = match &call.error {
            Some(error) => format!("(call failed: {error})"),
            None => call.response.clone(),
        };
        log.push(LogEntry { role: LogRole::Assistant, content, meta });
    }
    log
}

/// The calls about question `q`.
fn calls_of<'a>(state: &'a RunState, q: &'a QuestionState) -> impl Iterator<Item = &'a LlmCall> + 'a {
    q.attempts()
        .iter()
        .flat_map(|a| a.iterations.iter().flat_map(|i| i.calls.iter()).chain(a.judge_calls.iter()))
        .filter_map(|id| state.calls.get(id).map(|c| &**c))
}

/// Each epoch of a question asked more than once (none for a question asked once).
fn epochs(state: &RunState, q: &QuestionState) -> Vec<EpochResult> {
    let epochs = q.epochs();
    if epochs.len() < 2 {
        return Vec::new();
    }
    epochs
        .into_iter()
        .map(|(epoch, attempt)| {
            let mut usage = TokenUsage::default();
            let mut estimated = false;
            for call in calls_of(state, q).filter(|c| c.key.epoch == epoch) {
                usage += call.usage;
                estimated |= call.estimated;
            }
            EpochResult {
                epoch,
                status: attempt.outcome.map_or_else(ResultStatus::unfinished, ResultStatus::from),
                answer: attempt.final_answer.clone(),
                correct: attempt.correct(),
                iterations: attempt.iterations.len(),
                tokens: Tokens::from(usage).estimated_if(estimated),
            }
        })
        .collect()
}

fn detailed(state: &RunState, q: &QuestionState, baselines: IndexMap<Baseline, BaselineAnswer>) -> DetailedResult {
    let latest = q.latest();
    let correct_of = |baseline| baselines.get(&baseline).and_then(|answer: &BaselineAnswer| answer.correct);
    let execution = latest.and_then(|a| a.execution.as_ref());
    DetailedResult {
        question_id: q.question.id.to_string(),
        question: q.question.question.clone(),
        question_text: q.question.question.clone(),
        dataset: q.question.dataset.clone(),
        difficulty_rank: q.question.difficulty_rank,
        difficulty_level: q.question.difficulty_level,
        success: passed(q) || fixed_by_hand(q),
        fixed_by_hand: fixed_by_hand(q),
        status: q.status.into(),
        final_answer: latest.and_then(|a| a.final_answer.clone()),
        narrative: latest.and_then(|a| a.narrative.clone()),
        expected_answer: q.question.expected_answer.clone(),
        correct: q.correct(),
        grades: latest.map(|a| a.grades.clone()).unwrap_or_default(),
        error: latest.and_then(|a| a.reason.clone()),
        iterations: latest.map_or(0, |a| a.iterations.len()),
        attempts: q.attempts().len(),
        execution_time_ms: execution.map(|e| e.execution_time_ms),
        node_timings_ms: execution.map(|e| by_node_name(&e.node_timings_ms)),
        findings_per_iteration: q.findings_per_iteration(),
        tokens: Tokens::from(q.usage).estimated_if(calls_of(state, q).any(|c| c.estimated)),
        cost_usd: q.cost_usd,
        elapsed_ms: q.started_ms.zip(q.finished_ms).map(|(s, f)| f.saturating_sub(s)),
        epochs: epochs(state, q),
        metamorphic: latest.and_then(|a| a.metamorphic.clone()),
        divergence: latest.and_then(|a| a.divergence.clone()),
        consensus: latest.and_then(|a| q.consensus.get(&a.epoch).cloned()),
        benchmark: benchmark_score(q),
        first_iteration: first_iteration(state, q),
        answerable_without_data: correct_of(Baseline::NoData),
        scorer_accepts_empty: correct_of(Baseline::Empty),
        baselines,
    }
}

fn failure(q: &QuestionState) -> FailureAnalysis {
    let latest = q.latest();
    let last_feedback = latest.and_then(|a| a.iterations.iter().rev().find_map(|i| i.feedback.as_ref()));
    FailureAnalysis {
        question_id: q.question.id.to_string(),
        question: q.question.question.clone(),
        difficulty_level: q.question.difficulty_level,
        status: q.status.into(),
        reason: latest.and_then(|a| a.reason.clone()),
        last_errors: last_feedback.map(|f| f.specific_errors.clone()).unwrap_or_default(),
        last_findings: last_feedback.map(|f| f.findings.clone()).unwrap_or_default(),
    }
}

fn iteration(i: &Iteration) -> IterationTrace {
    IterationTrace {
        iteration: i.number,
        dag: i.dag.clone(),
        critic_feedback: i.feedback.clone(),
        trial_run: i.trial.clone(),
        stages: i
            .stages
            .iter()
            .map(|s| StageTiming {
                stage: s.stage,
                started_ms: s.started_ms,
                ok: s.finished.map(|f| f.0),
                duration_ms: s.finished.map(|f| f.1),
            })
            .collect(),
        labels: i.labels.clone(),
    }
}

fn attempt(a: &Attempt) -> AttemptTrace {
    AttemptTrace {
        attempt: a.number,
        epoch: a.epoch,
        draft: a.draft,
        forked_from: a.forked_from.map(Into::into),
        by_hand: a.by_hand,
        outcome: a.outcome,
        reason: a.reason.clone(),
        final_answer: a.final_answer.clone(),
        iterations: a.iterations.iter().map(iteration).collect(),
    }
}

/// The base format's log of the latest attempt: per iteration the
/// builder's reply, the trial run's result and the critic's verdict, then the
/// final execution.
fn reference_log(state: &RunState, q: &QuestionState) -> Vec<ReferenceLogEntry> {
    let entry = |role, content: String| ReferenceLogEntry { role, content };
    let ran = |label: &str, result: &ExecutionResult| match (&result.error, &result.final_answer) {
        (Some(error), _) => format!("{label} failed: {error}"),
        (None, Some(answer)) => format!("{label}: {}", preview(answer, 200)),
        (None, None) => format!("{label}: no answer"),
    };
    let mut log = Vec::new();
    let Some(latest) = q.latest() else { return log };
    for it in &latest.iterations {
        let build = it.calls.iter().filter_map(|id| state.calls.get(id)).find(|c| c.key.role == LlmRole::DagBuild);
        if let Some(call) = build {
            let reply = call.error.as_ref().map_or_else(|| call.response.clone(), |e| format!("(call failed: {e})"));
            log.push(entry(ReferenceRole::DagBuilder, reply));
        }
        if let Some(trial) = &it.trial {
            log.push(entry(ReferenceRole::Executor, ran("trial run", trial)));
        }
        if let Some(feedback) = &it.feedback {
            let verdict = if feedback.is_approved { "approved" } else { "rejected" };
            let mut text = format!("{verdict}: {}", feedback.overall_reasoning);
            for error in &feedback.specific_errors {
                text.push_str(&format!("\n- {error}"));
            }
            log.push(entry(ReferenceRole::Critic, text));
        }
    }
    if let Some(execution) = &latest.execution {
        log.push(entry(ReferenceRole::Executor, ran("final execution", execution)));
    }
    log
}

fn trace(state: &RunState, q: &QuestionState) -> QuestionTrace {
    let attempts: Vec<AttemptTrace> = q.attempts().iter().map(attempt).collect();
    let latest = q.latest();
    let execution = latest.and_then(|a| a.execution.as_ref());
    QuestionTrace {
        question_id: q.question.id.to_string(),
        question: q.question.question.clone(),
        question_text: q.question.question.clone(),
        dataset: q.question.dataset.clone(),
        difficulty: Some(q.question.difficulty_level),
        difficulty_rank: q.question.difficulty_rank,
        total_iterations: latest.map_or(0, |a| a.iterations.len()),
        success: passed(q) || fixed_by_hand(q),
        fixed_by_hand: fixed_by_hand(q),
        final_answer: latest.and_then(|a| a.final_answer.clone()),
        execution_error: latest.and_then(|a| a.reason.clone()),
        execution_time_ms: execution.map(|e| e.execution_time_ms),
        node_outputs: execution.map(|e| by_node_name(&e.node_outputs)),
        iterations: attempts.last().map(|a| a.iterations.clone()).unwrap_or_default(),
        attempts,
        conversation_log: reference_log(state, q),
        llm_exchanges: conversation_log(state, q),
    }
}

/// The totals of the questions of `level`: passed, finished otherwise, never finished.
pub(in crate::report) fn level_breakdown(state: &RunState, level: DifficultyLevel) -> LevelBreakdown {
    breakdown(state.questions.iter().filter(|q| q.question.difficulty_level == level).collect())
}

/// The totals of each dataset's questions, in a run over several (in the
/// order of their first question); empty when no question names a dataset.
pub(in crate::report) fn dataset_breakdown(state: &RunState) -> IndexMap<String, LevelBreakdown> {
    let mut by_dataset: IndexMap<&str, Vec<&QuestionState>> = IndexMap::new();
    for q in &state.questions {
        if let Some(name) = &q.question.dataset {
            by_dataset.entry(name.as_str()).or_default().push(q);
        }
    }
    by_dataset.into_iter().map(|(name, questions)| (name.to_string(), breakdown(questions))).collect()
}

/// A map keyed by node as the results document writes it: by the node's id as text.
fn by_node_name<V: Clone>(by_node: &IndexMap<NodeId, V>) -> IndexMap<String, V> {
    by_node.iter().map(|(node, value)| (node.to_string(), value.clone())).collect()
}

/// The totals of `of_level`: passed, finished otherwise, never finished.
fn breakdown(of_level: Vec<&QuestionState>) -> LevelBreakdown {
    let passed = of_level.iter().filter(|q| passed(q)).count();
    let unfinished = of_level.iter().filter(|q| !finished(q)).count();
    LevelBreakdown {
        total: of_level.len(),
        passed,
        failed: of_level.len() - passed - unfinished,
        unfinished,
        pass_rate: rate(passed, of_level.len()),
        grading: grading(of_level.into_iter()),
        baselines: IndexMap::new(),
        needs_data: None,
    }
}

/// `breakdown` with the baselines of its group in `floors`, when the run has them.
fn with_floors(breakdown: LevelBreakdown, floors: Option<BaselineFloors>) -> LevelBreakdown {
    match floors {
        Some(floors) => {
            LevelBreakdown { baselines: floors.baselines, needs_data: Some(floors.needs_data), ..breakdown }
        }
        None => breakdown,
    }
}

/// The questions the budget stopped and what was spent, when it stopped any.
fn budget_use(state: &RunState) -> Option<BudgetUse> {
    let stopped = state.count(|s| s == QuestionStatus::Done(Outcome::Budget));
    let max_cost_usd = state.settings.as_ref().and_then(|s| s.budget).and_then(|b| b.max_cost_usd);
    (stopped > 0).then_some(BudgetUse { max_cost_usd, spent_usd: state.cost_usd, stopped })
}

/// The response cache's hits and misses, when it served any call.
fn cache_use(state: &RunState) -> Option<CacheUse> {
    let hits = state.cache_hits;
    let list_cost_usd = state.cache_list_cost_usd;
    (hits > 0).then_some(CacheUse { hits, misses: state.calls_finished - hits, list_cost_usd })
}

/// The results document of `state`, stamped `generated_at` (RFC 3339).
pub fn eval_results(state: &RunState, generated_at: &str) -> EvalResults {
    results_with(state, generated_at, state.questions.iter().map(|q| trace(state, q)).collect())
}

/// A run's question traces, each built while it is written and dropped
/// after: the whole list (every prompt of the run) is never held at once.
struct StreamedTraces<'a>(&'a RunState);

impl Serialize for StreamedTraces<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.questions.iter().map(|q| trace(self.0, q)))
    }
}

/// Write the results document of `state` (as [`eval_results`] builds it,
/// pretty-printed) to `writer` as it is built, one question trace at a time.
pub fn write_eval_results(writer: impl Write, state: &RunState, generated_at: &str) -> serde_json::Result<()> {
    serde_json::to_writer_pretty(writer, &results_with(state, generated_at, StreamedTraces(state)))
}

/// Calls sent in batches against live ones, when any went in a batch.
pub(in crate::report) fn batch_use(state: &RunState) -> Option<BatchUse> {
    if state.batches.is_empty() {
        return None;
    }
    let mut used = BatchUse { batches: state.batches.len(), ..BatchUse::default() };
    for call in state.calls.values().filter(|call| call.finished && !call.from_cache) {
        match call.batch_id {
            Some(_) => {
                (used.batched_calls, used.batched_cost_usd) =
                    (used.batched_calls + 1, used.batched_cost_usd + call.cost_usd)
            }
            None => (used.live_calls, used.live_cost_usd) = (used.live_calls + 1, used.live_cost_usd + call.cost_usd),
        }
    }
    Some(used)
}

fn results_with<Traces>(state: &RunState, generated_at: &str, question_traces: Traces) -> EvalResults<Traces> {
    let baselines = question_baselines(state);
    let floors = baselines_summary(state, &baselines);
    let mut by_level = baselines_by(state, &baselines, |q| Some(q.question.difficulty_level.as_str().to_string()));
    let mut by_dataset = baselines_by(state, &baselines, |q| q.question.dataset.clone());
    let mut level =
        |level: DifficultyLevel| with_floors(level_breakdown(state, level), by_level.shift_remove(level.as_str()));
    let total = state.questions.len();
    let passed_count = state.questions.iter().filter(|q| passed(q)).count();
    let unfinished = state.questions.iter().filter(|q| !finished(q)).count();
    let count = |outcome| state.count(|s| s == QuestionStatus::Done(outcome));
    EvalResults {
        summary: Summary {
            total_questions: total,
            passed: passed_count,
            failed: total - passed_count - unfinished,
            unfinished,
            pass_rate: rate(passed_count, total),
            generated_at: generated_at.to_string(),
            exhausted: count(Outcome::Exhausted),
            execution_failed: count(Outcome::Failed),
            cancelled: count(Outcome::Cancelled),
            fixed_by_hand: count(Outcome::FixedByHand),
            budget: budget_use(state),
            cache: cache_use(state),
            repeats: repeats(state),
            metamorphic: metamorphic_summary(state),
            differential: differential_summary(state),
            consensus: consensus_summary(state),
            benchmark: benchmark_summary(&state.questions)
                .map(|summary| BenchmarkSummary { lift: benchmark_lift(state), ..summary }),
            batches: batch_use(state),
            reviews: None,
            needs_data: floors.as_ref().map(|f| f.needs_data.clone()),
            baselines: floors.map(|f| f.baselines),
            successful_executions: passed_count,
            execution_failures: count(Outcome::Failed),
            critic_loop_exhausted: count(Outcome::Exhausted),
            grading: grading(state.questions.iter()),
            tokens: Tokens::from(state.usage).estimated_if(state.tokens_estimated),
            cost_usd: state.cost_usd,
            token_economy: token_economy(state),
            elapsed_ms: state.summary.as_ref().map(|s| s.elapsed_ms),
            run_failure: state.failure.clone(),
            settings: state.settings.clone(),
        },
        difficulty_breakdown: DifficultyBreakdown {
            easy: level(DifficultyLevel::Easy),
            medium: level(DifficultyLevel::Medium),
            hard: level(DifficultyLevel::Hard),
        },
        dataset_breakdown: dataset_breakdown(state)
            .into_iter()
            .map(|(name, of)| {
                let floors = by_dataset.shift_remove(&name);
                (name, with_floors(of, floors))
            })
            .collect(),
        detailed_results: state.questions.iter().zip(baselines).map(|(q, b)| detailed(state, q, b)).collect(),
        failure_analysis: state.questions.iter().filter(|q| !passed(q)).map(failure).collect(),
        question_traces,
        critic_scorecard: critic_scorecard(state),
        findings_taxonomy: findings_taxonomy(state),
        convergence: convergence(state),
        roles: role_usage(state),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::report::test_run::run_with_one_pass_and_one_exhausted;

    #[test]
    fn results_follow_the_schema_and_count_right() {
        let state = run_with_one_pass_and_one_exhausted();
        let doc = serde_json::to_value(eval_results(&state, "2026-01-01T00:00:00Z")).unwrap();
        let schema: Value = serde_json::from_str(include_str!("../documents/eval_results.schema.json")).unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        let errors: Vec<String> =
            validator.iter_errors(&doc).map(|e| format!("{} at {}", e, e.instance_path())).collect();
        assert!(errors.is_empty(), "{errors:#?}");
        assert_eq!(doc["summary"]["passed"], 1);
        assert_eq!(doc["summary"]["failed"], 1);
        assert_eq!(doc["summary"]["exhausted"], 1);
        assert_eq!(doc["summary"]["tokens"]["total"], 15);
        assert_eq!(doc["failure_analysis"][0]["question_id"], "q_02");
        assert_eq!(doc["question_traces"][0]["llm_exchanges"][1]["content"], "{}");
        let first = &doc["question_traces"][0]["conversation_log"][0];
        assert_eq!((first["role"].as_str(), first["content"].as_str()), (Some("dag_builder"), Some("{}")));
        let broken = json!({"summary": {}});
        assert!(!validator.is_valid(&broken), "the schema rejects a document without the required parts");
    }

    #[test]
    fn questions_that_never_finished_are_unfinished_not_failed() {
        // Killed after two questions: q_0001 passed, q_0002 exhausted, q_0003 started, three queued.
        let doc = eval_results(&crate::report::test_run::run_stopped_after(6, 2), "t");
        let summary = &doc.summary;
        assert_eq!((summary.passed, summary.failed, summary.unfinished, summary.exhausted), (1, 1, 4, 1));
        let breakdown = &doc.difficulty_breakdown;
        let levels = [&breakdown.easy, &breakdown.medium, &breakdown.hard];
        assert_eq!(levels.iter().map(|l| (l.failed, l.unfinished)).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1)), (1, 4));
        for level in levels {
            assert_eq!(level.passed + level.failed + level.unfinished, level.total, "{level:?}");
        }
    }

    #[test]
    fn the_streamed_document_is_the_built_one() {
        let state = crate::report::test_run::run_of(5);
        let mut streamed = Vec::new();
        write_eval_results(&mut streamed, &state, "2026-01-01T00:00:00Z").unwrap();
        let built = serde_json::to_string_pretty(&eval_results(&state, "2026-01-01T00:00:00Z")).unwrap();
        assert_eq!(String::from_utf8(streamed).unwrap(), built);
    }
}
