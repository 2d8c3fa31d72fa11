//! Python's own readings and writings of values, as published scorers see
//! them: `str()` of a JSON value (`True`, `None`, `1e-07`, `{'a': 1}`),
//! `float()` of a string, `str.strip()` and `round(x, n)`.

use serde_json::Value;

/// Whether Python's `str.isspace()` holds for `c` (Rust's whitespace, plus
/// the information separators U+001C–U+001F that Python counts too).
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `s.strip()`.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// `str(value)` of the Python object `json.loads` makes of `value`.
pub fn str_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => repr(other),
    }
}

/// `repr(value)` of the Python object `json.loads` makes of `value`.
pub fn repr(value: &Value) -> String {
    match value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (_, Some(u), _) => u.to_string(),
            (_, _, Some(x)) => float_repr(x),
            _ => n.to_string(),
        },
        Value::String(s) => string_repr(s),
        Value::Array(items) => format!("[{}]", items.iter().map(repr).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => {
            let entries: Vec<String> = map.iter().map(|(k, v)| format!("{}: {}", string_repr(k), repr(v))).collect();
            format!("{{{}}}", entries.join(", "))
        }
    }
}

/// `repr(x)` of a float: the shortest digits that read back as `x`, in
/// positional notation for exponents -5 < e < 16, else as `1e-07`, `1.5e+16`.
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    // Rust's `{:e}` writes the shortest round-trip digits: `-1.2345e-7`.
    let scientific = format!("{:e}", x.abs());
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = tie_to_even(x.abs(), digits, exponent);
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let point = exponent + 1;
    if point <= -4 || point > 16 {
        let (first, rest) = digits.split_at(1);
        let fraction = if rest.is_empty() { String::new() } else { format!(".{rest}") };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        return format!("{sign}{first}{fraction}e{exp_sign}{:02}", exponent.abs());
    }
    let body = if point <= 0 {
        format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
    } else if point as usize >= digits.len() {
        format!("{digits}{}.0", "0".repeat(point as usize - digits.len()))
    } else {
        let (whole, fraction) = digits.split_at(point as usize);
        format!("{whole}.{fraction}")
    };
    format!("{sign}{body}")
}

/// The shortest digits of `x` (`digits` × 10^`exponent`, one digit before the
/// point) as CPython picks them: where `x` lies exactly halfway between two
/// shortest candidates that both read back as `x`, the one ending in an even digit.
fn tie_to_even(x: f64, digits: String, exponent: i32) -> String {
    let exact = format!("{x:.1100e}");
    let Some((mantissa, exact_exponent)) = exact.split_once('e') else { return digits };
    if exact_exponent.parse::<i32>() != Ok(exponent) {
        return digits;
    }
    let all: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let k = digits.len();
    let halfway = all.get(k) == Some(&b'5') && all[k + 1..].iter().all(|d| *d == b'0');
    if !halfway || all[k - 1] == b'9' {
        return digits;
    }
    let lower = String::from_utf8_lossy(&all[..k]).into_owned();
    let mut upper = all[..k].to_vec();
    upper[k - 1] += 1;
    let upper = String::from_utf8_lossy(&upper).into_owned();
    let even = if (all[k - 1] - b'0').is_multiple_of(2) { lower } else { upper };
    let reads_back = format!("{}.{}e{exponent}", &even[..1], &even[1..]).parse::<f64>() == Ok(x);
    if !reads_back {
        return digits;
    }
    let trimmed = even.trim_end_matches('0');
    if trimmed.is_empty() { "0".into() } else { trimmed.into() }
}

/// `repr(s)` of a string: single quotes unless it holds one and no double
/// quote; backslashes, the quote, `\t`, `\n`, `\r` and unprintable characters escaped.
pub fn string_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if !printable(c) => {
                let code = c as u32;
                out.push_str(&match code {
                    0..=0xff => format!("\\x{code:02x}"),
                    0x100..=0xffff => format!("\\u{code:04x}"),
                    _ => format!("\\U{code:08x}"),
                });
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Whether `str.isprintable()` holds for `c`: not a control or format
/// character, and no separator but the space.
fn printable(c: char) -> bool {
    let format = matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{feff}');
    c == ' ' || !(c.is_control() || c.is_whitespace() || format)
}

/// `float(s)`: any Unicode decimal digit read as its ASCII digit and any
/// Unicode space as a space (as CPython does first), then surrounding
/// whitespace ignored, `_` allowed between digits, `inf`, `infinity` and `nan`
/// in any case; none where Python raises `ValueError`.
pub fn parse_float(s: &str) -> Option<f64> {
    let ascii = ascii_digits_and_spaces(s)?;
    // Unlike `str.strip()`, `float()` keeps U+001C–U+001F (and refuses them).
    let s = ascii.trim_matches([' ', '\t', '\n', '\u{b}', '\u{c}', '\r']);
    let chars: Vec<char> = s.chars().collect();
    let digit_at = |i: usize| chars.get(i).is_some_and(char::is_ascii_digit);
    for (i, c) in chars.iter().enumerate() {
        if *c == '_' && !(i > 0 && digit_at(i - 1) && digit_at(i + 1)) {
            return None;
        }
    }
    let cleaned: String = chars.iter().filter(|c| **c != '_').collect();
    let body = cleaned.trim_start_matches(['+', '-']);
    // Rust reads a few spellings Python refuses (`infinity` is both's; `in` is neither's).
    if body.is_empty() || cleaned.len() - body.len() > 1 {
        return None;
    }
    cleaned.parse().ok()
}

/// The first code point of each run of ten Unicode decimal digits (category
/// Nd, values 0 to 9 in order) in the Unicode 14.0 database CPython 3.11 reads.
const DECIMAL_ZEROS: [u32; 66] = [
    0x30, 0x660, 0x6f0, 0x7c0, 0x966, 0x9e6, 0xa66, 0xae6, 0xb66, 0xbe6, 0xc66, 0xce6, 0xd66, 0xde6, 0xe50, 0xed0,
    0xf20, 0x1040, 0x1090, 0x17e0, 0x1810, 0x1946, 0x19d0, 0x1a80, 0x1a90, 0x1b50, 0x1bb0, 0x1c40, 0x1c50, 0xa620,
    0xa8d0, 0xa900, 0xa9d0, 0xa9f0, 0xaa50, 0xabf0, 0xff10, 0x104a0, 0x10d30, 0x11066, 0x110f0, 0x11136, 0x111d0,
    0x112f0, 0x11450, 0x114d0, 0x11650, 0x116c0, 0x11730, 0x118e0, 0x11950, 0x11c50, 0x11d50, 0x11da0, 0x16a60,
    0x16ac0, 0x16b50, 0x1d7ce, 0x1d7d8, 0x1d7e2, 0x1d7ec, 0x1d7f6, 0x1e140, 0x1e2f0, 0x1e950, 0x1fbf0,
];

/// Whether `c` is a decimal digit of any script, as `str.isdecimal()` and
/// the `\d` of a `re` pattern on text count them (`٣` and `３` are).
pub fn is_decimal(c: char) -> bool {
    decimal_digit(c).is_some()
}

/// The ASCII digit of a Unicode decimal digit (`٣` and `３` are `3`).
fn decimal_digit(c: char) -> Option<char> {
    let code = c as u32;
    let run = DECIMAL_ZEROS.partition_point(|zero| *zero <= code).checked_sub(1)?;
    let value = code - DECIMAL_ZEROS[run];
    (value < 10).then(|| char::from(b'0' + value as u8))
}

/// `s` as CPython hands it to its float parser: ASCII kept, any other space
/// a space, any other decimal digit its ASCII digit; none for any other
/// character (which makes `float()` raise).
fn ascii_digits_and_spaces(s: &str) -> Option<String> {
    s.chars()
        .map(|c| match c {
            c if c.is_ascii() => Some(c),
            c if c.is_whitespace() => Some(' '),
            c => decimal_digit(c),
        })
        .collect()
}

/// `round(x, digits)`: the decimal nearest `x` with that many places, a tie
/// (on the exact binary value) to the even digit, as CPython rounds, read back
/// as a float.
pub fn round(x: f64, digits: usize) -> f64 {
    if !x.is_finite() || digits > 323 {
        return x;
    }
    // Every finite double's decimal expansion ends within 1,074 places.
    let exact = format!("{:.1100}", x.abs());
    let (whole, fraction) = exact.split_once('.').unwrap_or((&exact, ""));
    let (kept, rest) = fraction.split_at(digits.min(fraction.len()));
    let mut number: Vec<u8> = whole.bytes().chain(kept.bytes()).collect();
    let odd = number.last().is_some_and(|d| !(d - b'0').is_multiple_of(2));
    let up = match rest.as_bytes() {
        [b'6'..=b'9', ..] => true,
        [b'5', tail @ ..] => odd || tail.iter().any(|d| *d != b'0'),
        _ => false,
    };
    if up {
        let mut at = number.len();
        loop {
            if at == 0 {
                number.insert(0, b'1');
                break;
            }
            at -= 1;
            if number[at] == b'9' {
                number[at] = b'0';
            } else {
                number[at] += 1;
                break;
            }
        }
    }
    let point = number.len() - kept.len();
    let text = format!("{}.{}", String::from_utf8_lossy(&number[..point]), String::from_utf8_lossy(&number[point..]));
    let value: f64 = text.parse().unwrap_or(x.abs());
    if x.is_sign_negative() { -value } else { value }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn str_writes_values_as_python_does() {
        assert_eq!(str_of(&json!(true)), "True");
        assert_eq!(str_of(&json!(null)), "None");
        assert_eq!(str_of(&json!(1e-7)), "1e-07");
        assert_eq!(str_of(&json!(1.0)), "1.0");
        assert_eq!(str_of(&json!(3)), "3");
        assert_eq!(str_of(&json!("plain")), "plain");
        assert_eq!(str_of(&json!({"a": 1, "b": [true, "x"]})), "{'a': 1, 'b': [True, 'x']}");
        assert_eq!(str_of(&json!(["it's", "say \"hi\"", "both ' \""])), r#"["it's", 'say "hi"', 'both \' "']"#);
        assert_eq!(str_of(&json!(["a\nb\\c\u{1}"])), r"['a\nb\\c\x01']");
    }

    #[test]
    fn float_repr_switches_to_exponents_where_python_does() {
        let cases = [
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-10, "1.5e-10"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.2345e16, "1.2345e+16"),
            (123.456, "123.456"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (-0.0, "-0.0"),
            (1e22, "1e+22"),
            // Exactly ...201.25: halfway between two shortest candidates, the even one.
            (1254757074639201.2, "1254757074639201.2"),
            (f64::INFINITY, "inf"),
            (f64::NAN, "nan"),
        ];
        for (x, want) in cases {
            assert_eq!(float_repr(x), want, "{x}");
        }
    }

    #[test]
    fn float_reads_what_python_reads() {
        assert_eq!(parse_float(" 1.5\n"), Some(1.5));
        assert_eq!(parse_float("1_000.5"), Some(1000.5));
        assert_eq!(parse_float("5."), Some(5.0));
        assert_eq!(parse_float(".5"), Some(0.5));
        assert_eq!(parse_float("-Infinity"), Some(f64::NEG_INFINITY));
        assert!(parse_float("nan").is_some_and(f64::is_nan));
        for bad in ["", "1__0", "_1", "1_", "1e", "abc", "+-1", "1,5", "None"] {
            assert_eq!(parse_float(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn float_reads_any_unicode_decimal_digit_and_space_as_python_311_does() {
        assert_eq!(parse_float("٣"), Some(3.0), "Arabic-Indic");
        assert_eq!(parse_float("３.５"), Some(3.5), "full-width");
        assert_eq!(parse_float("\u{1fbf9}"), Some(9.0), "the last run of Unicode 14");
        assert_eq!(parse_float("1_٣"), Some(13.0), "`_` between digits of any script");
        assert_eq!(parse_float("\u{3000}\u{2007}-٣\u{85}"), Some(-3.0), "Unicode spaces around");
        assert_eq!(parse_float("\u{b}3\u{c}"), Some(3.0), "vertical tab and form feed");
        // Kawi digits came with Unicode 15, after CPython 3.11's database.
        for bad in ["\u{11f53}", "²", "½", "Ⅷ", "٣\u{200b}", "٣٫٥", "ｉｎｆ", "\u{7f}3", "٣_"] {
            assert_eq!(parse_float(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn round_is_exact_on_the_binary_value() {
        assert_eq!(round(2.5, 0), 2.0);
        assert_eq!(round(3.5, 0), 4.0);
        // 0.125 is exact in binary: a tie, to even; 2.675 is just below its half.
        assert_eq!(round(0.125, 2), 0.12);
        assert_eq!(round(2.675, 2), 2.67);
        assert_eq!(round(f64::INFINITY, 2), f64::INFINITY);
        // A tie on the exact value .25, which float formatting rounds up.
        assert_eq!(round(1254757074639201.2, 1), 1254757074639201.2);
        assert_eq!(round(9.96, 1), 10.0);
        assert_eq!(round(-0.4, 0).to_bits(), (-0.0f64).to_bits());
    }
}
