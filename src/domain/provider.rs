//! Who answers a run's LLM calls: the providers a user can choose
//! ([`ProviderKind`]) and the provider a trace records ([`Provider`]), which
//! may also be a run's recordings or a name this version does not know.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A provider a user can choose (`--llm`, `provider =` in the config file),
/// written as its lowercase name; any other name is refused where it is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// The deterministic schema planner: no model, no network.
    Offline,
    /// Any OpenAI-compatible chat-completions server.
    Openai,
    /// Anthropic's Messages API.
    Anthropic,
}

impl ProviderKind {
    /// Every provider a user can choose, in the order choices are listed.
    pub const ALL: [Self; 3] = every_variant!(Self: Offline, Openai, Anthropic);

    /// Its name, as flags, the config file and traces write it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Offline => "offline",
            Self::Openai => "openai",
            Self::Anthropic => "anthropic",
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The provider that served a run's calls, as a trace records it: written as
/// its name (`openai`, `replay`, …). Any name reads, so a trace naming a
/// provider this version does not know still loads and is written back as it
/// was. Equality goes by the name, so `Other("openai")` is the openai provider.
#[derive(Debug, Clone)]
pub enum Provider {
    /// A provider a user can choose.
    Configured(ProviderKind),
    /// A run's recorded responses, with no provider behind them for new calls.
    Replay,
    /// A name no provider of this version has (an older or hand-written trace).
    Other(String),
}

impl Provider {
    /// Its name, as traces and reports write it.
    pub fn name(&self) -> &str {
        match self {
            Self::Configured(kind) => kind.name(),
            Self::Replay => "replay",
            Self::Other(name) => name,
        }
    }

    /// The provider a user can choose that this is, if it is one.
    pub fn kind(&self) -> Option<ProviderKind> {
        ProviderKind::ALL.into_iter().find(|kind| kind.name() == self.name())
    }
}

/// A run's settings name the offline provider until told otherwise.
impl Default for Provider {
    fn default() -> Self {
        Self::Configured(ProviderKind::Offline)
    }
}

impl From<ProviderKind> for Provider {
    fn from(kind: ProviderKind) -> Self {
        Self::Configured(kind)
    }
}

impl From<&str> for Provider {
    fn from(name: &str) -> Self {
        match ProviderKind::ALL.into_iter().find(|kind| kind.name() == name) {
            Some(kind) => Self::Configured(kind),
            None if name == "replay" => Self::Replay,
            None => Self::Other(name.to_string()),
        }
    }
}

super::named::known_by_name!(Provider);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_provider_is_written_and_read_as_its_name() {
        for name in ["offline", "openai", "anthropic", "replay", "a-provider-of-tomorrow", ""] {
            let provider: Provider = serde_json::from_value(serde_json::json!(name)).unwrap();
            assert_eq!(serde_json::to_value(&provider).unwrap(), serde_json::json!(name));
            assert_eq!((provider.name(), provider.to_string()), (name, name.to_string()));
        }
        assert!(matches!(Provider::from("openai"), Provider::Configured(ProviderKind::Openai)));
        assert!(matches!(Provider::from("replay"), Provider::Replay));
        assert!(matches!(Provider::from("OpenAI"), Provider::Other(_)), "names are lowercase");
    }

    #[test]
    fn only_a_provider_a_user_can_choose_has_a_kind() {
        assert_eq!(Provider::from("anthropic").kind(), Some(ProviderKind::Anthropic));
        assert_eq!(Provider::Other("offline".into()).kind(), Some(ProviderKind::Offline));
        assert_eq!((Provider::Replay.kind(), Provider::from("stub").kind()), (None, None));
        assert_eq!(Provider::Other("openai".into()), Provider::Configured(ProviderKind::Openai), "by name");
        assert_ne!(Provider::Replay, Provider::from("offline"));
    }

    #[test]
    fn a_chosen_provider_is_read_by_its_lowercase_name_only() {
        let kinds: Vec<ProviderKind> = serde_json::from_str(r#"["offline","openai","anthropic"]"#).unwrap();
        assert_eq!(kinds, ProviderKind::ALL);
        assert_eq!(serde_json::to_value(ProviderKind::Anthropic).unwrap(), serde_json::json!("anthropic"));
        let error = serde_json::from_str::<ProviderKind>(r#""replay""#).unwrap_err().to_string();
        assert!(error.contains("expected one of `offline`, `openai`, `anthropic`"), "{error}");
    }
}
