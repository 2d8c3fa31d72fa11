//! Python's `datetime.datetime.strptime`, natively: the sandbox's fast path
//! (RustPython otherwise runs `_strptime` as pure Python, ~100 µs a call) and
//! the test `prepare` puts a column's datetime format to, so that the format it
//! writes parses every value in the sandbox exactly as in CPython.
//!
//! It follows CPython's `_strptime` exactly for the directives `%Y %y %m %d
//! %H %I %p %M %S %f %j %b %B %a %A %z %%` in the C locale: the format becomes
//! the same regular expression (case-insensitive, whitespace runs matching
//! `\s+`, leftmost-first alternation like Python's backtracking engine), the
//! fields are combined by the same rules (`%y` pivot at 68, `%I` with `%p`,
//! `%j` overriding month and day, 29 February without a year), and the result
//! is returned only if every field is valid. Anything else — another
//! directive, a repeated one, non-ASCII text, no match, unconverted data, an
//! invalid date or offset — gets `None`, and the caller runs Python's
//! implementation, so errors keep Python's messages.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Write;
use std::rc::Rc;

use chrono::{Datelike, Days, NaiveDate};
use regex::{Captures, Regex};

/// Compiled formats kept, like CPython's `_CACHE_MAX_SIZE`.
const CACHE_SIZE: usize = 100;
/// Python's `\s` on ASCII text.
const WHITESPACE: &str = r"[\t\n\x0B\x0C\r\x1C-\x1F ]";
const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
const MONTHS_ABBR: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const WEEKDAYS: [&str; 7] = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
const WEEKDAYS_ABBR: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
const AM_PM: [&str; 2] = ["am", "pm"];

/// The fields of the `datetime` that `strptime` returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parsed {
    /// Year, month, day, hour, minute, second, microsecond.
    pub fields: [i64; 7],
    /// `%z`: the offset as (seconds, microseconds), both negative west of UTC.
    pub offset: Option<(i64, i64)>,
}

/// What `strptime` comes to when the native path can decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strptime {
    /// The `datetime` to return.
    Parsed(Parsed),
    /// The text matched the format but names a day its month does not have:
    /// CPython raises `ValueError("day is out of range for month")`.
    DayOutOfRange,
}

struct Pattern {
    regex: Regex,
    directives: Vec<char>,
}

thread_local! {
    static PATTERNS: RefCell<HashMap<String, Option<Rc<Pattern>>>> = RefCell::new(HashMap::new());
}

/// `(?P<x>a|b|...)` over `names`, longest first as `_strptime` sorts them.
fn names_pattern(names: &[&str]) -> String {
    let mut sorted = names.to_vec();
    sorted.sort_by_key(|name| std::cmp::Reverse(name.len()));
    sorted.join("|")
}

/// CPython 3.11's regular expression for one directive.
fn directive_pattern(directive: char) -> Option<String> {
    Some(match directive {
        'd' => "3[0-1]|[1-2][0-9]|0[1-9]|[1-9]| [1-9]".into(),
        'f' => "[0-9]{1,6}".into(),
        'H' => "2[0-3]|[0-1][0-9]|[0-9]".into(),
        'I' => "1[0-2]|0[1-9]|[1-9]".into(),
        'j' => "36[0-6]|3[0-5][0-9]|[1-2][0-9][0-9]|0[1-9][0-9]|00[1-9]|[1-9][0-9]|0[1-9]|[1-9]".into(),
        'm' => "1[0-2]|0[1-9]|[1-9]".into(),
        'M' => "[0-5][0-9]|[0-9]".into(),
        'S' => "6[0-1]|[0-5][0-9]|[0-9]".into(),
        'y' => "[0-9][0-9]".into(),
        'Y' => "[0-9][0-9][0-9][0-9]".into(),
        'z' => r"[+-][0-9][0-9]:?[0-5][0-9](:?[0-5][0-9](\.[0-9]{1,6})?)?|(?-i:Z)".into(),
        'A' => names_pattern(&WEEKDAYS),
        'a' => names_pattern(&WEEKDAYS_ABBR),
        'B' => names_pattern(&MONTHS),
        'b' => names_pattern(&MONTHS_ABBR),
        'p' => names_pattern(&AM_PM),
        _ => return None,
    })
}

fn is_python_space(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0B' | '\x0C' | '\r' | '\x1C'..='\x1F' | ' ')
}

/// The regular expression `_strptime` builds for `format`, if every directive is supported.
fn compile(format: &str) -> Option<Pattern> {
    if !format.is_ascii() {
        return None;
    }
    let mut regex = String::from(r"(?i)\A(?:");
    let mut directives = Vec::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '%' {
            let directive = chars.next()?;
            if directive == '%' {
                regex.push('%');
                continue;
            }
            if directives.contains(&directive) {
                return None; // Python: "redefinition of group name"
            }
            write!(regex, "(?P<{directive}>{})", directive_pattern(directive)?).ok()?;
            directives.push(directive);
        } else if is_python_space(c) {
            while chars.next_if(|&next| is_python_space(next)).is_some() {}
            regex.push_str(WHITESPACE);
            regex.push('+');
        } else {
            regex.push_str(&regex::escape(c.encode_utf8(&mut [0; 4])));
        }
    }
    regex.push(')');
    Some(Pattern { regex: Regex::new(&regex).ok()?, directives })
}

fn pattern(format: &str) -> Option<Rc<Pattern>> {
    PATTERNS.with_borrow_mut(|cache| {
        if let Some(pattern) = cache.get(format) {
            return pattern.clone();
        }
        if cache.len() >= CACHE_SIZE {
            cache.clear();
        }
        let pattern = compile(format).map(Rc::new);
        cache.insert(format.to_string(), pattern.clone());
        pattern
    })
}

/// Python's `int()` of a captured field: ASCII digits, surrounding spaces allowed.
fn int(text: &str) -> Option<i64> {
    let digits = text.as_bytes();
    let start = digits.iter().position(|&b| b != b' ')?;
    let end = digits.iter().rposition(|&b| b != b' ')? + 1;
    let mut value: i64 = 0;
    for &digit in &digits[start..end] {
        if !digit.is_ascii_digit() {
            return None;
        }
        value = value.checked_mul(10)?.checked_add(i64::from(digit - b'0'))?;
    }
    Some(value)
}

fn position(names: &[&str], text: &str) -> Option<i64> {
    let lower = text.to_ascii_lowercase();
    names.iter().position(|name| *name == lower).map(|i| i as i64)
}

/// `%z` as `_strptime` reads it: (seconds, microseconds), or `None` where Python raises.
fn offset(z: &str) -> Option<(i64, i64)> {
    if z == "Z" {
        return Some((0, 0));
    }
    let mut z = z.to_string();
    if z.as_bytes()[3] == b':' {
        z.remove(3);
        if z.len() > 5 {
            if z.as_bytes()[5] != b':' {
                return None; // "Inconsistent use of :"
            }
            z.remove(5);
        }
    }
    let slice = |from: usize, to: usize| z.get(from.min(z.len())..to.min(z.len())).unwrap_or("");
    let seconds = match slice(5, 7) {
        "" => 0,
        text => int(text)?,
    };
    let total = int(slice(1, 3))? * 3600 + int(slice(3, 5))? * 60 + seconds;
    let remainder = slice(8, z.len());
    let fraction = int(&format!("{remainder:0<6}"))?;
    Some(if z.starts_with('-') { (-total, -fraction) } else { (total, fraction) })
}

fn valid_date(year: i64, month: i64, day: i64) -> Option<NaiveDate> {
    if !(1..=9999).contains(&year) {
        return None;
    }
    NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, u32::try_from(month).ok()?, u32::try_from(day).ok()?)
}

/// `Some` when `year` (1 to 9999, as in Python) and `month` exist, so that
/// a date that does not is wrong by its day alone.
fn valid_month(year: i64, month: i64) -> Option<NaiveDate> {
    valid_date(year, month, 1)
}

fn combine(pattern: &Pattern, found: &Captures<'_>) -> Option<Strptime> {
    let (mut year, mut month, mut day) = (None, 1, 1);
    let (mut hour, mut minute, mut second, mut fraction) = (0, 0, 0, 0);
    let (mut julian, mut offset_found) = (None, None);
    for &directive in &pattern.directives {
        let text = found.name(directive.encode_utf8(&mut [0; 4]))?.as_str();
        match directive {
            'y' => year = Some(int(text).map(|y| if y <= 68 { y + 2000 } else { y + 1900 })?),
            'Y' => year = Some(int(text)?),
            'm' => month = int(text)?,
            'B' => month = position(&MONTHS, text)? + 1,
            'b' => month = position(&MONTHS_ABBR, text)? + 1,
            'd' => day = int(text)?,
            'H' => hour = int(text)?,
            'I' => {
                hour = int(text)?;
                let am_pm = found.name("p").map(|p| p.as_str().to_ascii_lowercase()).unwrap_or_default();
                if am_pm.is_empty() || am_pm == AM_PM[0] {
                    if hour == 12 {
                        hour = 0;
                    }
                } else if am_pm == AM_PM[1] && hour != 12 {
                    hour += 12;
                }
            }
            'M' => minute = int(text)?,
            'S' => second = int(text)?,
            'f' => fraction = int(&format!("{text:0<6}"))?,
            'j' => julian = Some(int(text)?),
            'z' => offset_found = Some(offset(text)?),
            // %a, %A and %p alone change nothing (the weekday is not checked).
            _ => {}
        }
    }
    let leap_year_fix = year.is_none() && month == 2 && day == 29;
    let mut year = year.unwrap_or(if leap_year_fix { 1904 } else { 1900 });
    match julian {
        None => {
            valid_month(year, month)?;
            if valid_date(year, month, day).is_none() {
                return Some(Strptime::DayOutOfRange);
            }
        }
        Some(julian) => {
            let date = valid_date(year, 1, 1)?.checked_add_days(Days::new(u64::try_from(julian - 1).ok()?))?;
            (year, month, day) = (i64::from(date.year()), i64::from(date.month()), i64::from(date.day()));
        }
    }
    if leap_year_fix {
        year = 1900;
    }
    valid_month(year, month)?;
    if valid_date(year, month, day).is_none() {
        return Some(Strptime::DayOutOfRange);
    }
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    if let Some((seconds, micros)) = offset_found
        && (seconds * 1_000_000 + micros).abs() >= 86_400 * 1_000_000
    {
        return None;
    }
    Some(Strptime::Parsed(Parsed { fields: [year, month, day, hour, minute, second, fraction], offset: offset_found }))
}

/// What `datetime.datetime.strptime(text, format)` comes to in CPython, or
/// `None` where the Python implementation must decide (see the module docs).
pub fn strptime(text: &str, format: &str) -> Option<Strptime> {
    if !text.is_ascii() {
        return None;
    }
    let pattern = pattern(format)?;
    let found = pattern.regex.captures(text)?;
    if found.get(0)?.end() != text.len() {
        return None; // Python: "unconverted data remains"
    }
    combine(&pattern, &found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(text: &str, format: &str) -> Option<[i64; 7]> {
        match strptime(text, format)? {
            Strptime::Parsed(parsed) => Some(parsed.fields),
            Strptime::DayOutOfRange => None,
        }
    }

    #[test]
    fn common_formats_parse_like_python() {
        assert_eq!(fields("21-01-2020 18:23", "%d-%m-%Y %H:%M"), Some([2020, 1, 21, 18, 23, 0, 0]));
        assert_eq!(fields("2020-01-05", "%Y-%m-%d"), Some([2020, 1, 5, 0, 0, 0, 0]));
        assert_eq!(fields("5/1/69 3:07:09.25 PM", "%d/%m/%y %I:%M:%S.%f %p"), Some([1969, 1, 5, 15, 7, 9, 250000]));
        assert_eq!(fields("12 am", "%I %p"), Some([1900, 1, 1, 0, 0, 0, 0]));
        assert_eq!(fields("sePtember 3 2021", "%B %d %Y"), Some([2021, 9, 3, 0, 0, 0, 0]));
        assert_eq!(fields("2023 366", "%Y %j"), Some([2024, 1, 1, 0, 0, 0, 0]), "day 366 of 2023 runs into 2024");
        assert_eq!(fields("2024 366", "%Y %j"), Some([2024, 12, 31, 0, 0, 0, 0]));
        assert_eq!(strptime("02 29", "%m %d"), Some(Strptime::DayOutOfRange), "29 February 1900 does not exist");
        assert_eq!(strptime("2020-02-30", "%Y-%m-%d"), Some(Strptime::DayOutOfRange));
        assert_eq!(strptime("31/04/2021", "%d/%m/%Y"), Some(Strptime::DayOutOfRange));
    }

    #[test]
    fn offsets_follow_python() {
        let offset = |text: &str| match strptime(text, "%H%z") {
            Some(Strptime::Parsed(parsed)) => parsed.offset,
            _ => None,
        };
        assert_eq!(offset("10Z"), Some((0, 0)));
        assert_eq!(offset("10+0530"), Some((19800, 0)));
        assert_eq!(offset("10-05:30:15.5"), Some((-19815, -500000)));
        assert_eq!(offset("10+05:3015"), None, "inconsistent colons");
        assert_eq!(offset("10+2400"), None, "a day or more is out of range");
        assert_eq!(offset("10z"), None, "Z is case-sensitive");
    }

    #[test]
    fn unsupported_or_failing_input_is_left_to_python() {
        assert_eq!(fields("2020-01-01", "%Y-%m-%d %Z"), None);
        assert_eq!(fields("2020 2020", "%Y %Y"), None);
        assert_eq!(fields("2020-01-01x", "%Y-%m-%d"), None);
        assert_eq!(fields("10:60", "%H:%S"), None);
        assert_eq!(fields("2020-01-01", "%Y-%m-%"), None);
        assert_eq!(fields("２020", "%Y"), None);
    }
}
