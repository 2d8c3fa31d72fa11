//! Model prices and their lookup by model name, shared by the HTTP providers.

use serde::Deserialize;

use crate::domain::TokenUsage;

/// Anthropic's 5-minute cache writes cost 1.25 × the base input rate
/// (<https://docs.anthropic.com/en/docs/about-claude/pricing>, "5m Cache Writes").
const CACHE_WRITE_FACTOR: f64 = 1.25;

/// A batched call costs half a live one unless `[prices]` says otherwise
/// (<https://platform.openai.com/docs/guides/batch>, "50% cost discount";
/// <https://docs.anthropic.com/en/docs/build-with-claude/batch-processing>, "50% of standard API prices").
const BATCH_FACTOR: f64 = 0.5;

/// A model's price in USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelPrice {
    /// Prompt tokens.
    #[serde(deserialize_with = "non_negative")]
    pub input_per_mtok: f64,
    /// Generated tokens.
    #[serde(deserialize_with = "non_negative")]
    pub output_per_mtok: f64,
    /// Prompt tokens served from the provider's prompt cache; when absent they
    /// cost `input_per_mtok`.
    #[serde(default, deserialize_with = "some_non_negative")]
    pub cached_input_per_mtok: Option<f64>,
    /// Prompt tokens written to the provider's prompt cache (Anthropic); when
    /// absent they cost 1.25 × `input_per_mtok`, Anthropic's 5-minute write rate.
    #[serde(default, deserialize_with = "some_non_negative")]
    pub cache_write_per_mtok: Option<f64>,
    /// Prompt tokens of a call sent in a provider's batch; when absent, half
    /// of `input_per_mtok` (both providers' batch discount).
    #[serde(default, deserialize_with = "some_non_negative")]
    pub batch_input_per_mtok: Option<f64>,
    /// Generated tokens of a call sent in a batch; when absent, half of `output_per_mtok`.
    #[serde(default, deserialize_with = "some_non_negative")]
    pub batch_output_per_mtok: Option<f64>,
    /// The model's context window, tokens (prompt and reply together).
    #[serde(default)]
    pub context_tokens: Option<u64>,
}

impl ModelPrice {
    /// A price without cache rates: input and output per million tokens.
    pub const fn new(input_per_mtok: f64, output_per_mtok: f64) -> Self {
        Self {
            input_per_mtok,
            output_per_mtok,
            cached_input_per_mtok: None,
            cache_write_per_mtok: None,
            batch_input_per_mtok: None,
            batch_output_per_mtok: None,
            context_tokens: None,
        }
    }

    /// This price of a model whose context window holds `tokens`.
    pub const fn within(self, tokens: u64) -> Self {
        Self { context_tokens: Some(tokens), ..self }
    }

    /// The price of a call sent in a provider's batch: the batch rates where
    /// given, else half the live ones; cache reads and writes scaled by the
    /// same factor as the input rate (the providers' discounts apply to them too).
    pub fn batched(self) -> Self {
        let input = self.batch_input_per_mtok.unwrap_or(self.input_per_mtok * BATCH_FACTOR);
        let factor = if self.input_per_mtok > 0.0 { input / self.input_per_mtok } else { BATCH_FACTOR };
        Self {
            input_per_mtok: input,
            output_per_mtok: self.batch_output_per_mtok.unwrap_or(self.output_per_mtok * BATCH_FACTOR),
            cached_input_per_mtok: self.cached_input_per_mtok.map(|rate| rate * factor),
            cache_write_per_mtok: Some(
                self.cache_write_per_mtok.unwrap_or(self.input_per_mtok * CACHE_WRITE_FACTOR) * factor,
            ),
            batch_input_per_mtok: None,
            batch_output_per_mtok: None,
            context_tokens: self.context_tokens,
        }
    }

    /// This price with `cached` per million prompt tokens read from the cache.
    pub const fn cached(self, cached: f64) -> Self {
        Self { cached_input_per_mtok: Some(cached), ..self }
    }

    /// The cost of `usage` in USD: cache reads at the cached rate, cache writes
    /// at the write rate, the other prompt tokens at the input rate.
    pub fn cost_usd(&self, usage: TokenUsage) -> f64 {
        let cached = usage.cached_tokens.min(usage.prompt_tokens);
        let written = usage.cache_write_tokens.min(usage.prompt_tokens - cached);
        let cached_rate = self.cached_input_per_mtok.unwrap_or(self.input_per_mtok);
        let write_rate = self.cache_write_per_mtok.unwrap_or(self.input_per_mtok * CACHE_WRITE_FACTOR);
        ((usage.prompt_tokens - cached - written) as f64 * self.input_per_mtok
            + cached as f64 * cached_rate
            + written as f64 * write_rate
            + usage.completion_tokens as f64 * self.output_per_mtok)
            / 1e6
    }
}

fn some_non_negative<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    non_negative(deserializer).map(Some)
}

fn non_negative<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    let value = f64::deserialize(deserializer)?;
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(serde::de::Error::custom(format!("a price must be a number of USD of at least 0, not {value}")))
    }
}

/// The entries of `built_in` and `configured` whose name is `model` or a
/// prefix of it followed by `-` or `:`, configured ones last.
fn matching<'a>(
    model: &'a str,
    built_in: &'a [(&str, ModelPrice)],
    configured: &'a [(String, ModelPrice)],
) -> impl Iterator<Item = (&'a str, &'a ModelPrice)> {
    let built_in = built_in.iter().map(|(name, price)| (*name, price));
    let configured = configured.iter().map(|(name, price)| (name.as_str(), price));
    built_in.chain(configured).filter(move |(name, _)| {
        model == *name || model.starts_with(&format!("{name}-")) || model.starts_with(&format!("{name}:"))
    })
}

/// The price of `model`: the longest of the [`matching`] names; on a tie the
/// configured price wins. Unknown models have none.
fn lookup(model: &str, built_in: &[(&str, ModelPrice)], configured: &[(String, ModelPrice)]) -> Option<ModelPrice> {
    matching(model, built_in, configured).max_by_key(|(name, _)| name.len()).map(|(_, price)| *price)
}

/// The context window of `model`, tokens: that of the longest [`matching`]
/// name that gives one (a configured price without one keeps the built-in window).
pub(super) fn context_tokens(
    model: &str,
    built_in: &[(&str, ModelPrice)],
    configured: &[(String, ModelPrice)],
) -> Option<u64> {
    let windows = matching(model, built_in, configured).filter_map(|(name, price)| Some((name, price.context_tokens?)));
    windows.max_by_key(|(name, _)| name.len()).map(|(_, tokens)| tokens)
}

/// The cost of `usage` by `model`, priced as [`lookup`] finds it (unknown models cost 0).
pub(super) fn cost_usd(
    model: &str,
    built_in: &[(&str, ModelPrice)],
    configured: &[(String, ModelPrice)],
    usage: TokenUsage,
) -> f64 {
    lookup(model, built_in, configured).map_or(0.0, |price| price.cost_usd(usage))
}

/// The cost of `usage` by `model` in a provider's batch: [`ModelPrice::batched`].
pub(super) fn batch_cost_usd(
    model: &str,
    built_in: &[(&str, ModelPrice)],
    configured: &[(String, ModelPrice)],
    usage: TokenUsage,
) -> f64 {
    lookup(model, built_in, configured).map_or(0.0, |price| price.batched().cost_usd(usage))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(prompt: u64, cached: u64, written: u64, completion: u64) -> TokenUsage {
        TokenUsage {
            prompt_tokens: prompt,
            completion_tokens: completion,
            cached_tokens: cached,
            cache_write_tokens: written,
        }
    }

    #[test]
    fn a_batched_call_costs_half_unless_the_batch_rates_are_given() {
        let live = ModelPrice::new(2.0, 8.0).cached(0.5);
        let used = usage(1_000_000, 200_000, 100_000, 500_000);
        assert!((live.batched().cost_usd(used) - live.cost_usd(used) / 2.0).abs() < 1e-9);
        let priced: ModelPrice = toml::from_str(
            "input_per_mtok = 2.0\noutput_per_mtok = 8.0\nbatch_input_per_mtok = 1.5\nbatch_output_per_mtok = 3.0",
        )
        .unwrap();
        let batched = priced.batched();
        assert_eq!((batched.input_per_mtok, batched.output_per_mtok), (1.5, 3.0));
        assert!((batched.cost_usd(usage(1_000_000, 0, 0, 1_000_000)) - 4.5).abs() < 1e-9);
        let refused =
            toml::from_str::<ModelPrice>("input_per_mtok = 1\noutput_per_mtok = 1\nbatch_input_per_mtok = -1");
        assert!(refused.unwrap_err().to_string().contains("at least 0"));
    }

    #[test]
    fn a_context_window_is_the_longest_matching_name_that_gives_one() {
        let built_in = [("gpt-4o", ModelPrice::new(2.5, 10.0).within(128_000))];
        let priced: ModelPrice = toml::from_str("input_per_mtok = 1\noutput_per_mtok = 2").unwrap();
        let sized: ModelPrice =
            toml::from_str("input_per_mtok = 1\noutput_per_mtok = 2\ncontext_tokens = 8000").unwrap();
        let configured = [("gpt-4o-custom".to_string(), priced), ("local".to_string(), sized)];
        assert_eq!(context_tokens("gpt-4o-2024-08-06", &built_in, &configured), Some(128_000));
        assert_eq!(context_tokens("gpt-4o-custom", &built_in, &configured), Some(128_000), "a price alone keeps it");
        assert_eq!(context_tokens("local:7b", &built_in, &configured), Some(8000));
        assert_eq!(context_tokens("mystery", &built_in, &configured), None);
    }
}
