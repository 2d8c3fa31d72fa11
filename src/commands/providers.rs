//! Building the LLM provider and the sandbox a run uses.

use std::sync::Arc;

use crate::cli::RunArgs;
use crate::dataset::Dataset;
use crate::engine::DagExecutor;
use crate::llm::LlmClient;
use crate::sandbox::{SandboxConfig, SandboxPool};

/// The LLM provider chosen by flags, environment and config.
pub fn build_llm(args: &RunArgs, dataset: &Arc<Dataset>) -> anyhow::Result<Arc<dyn LlmClient>> {
    let _ = (args, dataset);
    anyhow::bail!("no LLM provider is available yet")
}

/// The sandbox pool over `dataset`, with default limits.
pub fn build_executor(dataset: &Arc<Dataset>) -> anyhow::Result<Arc<dyn DagExecutor>> {
    Ok(Arc::new(SandboxPool::new(&dataset.dir, SandboxConfig::default())?))
}
