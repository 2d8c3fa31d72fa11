//! What the benchmarks of whole runs share: a mock OpenAI-compatible server
//! on 127.0.0.1 answering every call after a fixed delay, the fraud sample,
//! a warmed sandbox pool over it and the run's settings and client.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::common::mock_llm::{MockLlm, Reply, layered_reply};
use eval_dag::dataset::Dataset;
use eval_dag::llm::HttpSettings;
use eval_dag::run::RunSettings;
use eval_dag::sandbox::{SandboxConfig, SandboxPool};

/// The mock server, the dataset and a warm pool.
pub struct MockRun {
    /// The server.
    pub mock: MockLlm,
    /// `sample-data/fraud`.
    pub dataset: Arc<Dataset>,
    /// A pool over it, its workers started.
    pub pool: SandboxPool,
}

impl MockRun {
    /// Start the server (answers for `questions` questions after `delay`;
    /// `rebuilds`: half the DAGs rejected once) and warm the pool; `root` is the repository.
    pub async fn start(root: &Path, questions: usize, delay: Duration, rebuilds: bool) -> Self {
        let mock = MockLlm::start(move |request, _| {
            Reply::Delayed(delay, Box::new(Reply::Text(layered_reply(request, questions, rebuilds))))
        })
        .await;
        let dataset = Arc::new(Dataset::load(root.join("sample-data/fraud")).unwrap());
        let executable = Some(PathBuf::from(env!("CARGO_BIN_EXE_eval-dag")));
        let pool = SandboxPool::new(&dataset.dir, SandboxConfig { executable, ..SandboxConfig::default() }).unwrap();
        pool.warm().await;
        Self { mock, dataset, pool }
    }

    /// A run of `questions` at `concurrency` against the mock's "mock-model".
    pub fn settings(&self, questions: usize, concurrency: u32) -> RunSettings {
        RunSettings {
            dataset_dir: self.dataset.dir.clone(),
            dataset_hash: self.dataset.content_hash.clone(),
            provider: "openai".into(),
            model: "mock-model".into(),
            questions: questions as u32,
            max_iterations: 3,
            concurrency,
            review_concurrency: 0,
            seed: 1,
            ..RunSettings::default()
        }
    }

    /// The client settings for the mock (120 s per call).
    pub fn openai(&self) -> HttpSettings {
        let mut openai = HttpSettings::openai(self.mock.base_url(), Some("bench".into()), "mock-model");
        openai.timeout = Duration::from_secs(120);
        openai
    }
}
