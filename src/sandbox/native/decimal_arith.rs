//! Native fast paths for `decimal.Decimal`, which RustPython runs as pure
//! Python (`_pydecimal`: ~14 µs to parse a string, ~30 µs an addition).
//!
//! They follow `_pydecimal` step by step for finite values in the cases that
//! need no rounding — which for the parse is every plain numeric string, and
//! for an addition every sum that fits the context's precision — and give
//! `None` for anything else (specials, whitespace or `_` in the string, a
//! result that must be rounded, clamped or overflows, coefficients beyond 38
//! digits), where the caller runs Python's code. Exact results need no flags,
//! so the context's flags and traps are untouched either way.

/// A finite decimal, (-1)^negative × coefficient × 10^exponent, as `_pydecimal`
/// stores it (`_sign`, `_int`, `_exp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finite {
    /// `_sign == 1`.
    pub negative: bool,
    /// `int(_int)`.
    pub coefficient: u128,
    /// `_exp`.
    pub exponent: i64,
}

/// The fields of the arithmetic context that an exact addition depends on.
#[derive(Debug, Clone, Copy)]
pub struct Context {
    /// `prec`.
    pub prec: i64,
    /// `rounding == ROUND_FLOOR` (an exact zero sum is then negative).
    pub round_floor: bool,
    /// `Emin`.
    pub emin: i64,
    /// `Emax`.
    pub emax: i64,
    /// `clamp == 1`.
    pub clamp: bool,
}

/// Longest exponent string handled (Python's are unbounded).
const MAX_EXPONENT_DIGITS: usize = 18;

fn digits(coefficient: u128) -> i64 {
    coefficient.checked_ilog10().map_or(1, |log| i64::from(log) + 1)
}

fn scale(coefficient: u128, by: i64) -> Option<u128> {
    coefficient.checked_mul(10u128.checked_pow(u32::try_from(by).ok()?)?)
}

/// `Decimal(text)` for a plain numeric string: sign, digits, an optional
/// fraction and exponent (what `_parser` accepts, minus whitespace,
/// underscores and the special values).
pub fn parse(text: &str) -> Option<Finite> {
    let bytes = text.as_bytes();
    let (negative, rest) = match bytes.first()? {
        b'-' => (true, &bytes[1..]),
        b'+' => (false, &bytes[1..]),
        _ => (false, bytes),
    };
    let (mantissa, exponent) = match rest.iter().position(|&b| b == b'e' || b == b'E') {
        Some(at) => (&rest[..at], Some(&rest[at + 1..])),
        None => (rest, None),
    };
    let (int_part, fraction) = match mantissa.iter().position(|&b| b == b'.') {
        Some(at) => (&mantissa[..at], &mantissa[at + 1..]),
        None => (mantissa, &mantissa[..0]),
    };
    let all_digits = |part: &[u8]| part.iter().all(u8::is_ascii_digit);
    if int_part.len() + fraction.len() == 0 || !all_digits(int_part) || !all_digits(fraction) {
        return None;
    }
    let exponent: i64 = match exponent {
        None => 0,
        Some(exponent) => {
            let unsigned = exponent.strip_prefix(b"-").or_else(|| exponent.strip_prefix(b"+")).unwrap_or(exponent);
            if unsigned.is_empty() || unsigned.len() > MAX_EXPONENT_DIGITS || !all_digits(unsigned) {
                return None;
            }
            std::str::from_utf8(exponent).ok()?.parse().ok()?
        }
    };
    let mut coefficient: u128 = 0;
    for &digit in int_part.iter().chain(fraction) {
        coefficient = coefficient.checked_mul(10)?.checked_add(u128::from(digit - b'0'))?;
    }
    let exponent = exponent.checked_sub(i64::try_from(fraction.len()).ok()?)?;
    Some(Finite { negative, coefficient, exponent })
}

/// `_fix`: the value itself when it is representable in `context` as is.
fn fixed(value: Finite, context: &Context) -> Option<Finite> {
    let etiny = context.emin - context.prec + 1;
    let etop = context.emax - context.prec + 1;
    let exponent = value.exponent;
    if value.coefficient == 0 {
        let exp_max = if context.clamp { etop } else { context.emax };
        return (etiny..=exp_max).contains(&exponent).then_some(value);
    }
    let length = digits(value.coefficient);
    let representable = length <= context.prec
        && exponent >= etiny
        && length + exponent - 1 <= context.emax
        && !(context.clamp && exponent > etop);
    representable.then_some(value)
}

/// `a + b` (`Decimal.__add__`) when the exact sum needs no rounding in `context`.
pub fn add(a: Finite, b: Finite, context: &Context) -> Option<Finite> {
    let exponent = a.exponent.min(b.exponent);
    let negative_zero = context.round_floor && a.negative != b.negative;
    match (a.coefficient == 0, b.coefficient == 0) {
        (true, true) => {
            let negative = (a.negative && b.negative) || negative_zero;
            return fixed(Finite { negative, coefficient: 0, exponent }, context);
        }
        (true, false) | (false, true) => {
            let nonzero = if a.coefficient == 0 { b } else { a };
            // `_rescale` to the smaller exponent pads the coefficient with zeros.
            let exponent = exponent.max(nonzero.exponent - context.prec - 1);
            let coefficient = scale(nonzero.coefficient, nonzero.exponent - exponent)?;
            return fixed(Finite { coefficient, exponent, ..nonzero }, context);
        }
        (false, false) => {}
    }
    // `_normalize`: a term below the other's precision would be replaced (rounding).
    let (high, low) = if a.exponent < b.exponent { (b, a) } else { (a, b) };
    let floor = high.exponent + (-1).min(digits(high.coefficient) - context.prec - 2);
    if digits(low.coefficient) + low.exponent - 1 < floor {
        return None;
    }
    let high_coefficient = scale(high.coefficient, high.exponent - low.exponent)?;
    let (x, y) =
        if a.exponent < b.exponent { (low.coefficient, high_coefficient) } else { (high_coefficient, low.coefficient) };
    let sum = if a.negative == b.negative {
        Finite { negative: a.negative, coefficient: x.checked_add(y)?, exponent }
    } else if x == y {
        Finite { negative: negative_zero, coefficient: 0, exponent }
    } else if x > y {
        Finite { negative: a.negative, coefficient: x - y, exponent }
    } else {
        Finite { negative: b.negative, coefficient: y - x, exponent }
    };
    fixed(sum, context)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEFAULT: Context = Context { prec: 28, round_floor: false, emin: -999_999, emax: 999_999, clamp: false };

    fn d(text: &str) -> Finite {
        parse(text).unwrap()
    }

    #[test]
    fn plain_strings_parse_like_pydecimal() {
        assert_eq!(d("6.82"), Finite { negative: false, coefficient: 682, exponent: -2 });
        assert_eq!(d("-0.0"), Finite { negative: true, coefficient: 0, exponent: -1 });
        assert_eq!(d("5."), Finite { negative: false, coefficient: 5, exponent: 0 });
        assert_eq!(d(".5e+3"), Finite { negative: false, coefficient: 5, exponent: 2 });
        assert_eq!(d("007E-2"), Finite { negative: false, coefficient: 7, exponent: -2 });
        for declined in ["", ".", "-", "1e", "1e+", " 1", "1_0", "NaN", "inf", "1.2.3", "1e5.0", "٣"] {
            assert_eq!(parse(declined), None, "{declined:?}");
        }
    }

    #[test]
    fn exact_sums_follow_pydecimal() {
        assert_eq!(add(d("0"), d("6.82"), &DEFAULT), Some(d("6.82")));
        assert_eq!(add(d("1.10"), d("2.2"), &DEFAULT), Some(d("3.30")));
        assert_eq!(add(d("-5"), d("3.5"), &DEFAULT), Some(d("-1.5")));
        assert_eq!(add(d("2.5"), d("-2.50"), &DEFAULT), Some(d("0.00")));
        assert_eq!(add(d("2.5"), d("-2.50"), &Context { round_floor: true, ..DEFAULT }), Some(d("-0.00")));
        assert_eq!(add(d("-0"), d("-0.0"), &DEFAULT), Some(d("-0.0")));
        assert_eq!(add(d("0E+5"), d("1"), &DEFAULT), Some(d("1")));
    }

    #[test]
    fn sums_that_round_are_left_to_python() {
        assert_eq!(add(d("1e40"), d("1"), &DEFAULT), None);
        assert_eq!(add(d("9999999999999999999999999999"), d("1"), &DEFAULT), None);
        assert_eq!(add(d("1.23"), d("1"), &Context { prec: 2, ..DEFAULT }), None);
        assert_eq!(add(d("1e999999"), d("9e999999"), &DEFAULT), None);
    }
}
