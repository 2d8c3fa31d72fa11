//! One attempt at one question: build → structural check → trial run →
//! semantic review, rebuilt with the complete feedback until approved or the
//! iteration budget is spent; the approved DAG's result is the answer.

use std::time::Instant;

use super::context::RunContext;
use super::gate::Cancelled;
use super::review::{review_layers, trial_findings};
use crate::domain::{
    AttemptAt, CriticFeedback, ExecutionResult, Finding, FindingSource, ForkedFrom, GeneratedDag, Question,
    ReplySchema, Rule, Severity,
};
use crate::domain::{CallKey, LlmRole};
use crate::grade::{Answer, JudgedAt};
use crate::llm::{LlmErrorKind, Unreadable};
use crate::prompts::extract_json_object;
use crate::run::{EngineEvent, Outcome, Stage};
use serde_json::Value;

/// Where an attempt starts: from scratch, or from an earlier iteration's DAG and feedback.
pub type Seed = Option<(GeneratedDag, CriticFeedback)>;

/// One attempt under way: the run it belongs to, its question and where it is.
pub(super) struct Attempt<'a> {
    pub(super) ctx: &'a RunContext,
    pub(super) question: &'a Question,
    pub(super) at: AttemptAt,
}

/// What the builder's reply came to.
enum Built {
    /// A DAG in the DAG shape.
    Dag(GeneratedDag),
    /// A reply that could not be read as a DAG, even after its repairs:
    /// rejected with this feedback.
    Unreadable(CriticFeedback),
    /// The call failed for good (the attempt fails with this reason).
    CallFailed(String),
    /// The call was not sent: the budget is spent (why, in one line).
    OverBudget(String),
}

/// What the structural checks and the trial run came to.
pub(super) enum Checked {
    /// An error was found: the verdict (a rejection) is ready, with the trial
    /// run's result when the DAG ran.
    Failed(CriticFeedback, Option<Box<ExecutionResult>>),
    /// No error: the findings (warnings) and the trial run's result.
    Ran(Vec<Finding>, Box<ExecutionResult>),
}

/// How an iteration ended.
#[allow(clippy::large_enum_variant)] // one per iteration, moved once
pub(super) enum Verdict {
    /// Rejected: the DAG and the feedback a rebuild gets.
    Rejected(GeneratedDag, CriticFeedback),
    /// Approved: the DAG, with the trial run's result.
    Approved(GeneratedDag, ExecutionResult),
    /// An LLM call failed for good (why, in one line).
    Failed(String),
    /// An LLM call was not sent: the budget is spent (why, in one line).
    OverBudget(String),
}

impl Attempt<'_> {
    pub(super) async fn stage<T>(
        &self,
        iteration: u32,
        stage: Stage,
        work: impl AsyncFnOnce() -> (bool, T),
    ) -> Result<T, Cancelled> {
        self.ctx.gate.pass(&self.at).await?;
        let emitter = &self.ctx.emitter;
        emitter.emit(EngineEvent::StageStarted { at: self.at.iteration(iteration), stage });
        let started = Instant::now();
        let finished = tokio::select! {
            biased;
            () = self.ctx.gate.cancelled(&self.at) => None,
            done = work() => Some(done),
        };
        emitter.emit(EngineEvent::StageFinished {
            at: self.at.iteration(iteration),
            stage,
            ok: finished.as_ref().is_some_and(|(ok, _)| *ok),
            duration_ms: started.elapsed().as_millis() as u64,
        });
        finished.map(|(_, value)| value).ok_or(Cancelled)
    }

    /// Grade an executed answer — with a narrative first when a judge needs one —
    /// and report the grades: the attempt's final answer, or (`rejected`) the
    /// trial answer of rejected iteration `iteration`.
    pub(super) async fn grade(&self, iteration: u32, result: &ExecutionResult, rejected: bool) {
        let ctx = self.ctx;
        let mut narrative = None;
        if ctx.parts.grader.wants_narrative() {
            let key = CallKey::for_iteration(&self.at.iteration(iteration), LlmRole::Narrative, None);
            let messages = ctx.parts.prompts.narrative(self.question, result);
            narrative = ctx.call_llm(key, messages, None).await.ok().map(|text| text.trim().to_string());
        }
        let llm = ctx.recorded_llm();
        let answer = result.final_answer.as_ref();
        let subject = Answer { value: answer, narrative: narrative.as_deref(), node_outputs: &result.node_outputs };
        let judged = if rejected {
            JudgedAt::rejected(self.at.clone(), iteration)
        } else {
            JudgedAt::final_answer(self.at.clone())
        };
        let grades = ctx.parts.grader.grade(self.question, &subject, &judged, &llm).await;
        if grades.is_empty() {
            return;
        }
        ctx.emitter.emit(if rejected {
            EngineEvent::IterationGraded { at: self.at.iteration(iteration), grades, narrative }
        } else {
            EngineEvent::Graded { at: self.at.clone(), grades, narrative }
        });
    }

    /// After a rejection: the run's judges grade the trial's answer, when the
    /// run judges rejected iterations and the trial reached an answer.
    async fn grade_rejected(&self, iteration: u32, trial: Option<&ExecutionResult>) {
        let answered = trial.filter(|t| t.success && t.final_answer.is_some());
        if let Some(trial) = answered.filter(|_| self.ctx.parts.grader.judges_rejected()) {
            self.grade(iteration, trial, true).await;
        }
    }

    pub(super) fn verdict(&self, iteration: u32, feedback: &CriticFeedback) {
        self.ctx
            .emitter
            .emit(EngineEvent::CriticVerdict { at: self.at.iteration(iteration), feedback: feedback.clone() });
    }

    pub(super) fn rejection(findings: Vec<Finding>, reasoning: String) -> CriticFeedback {
        CriticFeedback {
            is_approved: false,
            overall_reasoning: reasoning,
            layer_validations: Vec::new(),
            specific_errors: findings
                .iter()
                .filter(|f| f.severity == Severity::Error)
                .map(|f| f.message.clone())
                .collect(),
            suggestions: Vec::new(),
            findings,
        }
    }

    async fn build(&self, iteration: u32, previous: Option<&(GeneratedDag, CriticFeedback)>) -> Built {
        let key = CallKey::for_iteration(&self.at.iteration(iteration), LlmRole::DagBuild, None);
        let messages = self.ctx.parts.prompts.dag_build(
            self.ctx.parts.data_of(self.question).0,
            self.question,
            iteration,
            previous.map(|(dag, feedback)| (dag, feedback)),
        );
        let read = |reply: &str| {
            let value = extract_json_object(reply).map_err(|err| err.to_string())?;
            serde_json::from_value::<GeneratedDag>(value)
                .map_err(|err| format!("the DAG JSON does not match the DAG shape: {err}"))
        };
        let schema = Some(ReplySchema::of::<GeneratedDag>("dag"));
        match self.ctx.call_readable(key, messages, schema, read).await {
            Ok(Ok(mut dag)) => {
                if dag.question_id.is_empty() {
                    dag.question_id = self.question.id.clone();
                }
                Built::Dag(dag)
            }
            Ok(Err(Unreadable(message))) => {
                let finding = Finding {
                    node_id: None,
                    layer: None,
                    rule: Rule::UnparseableResponse,
                    source: FindingSource::Structural,
                    message: format!("{message}. Reply with exactly one JSON object in the DAG shape."),
                    severity: Severity::Error,
                };
                Built::Unreadable(Self::rejection(vec![finding], "The reply could not be read as a DAG.".into()))
            }
            Err(err) if err.kind == LlmErrorKind::Budget => Built::OverBudget(err.message),
            Err(err) => Built::CallFailed(format!("building the DAG failed: {err}")),
        }
    }

    /// The deterministic half of the critic: structural checks, then — when
    /// they found no error — the trial run on the dataset.
    pub(super) async fn check_and_trial(&self, iteration: u32, dag: &GeneratedDag) -> Result<Checked, Cancelled> {
        let structural = self
            .stage(iteration, Stage::StructuralCheck, async || {
                let findings = crate::dag::check_dag(dag, &self.ctx.parts.data_of(self.question).0.catalogue);
                (!findings.iter().any(|f| f.severity == Severity::Error), findings)
            })
            .await?;
        if structural.iter().any(|f| f.severity == Severity::Error) {
            let reasoning = "Structural checks failed; the DAG was not run or reviewed.".into();
            return Ok(Checked::Failed(Self::rejection(structural, reasoning), None));
        }
        let seed = self.ctx.seed;
        let (trial, trial_found) = self
            .stage(iteration, Stage::TrialRun, async || {
                let result = self.ctx.parts.data_of(self.question).1.execute(dag, seed).await;
                let findings = trial_findings(dag, &result);
                (result.success, (result, findings))
            })
            .await?;
        self.ctx.emitter.emit(EngineEvent::Executed {
            at: self.at.iteration(iteration),
            trial: true,
            result: trial.clone(),
        });
        let mut findings = structural;
        findings.extend(trial_found);
        if findings.iter().any(|f| f.severity == Severity::Error) {
            let feedback = Self::rejection(findings, "The trial run on the dataset failed.".into());
            return Ok(Checked::Failed(feedback, Some(Box::new(trial))));
        }
        Ok(Checked::Ran(findings, Box::new(trial)))
    }

    /// One iteration from build to verdict.
    async fn iterate(
        &self,
        iteration: u32,
        previous: Option<&(GeneratedDag, CriticFeedback)>,
    ) -> Result<Verdict, Cancelled> {
        let built = self.stage(iteration, Stage::Build, async || {
            let built = self.build(iteration, previous).await;
            (matches!(built, Built::Dag(_)), built)
        });
        let dag = match built.await? {
            Built::CallFailed(reason) => return Ok(Verdict::Failed(reason)),
            Built::OverBudget(reason) => return Ok(Verdict::OverBudget(reason)),
            Built::Unreadable(feedback) => {
                self.verdict(iteration, &feedback);
                let empty = GeneratedDag {
                    question_id: self.question.id.clone(),
                    description: String::new(),
                    nodes: vec![],
                    edges: vec![],
                    final_answer_node: Default::default(),
                };
                return Ok(Verdict::Rejected(previous.map(|p| p.0.clone()).unwrap_or(empty), feedback));
            }
            Built::Dag(dag) => dag,
        };
        self.ctx.emitter.emit(EngineEvent::DagBuilt { at: self.at.iteration(iteration), dag: dag.clone() });
        self.judge(iteration, dag).await
    }

    /// The critic's whole verdict on iteration `iteration`'s `dag`: structural
    /// checks, trial run, then the review of every layer.
    pub(super) async fn judge(&self, iteration: u32, dag: GeneratedDag) -> Result<Verdict, Cancelled> {
        let (mut findings, trial) = match self.check_and_trial(iteration, &dag).await? {
            Checked::Failed(feedback, trial) => {
                self.verdict(iteration, &feedback);
                self.grade_rejected(iteration, trial.as_deref()).await;
                return Ok(Verdict::Rejected(dag, feedback));
            }
            Checked::Ran(findings, trial) => (findings, *trial),
        };

        let review = self
            .stage(iteration, Stage::SemanticReview, async || {
                let review = review_layers(self.ctx, self.question, &dag, &trial, &self.at.iteration(iteration)).await;
                (review.is_ok(), review)
            })
            .await?;
        let review = match review {
            Ok(review) => review,
            Err((_, err)) if err.kind == LlmErrorKind::Budget => return Ok(Verdict::OverBudget(err.message)),
            Err((layer, err)) => {
                return Ok(Verdict::Failed(format!("the review of layer {layer} failed: {err}")));
            }
        };
        findings.extend(review.findings);
        let approved =
            review.layers.iter().all(|l| l.is_valid) && !findings.iter().any(|f| f.severity == Severity::Error);
        let feedback = CriticFeedback {
            is_approved: approved,
            overall_reasoning: if review.reasoning.is_empty() {
                if approved { "Every layer was approved.".into() } else { "Some layers were rejected.".into() }
            } else {
                review.reasoning.join("\n")
            },
            specific_errors: findings
                .iter()
                .filter(|f| f.severity == Severity::Error)
                .map(|f| f.message.clone())
                .collect(),
            layer_validations: review.layers,
            suggestions: Vec::new(),
            findings,
        };
        self.verdict(iteration, &feedback);
        if !approved {
            self.grade_rejected(iteration, Some(&trial)).await;
            return Ok(Verdict::Rejected(dag, feedback));
        }
        Ok(Verdict::Approved(dag, trial))
    }

    /// End the attempt.
    pub(super) fn finish(
        &self,
        outcome: Outcome,
        iterations: u32,
        final_answer: Option<Value>,
        reason: Option<String>,
    ) {
        let at = self.at.clone();
        self.ctx.emitter.emit(EngineEvent::QuestionFinished { at, outcome, iterations, final_answer, reason });
    }

    /// The final execution of an accepted DAG, its grades, its metamorphic
    /// checks (a DAG the critic `approved`, when the run asks for them) and the
    /// attempt's end as `answered` (or failed, when it produced no answer). The
    /// accepted DAG is exactly the one the trial ran on the same data and seed,
    /// and execution is deterministic: its trial result is final.
    pub(super) async fn answer(
        &self,
        iteration: u32,
        trial: ExecutionResult,
        answered: Outcome,
        approved: Option<&GeneratedDag>,
    ) {
        let Ok(result) = self.stage(iteration, Stage::Execute, async || (trial.success, trial)).await else {
            return self.finish(Outcome::Cancelled, iteration, None, Some("cancelled".into()));
        };
        let at = self.at.iteration(iteration);
        self.ctx.emitter.emit(EngineEvent::Executed { at, trial: false, result: result.clone() });
        if result.success {
            self.grade(iteration, &result, false).await;
            if let (Some(checks), Some(dag), Some(answer)) = (
                self.ctx.parts.metamorphic.as_ref().and_then(|c| c.of(self.question)),
                approved,
                result.final_answer.as_ref(),
            ) {
                let metamorphic = checks.check(&self.question.question, dag, answer, self.ctx.seed).await;
                self.ctx.emitter.emit(EngineEvent::MetamorphicChecked { at: self.at.clone(), metamorphic });
            }
            self.check_engines(iteration, approved, &result).await;
            self.finish(answered, iteration, result.final_answer, None)
        } else {
            self.check_engines(iteration, approved, &result).await;
            self.finish(Outcome::Failed, iteration, None, result.error)
        }
    }

    /// Run an approved DAG again on the other engine (`run --differential`)
    /// and record where the two results differ, if they do.
    async fn check_engines(&self, iteration: u32, approved: Option<&GeneratedDag>, result: &ExecutionResult) {
        let (Some(check), Some(dag)) = (self.ctx.parts.differential.as_ref(), approved) else { return };
        let other = check.executor_of(self.question).execute(dag, self.ctx.seed).await;
        let options = self.ctx.parts.grader.options_for(self.question).unwrap_or_default();
        if let Some(divergence) = super::differential::compare(result, &other, &options) {
            self.ctx.emitter.emit(EngineEvent::EngineDivergence { at: self.at.iteration(iteration), divergence });
        }
    }
}

/// Run one attempt at `question` to its end; cancellation ends it as `Cancelled`.
pub async fn run_attempt(
    ctx: &RunContext,
    question: &Question,
    at: AttemptAt,
    seed: Seed,
    forked_from: Option<ForkedFrom>,
) {
    let run = Attempt { ctx, question, at };
    ctx.emitter.emit(EngineEvent::QuestionStarted { at: run.at.clone(), forked_from, by_hand: false });
    if let Some(limit) = ctx.budget_reached(Some(&question.id)) {
        // Nothing new starts once the budget is spent.
        return run.finish(Outcome::Budget, 0, None, Some(format!("not started: {limit} reached")));
    }
    let mut previous = seed;
    for iteration in 1..=ctx.max_iterations {
        match run.iterate(iteration, previous.as_ref()).await {
            Ok(Verdict::OverBudget(reason)) => return run.finish(Outcome::Budget, iteration, None, Some(reason)),
            Err(Cancelled) => return run.finish(Outcome::Cancelled, iteration, None, Some("cancelled".into())),
            Ok(Verdict::Failed(reason)) => return run.finish(Outcome::Failed, iteration, None, Some(reason)),
            Ok(Verdict::Approved(dag, trial)) => {
                return run.answer(iteration, trial, Outcome::Passed, Some(&dag)).await;
            }
            Ok(Verdict::Rejected(dag, feedback)) => previous = Some((dag, feedback)),
        }
    }
    let reason = format!("rejected in all {} iterations", ctx.max_iterations);
    run.finish(Outcome::Exhausted, ctx.max_iterations, None, Some(reason));
}
