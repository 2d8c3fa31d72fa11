//! The flags that say which model plays which role, shared by `run`, `replay`, `recritic` and `grade`.

use clap::Args;

/// Which model plays which role, and where it is served: the
/// same flags on `run`, `replay`, `recritic` and `grade`. A role's own flag
/// wins over everything; `[roles.<name>]` in the config file wins over the
/// flags for every role (`--llm`, `--model`, `--base-url`), which win over
/// `[llm]`; a `[roles.<name>]` that names a provider is not touched by them.
#[derive(Debug, Clone, Default, Args)]
pub struct RoleFlags {
    /// Model name for every role without its own (`--critic-model`, `[roles.<name>] model`).
    #[arg(long, env = "EVAL_DAG_MODEL")]
    pub model: Option<String>,
    /// Base URL of the server for every role without its own (`--critic-base-url`,
    /// `[roles.<name>] base_url`); when not given: `OPENAI_BASE_URL` for openai
    /// roles, `ANTHROPIC_BASE_URL` for anthropic ones.
    #[arg(long)]
    pub base_url: Option<String>,
    /// Model that builds the DAGs (over --model).
    #[arg(long)]
    pub builder_model: Option<String>,
    /// Base URL of the server that builds the DAGs (over --base-url).
    #[arg(long)]
    pub builder_base_url: Option<String>,
    /// Model of the critic's layer reviews (over --model).
    #[arg(long)]
    pub critic_model: Option<String>,
    /// Base URL of the server answering the critic's layer reviews (over --base-url).
    #[arg(long)]
    pub critic_base_url: Option<String>,
    /// Model of the judges (over --model).
    #[arg(long)]
    pub judge_model: Option<String>,
    /// Base URL of the server answering the judges (over --base-url).
    #[arg(long)]
    pub judge_base_url: Option<String>,
    /// Model that answers the baselines (`run --baselines`; over --model,
    /// and the builder's model when not given).
    #[arg(long)]
    pub baseline_model: Option<String>,
    /// Base URL of the server answering the baselines (over --base-url).
    #[arg(long)]
    pub baseline_base_url: Option<String>,
}
