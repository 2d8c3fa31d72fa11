//! Parsers of flag values that clap's own do not cover, and the domain's
//! choices as clap lists them. Errors are strings: clap prints them after the
//! argument's name and nothing matches on them.

use clap::ValueEnum;
use clap::builder::PossibleValue;

use crate::domain::{Engine, ProviderKind, ReviewOrder, Stratum};

/// How many rows `prepare` keeps in data.json.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampleSize {
    /// A sample of this many rows (1 or more).
    Rows(usize),
    /// Every row.
    All,
}

/// `--engine`: the Pythons that can run DAGs.
impl ValueEnum for Engine {
    fn value_variants<'a>() -> &'a [Self] {
        &Self::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let help = match self {
            Self::RustPython => "The interpreter built into eval-dag: nothing to install",
            Self::CPython => "A CPython 3.10 or newer on this machine (--python), under the same walls",
        };
        Some(PossibleValue::new(self.name()).help(help))
    }
}

/// `--llm`: the providers a user can choose, listed with what each is.
impl ValueEnum for ProviderKind {
    fn value_variants<'a>() -> &'a [Self] {
        &Self::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let help = match self {
            Self::Offline => "Deterministic schema planner, no model, no network",
            Self::Openai => "Any OpenAI-compatible chat-completions server",
            Self::Anthropic => "Anthropic's Messages API",
        };
        Some(PossibleValue::new(self.name()).help(help))
    }
}

/// `review --stratify`: what divides a stratified sample.
impl ValueEnum for Stratum {
    fn value_variants<'a>() -> &'a [Self] {
        &Self::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()))
    }
}

/// `review --order`: the order of the review queue.
impl ValueEnum for ReviewOrder {
    fn value_variants<'a>() -> &'a [Self] {
        &Self::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let help = match self {
            Self::Run => "The run's order (a sample's seeded order)",
            Self::Disagreement => "First the answers the machines disagree on",
        };
        Some(PossibleValue::new(self.name()).help(help))
    }
}

/// A JSON object given on the command line.
pub(super) fn parse_json_object(text: &str) -> Result<serde_json::Map<String, serde_json::Value>, String> {
    match serde_json::from_str(text) {
        Ok(serde_json::Value::Object(map)) => Ok(map),
        Ok(_) => Err("expected a JSON object such as '{\"abs_tol\": 0.5}'".into()),
        Err(err) => Err(format!("not JSON: {err}")),
    }
}

/// A non-negative number of seconds (at most a day).
pub(super) fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(seconds) if (0.0..=86_400.0).contains(&seconds) => Ok(seconds),
        Ok(_) => Err("expected seconds between 0 and 86400".into()),
        Err(_) => Err(format!("{text:?} is not a number of seconds")),
    }
}

/// A node limit: seconds above 0, up to a day.
pub(super) fn parse_node_timeout(text: &str) -> Result<f64, String> {
    parse_seconds(text)
        .and_then(|seconds| if seconds > 0.0 { Ok(seconds) } else { Err("expected seconds above 0".into()) })
}

/// `--sample-size`: a number of rows (1 or more) or `all`.
pub(super) fn parse_sample_size(text: &str) -> Result<SampleSize, String> {
    match text.trim() {
        "all" => Ok(SampleSize::All),
        number => match number.parse::<usize>() {
            Ok(0) => Err("must be at least 1 (or all)".into()),
            Ok(rows) => Ok(SampleSize::Rows(rows)),
            Err(_) => Err(format!("{text:?} is not a number of rows or all")),
        },
    }
}

/// A significance level: a number in (0, 1].
pub(super) fn significance_level(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(level) if level > 0.0 && level <= 1.0 => Ok(level),
        _ => Err(format!("`{text}` is not a level between 0 (excluded) and 1, e.g. 0.05")),
    }
}

/// `NAME=VALUE` → `(NAME, VALUE)`; the name must not be empty.
pub(super) fn parse_header(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => Ok((name.trim().to_string(), value.to_string())),
        _ => Err(format!("expected NAME=VALUE, got {text:?}")),
    }
}
