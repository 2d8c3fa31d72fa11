//! The Python readings the benchmark scorers rely on, against CPython itself
//! on many seeded cases: `difflib.SequenceMatcher(None, a, b).ratio()`,
//! `repr(float)`, `str()` of JSON values, `float(text)` (any script's decimal
//! digits and Unicode spaces among the texts) and `round(x, n)`.

use crate::common;

use std::io::Write;
use std::process::{Command, Stdio};

use eval_dag::benchmark::difflib::ratio;
use eval_dag::benchmark::python::{float_repr, parse_float, round, str_of};
use serde_json::{Value, json};

/// CPython's answers for the cases (read from stdin as JSON).
const SCRIPT: &str = r#"
import sys, json, difflib
cases = json.loads(sys.stdin.buffer.read())
def read_float(text):
    try:
        return repr(float(text))
    except ValueError:
        return None
print(json.dumps({
    "ratios": [difflib.SequenceMatcher(None, a, b).ratio() for a, b in cases["pairs"]],
    "reprs": [repr(x) for x in cases["floats"]],
    "strs": [str(v) for v in cases["values"]],
    "parsed": [read_float(t) for t in cases["texts"]],
    "rounded": [repr(round(x, n)) for x, n in cases["rounds"]],
}))
"#;

/// A small seeded generator (64-bit LCG), so the cases are the same every run.
struct Seeded(u64);

impl Seeded {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn text(&mut self, alphabet: &[char], max_len: usize) -> String {
        let len = self.below(max_len + 1);
        (0..len).map(|_| alphabet[self.below(alphabet.len())]).collect()
    }

    /// `base` with a few characters replaced, dropped or added.
    fn edited(&mut self, base: &str, alphabet: &[char]) -> String {
        let mut chars: Vec<char> = base.chars().collect();
        for _ in 0..self.below(6) {
            let at = self.below(chars.len() + 1);
            match self.below(3) {
                0 if at < chars.len() => chars[at] = alphabet[self.below(alphabet.len())],
                1 if at < chars.len() => {
                    chars.remove(at);
                }
                _ => chars.insert(at, alphabet[self.below(alphabet.len())]),
            }
        }
        chars.into_iter().collect()
    }
}

fn cases() -> Value {
    let mut rng = Seeded(37);
    let small: Vec<char> = "ab".chars().collect();
    let letters: Vec<char> = "abcde fgh,.;é中".chars().collect();
    let mut pairs: Vec<(String, String)> = vec![
        (String::new(), String::new()),
        ("abc".into(), String::new()),
        ("merchant category code".into(), "merchant category codes".into()),
        ("globalcard".into(), "global card".into()),
    ];
    for round in 0..400 {
        let (alphabet, max_len) = match round % 4 {
            0 => (&small, 12),
            1 => (&letters, 40),
            2 => (&small, 260),
            _ => (&letters, 320),
        };
        let a = rng.text(alphabet, max_len);
        let b = if rng.below(2) == 0 { rng.edited(&a, alphabet) } else { rng.text(alphabet, max_len) };
        pairs.push((a, b));
    }
    let mut floats: Vec<f64> = vec![0.0, -0.0, 1.0, 0.1, 1e-4, 1e-5, 1e15, 1e16, 123456789012345680.0, 2.5e-300];
    for _ in 0..300 {
        let mantissa = rng.next() as f64 / (1u64 << 31) as f64;
        let exponent = rng.below(50) as i32 - 25;
        let sign = if rng.below(2) == 0 { 1.0 } else { -1.0 };
        floats.push(sign * mantissa * 10f64.powi(exponent));
    }
    let mut texts: Vec<String> = [
        "1",
        " 2.5 ",
        "1_000",
        "1__0",
        "_1",
        "1_",
        "5.",
        ".5",
        "-.5e3",
        "+inf",
        "-Infinity",
        "nan",
        "NaN",
        "in",
        "infinit",
        "1e",
        "e5",
        "1,5",
        "0x10",
        "",
        "  ",
        "None",
        "True",
        "1.5\n",
        "\u{a0}3",
        "\u{1c}4",
        "+-1",
        // Unicode decimal digits (category Nd) and spaces, which float() reads too.
        "٣",
        "-٣",
        "３.５",
        "１e３",
        "١٢٣٤٥٦٧٨٩٠.٥e-٣",
        "๓",
        "𝟑",
        "\u{1fbf9}",
        "1_٣",
        "٣_٣",
        "٣_",
        "٣٫٥",
        "１,５",
        "\u{2000}3",
        "\u{3000}3\u{2007}",
        "\u{85}3\u{a0}",
        "\u{b}3\u{c}",
        "\u{200b}3",
        "٣\u{200b}",
        "3\u{1f}",
        "\u{7f}3",
        "²",
        "½",
        "Ⅷ",
        "ｉｎｆ",
        "୦x",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    texts.extend(floats.iter().map(|x| x.to_string()));
    let rounds: Vec<(f64, u32)> =
        floats.iter().take(150).enumerate().map(|(i, x)| (*x * 1000.0, (i % 6) as u32)).collect();
    let values = json!([
        true, false, null, 3, -7, 1.5, 1e-7, 1e22, "text", "it's", "say \"hi\"", "both ' \"", "tab\there",
        [1, "a", [true, null]], {"a": 1, "b": {"c": [1.0, "x"]}}, {"it's": "q"}, [], {}, "é中", "\u{7f}\u{1}"
    ]);
    json!({"pairs": pairs, "floats": floats, "values": values, "texts": texts, "rounds": rounds})
}

#[test]
fn python_readings_are_cpythons_on_many_seeded_cases() {
    if !common::tools::require(common::tools::Tool::Python3) {
        return;
    }
    let cases = cases();
    let mut child = Command::new("python3")
        .args(["-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 is installed");
    child.stdin.take().unwrap().write_all(cases.to_string().as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "the CPython script failed");
    let cpython: Value = serde_json::from_slice(&output.stdout).unwrap();

    let mut mismatches = Vec::new();
    for ((pair, want), n) in
        cases["pairs"].as_array().unwrap().iter().zip(cpython["ratios"].as_array().unwrap()).zip(0..)
    {
        let (a, b) = (pair[0].as_str().unwrap(), pair[1].as_str().unwrap());
        if ratio(a, b) != want.as_f64().unwrap() {
            mismatches.push(format!("ratio #{n} {a:?} {b:?}: {} against {want}", ratio(a, b)));
        }
    }
    for (x, want) in cases["floats"].as_array().unwrap().iter().zip(cpython["reprs"].as_array().unwrap()) {
        let got = float_repr(x.as_f64().unwrap());
        if got != want.as_str().unwrap() {
            mismatches.push(format!("repr {x}: {got} against {want}"));
        }
    }
    for (value, want) in cases["values"].as_array().unwrap().iter().zip(cpython["strs"].as_array().unwrap()) {
        if str_of(value) != want.as_str().unwrap() {
            mismatches.push(format!("str {value}: {} against {want}", str_of(value)));
        }
    }
    for (text, want) in cases["texts"].as_array().unwrap().iter().zip(cpython["parsed"].as_array().unwrap()) {
        let got = parse_float(text.as_str().unwrap()).map(float_repr);
        if got.as_deref() != want.as_str() {
            mismatches.push(format!("float({text}): {got:?} against {want}"));
        }
    }
    for (case, want) in cases["rounds"].as_array().unwrap().iter().zip(cpython["rounded"].as_array().unwrap()) {
        let got = float_repr(round(case[0].as_f64().unwrap(), case[1].as_u64().unwrap() as usize));
        if got != want.as_str().unwrap() {
            mismatches.push(format!("round{case}: {got} against {want}"));
        }
    }
    assert!(mismatches.is_empty(), "{} mismatches:\n{}", mismatches.len(), mismatches.join("\n"));
}
