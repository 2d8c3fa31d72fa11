//! Who played which role, for people: the roles grouped by who played them
//! (provider, model and server), each group named by the fields that tell
//! the groups apart — the model always, the provider and the server when
//! they differ between groups (`questions,builder openai/gpt-4o ·
//! critic anthropic/claude-sonnet-4-5 at api.anthropic.com`).

use crate::domain::{LlmRole, RoleModel};

use super::RunSettings;

/// A run's roles grouped by who played them, in the order of [`LlmRole::ALL`]
/// (the baseline role only in a run with baselines).
#[derive(Debug, Clone, PartialEq)]
pub struct Players {
    groups: Vec<(RoleModel, Vec<LlmRole>)>,
}

/// The server of `base_url` for people: host and port, without the scheme,
/// the path or any user name and password.
fn server(base_url: &str) -> &str {
    let rest = base_url.split_once("://").map_or(base_url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    authority.rsplit_once('@').map_or(authority, |(_, host)| host)
}

impl Players {
    /// Who played each role of the run `settings` describes.
    pub fn of(settings: &RunSettings) -> Self {
        let mut groups: Vec<(RoleModel, Vec<LlmRole>)> = Vec::new();
        for role in settings.roles_played() {
            let played = settings.role(role);
            match groups.iter_mut().find(|(model, _)| *model == played) {
                Some((_, roles)) => roles.push(role),
                None => groups.push((played, vec![role])),
            }
        }
        Self { groups }
    }

    /// Whether more than one provider, model or server played the roles.
    pub fn differ(&self) -> bool {
        self.groups.len() > 1
    }

    /// Each group's name (its roles, then who played them: see the module's
    /// documentation) with its roles.
    pub fn groups(&self) -> Vec<(String, &[LlmRole])> {
        let differ = |field: fn(&RoleModel) -> String| {
            self.groups.iter().any(|(played, _)| field(played) != field(&self.groups[0].0))
        };
        let providers = differ(|played| played.provider.name().to_string());
        let servers = differ(|played| played.base_url.as_deref().map(server).unwrap_or_default().to_string());
        self.groups
            .iter()
            .map(|(played, roles)| {
                let names: Vec<&str> = roles.iter().map(|role| role.setting_name()).collect();
                let mut name = format!("{} ", names.join(","));
                if providers {
                    name.push_str(&format!("{}/", played.provider.name()));
                }
                name.push_str(&played.model);
                if let Some(url) = played.base_url.as_deref().filter(|_| servers) {
                    name.push_str(&format!(" at {}", server(url)));
                }
                (name, roles.as_slice())
            })
            .collect()
    }

    /// Every group's name on one line, when more than one played the roles.
    pub fn line(&self) -> Option<String> {
        self.differ().then(|| self.groups().into_iter().map(|(name, _)| name).collect::<Vec<_>>().join(" · "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Provider, ProviderKind, RoleModels};

    fn played(provider: ProviderKind, model: &str, base_url: Option<&str>) -> RoleModel {
        RoleModel { provider: Provider::from(provider), model: model.into(), base_url: base_url.map(Into::into) }
    }

    fn settings(roles: RoleModels) -> RunSettings {
        RunSettings {
            provider: Provider::from(ProviderKind::Openai),
            model: "gpt-4o".into(),
            roles,
            ..Default::default()
        }
    }

    #[test]
    fn one_player_for_every_role_is_no_line() {
        assert_eq!(Players::of(&settings(RoleModels::new())).line(), None);
    }

    #[test]
    fn the_provider_and_server_are_named_only_when_they_differ() {
        let openai = played(ProviderKind::Openai, "gpt-4o", Some("http://user:pw@127.0.0.1:9000/v1"));
        let mut roles: RoleModels = LlmRole::ALL.into_iter().map(|role| (role, openai.clone())).collect();
        roles.insert(
            LlmRole::LayerReview,
            played(ProviderKind::Anthropic, "claude-x", Some("https://api.anthropic.com")),
        );
        let line = Players::of(&settings(roles.clone())).line().unwrap();
        assert!(line.contains("builder,"), "{line}");
        assert!(
            line.contains("openai/gpt-4o at 127.0.0.1:9000 · critic anthropic/claude-x at api.anthropic.com"),
            "{line}"
        );
        assert!(!line.contains("pw"), "no password: {line}");
        roles.insert(
            LlmRole::LayerReview,
            played(ProviderKind::Openai, "gpt-4o-mini", Some("http://127.0.0.1:9000/v1")),
        );
        let line = Players::of(&settings(roles)).line().unwrap();
        assert!(line.ends_with(" gpt-4o · critic gpt-4o-mini"), "same provider and server: {line}");
    }
}
