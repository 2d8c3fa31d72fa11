//! A model per role: `[roles.<name>]` sections of the config file and the
//! role flags, combined per role and field by field.
//!
//! For a role's `provider`, `model` and `base_url` the first of these that
//! gives one wins: the role's own flag (`--critic-model`,
//! `--critic-base-url`); a replay's record of who played the role;
//! `[roles.<name>]`; the flags for every role (`--llm`, `--model`,
//! `--base-url`, with `EVAL_DAG_LLM` and `EVAL_DAG_MODEL`) and the provider's
//! base-URL variable (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`); `[llm]`; the
//! built-in default. A role whose section names its provider is not touched
//! by the flags for every role at all (nor a recorded role by flags naming
//! another provider) — but `--llm offline`, which runs without a model, makes
//! every role offline — and `[llm]`'s model and
//! server serve only roles of `[llm]`'s provider (or any, when it names
//! none): fields of two providers are never mixed. The other fields
//! (`api_key_env`, `temperature`, `max_tokens`, structured outputs) come
//! from `[roles.<name>]`, else `[llm]`; `--structured` sets every role's.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::Config;
use crate::cli::RoleFlags;
use crate::domain::{LlmRole, ProviderKind, RoleModels, StructuredOutput};
use crate::llm::{
    ANTHROPIC_API_KEY_ENV, ANTHROPIC_BASE_URL, ANTHROPIC_MODEL, DEFAULT_API_KEY_ENV, DEFAULT_BASE_URL, DEFAULT_MODEL,
    HttpSettings, normalise_anthropic_url, normalise_base_url,
};

/// The environment variable with the server of openai roles (below the flags, above the file).
pub const BASE_URL_ENV: &str = "OPENAI_BASE_URL";
/// The environment variable with the server of anthropic roles (below the flags, above the file).
pub const ANTHROPIC_BASE_URL_ENV: &str = "ANTHROPIC_BASE_URL";

/// `[roles]`: a section per role, each optional.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RolesSection {
    /// Question generation.
    pub questions: Option<RoleSection>,
    /// DAG building.
    pub builder: Option<RoleSection>,
    /// Layer review.
    pub critic: Option<RoleSection>,
    /// The one-sentence narrative of an answer.
    pub narrative: Option<RoleSection>,
    /// Judges.
    pub judge: Option<RoleSection>,
    /// Baseline answers (`run --baselines`); without it, the builder's settings.
    pub baseline: Option<RoleSection>,
}

impl RolesSection {
    /// The section of `role`, if the file has one.
    pub fn get(&self, role: LlmRole) -> Option<&RoleSection> {
        match role {
            LlmRole::QuestionGeneration => self.questions.as_ref(),
            LlmRole::DagBuild => self.builder.as_ref(),
            LlmRole::LayerReview => self.critic.as_ref(),
            LlmRole::Narrative => self.narrative.as_ref(),
            LlmRole::Judge => self.judge.as_ref(),
            LlmRole::Baseline => self.baseline.as_ref(),
        }
    }
}

/// `[roles.<name>]` (and the same fields of `[llm]`): who plays a role. Each
/// field left out is `[llm]`'s.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleSection {
    /// `openai`, `anthropic` or `offline`.
    pub provider: Option<ProviderKind>,
    /// Model name.
    pub model: Option<String>,
    /// Base URL of the server.
    pub base_url: Option<String>,
    /// Name of the environment variable holding the API key.
    pub api_key_env: Option<String>,
    /// Sampling temperature sent with every call.
    pub temperature: Option<f32>,
    /// Longest reply, in tokens, sent with every call (anthropic requires one).
    #[serde(default, deserialize_with = "super::max_tokens")]
    pub max_tokens: Option<u32>,
    /// Ask for JSON mode on calls whose reply is a JSON object (`true` is
    /// `structured = "json"`, `false` is `"off"`).
    pub json_mode: Option<bool>,
    /// How replies that must be JSON objects are asked for: `schema`, `json` or `off`.
    pub structured: Option<StructuredOutput>,
    /// Send the role's calls through its provider's batch API (`run --batch`).
    pub batch: Option<bool>,
}

/// One role's resolved provider and its connection settings.
#[derive(Debug, Clone, PartialEq)]
pub struct RoleConfig {
    /// The provider.
    pub provider: ProviderKind,
    /// Connection settings, for the openai provider.
    pub openai: Option<HttpSettings>,
    /// Connection settings, for the anthropic provider.
    pub anthropic: Option<HttpSettings>,
    /// The role's calls go through its provider's batch API (`run --batch`).
    pub batch: bool,
}

impl RoleConfig {
    /// The server the role talks to, unless offline.
    pub fn base_url(&self) -> Option<String> {
        match (&self.openai, &self.anthropic) {
            (Some(openai), _) => Some(openai.base_url.clone()),
            (_, Some(anthropic)) => Some(anthropic.base_url.clone()),
            _ => None,
        }
    }

    /// Ask for the role's JSON replies at `level` (`--structured`), whatever the file says.
    pub fn ask_structured(&mut self, level: StructuredOutput) {
        self.openai.iter_mut().for_each(|settings| settings.structured = level);
        self.anthropic.iter_mut().for_each(|settings| settings.structured = level);
    }
}

/// Every role's [`RoleConfig`].
pub type RoleConfigs = BTreeMap<LlmRole, RoleConfig>;

/// A role's provider, model and server as one source gives them (each may be left out).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RoleChoice {
    /// The provider.
    pub provider: Option<ProviderKind>,
    /// The model.
    pub model: Option<String>,
    /// The server.
    pub base_url: Option<String>,
}

impl From<&RoleSection> for RoleChoice {
    fn from(section: &RoleSection) -> Self {
        Self { provider: section.provider, model: section.model.clone(), base_url: section.base_url.clone() }
    }
}

/// What was chosen for a role outside the config file, by source: its own
/// flags, a replay's record of it, and the flags for every role. See the
/// module's documentation for how they rank against the file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RoleChoices {
    /// The role's own flags (`--critic-model`, `--critic-base-url`).
    pub own: RoleChoice,
    /// Who played the role in the run a replay continues.
    pub recorded: Option<RoleChoice>,
    /// The flags for every role (`--llm`, `--model`, `--base-url`).
    pub all_roles: RoleChoice,
}

impl RoleFlags {
    /// The role's own model and server flags.
    fn own(&self, role: LlmRole) -> RoleChoice {
        let (model, base_url) = match role {
            LlmRole::DagBuild => (&self.builder_model, &self.builder_base_url),
            LlmRole::LayerReview => (&self.critic_model, &self.critic_base_url),
            LlmRole::Judge => (&self.judge_model, &self.judge_base_url),
            LlmRole::Baseline => (&self.baseline_model, &self.baseline_base_url),
            LlmRole::QuestionGeneration | LlmRole::Narrative => (&None, &None),
        };
        RoleChoice { provider: None, model: model.clone(), base_url: base_url.clone() }
    }

    /// What the flags choose for `role`: its own flags, and the flags for
    /// every role with `provider` (`--llm`).
    pub fn choice(&self, role: LlmRole, provider: Option<ProviderKind>) -> RoleChoices {
        RoleChoices {
            own: self.own(role),
            recorded: None,
            all_roles: RoleChoice { provider, model: self.model.clone(), base_url: self.base_url.clone() },
        }
    }
}

/// A role's provider, and its model and server when a source gives them.
struct Resolved {
    provider: ProviderKind,
    model: Option<String>,
    base_url: Option<String>,
}

impl Config {
    /// `[roles.<role>]`'s field, else `[llm]`'s.
    fn role_field<T: Clone>(&self, role: LlmRole, field: impl Fn(&RoleSection) -> Option<T>) -> Option<T> {
        self.roles.get(role).and_then(&field).or_else(|| field(&self.llm.as_role()))
    }

    /// How `role` asks for JSON replies: its `structured`, else its `json_mode`, else `schema`.
    fn structured(&self, role: LlmRole) -> StructuredOutput {
        let from_json_mode = |s: &RoleSection| {
            s.structured.or(s.json_mode.map(|on| if on { StructuredOutput::Json } else { StructuredOutput::Off }))
        };
        self.role_field(role, from_json_mode).unwrap_or_default()
    }

    /// `role`'s provider, model and server, each from the first source that
    /// gives it (see the module's documentation); without a provider anywhere,
    /// openai when `key` (the role's API key) is set, offline otherwise.
    fn resolve_role(
        &self,
        role: LlmRole,
        chosen: &RoleChoices,
        key: bool,
        env: impl Fn(&str) -> Option<String>,
    ) -> Resolved {
        let section = self.roles.get(role).map(RoleChoice::from).unwrap_or_default();
        if chosen.all_roles.provider == Some(ProviderKind::Offline) && chosen.own.provider.is_none() {
            // `--llm offline` runs without a model: no role keeps one, whatever the file says.
            return Resolved { provider: ProviderKind::Offline, model: None, base_url: None };
        }
        // The flags for every role leave a role whose section names its provider
        // alone, and fill in what a recorded role lacks only for its own provider.
        let recorded = chosen.recorded.as_ref().and_then(|r| r.provider);
        let all_roles_fit = section.provider.is_none()
            && recorded.is_none_or(|played| chosen.all_roles.provider.is_none_or(|all| all == played));
        let mut layers: Vec<&RoleChoice> = vec![&chosen.own];
        layers.extend(chosen.recorded.as_ref());
        layers.push(&section);
        if all_roles_fit {
            layers.push(&chosen.all_roles);
        }
        let llm = RoleChoice::from(&self.llm.as_role());
        let provider = layers.iter().find_map(|layer| layer.provider).or(llm.provider).unwrap_or(if key {
            ProviderKind::Openai
        } else {
            ProviderKind::Offline
        });
        let variable = match provider {
            ProviderKind::Openai => Some(BASE_URL_ENV),
            ProviderKind::Anthropic => Some(ANTHROPIC_BASE_URL_ENV),
            ProviderKind::Offline => None,
        };
        let from_env = variable.and_then(&env).filter(|url| !url.is_empty());
        let llm = llm.provider.is_none_or(|own| own == provider).then_some(&llm);
        let model = layers.iter().chain(llm.as_ref()).find_map(|layer| layer.model.clone());
        let base_url = layers
            .iter()
            .find_map(|layer| layer.base_url.clone())
            .or(from_env)
            .or_else(|| llm.and_then(|layer| layer.base_url.clone()));
        Resolved { provider, model, base_url }
    }

    /// `role`'s settings from `chosen`, this file and the defaults (see the
    /// module's documentation). `env` looks up the key and base-URL variables.
    pub fn role_config(
        &self,
        role: LlmRole,
        chosen: RoleChoices,
        env: impl Fn(&str) -> Option<String>,
    ) -> anyhow::Result<RoleConfig> {
        let key_env = self.role_field(role, |s| s.api_key_env.clone()).unwrap_or(DEFAULT_API_KEY_ENV.into());
        let key = env(&key_env).filter(|k| !k.is_empty());
        let resolved = self.resolve_role(role, &chosen, key.is_some(), &env);
        let provider = resolved.provider;
        let batch = self.role_field(role, |s| s.batch).unwrap_or(false);
        match provider {
            ProviderKind::Offline => return Ok(RoleConfig { provider, openai: None, anthropic: None, batch }),
            ProviderKind::Anthropic => {
                let anthropic = self.anthropic_role(role, resolved, env)?;
                return Ok(RoleConfig { provider, openai: None, anthropic: Some(anthropic), batch });
            }
            ProviderKind::Openai => {}
        }
        let base_url = resolved.base_url.unwrap_or(DEFAULT_BASE_URL.into());
        if key.is_none() && normalise_base_url(&base_url) == DEFAULT_BASE_URL {
            let whose = if self.roles.get(role).is_some() {
                format!(" ([roles.{}])", role.setting_name())
            } else {
                String::new()
            };
            anyhow::bail!(
                "the openai provider needs {key_env}{whose} (or --base-url of a local server); \
                 use --llm offline to run without a model"
            );
        }
        let model = resolved.model.unwrap_or(DEFAULT_MODEL.into());
        let mut settings = HttpSettings::openai(base_url, key, model);
        settings.timeout = self.llm.timeout_secs.unwrap_or(settings.timeout);
        settings.stall_timeout = self.llm.stall_timeout_secs.unwrap_or(settings.stall_timeout);
        settings.max_retries = self.llm.retries.unwrap_or(settings.max_retries);
        settings.prices = self.prices.iter().map(|(name, price)| (name.clone(), *price)).collect();
        settings.structured = self.structured(role);
        settings.temperature = self.role_field(role, |s| s.temperature);
        settings.max_tokens = self.role_field(role, |s| s.max_tokens);
        Ok(RoleConfig { provider, openai: Some(settings), anthropic: None, batch })
    }

    /// `role`'s anthropic settings, its server and model `resolved`; the key
    /// comes from `ANTHROPIC_API_KEY` unless `api_key_env` names another variable.
    fn anthropic_role(
        &self,
        role: LlmRole,
        resolved: Resolved,
        env: impl Fn(&str) -> Option<String>,
    ) -> anyhow::Result<HttpSettings> {
        let key_env = self.role_field(role, |s| s.api_key_env.clone()).unwrap_or(ANTHROPIC_API_KEY_ENV.into());
        let key = env(&key_env).filter(|k| !k.is_empty());
        let base_url = resolved.base_url.unwrap_or(ANTHROPIC_BASE_URL.into());
        if key.is_none() && normalise_anthropic_url(&base_url) == ANTHROPIC_BASE_URL {
            anyhow::bail!("the anthropic provider needs {key_env}; use --llm offline to run without a model");
        }
        let model = resolved.model.unwrap_or(ANTHROPIC_MODEL.into());
        let mut settings = HttpSettings::anthropic(&base_url, key, &key_env, model);
        settings.max_tokens = self.role_field(role, |s| s.max_tokens).or(settings.max_tokens);
        settings.temperature = self.role_field(role, |s| s.temperature);
        settings.timeout = self.llm.timeout_secs.unwrap_or(settings.timeout);
        settings.stall_timeout = self.llm.stall_timeout_secs.unwrap_or(settings.stall_timeout);
        settings.max_retries = self.llm.retries.unwrap_or(settings.max_retries);
        settings.prices = self.prices.iter().map(|(name, price)| (name.clone(), *price)).collect();
        settings.structured = self.structured(role);
        Ok(settings)
    }

    /// Every role's settings from `flags` (and `provider`, the flag for every role).
    pub fn role_configs(
        &self,
        flags: &RoleFlags,
        provider: Option<ProviderKind>,
        env: impl Fn(&str) -> Option<String>,
    ) -> anyhow::Result<RoleConfigs> {
        let configs = LlmRole::ALL
            .into_iter()
            .map(|role| Ok((role, self.role_config(role, flags.choice(role, provider), &env)?)))
            .collect::<anyhow::Result<RoleConfigs>>()?;
        Ok(self.baseline_follows_builder(flags, configs))
    }

    /// The baseline role plays with the builder's resolved settings unless
    /// its own flags or `[roles.baseline]` say otherwise.
    fn baseline_follows_builder(&self, flags: &RoleFlags, mut configs: RoleConfigs) -> RoleConfigs {
        let own = self.roles.baseline.is_some() || flags.baseline_model.is_some() || flags.baseline_base_url.is_some();
        if !own && let Some(builder) = configs.get(&LlmRole::DagBuild).cloned() {
            configs.insert(LlmRole::Baseline, builder);
        }
        configs
    }

    /// Every role's settings for a replay's new calls: as the run recorded
    /// them (`played`: provider, model and server) unless the role's own flag
    /// says otherwise; a role the run did not record as `flags`, `provider`
    /// and this file choose. Keys and limits from this file.
    pub fn recorded_role_configs(
        &self,
        played: &RoleModels,
        flags: &RoleFlags,
        provider: Option<ProviderKind>,
        env: impl Fn(&str) -> Option<String>,
    ) -> anyhow::Result<RoleConfigs> {
        let configs = LlmRole::ALL
            .into_iter()
            .map(|role| {
                // A run that only replayed names no provider to call.
                let recorded = played.get(&role).and_then(|played| {
                    let kind = played.provider.kind()?;
                    Some(RoleChoice {
                        provider: Some(kind),
                        model: Some(played.model.clone()),
                        base_url: played.base_url.clone(),
                    })
                });
                let chosen = RoleChoices { recorded, ..flags.choice(role, provider) };
                Ok((role, self.role_config(role, chosen, &env)?))
            })
            .collect::<anyhow::Result<RoleConfigs>>()?;
        Ok(match played.contains_key(&LlmRole::Baseline) {
            true => configs,
            false => self.baseline_follows_builder(flags, configs),
        })
    }
}
