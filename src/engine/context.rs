//! What every critic loop shares, and the one place LLM calls are made and
//! reported.

use std::sync::Arc;
use std::time::Instant;

use futures::future::BoxFuture;

use super::{emitter::Emitter, gate::Gate};
use crate::dag::DagExecutor;
use crate::dataset::Dataset;
use crate::domain::{Budget, BudgetLimit, Spend};
use crate::domain::{CallKey, ChatMessage, LlmRole, ReplySchema, TokenUsage};
use crate::grade::Grader;
use crate::llm::{
    DeltaSink, LlmClient, LlmError, LlmErrorKind, LlmRequest, LlmResponse, Repairs, StreamUpdate, Unreadable, serving,
};
use crate::prompts::Prompts;
use crate::run::EngineEvent;

/// One dataset of a run over several, and the sandbox that runs DAGs on it.
#[derive(Clone)]
pub struct NamedDataset {
    /// The dataset.
    pub dataset: Arc<Dataset>,
    /// Runs DAGs on it.
    pub executor: Arc<dyn DagExecutor>,
}

/// The pieces a run is made of, given by the caller.
pub struct EngineParts {
    /// The dataset (in a run over several, the one a question naming no
    /// other is asked about).
    pub dataset: Arc<Dataset>,
    /// The LLM provider.
    pub llm: Arc<dyn LlmClient>,
    /// The sandbox.
    pub executor: Arc<dyn DagExecutor>,
    /// Prompt templates.
    pub prompts: Arc<Prompts>,
    /// Grades answers (built from the settings' grading).
    pub grader: Arc<Grader>,
    /// Runs approved DAGs again on transformed copies of their question's
    /// dataset (`run --metamorphic`); none when the run does not ask for it.
    pub metamorphic: Option<Arc<super::metamorphic::RunChecks>>,
    /// The datasets of a run over several, by the name a question's `dataset`
    /// gives; empty in a single-dataset run.
    pub named: std::collections::BTreeMap<String, NamedDataset>,
    /// Runs approved DAGs again on the other engine (`run --differential`);
    /// none when the run does not ask for it.
    pub differential: Option<Arc<super::differential::EngineCheck>>,
}

impl EngineParts {
    /// The parts of a run over one dataset without metamorphic or differential checks.
    pub fn new(
        dataset: Arc<Dataset>,
        llm: Arc<dyn LlmClient>,
        executor: Arc<dyn DagExecutor>,
        prompts: Arc<Prompts>,
        grader: Arc<Grader>,
    ) -> Self {
        Self {
            dataset,
            llm,
            executor,
            prompts,
            grader,
            metamorphic: None,
            named: std::collections::BTreeMap::new(),
            differential: None,
        }
    }

    /// The dataset `question` is asked about, and the sandbox over it.
    pub fn data_of(&self, question: &crate::domain::Question) -> (&Arc<Dataset>, &Arc<dyn DagExecutor>) {
        match question.dataset.as_ref().and_then(|name| self.named.get(name)) {
            Some(named) => (&named.dataset, &named.executor),
            None => (&self.dataset, &self.executor),
        }
    }
}

/// Shared by every critic loop of a run: its parts and its controls.
pub struct RunContext {
    /// What the run is made of.
    pub parts: EngineParts,
    /// Event fan-out.
    pub emitter: Arc<Emitter>,
    /// Pause/step/cancel.
    pub gate: Arc<Gate>,
    /// Iterations per attempt.
    pub max_iterations: u32,
    /// Seed of node randomness.
    pub seed: u64,
    /// Layer reviews at once per DAG; 0 reviews every layer at once.
    pub review_concurrency: usize,
    /// Spending limits: a call that would start past one is not sent.
    pub budget: Budget,
    /// How an unreadable reply is asked for again within its iteration.
    pub repairs: Repairs,
}

impl RunContext {
    /// Make one LLM call, reporting start, streamed text and end as events;
    /// `schema` is the shape of a JSON reply (`None`: free text).
    pub async fn call_llm(
        &self,
        key: CallKey,
        messages: Vec<ChatMessage>,
        schema: Option<ReplySchema>,
    ) -> Result<String, LlmError> {
        self.record_call(LlmRequest { key, messages, schema }).await.map(|reply| reply.text)
    }

    /// Make a call whose reply is read with `read`, repaired in place (calls
    /// of the same key with `repair: n`) while it cannot be read, up to the
    /// run's limit; `Ok(Err(_))` says why it is still unreadable.
    pub async fn call_readable<T>(
        &self,
        key: CallKey,
        messages: Vec<ChatMessage>,
        schema: Option<ReplySchema>,
        read: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Result<T, Unreadable>, LlmError> {
        let request = LlmRequest { key, messages, schema };
        self.repairs.complete(&self.recorded_llm(), &request, read).await
    }

    /// The provider, with every call reported as events (for code that takes an
    /// [`LlmClient`], such as judges).
    pub fn recorded_llm(&self) -> RecordedLlm<'_> {
        RecordedLlm(self)
    }

    /// The limit the run (or `question_id`, when given) has reached, if any.
    pub fn budget_reached(&self, question_id: Option<&str>) -> Option<BudgetLimit> {
        if self.budget.is_unlimited() {
            return None;
        }
        // Calls waiting in a provider's batch count at their estimate until their replies are read.
        let waiting = self.parts.llm.batch_hub().map_or(0.0, crate::llm::BatchHub::waiting_usd);
        let spend = self.emitter.with_state(|s| Spend {
            run_usd: s.cost_usd + waiting,
            run_tokens: s.usage.total(),
            question_usd: question_id.and_then(|id| s.question(id)).map_or(0.0, |q| q.cost_usd),
        });
        self.budget.reached(spend)
    }

    async fn record_call(&self, request: LlmRequest) -> Result<LlmResponse, LlmError> {
        let LlmRequest { key, messages, schema } = request;
        if let Some(limit) = self.budget_reached(key.question_id.as_deref()) {
            return Err(LlmError::new(LlmErrorKind::Budget, format!("stopped by the budget: {limit} reached")));
        }
        let call_id = self.emitter.next_call_id();
        let served = serving(self.parts.llm.as_ref(), key.role);
        self.emitter.emit(EngineEvent::LlmCallStarted {
            call_id,
            key: key.clone(),
            provider: served.provider(),
            model: served.model().to_string(),
            messages: messages.clone(),
        });
        let emitter = self.emitter.clone();
        let sink = Arc::new(move |update: StreamUpdate<'_>| match update {
            StreamUpdate::Text(text) => emitter.emit(EngineEvent::LlmTextDelta { call_id, text: text.to_string() }),
            StreamUpdate::Retrying { retry, error, wait } => emitter.emit(EngineEvent::LlmCallRetrying {
                call_id,
                retry,
                error: error.message.clone(),
                wait_ms: wait.as_millis() as u64,
            }),
        });
        let started = Instant::now();
        let request = LlmRequest { key: key.clone(), messages, schema };
        let unfinished = Unfinished { emitter: &self.emitter, call_id, key: Some(key.clone()), started };
        // Recorded as soon as the reply is read, before the loop waits for its slot again
        // (a cancel of the run's batches counts on it).
        let finished = async {
            let outcome = self.parts.llm.complete(&request, sink).await;
            unfinished.defuse();
            self.record_finish(call_id, key, served, started, &outcome);
            outcome
        };
        super::loop_slot::without_slot(finished).await
    }

    /// Record the end of call `call_id` (`key`, served by `served`, started at `started`): `outcome`.
    fn record_finish(
        &self,
        call_id: u64,
        key: CallKey,
        served: &dyn LlmClient,
        started: Instant,
        outcome: &Result<LlmResponse, LlmError>,
    ) {
        let latency_ms = started.elapsed().as_millis() as u64;
        let (response, usage, error, retries) = match &outcome {
            Ok(reply) => (Some(reply.text.clone()), reply.usage, None, reply.retries),
            Err(err) => (None, Default::default(), Some(err.message.clone()), err.retries),
        };
        let from_cache = outcome.as_ref().is_ok_and(|reply| reply.from_cache);
        let list_cost_usd = outcome.as_ref().ok().and_then(|reply| reply.list_usage).map(|u| served.cost_usd(u));
        let (finish_reason, estimated, batch_id) = outcome.as_ref().map_or((None, false, None), |reply| {
            (reply.finish_reason.clone(), reply.estimated, reply.batch_id.clone())
        });
        self.emitter.emit(EngineEvent::LlmCallFinished {
            call_id,
            key,
            response,
            usage,
            latency_ms,
            error,
            retries,
            cost_usd: batch_id.as_ref().and_then(|_| served.batch_cost_usd(usage)).unwrap_or(served.cost_usd(usage)),
            finish_reason,
            from_cache,
            list_cost_usd,
            estimated,
            batch_id,
        });
    }
}

/// Ends a call's record when the call is dropped before it answers (its
/// attempt was cancelled): the trace then says why it has no response.
struct Unfinished<'a> {
    emitter: &'a Emitter,
    call_id: u64,
    key: Option<CallKey>,
    started: Instant,
}

impl Unfinished<'_> {
    fn defuse(mut self) {
        self.key = None;
    }
}

impl Drop for Unfinished<'_> {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            self.emitter.emit(EngineEvent::LlmCallFinished {
                call_id: self.call_id,
                key,
                response: None,
                usage: TokenUsage::default(),
                latency_ms: self.started.elapsed().as_millis() as u64,
                error: Some(crate::run::CALL_CANCELLED.into()),
                retries: 0,
                cost_usd: 0.0,
                finish_reason: None,
                from_cache: false,
                list_cost_usd: None,
                estimated: false,
                batch_id: None,
            });
        }
    }
}

/// The run's provider seen through [`RunContext::recorded_llm`].
pub struct RecordedLlm<'a>(&'a RunContext);

impl LlmClient for RecordedLlm<'_> {
    fn provider(&self) -> crate::domain::Provider {
        self.0.parts.llm.provider()
    }

    fn model(&self) -> &str {
        self.0.parts.llm.model()
    }

    fn complete<'a>(
        &'a self,
        request: &'a LlmRequest,
        _sink: DeltaSink,
    ) -> BoxFuture<'a, Result<LlmResponse, LlmError>> {
        Box::pin(self.0.record_call(request.clone()))
    }

    fn cost_usd(&self, usage: TokenUsage) -> f64 {
        self.0.parts.llm.cost_usd(usage)
    }

    fn for_role(&self, role: LlmRole) -> Option<&dyn LlmClient> {
        self.0.parts.llm.for_role(role)
    }

    fn batch_hub(&self) -> Option<&crate::llm::BatchHub> {
        self.0.parts.llm.batch_hub()
    }
}
