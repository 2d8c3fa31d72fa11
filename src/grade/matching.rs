//! Ground-truth matching: an answer against the expected answer, under tolerant
//! rules that suit data-analysis results.
//!
//! The rules, applied recursively:
//! - numbers (and strings that hold a number) compare as numbers: two integral
//!   values must be equal, otherwise they must agree within the absolute or the
//!   relative tolerance (`|a − b| ≤ max(abs_tol, rel_tol · max(|a|, |b|))`,
//!   boundary included, float rounding forgiven);
//!   `1` and `1.0` are the same number;
//! - strings compare trimmed and, unless `case_sensitive`, ignoring case;
//! - a one-element list equals its element;
//! - lists compare position by position, or as multisets with `ignore_order`;
//! - objects compare by key set (keys normalised like strings), then by value.
//!
//! Every leaf of the expected answer is one part; with [`ScoreMode::Divide`] the
//! score is the fraction of parts that are right (unexpected extra keys or
//! elements count as wrong parts), with [`ScoreMode::All`] it is 1 or 0.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::GradeError;

/// How the expected answer is compared with the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchMethod {
    /// The tolerant rules of this module.
    #[default]
    Rules,
    /// Parse both sides as JSON and compare them (see [`super::json_equality()`]).
    JsonEquality,
}

/// The comparison JSON equality applies after parsing and sorting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JsonCompare {
    /// Plain equality (numbers normalised so that `1 == 1.0`).
    #[default]
    Exact,
    /// The tolerant rules of this module.
    Rules,
}

/// How a score is computed from the parts of an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScoreMode {
    /// 1 when every part is right, else 0.
    #[default]
    All,
    /// The fraction of parts that are right.
    Divide,
}

/// Matching options, set globally and overridden per question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MatchOptions {
    /// Which comparison runs.
    pub method: MatchMethod,
    /// Absolute tolerance for non-integral numbers (none: no absolute slack).
    pub abs_tol: Option<f64>,
    /// Relative tolerance for non-integral numbers (none: no relative slack).
    pub rel_tol: Option<f64>,
    /// Compare lists as multisets.
    pub ignore_order: bool,
    /// Compare strings (and object keys) with their letter case.
    pub case_sensitive: bool,
    /// All-or-nothing or fraction of parts right.
    pub score: ScoreMode,
    /// The lowest score that passes.
    pub threshold: f64,
    /// The comparison of [`MatchMethod::JsonEquality`].
    pub json_compare: JsonCompare,
}

impl Default for MatchOptions {
    fn default() -> Self {
        Self {
            method: MatchMethod::Rules,
            abs_tol: Some(1e-2),
            rel_tol: None,
            ignore_order: false,
            case_sensitive: false,
            score: ScoreMode::All,
            threshold: 1.0,
            json_compare: JsonCompare::Exact,
        }
    }
}

impl MatchOptions {
    /// These options with the fields present in `overrides` replaced.
    pub fn overridden(&self, overrides: &Map<String, Value>) -> Result<Self, GradeError> {
        let mut merged = match serde_json::to_value(self) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        };
        merged.extend(overrides.iter().map(|(k, v)| (k.clone(), v.clone())));
        let options: Self =
            serde_json::from_value(Value::Object(merged)).map_err(|err| GradeError::MatchOptions(err.to_string()))?;
        options.validate()?;
        Ok(options)
    }

    /// Check that tolerances are finite and non-negative and the threshold is in 0-1.
    pub fn validate(&self) -> Result<(), GradeError> {
        for (name, tol) in [("abs_tol", self.abs_tol), ("rel_tol", self.rel_tol)] {
            if let Some(tol) = tol
                && !(tol.is_finite() && tol >= 0.0)
            {
                return Err(GradeError::MatchOptions(format!("{name} must be a non-negative number, got {tol}")));
            }
        }
        if !(0.0..=1.0).contains(&self.threshold) {
            return Err(GradeError::MatchOptions(format!("threshold must be between 0 and 1, got {}", self.threshold)));
        }
        Ok(())
    }
}

/// The outcome of one comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchResult {
    /// 0-1.
    pub score: f64,
    /// Whether the score reaches the threshold.
    pub passed: bool,
    /// Parts of the expected answer that are right.
    pub right: usize,
    /// Parts compared (expected leaves plus unexpected extras).
    pub total: usize,
    /// One line: the first mismatch with its path, e.g. `$.a: expected 1, got 2`.
    pub reason: String,
}

impl MatchResult {
    /// A result from counted parts and the first mismatch, if any.
    pub fn from_parts(
        right: usize,
        total: usize,
        first_mismatch: Option<String>,
        mode: ScoreMode,
        threshold: f64,
    ) -> Self {
        let total = total.max(1);
        let right = right.min(total);
        let score = match (mode, &first_mismatch) {
            (_, None) => 1.0,
            (ScoreMode::All, Some(_)) => 0.0,
            (ScoreMode::Divide, Some(_)) => right as f64 / total as f64,
        };
        let reason = match first_mismatch {
            None => "matches the expected answer".to_string(),
            Some(first) if mode == ScoreMode::Divide => {
                format!("{right} of {total} parts right; first mismatch {first}")
            }
            Some(first) => first,
        };
        Self { score, passed: score >= threshold, right, total, reason }
    }
}

/// Compare `got` with `expected` under `options` (the method field is not consulted).
pub fn match_values(expected: &Value, got: &Value, options: &MatchOptions) -> MatchResult {
    let mut tally = Tally::default();
    Matcher { options }.compare(expected, got, "$", &mut tally);
    MatchResult::from_parts(tally.right, tally.total, tally.first, options.score, options.threshold)
}

/// A number read from a JSON number or a numeric string.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Num {
    /// An integral value.
    Int(i128),
    /// A non-integral value.
    Float(f64),
}

/// Largest magnitude below which an integral float is read as an integer.
const INTEGRAL_LIMIT: f64 = 9.0e15;

impl Num {
    /// The number `value` holds, numeric strings included.
    pub(crate) fn of(value: &Value) -> Option<Self> {
        match value {
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Some(Self::Int(i.into()))
                } else if let Some(u) = n.as_u64() {
                    Some(Self::Int(u.into()))
                } else {
                    n.as_f64().map(Self::from_f64)
                }
            }
            Value::String(s) => Self::parse(s.trim()),
            _ => None,
        }
    }

    fn parse(text: &str) -> Option<Self> {
        if let Ok(i) = text.parse::<i128>() {
            return Some(Self::Int(i));
        }
        // Only decimal notation: words such as "inf" or "nan" are not numbers here.
        let numeric = text.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'))
            && text.chars().any(|c| c.is_ascii_digit());
        if !numeric {
            return None;
        }
        text.parse::<f64>().ok().filter(|f| f.is_finite()).map(Self::from_f64)
    }

    /// An integral float becomes an integer, so that `1.0` equals `1`.
    pub(crate) fn from_f64(f: f64) -> Self {
        if f.fract() == 0.0 && f.abs() < INTEGRAL_LIMIT { Self::Int(f as i128) } else { Self::Float(f) }
    }

    fn as_f64(self) -> f64 {
        match self {
            Self::Int(i) => i as f64,
            Self::Float(f) => f,
        }
    }
}

#[derive(Default)]
struct Tally {
    right: usize,
    total: usize,
    first: Option<String>,
}

impl Tally {
    fn hit(&mut self, parts: usize) {
        self.right += parts;
        self.total += parts;
    }

    fn miss(&mut self, parts: usize, message: impl FnOnce() -> String) {
        self.total += parts;
        if self.first.is_none() {
            self.first = Some(message());
        }
    }
}

struct Matcher<'a> {
    options: &'a MatchOptions,
}

impl Matcher<'_> {
    fn compare(&self, expected: &Value, got: &Value, path: &str, tally: &mut Tally) {
        if let (Some(a), Some(b)) = (Num::of(expected), Num::of(got)) {
            return self.leaf(self.numbers_equal(a, b), expected, got, path, tally);
        }
        match (expected, got) {
            (Value::Array(items), other) if items.len() == 1 && !other.is_array() => {
                self.compare(&items[0], other, path, tally)
            }
            (other, Value::Array(items)) if items.len() == 1 && !other.is_array() => {
                self.compare(other, &items[0], path, tally)
            }
            (Value::String(a), Value::String(b)) => self.leaf(self.norm(a) == self.norm(b), expected, got, path, tally),
            (Value::Array(a), Value::Array(b)) if a.is_empty() || b.is_empty() => {
                self.leaf(a.len() == b.len(), expected, got, path, tally)
            }
            (Value::Array(a), Value::Array(b)) if self.options.ignore_order => self.unordered(a, b, path, tally),
            (Value::Array(a), Value::Array(b)) => self.ordered(a, b, path, tally),
            (Value::Object(a), Value::Object(b)) if a.is_empty() || b.is_empty() => {
                self.leaf(a.len() == b.len(), expected, got, path, tally)
            }
            (Value::Object(a), Value::Object(b)) => self.objects(a, b, path, tally),
            _ => self.leaf(expected == got, expected, got, path, tally),
        }
    }

    fn leaf(&self, equal: bool, expected: &Value, got: &Value, path: &str, tally: &mut Tally) {
        if equal {
            tally.hit(leaves(expected));
        } else {
            tally.miss(leaves(expected), || format!("{path}: expected {}, got {}", show(expected), show(got)));
        }
    }

    fn numbers_equal(&self, a: Num, b: Num) -> bool {
        if let (Num::Int(x), Num::Int(y)) = (a, b) {
            return x == y;
        }
        let (x, y) = (a.as_f64(), b.as_f64());
        let abs = self.options.abs_tol.unwrap_or(0.0);
        let scale = x.abs().max(y.abs());
        let rel = self.options.rel_tol.unwrap_or(0.0) * scale;
        // Decimal boundaries count as within: forgive float rounding.
        let rounding = 4.0 * f64::EPSILON * scale.max(1.0);
        (x - y).abs() <= abs.max(rel) + rounding
    }

    fn norm(&self, text: &str) -> String {
        let text = text.trim();
        if self.options.case_sensitive { text.to_string() } else { text.to_lowercase() }
    }

    fn ordered(&self, expected: &[Value], got: &[Value], path: &str, tally: &mut Tally) {
        for index in 0..expected.len().max(got.len()) {
            let at = format!("{path}[{index}]");
            match (expected.get(index), got.get(index)) {
                (Some(e), Some(g)) => self.compare(e, g, &at, tally),
                (Some(e), None) => {
                    tally.miss(leaves(e), || format!("{at}: expected {}, got nothing (the list is shorter)", show(e)))
                }
                (None, Some(g)) => tally.miss(1, || format!("{at}: unexpected extra {}", show(g))),
                (None, None) => {}
            }
        }
    }

    fn unordered(&self, expected: &[Value], got: &[Value], path: &str, tally: &mut Tally) {
        let mut used = vec![false; got.len()];
        for e in expected {
            let found = (0..got.len()).find(|&i| {
                if used[i] {
                    return false;
                }
                let mut trial = Tally::default();
                self.compare(e, &got[i], path, &mut trial);
                trial.first.is_none()
            });
            match found {
                Some(i) => {
                    used[i] = true;
                    tally.hit(leaves(e));
                }
                None => tally.miss(leaves(e), || format!("{path}: no element matches expected {}", show(e))),
            }
        }
        for (g, _) in got.iter().zip(&used).filter(|(_, used)| !**used) {
            tally.miss(1, || format!("{path}: unexpected extra {}", show(g)));
        }
    }

    fn objects(&self, expected: &Map<String, Value>, got: &Map<String, Value>, path: &str, tally: &mut Tally) {
        // Normalised keys; if normalising merges two keys, compare keys exactly.
        let (exp, gotk, normalise) = match (self.keyed(expected), self.keyed(got)) {
            (Some(e), Some(g)) => (e, g, true),
            _ => (exact_keys(expected), exact_keys(got), false),
        };
        let missing: Vec<&String> =
            exp.iter().filter(|(k, _)| !gotk.contains_key(*k)).map(|(_, (key, _))| *key).collect();
        let extra: Vec<&String> =
            gotk.iter().filter(|(k, _)| !exp.contains_key(*k)).map(|(_, (key, _))| *key).collect();
        if !missing.is_empty() || !extra.is_empty() {
            let parts = missing.iter().filter_map(|k| expected.get(*k)).map(leaves).sum::<usize>() + extra.len();
            tally.miss(parts, || {
                let mut text = format!("{path}: keys differ");
                if !missing.is_empty() {
                    text.push_str(&format!("; missing {}", key_list(&missing)));
                }
                if !extra.is_empty() {
                    text.push_str(&format!("; unexpected {}", key_list(&extra)));
                }
                text
            });
        }
        for (key, value) in expected {
            let lookup = if normalise { self.norm(key) } else { key.clone() };
            if let Some((_, got_value)) = gotk.get(&lookup) {
                self.compare(value, got_value, &child_path(path, key), tally);
            }
        }
    }

    /// Entries by normalised key, or `None` when two keys normalise alike.
    fn keyed<'v>(&self, map: &'v Map<String, Value>) -> Option<BTreeMap<String, (&'v String, &'v Value)>> {
        let mut out = BTreeMap::new();
        for (key, value) in map {
            if out.insert(self.norm(key), (key, value)).is_some() {
                return None;
            }
        }
        Some(out)
    }
}

fn exact_keys(map: &Map<String, Value>) -> BTreeMap<String, (&String, &Value)> {
    map.iter().map(|(k, v)| (k.clone(), (k, v))).collect()
}

fn key_list(keys: &[&String]) -> String {
    keys.iter().map(|k| format!("{k:?}")).collect::<Vec<_>>().join(", ")
}

/// Parts of a value: its leaves (an empty list or object is one part).
fn leaves(value: &Value) -> usize {
    let sum = match value {
        Value::Array(items) => items.iter().map(leaves).sum(),
        Value::Object(map) => map.values().map(leaves).sum(),
        _ => 1,
    };
    sum.max(1)
}

/// `$.key` for identifier-like keys, `$["a key"]` otherwise.
fn child_path(path: &str, key: &str) -> String {
    let simple = !key.is_empty()
        && !key.starts_with(|c: char| c.is_ascii_digit())
        && key.chars().all(|c| c.is_alphanumeric() || c == '_');
    if simple { format!("{path}.{key}") } else { format!("{path}[{}]", Value::String(key.to_string())) }
}

/// Compact JSON of a value, cut to a readable length.
pub(crate) fn show(value: &Value) -> String {
    const MAX: usize = 60;
    let text = value.to_string();
    if text.chars().count() <= MAX {
        return text;
    }
    let mut cut: String = text.chars().take(MAX - 1).collect();
    cut.push('…');
    cut
}
