//! Seeded mutators for fuzzing the inputs that come from outside (questions
//! files, config files, datasets, benchmarks' files, templates, cache files,
//! results files): each case is a valid input changed one way — a bit
//! flipped, cut short, a huge value, a value of the wrong type, deep nesting,
//! a NUL, a U+202E — chosen by a seeded generator, so a failure names its
//! seed and case and comes back the same.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Map, Value, json};

/// Cases per format: a few hundred, quick enough for two cores.
pub const CASES: usize = 300;

/// A seeded source of mutations.
pub struct Mutator {
    rng: ChaCha8Rng,
}

/// Text that reorders what follows it when shown.
const RLO: &str = "\u{202E}";

impl Mutator {
    /// Mutations from `seed`.
    pub fn new(seed: u64) -> Self {
        Self { rng: ChaCha8Rng::seed_from_u64(seed) }
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { self.rng.random_range(0..n) }
    }

    /// `bytes` changed one way at the byte level.
    pub fn bytes(&mut self, bytes: &[u8]) -> Vec<u8> {
        let mut out = bytes.to_vec();
        let at = self.below(out.len() + 1);
        match self.below(8) {
            0 if !out.is_empty() => {
                let at = at.min(out.len() - 1);
                out[at] ^= 1 << self.below(8);
            }
            1 => out.truncate(at),
            2 => out.insert(at, 0),
            3 => splice(&mut out, at, RLO.as_bytes()),
            4 => splice(&mut out, at, b"99999999999999999999999999999999999999e999999"),
            5 => splice(&mut out, at, "[".repeat(5_000).as_bytes()),
            6 => {
                let end = (at + 1 + self.below(64)).min(out.len());
                let chunk = out[at.min(end)..end].to_vec();
                splice(&mut out, at, &chunk.repeat(1 + self.below(50)));
            }
            _ => splice(&mut out, at, &[0xff, 0xfe, b'"', b'\\', b'\n']),
        }
        out
    }

    /// `text` changed one way at the byte level, read back as text (invalid
    /// UTF-8 replaced) for parsers that take `&str`.
    pub fn text(&mut self, text: &str) -> String {
        String::from_utf8_lossy(&self.bytes(text.as_bytes())).into_owned()
    }

    /// A value of a different kind: wrong types, huge values, deep nesting,
    /// NULs and U+202E.
    pub fn value(&mut self) -> Value {
        match self.below(10) {
            0 => Value::Null,
            1 => json!(true),
            2 => json!(-1),
            3 => json!(u64::MAX),
            4 => json!(1e308),
            5 => json!(format!("a\u{0}b{RLO}c")),
            6 => Value::String("x".repeat(100_000)),
            7 => nested(self.below(3_000) + 1),
            8 => json!([1, "two", null, {"three": [3.5]}]),
            _ => json!({"": {"\u{0}": RLO}}),
        }
    }

    /// `value` with one node replaced by [`Self::value`], removed, or its
    /// object given a stray key.
    pub fn json(&mut self, value: &Value) -> Value {
        let mut out = value.clone();
        let nodes = count(&out);
        let target = self.below(nodes);
        let replacement = self.value();
        let action = self.below(3);
        let mut seen = 0;
        mutate_at(&mut out, target, &mut seen, &mut |node| match action {
            0 => *node = replacement.clone(),
            1 => match node {
                Value::Object(map) if !map.is_empty() => {
                    let key = map.keys().next().cloned().unwrap_or_default();
                    map.shift_remove(&key);
                }
                Value::Array(items) if !items.is_empty() => {
                    items.pop();
                }
                other => *other = Value::Null,
            },
            _ => match node {
                Value::Object(map) => {
                    map.insert(format!("stray{RLO}"), replacement.clone());
                }
                other => *other = replacement.clone(),
            },
        });
        out
    }

    /// A mutated copy of `value` as text: structurally half the time, at
    /// the byte level otherwise.
    pub fn json_text(&mut self, value: &Value) -> String {
        if self.below(2) == 0 { self.json(value).to_string() } else { self.text(&value.to_string()) }
    }

    /// A mutated JSON Lines text of `lines`: one line mutated (structurally
    /// or as bytes), or the whole text cut or flipped.
    pub fn jsonl(&mut self, lines: &[Value]) -> String {
        let mut texts: Vec<String> = lines.iter().map(Value::to_string).collect();
        if self.below(4) == 0 || texts.is_empty() {
            return self.text(&(texts.join("\n") + "\n"));
        }
        let at = self.below(texts.len());
        texts[at] = self.json_text(&lines[at]);
        texts.join("\n") + "\n"
    }
}

fn splice(out: &mut Vec<u8>, at: usize, bytes: &[u8]) {
    let at = at.min(out.len());
    out.splice(at..at, bytes.iter().copied());
}

/// `[[[…]]]`, `depth` deep.
fn nested(depth: usize) -> Value {
    let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    // serde_json stops at 128 levels: deeper text stays text.
    serde_json::from_str(&text).unwrap_or(Value::String(text))
}

fn count(value: &Value) -> usize {
    1 + match value {
        Value::Array(items) => items.iter().map(count).sum(),
        Value::Object(map) => map.values().map(count).sum(),
        _ => 0,
    }
}

fn mutate_at(value: &mut Value, target: usize, seen: &mut usize, change: &mut impl FnMut(&mut Value)) -> bool {
    if *seen == target {
        change(value);
        return true;
    }
    *seen += 1;
    match value {
        Value::Array(items) => items.iter_mut().any(|item| mutate_at(item, target, seen, change)),
        Value::Object(map) => map.values_mut().any(|item| mutate_at(item, target, seen, change)),
        _ => false,
    }
}

/// A JSON object from `pairs`, for building inputs.
pub fn object(pairs: &[(&str, Value)]) -> Value {
    Value::Object(pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect::<Map<String, Value>>())
}
