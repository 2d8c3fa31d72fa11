//! `[cache]` and `[budget]`: the response cache file and the spending limits,
//! and how `run`'s flags combine with them.

use std::path::PathBuf;

use serde::{Deserialize, Deserializer};

use super::Config;
use crate::cli::HarnessFlags;
use crate::domain::Budget;

/// `[cache]`: where the response cache lives, or that there is none.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheSection {
    /// The cache file (default: `responses.sqlite` in the user cache directory).
    pub path: Option<PathBuf>,
    /// `false` turns the cache off.
    pub enabled: Option<bool>,
}

/// `[budget]`: spending limits of every run.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetSection {
    /// Most US dollars a run may spend (`--max-cost` wins).
    #[serde(default, deserialize_with = "usd")]
    pub max_cost_usd: Option<f64>,
    /// Most tokens a run may use (`--max-tokens` wins).
    #[serde(default, deserialize_with = "tokens")]
    pub max_tokens: Option<u64>,
    /// Most US dollars one question may spend.
    #[serde(default, deserialize_with = "usd")]
    pub per_question_usd: Option<f64>,
}

/// `usd` when it is an amount of US dollars (0 or more), else why not.
fn checked_usd(name: &str, usd: f64) -> Result<f64, String> {
    if usd.is_finite() && usd >= 0.0 { Ok(usd) } else { Err(format!("{name} must be 0 or more US dollars, not {usd}")) }
}

fn usd<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    let value = f64::deserialize(deserializer)?;
    checked_usd("a budget", value).map(Some).map_err(serde::de::Error::custom)
}

fn tokens<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    let value = i64::deserialize(deserializer)?;
    checked_tokens("a token budget", value).map(Some).map_err(serde::de::Error::custom)
}

/// `tokens` when it is a number of tokens (1 or more), else why not.
fn checked_tokens(name: &str, tokens: i64) -> Result<u64, String> {
    u64::try_from(tokens)
        .ok()
        .filter(|&t| t > 0)
        .ok_or_else(|| format!("{name} must be 1 or more tokens, not {tokens}"))
}

/// The cache file `run` and `cache` use unless told otherwise.
pub fn default_cache_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "eval-dag").map(|d| d.cache_dir().join("responses.sqlite"))
}

impl Config {
    /// The response cache file of a run: `--cache` over `[cache] path` over
    /// the default; none with `--no-cache` or `[cache] enabled = false`.
    pub fn cache_path(&self, flags: &HarnessFlags) -> Option<PathBuf> {
        if flags.no_cache || (flags.cache.is_none() && self.cache.enabled == Some(false)) {
            return None;
        }
        flags.cache.clone().or_else(|| self.cache.path.clone()).or_else(default_cache_path)
    }

    /// The spending limits of a run: the flags over `[budget]`; none when no
    /// limit is set. A negative limit is an error naming its flag.
    pub fn budget(&self, flags: &HarnessFlags) -> anyhow::Result<Option<Budget>> {
        let max_cost = flags.max_cost.map(|usd| checked_usd("--max-cost", usd)).transpose();
        let max_tokens = flags.max_tokens.map(|n| checked_tokens("--max-tokens", n)).transpose();
        let budget = Budget {
            max_cost_usd: max_cost.map_err(anyhow::Error::msg)?.or(self.budget.max_cost_usd),
            max_tokens: max_tokens.map_err(anyhow::Error::msg)?.or(self.budget.max_tokens),
            per_question_usd: self.budget.per_question_usd,
        };
        Ok((!budget.is_unlimited()).then_some(budget))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn parse(text: &str) -> Result<Config, super::super::ConfigError> {
        Config::parse(text, Path::new("config.toml"))
    }

    #[test]
    fn flags_win_over_the_file_and_the_file_over_the_defaults() {
        let config =
            parse("[cache]\npath = \"/tmp/c.sqlite\"\n[budget]\nmax_cost_usd = 2.5\nper_question_usd = 0.1\n").unwrap();
        let none = HarnessFlags::default();
        assert_eq!(config.cache_path(&none), Some(PathBuf::from("/tmp/c.sqlite")));
        let flag = HarnessFlags { cache: Some("x.sqlite".into()), max_cost: Some(1.0), ..HarnessFlags::default() };
        assert_eq!(config.cache_path(&flag), Some(PathBuf::from("x.sqlite")));
        assert_eq!(config.cache_path(&HarnessFlags { no_cache: true, ..HarnessFlags::default() }), None);
        let budget = config.budget(&flag).unwrap().unwrap();
        assert_eq!((budget.max_cost_usd, budget.per_question_usd, budget.max_tokens), (Some(1.0), Some(0.1), None));
        assert_eq!(Config::default().budget(&none).unwrap(), None);
        let negative = HarnessFlags { max_cost: Some(-1.0), ..HarnessFlags::default() };
        let err = Config::default().budget(&negative).unwrap_err().to_string();
        assert_eq!(err, "--max-cost must be 0 or more US dollars, not -1");
        let zero = HarnessFlags { max_tokens: Some(0), ..HarnessFlags::default() };
        assert!(Config::default().budget(&zero).is_err());
        let off = parse("[cache]\nenabled = false\n").unwrap();
        assert_eq!(off.cache_path(&none), None);
        assert!(Config::default().cache_path(&none).is_some_and(|p| p.ends_with("eval-dag/responses.sqlite")));
    }

    #[test]
    fn a_negative_budget_in_the_file_is_refused_with_its_line() {
        let err = parse("[budget]\nper_question_usd = -1.0\n").unwrap_err().to_string();
        assert!(err.contains("config.toml:2") && err.contains("US dollars"), "{err}");
    }
}

/// `[review]`: who reviews by default (`review --reviewer` wins; else the login name).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewSection {
    /// The reviewer's name.
    pub reviewer: Option<crate::domain::ReviewerName>,
}
