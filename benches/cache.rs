//! What the response cache saves on a rerun: the real engine, the real
//! OpenAI-compatible client and sandbox, against a mock server on 127.0.0.1
//! that answers every call after a fixed delay. Three runs of the same
//! questions, each round with a fresh cache file: without a cache (the
//! baseline), with a cold cache (every call sent and stored) and with the
//! warm one (a rerun). Reports requests sent and wall time per run, the
//! median over the rounds, each as a ratio to the baseline measured in the
//! same round.
//! Run: `cargo bench --profile dev --bench cache` (`CACHE_BENCH_QUESTIONS=N`,
//! `CACHE_BENCH_ROUNDS=N` for other sizes).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark stops at its first failure")]

#[path = "../tests/common/mod.rs"]
mod common;

#[path = "support/measure.rs"]
mod measure;
#[path = "support/mock_run.rs"]
mod mock_run;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::mock_llm::MockLlm;
use eval_dag::domain::{LlmRole, ProviderKind};
use eval_dag::engine::{self, EngineParts, RunOptions};
use eval_dag::grade::Grader;
use eval_dag::llm::{CacheScope, CachedClient, LlmClient, OpenAiClient, ResponseCache};
use eval_dag::prompts::Prompts;
use eval_dag::run::RunSettings;
use measure::median;
use mock_run::MockRun;

const DELAY: Duration = Duration::from_millis(200);
const CONCURRENCY: u32 = 8;

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    let questions = env_number("CACHE_BENCH_QUESTIONS", 24);
    let rounds = env_number("CACHE_BENCH_ROUNDS", 5);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    tokio::runtime::Runtime::new().unwrap().block_on(run(questions, rounds, &root));
}

/// One run's requests sent and wall time in ms.
async fn one_run(parts: EngineParts, settings: RunSettings, mock: &MockLlm) -> (usize, f64) {
    let before = mock.requests().len();
    let started = Instant::now();
    let mut handle = engine::start(parts, None, settings, RunOptions::default());
    while handle.events.recv().await.is_some() {}
    let state = handle.task.await.unwrap();
    let wall = started.elapsed().as_secs_f64() * 1e3;
    assert_eq!(state.summary(state.now_ms).passed, state.questions.len(), "every question passes");
    (mock.requests().len() - before, wall)
}

async fn run(questions: usize, rounds: usize, root: &Path) {
    let setup = MockRun::start(root, questions, DELAY, true).await;
    let (mock, dataset, pool) = (&setup.mock, &setup.dataset, &setup.pool);
    let settings = setup.settings(questions, CONCURRENCY);
    let openai = setup.openai();
    let live: Arc<dyn LlmClient> = Arc::new(OpenAiClient::new(openai.clone()).unwrap());
    let scope = CacheScope {
        provider: ProviderKind::Openai,
        base_url: openai.base_url.clone(),
        model: openai.model.clone(),
        temperature: None,
        max_tokens: None,
        structured: openai.structured,
    };
    let scopes: BTreeMap<LlmRole, CacheScope> = LlmRole::ALL.into_iter().map(|role| (role, scope.clone())).collect();
    let parts = |llm: Arc<dyn LlmClient>| {
        let prompts = Arc::new(Prompts::load(None).unwrap());
        let grader = Arc::new(Grader::from_settings(&settings.grading).unwrap());
        EngineParts::new(dataset.clone(), llm, Arc::new(pool.clone()), prompts, grader)
    };
    let (mut cold_ratio, mut warm_ratio, mut walls) = (Vec::new(), Vec::new(), [Vec::new(), Vec::new(), Vec::new()]);
    let mut requests = [0; 3];
    for _ in 0..rounds {
        let dir = tempfile::tempdir().unwrap();
        let cache = Arc::new(ResponseCache::open(&dir.path().join("responses.sqlite")).unwrap());
        let cached: Arc<dyn LlmClient> = Arc::new(CachedClient::new(live.clone(), cache, scopes.clone()));
        let baseline = one_run(parts(live.clone()), settings.clone(), mock).await;
        let cold = one_run(parts(cached.clone()), settings.clone(), mock).await;
        let warm = one_run(parts(cached), settings.clone(), mock).await;
        for (n, (sent, wall)) in [baseline, cold, warm].into_iter().enumerate() {
            requests[n] = sent;
            walls[n].push(wall);
        }
        cold_ratio.push(cold.1 / baseline.1);
        warm_ratio.push(warm.1 / baseline.1);
    }
    println!(
        "{questions} questions (half rebuilt once), concurrency {CONCURRENCY}, mock delay {} ms, median of {rounds} rounds:",
        DELAY.as_millis()
    );
    let [baseline, cold, warm] = walls.map(median);
    println!("  no cache:   {:>4} requests, {baseline:>7.0} ms", requests[0]);
    println!("  cold cache: {:>4} requests, {cold:>7.0} ms, {:.3}× the baseline", requests[1], median(cold_ratio));
    println!("  warm cache: {:>4} requests, {warm:>7.0} ms, {:.3}× the baseline", requests[2], median(warm_ratio));
}
