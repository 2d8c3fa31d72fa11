//! A model per role: `[roles.<name>]` sections of the config file and the
//! role flags, combined per role and field by field. Precedence: a role's flag
//! (`--critic-model`) > the flag for every role (`--model`, or its environment
//! variable) > `[roles.<name>]` > `[llm]` > the built-in default.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::Config;
use crate::cli::RoleFlags;
use crate::domain::{LlmRole, ProviderKind, RoleModels, StructuredOutput};
use crate::llm::{
    ANTHROPIC_API_KEY_ENV, ANTHROPIC_BASE_URL, ANTHROPIC_MODEL, AnthropicSettings, DEFAULT_API_KEY_ENV,
    DEFAULT_BASE_URL, DEFAULT_MODEL, OpenAiSettings, normalise_anthropic_url, normalise_base_url,
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
}

/// One role's resolved provider and its connection settings.
#[derive(Debug, Clone, PartialEq)]
pub struct RoleConfig {
    /// The provider.
    pub provider: ProviderKind,
    /// Connection settings, for the openai provider.
    pub openai: Option<OpenAiSettings>,
    /// Connection settings, for the anthropic provider.
    pub anthropic: Option<AnthropicSettings>,
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

/// What was chosen for a role above the config file (flags, or a run's record).
#[derive(Debug, Clone, Default)]
pub struct RoleChoice {
    /// The provider.
    pub provider: Option<ProviderKind>,
    /// The model.
    pub model: Option<String>,
    /// The server.
    pub base_url: Option<String>,
}

impl RoleFlags {
    /// What the flags choose for `role`: its own flag over the one for every role.
    pub fn choice(&self, role: LlmRole, provider: Option<ProviderKind>) -> RoleChoice {
        let (model, base_url) = match role {
            LlmRole::DagBuild => (&self.builder_model, &self.builder_base_url),
            LlmRole::LayerReview => (&self.critic_model, &self.critic_base_url),
            LlmRole::Judge => (&self.judge_model, &self.judge_base_url),
            LlmRole::Baseline => (&self.baseline_model, &self.baseline_base_url),
            LlmRole::QuestionGeneration | LlmRole::Narrative => (&None, &None),
        };
        RoleChoice {
            provider,
            model: model.clone().or(self.model.clone()),
            base_url: base_url.clone().or(self.base_url.clone()),
        }
    }
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

    /// `role`'s settings: `chosen` over `[roles.<role>]` over `[llm]` over the
    /// defaults; without a provider anywhere, openai when the role's API key
    /// variable is set, offline otherwise. `env` looks up the key variable.
    pub fn role_config(
        &self,
        role: LlmRole,
        chosen: RoleChoice,
        env: impl Fn(&str) -> Option<String>,
    ) -> anyhow::Result<RoleConfig> {
        let key_env = self.role_field(role, |s| s.api_key_env.clone()).unwrap_or(DEFAULT_API_KEY_ENV.into());
        let key = env(&key_env).filter(|k| !k.is_empty());
        let provider = chosen.provider.or(self.role_field(role, |s| s.provider)).unwrap_or(if key.is_some() {
            ProviderKind::Openai
        } else {
            ProviderKind::Offline
        });
        match provider {
            ProviderKind::Offline => return Ok(RoleConfig { provider, openai: None, anthropic: None }),
            ProviderKind::Anthropic => {
                let anthropic = self.anthropic_role(role, chosen, env)?;
                return Ok(RoleConfig { provider, openai: None, anthropic: Some(anthropic) });
            }
            ProviderKind::Openai => {}
        }
        let base_url = chosen
            .base_url
            .or(env(BASE_URL_ENV).filter(|u| !u.is_empty()))
            .or(self.role_field(role, |s| s.base_url.clone()))
            .unwrap_or(DEFAULT_BASE_URL.into());
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
        let model = chosen.model.or(self.role_field(role, |s| s.model.clone())).unwrap_or(DEFAULT_MODEL.into());
        let mut settings = OpenAiSettings::new(base_url, key, model);
        settings.timeout = self.llm.timeout_secs.unwrap_or(settings.timeout);
        settings.stall_timeout = self.llm.stall_timeout_secs.unwrap_or(settings.stall_timeout);
        settings.max_retries = self.llm.retries.unwrap_or(settings.max_retries);
        settings.prices = self.prices.iter().map(|(name, price)| (name.clone(), *price)).collect();
        settings.structured = self.structured(role);
        settings.temperature = self.role_field(role, |s| s.temperature);
        settings.max_tokens = self.role_field(role, |s| s.max_tokens);
        Ok(RoleConfig { provider, openai: Some(settings), anthropic: None })
    }

    /// `role`'s anthropic settings, resolved like the openai ones; the key
    /// comes from `ANTHROPIC_API_KEY` unless `api_key_env` names another variable.
    fn anthropic_role(
        &self,
        role: LlmRole,
        chosen: RoleChoice,
        env: impl Fn(&str) -> Option<String>,
    ) -> anyhow::Result<AnthropicSettings> {
        let key_env = self.role_field(role, |s| s.api_key_env.clone()).unwrap_or(ANTHROPIC_API_KEY_ENV.into());
        let key = env(&key_env).filter(|k| !k.is_empty());
        let base_url = chosen
            .base_url
            .or(env(ANTHROPIC_BASE_URL_ENV).filter(|u| !u.is_empty()))
            .or(self.role_field(role, |s| s.base_url.clone()))
            .unwrap_or(ANTHROPIC_BASE_URL.into());
        if key.is_none() && normalise_anthropic_url(&base_url) == ANTHROPIC_BASE_URL {
            anyhow::bail!("the anthropic provider needs {key_env}; use --llm offline to run without a model");
        }
        let model = chosen.model.or(self.role_field(role, |s| s.model.clone())).unwrap_or(ANTHROPIC_MODEL.into());
        let mut settings = AnthropicSettings::new(&base_url, key, &key_env, model);
        settings.max_tokens = self.role_field(role, |s| s.max_tokens).unwrap_or(settings.max_tokens);
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

    /// Every role's settings as a run recorded them (`played`): its provider,
    /// model and server, under what `flags` and `provider` choose (a replay's
    /// new calls); keys and limits from this file.
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
                let chosen = flags.choice(role, provider);
                // A run that only replayed names no provider to call.
                let recorded = played.get(&role).and_then(|p| p.provider.kind().map(|kind| (p, kind)));
                let chosen = match recorded {
                    Some((played, kind)) => RoleChoice {
                        provider: chosen.provider.or(Some(kind)),
                        model: chosen.model.or(Some(played.model.clone())),
                        base_url: chosen.base_url.or(played.base_url.clone()),
                    },
                    None => chosen,
                };
                Ok((role, self.role_config(role, chosen, &env)?))
            })
            .collect::<anyhow::Result<RoleConfigs>>()?;
        Ok(match played.contains_key(&LlmRole::Baseline) {
            true => configs,
            false => self.baseline_follows_builder(flags, configs),
        })
    }
}
