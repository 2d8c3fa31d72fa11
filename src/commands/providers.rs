//! Building the LLM provider and the sandbox a run uses.

use std::sync::Arc;

use crate::cli::{LlmKind, RunArgs};
use crate::dataset::Dataset;
use crate::engine::DagExecutor;
use crate::llm::{LlmClient, OfflinePlanner};
use crate::model::Question;
use crate::sandbox::{SandboxConfig, SandboxPool};

/// The LLM provider chosen by `--llm` / `EVAL_DAG_LLM`, else `openai` when
/// `OPENAI_API_KEY` is set, else the offline planner. `questions` are the
/// run's given questions, if any (the offline planner must know them).
pub fn build_llm(
    args: &RunArgs,
    dataset: &Arc<Dataset>,
    questions: Option<&[Question]>,
) -> anyhow::Result<Arc<dyn LlmClient>> {
    let has_key = std::env::var_os("OPENAI_API_KEY").is_some_and(|k| !k.is_empty());
    let kind = args.llm.unwrap_or(if has_key { LlmKind::Openai } else { LlmKind::Offline });
    match kind {
        LlmKind::Offline if !args.judges.is_empty() => {
            anyhow::bail!("judges need an LLM: the offline planner does not judge answers (use --llm openai)")
        }
        LlmKind::Offline => match questions {
            Some(questions) => {
                Ok(Arc::new(OfflinePlanner::for_questions(dataset.clone(), questions).map_err(anyhow::Error::msg)?))
            }
            None => Ok(Arc::new(OfflinePlanner::new(dataset.clone(), args.questions as usize, args.seed))),
        },
        LlmKind::Openai => crate::llm::openai_from_env(args.model.clone(), args.base_url.clone()),
    }
}

/// The sandbox pool over `dataset`, with default limits.
pub fn build_executor(dataset: &Arc<Dataset>) -> anyhow::Result<Arc<dyn DagExecutor>> {
    Ok(Arc::new(SandboxPool::new(&dataset.dir, SandboxConfig::default())?))
}
