//! Building the LLM provider and the sandbox a run uses.

use std::sync::Arc;

use crate::cli::LlmKind;
use crate::config::RunConfig;
use crate::dag::DagExecutor;
use crate::dataset::Dataset;
use crate::domain::Question;
use crate::llm::{AnthropicClient, LlmClient, OfflineOptions, OfflinePlanner, OpenAiClient};
use crate::sandbox::{SandboxConfig, SandboxPool};

/// The LLM provider `config` resolved to. `questions` are the run's given
/// questions, if any (the offline planner must be able to plan them);
/// `offline` how the offline planner behaves.
pub fn build_llm(
    config: &RunConfig,
    seed: u64,
    dataset: &Arc<Dataset>,
    questions: Option<&[Question]>,
    offline: OfflineOptions,
) -> anyhow::Result<Arc<dyn LlmClient>> {
    if let (LlmKind::Anthropic, Some(settings)) = (config.provider, &config.anthropic) {
        return Ok(Arc::new(AnthropicClient::new(settings.clone())?));
    }
    match (config.provider, &config.openai, questions) {
        (LlmKind::Openai, Some(settings), _) => Ok(Arc::new(OpenAiClient::new(settings.clone())?)),
        (_, _, Some(questions)) => {
            Ok(Arc::new(OfflinePlanner::for_questions(dataset.clone(), questions, seed, offline)?))
        }
        _ => Ok(Arc::new(OfflinePlanner::new(dataset.clone(), config.questions as usize, seed, offline))),
    }
}

/// The sandbox pool over `dataset`, with default limits. Its workers start at
/// once in the background (call from within a tokio runtime): a run's first
/// trial comes after two LLM calls at least, by when they are ready.
pub fn build_executor(dataset: &Arc<Dataset>) -> anyhow::Result<Arc<dyn DagExecutor>> {
    let pool = SandboxPool::new(&dataset.dir, SandboxConfig::default())?;
    tokio::spawn({
        let pool = pool.clone();
        async move { pool.warm().await }
    });
    Ok(Arc::new(pool))
}
