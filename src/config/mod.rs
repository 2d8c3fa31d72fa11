//! The user's configuration file, `$XDG_CONFIG_HOME/eval-dag/config.toml` (or
//! the file named by `--config` / `EVAL_DAG_CONFIG`), and how it combines with
//! flags and the environment: flag > environment variable > config file >
//! built-in default — except for a role's provider, model and server, where
//! `[roles.<name>]` sits above the flags for every role (see [`RoleChoices`]).
//!
//! API keys are never read from the file: it names the environment variable
//! that holds the key (`api_key_env`), so a config file can be shared or
//! committed without leaking a secret.
//!
//! Parts:
//! - `roles.rs`: `[roles.<name>]` and the role flags, per role and field by field.
//!   A role's provider, model and server come from, first to last: its own flag, a
//!   replay's record, `[roles.<name>]`, the flags for every role, `[llm]`, the
//!   default. Resolved over `LlmRole::ALL`.
//! - `keys.rs`: `[keys]` as written, each name and key with its place in the file,
//!   made into the session's `tui::Keymap`. A bad binding is one line with its file
//!   and line; a key written straight under `[keys]` is told the contexts from the
//!   keymap's own list.
//! - `harness.rs`: `[cache]` and `[budget]` — the cache file and the spending
//!   limits, flags over the file, a negative limit refused.

use std::path::{Path, PathBuf};
use std::time::Duration;

use indexmap::IndexMap;
use serde::{Deserialize, Deserializer};

use crate::cli::{self, RunArgs};
use crate::domain::{LlmRole, ProviderKind, StructuredOutput};
use crate::llm::ModelPrice;
use crate::tui::Keymap;

mod harness;
mod keys;
mod roles;
#[cfg(test)]
mod tests;

pub use harness::{BudgetSection, CacheSection, ReviewSection, default_cache_path};
pub use roles::{RoleChoice, RoleChoices, RoleConfig, RoleConfigs, RoleSection, RolesSection};

/// Environment variable naming a config file to read instead of the default one.
pub const CONFIG_ENV: &str = "EVAL_DAG_CONFIG";
/// Default questions per run.
const DEFAULT_QUESTIONS: u32 = 10;
/// Default iteration budget per question.
const DEFAULT_MAX_ITERATIONS: u32 = 3;
/// Default critic loops at once.
const DEFAULT_CONCURRENCY: u32 = 10;

/// The config file's contents; every setting is optional.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// TUI colour theme (`EVAL_DAG_THEME` overrides it).
    pub theme: Option<String>,
    /// The LLM provider.
    #[serde(default)]
    pub llm: LlmSection,
    /// A model per role, over `[llm]`.
    #[serde(default)]
    pub roles: RolesSection,
    /// Run sizes and limits.
    #[serde(default)]
    pub run: RunSection,
    /// Prices by model name (a name also matches `name-<suffix>`), over the built-in ones.
    #[serde(default)]
    pub prices: IndexMap<String, ModelPrice>,
    /// The response cache.
    #[serde(default)]
    pub cache: CacheSection,
    /// Spending limits.
    #[serde(default)]
    pub budget: BudgetSection,
    /// Reviews of answers.
    #[serde(default)]
    pub review: ReviewSection,
    /// The sandbox's engine.
    #[serde(default)]
    pub sandbox: SandboxSection,
    /// `[keys]` as written; [`Config::parse`] turns it into [`Config::keys`].
    #[serde(default, rename = "keys")]
    written_keys: keys::WrittenKeys,
    /// The TUI's keys: the defaults with the user's `[keys]` in their place.
    #[serde(skip)]
    pub keys: Keymap,
}

/// `[llm]`: which provider, where, and how patiently.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmSection {
    /// `openai`, `anthropic` or `offline`.
    pub provider: Option<ProviderKind>,
    /// Model name.
    pub model: Option<String>,
    /// Base URL of the server.
    pub base_url: Option<String>,
    /// Name of the environment variable holding the API key.
    pub api_key_env: Option<String>,
    /// Limit per attempt, seconds.
    #[serde(default, deserialize_with = "seconds")]
    pub timeout_secs: Option<Duration>,
    /// Longest silence inside a streamed answer, seconds.
    #[serde(default, deserialize_with = "seconds")]
    pub stall_timeout_secs: Option<Duration>,
    /// Retries after a failed attempt.
    #[serde(default, deserialize_with = "retries")]
    pub retries: Option<u32>,
    /// Ask for JSON mode (`response_format`) on calls whose reply is a JSON
    /// object (`true` is `structured = "json"`, `false` is `"off"`).
    pub json_mode: Option<bool>,
    /// How replies that must be JSON objects are asked for: `schema` (the
    /// default), `json` or `off`.
    pub structured: Option<StructuredOutput>,
    /// Sampling temperature sent with every call.
    pub temperature: Option<f32>,
    /// Longest reply, in tokens, sent with every call (anthropic requires one).
    #[serde(default, deserialize_with = "max_tokens")]
    pub max_tokens: Option<u32>,
    /// Repair exchanges per reply that cannot be read (0: none).
    #[serde(default, deserialize_with = "repair")]
    pub repair: Option<u32>,
    /// Send every role's calls through its provider's batch API (`run --batch`).
    pub batch: Option<bool>,
    /// Seconds a cancel of the batches in flight waits for them to end (`run --batch-cancel-wait`).
    #[serde(default, deserialize_with = "seconds")]
    pub batch_cancel_wait: Option<Duration>,
}

impl LlmSection {
    /// The fields a `[roles.<name>]` section may override.
    pub fn as_role(&self) -> RoleSection {
        RoleSection {
            provider: self.provider,
            model: self.model.clone(),
            base_url: self.base_url.clone(),
            api_key_env: self.api_key_env.clone(),
            temperature: self.temperature,
            max_tokens: self.max_tokens,
            json_mode: self.json_mode,
            structured: self.structured,
            batch: self.batch,
        }
    }
}

/// `[run]`: sizes and limits of a run.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSection {
    /// Questions to generate.
    #[serde(default, deserialize_with = "questions")]
    pub questions: Option<u32>,
    /// Iterations per question.
    #[serde(default, deserialize_with = "max_iterations")]
    pub max_iterations: Option<u32>,
    /// Critic loops at once.
    #[serde(default, deserialize_with = "concurrency")]
    pub concurrency: Option<u32>,
    /// Layer reviews at once per DAG (0: every layer at once).
    #[serde(default, deserialize_with = "review_concurrency")]
    pub review_concurrency: Option<u32>,
    /// Metamorphic checks of every approved DAG (`run --metamorphic`).
    #[serde(default)]
    pub metamorphic: Option<bool>,
    /// Longest a DAG node may run in the sandbox, seconds (`--node-timeout` wins;
    /// default: by the dataset's size).
    #[serde(default, deserialize_with = "seconds")]
    pub node_timeout_secs: Option<Duration>,
    /// The run's clock (`--now`): the instant node code reads as now.
    #[serde(default)]
    pub now: Option<crate::domain::RunClock>,
    /// Tokens the dataset's schema may take in a prompt (`--schema-budget` wins).
    #[serde(default, deserialize_with = "schema_budget")]
    pub schema_budget: Option<u32>,
}

/// `[sandbox]`: which Python runs DAGs (`--engine`, `--python` and
/// `--differential` win).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SandboxSection {
    /// `rustpython` or `cpython`.
    pub engine: Option<crate::domain::Engine>,
    /// The CPython to use.
    pub python: Option<PathBuf>,
    /// Check every approved DAG on both engines.
    pub differential: Option<bool>,
}

fn within<'de, D: Deserializer<'de>>(
    deserializer: D,
    range: std::ops::RangeInclusive<i64>,
) -> Result<Option<u32>, D::Error> {
    let value = i64::deserialize(deserializer)?;
    if !range.contains(&value) {
        return Err(serde::de::Error::custom(format!("{value} is out of range {}..={}", range.start(), range.end())));
    }
    u32::try_from(value).map(Some).map_err(serde::de::Error::custom)
}

fn questions<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    within(d, cli::QUESTIONS_RANGE)
}

fn schema_budget<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    within(d, cli::SCHEMA_BUDGET_RANGE)
}

fn max_iterations<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    within(d, cli::MAX_ITERATIONS_RANGE)
}

fn concurrency<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    within(d, cli::CONCURRENCY_RANGE)
}

fn review_concurrency<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    within(d, cli::REVIEW_CONCURRENCY_RANGE)
}

fn repair<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    within(d, cli::REPAIR_RANGE)
}

fn retries<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    within(d, 0..=20)
}

fn max_tokens<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    within(d, 1..=1_000_000)
}

fn seconds<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Duration>, D::Error> {
    let value = f64::deserialize(deserializer)?;
    if !(value > 0.0 && value <= 86_400.0) {
        return Err(serde::de::Error::custom(format!("{value} is not a number of seconds above 0 and up to a day")));
    }
    Ok(Some(Duration::from_secs_f64(value)))
}

/// The config file is unreadable or wrong; one line naming the file and line.
#[derive(Debug, thiserror::Error)]
#[error("config {location}: {message}")]
pub struct ConfigError {
    /// `path` or `path:line:column`.
    pub location: String,
    /// What is wrong and, where possible, how to fix it.
    pub message: String,
}

/// Where the config file lives unless `--config` / `EVAL_DAG_CONFIG` names another.
pub fn default_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "eval-dag").map(|d| d.config_dir().join("config.toml"))
}

/// `line:column` (1-based) of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Rewrites serde's "unknown field `x`, expected one of `a`, `b`" into a hint.
fn unknown_key_hint(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field ")?;
    let quoted: Vec<&str> = rest.split('`').skip(1).step_by(2).collect();
    let (unknown, known) = quoted.split_first()?;
    if *unknown == "api_key" {
        return Some(
            "api_key is not read from the config file, so that the file holds no secret; put the key in an \
             environment variable and name it with api_key_env = \"OPENAI_API_KEY\" in [llm]"
                .into(),
        );
    }
    let closest = crate::text::closest(unknown, known, 0.7)
        .map_or_else(|| format!("; the keys here are {}", known.join(", ")), |k| format!("; did you mean `{k}`?"));
    Some(format!("unknown key `{unknown}`{closest}"))
}

impl Config {
    /// Parse `text`, read from `origin` (named in errors).
    pub fn parse(text: &str, origin: &Path) -> Result<Self, ConfigError> {
        let location = |offset: Option<usize>| match offset {
            Some(offset) => {
                let (line, column) = line_column(text, offset);
                format!("{}:{line}:{column}", origin.display())
            }
            None => origin.display().to_string(),
        };
        let mut config: Self = toml::from_str(text).map_err(|err| {
            let raw = err.message().trim().replace('\n', "; ");
            ConfigError {
                location: location(err.span().map(|s| s.start)),
                message: unknown_key_hint(&raw).unwrap_or(raw),
            }
        })?;
        config.keys = std::mem::take(&mut config.written_keys)
            .keymap()
            .map_err(|err| ConfigError { location: location(Some(err.span.start)), message: err.message })?;
        Ok(config)
    }

    /// Read `explicit` (which must exist), else the default file when there is one.
    pub fn load(explicit: Option<&Path>) -> Result<Self, ConfigError> {
        let path = match explicit {
            Some(path) => path.to_path_buf(),
            None => match default_path().filter(|p| p.exists()) {
                Some(path) => path,
                None => return Ok(Self::default()),
            },
        };
        let text = std::fs::read_to_string(&path).map_err(|err| ConfigError {
            location: path.display().to_string(),
            message: format!("cannot read it: {err}"),
        })?;
        Self::parse(&text, &path)
    }

    /// The sandbox's node limit: `flag` (seconds) over `[run] node_timeout_secs`;
    /// `None` leaves it to the dataset's size.
    pub fn node_timeout(&self, flag: Option<f64>) -> Option<Duration> {
        flag.map(Duration::from_secs_f64).or(self.run.node_timeout_secs)
    }

    /// The schema budget of a prompt, tokens: `flag` over `[run] schema_budget`;
    /// `None` leaves the default.
    pub fn schema_budget(&self, flag: Option<u32>) -> Option<u32> {
        flag.or(self.run.schema_budget)
    }

    /// The TUI theme: `from_env` (`EVAL_DAG_THEME`) when set, else this file's, else `dark`.
    pub fn theme(&self, from_env: Option<String>) -> String {
        from_env.filter(|n| !n.is_empty()).or(self.theme.clone()).unwrap_or_else(|| "dark".into())
    }

    /// The settings of a run: `args` (flags, and the environment variables clap
    /// reads for them) over this file over the built-in defaults, each role's
    /// as [`Self::role_configs`] combines them; `--structured` (or
    /// `--json-mode`) sets every role's structured outputs whatever the file
    /// says. `env` looks up the API key variable.
    pub fn resolve(&self, args: &RunArgs, env: impl Fn(&str) -> Option<String>) -> anyhow::Result<RunConfig> {
        let mut roles = self.role_configs(&args.roles, args.llm, env)?;
        if let Some(level) = args.structured_outputs() {
            roles.values_mut().for_each(|role| role.ask_structured(level));
        }
        if args.batch {
            roles.values_mut().for_each(|role| role.batch = true);
        }
        Ok(RunConfig {
            roles,
            questions: args.questions.or(self.run.questions).unwrap_or(DEFAULT_QUESTIONS),
            max_iterations: args.max_iterations.or(self.run.max_iterations).unwrap_or(DEFAULT_MAX_ITERATIONS),
            concurrency: args.concurrency.or(self.run.concurrency).unwrap_or(DEFAULT_CONCURRENCY),
            review_concurrency: args.review_concurrency.or(self.run.review_concurrency).unwrap_or(0),
            metamorphic: args.metamorphic || self.run.metamorphic.unwrap_or(false),
            repair: args.repair.or(self.llm.repair).unwrap_or(crate::llm::DEFAULT_REPAIRS),
            batch_window: args.batch_window.map_or(crate::llm::DEFAULT_BATCH_WINDOW, Duration::from_secs_f64),
            batch_cancel_wait: args
                .batch_cancel_wait
                .map(Duration::from_secs_f64)
                .or(self.llm.batch_cancel_wait)
                .unwrap_or(crate::llm::DEFAULT_BATCH_CANCEL_WAIT),
        })
    }
}

/// The file `EVAL_DAG_CONFIG` or the default path names, for a command
/// without `--config` (`compare`).
pub fn load_default() -> Result<Config, ConfigError> {
    let explicit = std::env::var_os(CONFIG_ENV).map(PathBuf::from);
    Config::load(explicit.as_deref())
}

/// The TUI theme of a command that reads no other setting (`replay`,
/// `compare`): [`Config::theme`] of the file `EVAL_DAG_CONFIG` or the default
/// path names; a file that cannot be read is logged and the default used.
pub fn theme_name() -> String {
    let config = load_default().unwrap_or_else(|err| {
        tracing::warn!("{err}");
        Config::default()
    });
    config.theme(std::env::var("EVAL_DAG_THEME").ok())
}

/// A run's settings once flags, environment, config file and defaults are combined.
#[derive(Debug, Clone, PartialEq)]
pub struct RunConfig {
    /// Every role's provider and connection settings.
    pub roles: RoleConfigs,
    /// Questions to generate.
    pub questions: u32,
    /// Iterations per question.
    pub max_iterations: u32,
    /// Critic loops at once.
    pub concurrency: u32,
    /// Layer reviews at once per DAG (0: every layer at once).
    pub review_concurrency: u32,
    /// Metamorphic checks of every approved DAG.
    pub metamorphic: bool,
    /// Repair exchanges per unreadable reply (`--repair`, `[llm] repair`).
    pub repair: u32,
    /// How long a batch stays open after its first call (`--batch-window`).
    pub batch_window: Duration,
    /// How long cancelling the batches in flight waits for them to end
    /// (`--batch-cancel-wait`, `[llm] batch_cancel_wait`).
    pub batch_cancel_wait: Duration,
}

impl RunConfig {
    /// The settings of `role`.
    pub fn role(&self, role: LlmRole) -> &RoleConfig {
        &self.roles[&role]
    }
}
