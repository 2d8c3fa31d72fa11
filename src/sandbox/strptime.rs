//! A native fast path for `datetime.datetime.strptime`, which the sandbox's
//! Python runs as pure Python (`_strptime`) — the slowest common operation in
//! LLM-written DAGs.
//!
//! It handles ASCII input and formats made of `%Y %y %m %d %H %M %S %f %%` and
//! ASCII literals (with a year directive), builds the same regular expression
//! `_strptime` builds for them (same alternatives, same order, case-insensitive,
//! whitespace runs matching any whitespace), and converts the fields the same
//! way. Anything else — other directives, non-ASCII text, no match, leftover
//! text, an impossible date — returns `None`, and the caller falls back to the
//! Python implementation, which then produces Python's own result or error.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use regex::Regex;

/// The fields of a parsed datetime: year, month, day, hour, minute, second, microsecond.
pub type DatetimeFields = [i64; 7];

/// Compiled formats kept per worker thread (formats repeat: one per column).
const CACHE_LIMIT: usize = 64;

thread_local! {
    static CACHE: RefCell<HashMap<String, Option<Rc<Regex>>>> = RefCell::new(HashMap::new());
}

/// ASCII whitespace as Python's `\s` matches it (`str.isspace`).
const WHITESPACE: &str = r"[\t\n\x0B\x0C\r\x1C-\x1F ]";

/// `_strptime`'s pattern for a directive (ASCII digits, as the input is ASCII).
fn directive_pattern(directive: char) -> Option<&'static str> {
    Some(match directive {
        'd' => r"(?P<d>3[0-1]|[1-2][0-9]|0[1-9]|[1-9]| [1-9])",
        'f' => r"(?P<f>[0-9]{1,6})",
        'H' => r"(?P<H>2[0-3]|[0-1][0-9]|[0-9]| [0-9])",
        'm' => r"(?P<m>1[0-2]|0[1-9]|[1-9])",
        'M' => r"(?P<M>[0-5][0-9]|[0-9])",
        'S' => r"(?P<S>6[0-1]|[0-5][0-9]|[0-9])",
        'y' => r"(?P<y>[0-9][0-9])",
        'Y' => r"(?P<Y>[0-9][0-9][0-9][0-9])",
        _ => return None,
    })
}

/// `format` as `_strptime`'s regular expression, when the fast path supports it.
fn compile(format: &str) -> Option<Regex> {
    if !format.is_ascii() || format.contains('\'') {
        return None;
    }
    let mut pattern = String::from("(?i)^");
    let mut seen = Vec::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '%' {
            let directive = chars.next()?;
            if directive == '%' {
                pattern.push('%');
                continue;
            }
            if seen.contains(&directive) {
                return None;
            }
            seen.push(directive);
            pattern.push_str(directive_pattern(directive)?);
        } else if WHITESPACE_CHARS.contains(c) {
            while chars.peek().is_some_and(|next| WHITESPACE_CHARS.contains(*next)) {
                chars.next();
            }
            pattern.push_str(WHITESPACE);
            pattern.push('+');
        } else {
            pattern.push_str(&regex::escape(&c.to_string()));
        }
    }
    if !seen.contains(&'Y') && !seen.contains(&'y') {
        return None;
    }
    Regex::new(&pattern).ok()
}

/// The characters [`WHITESPACE`] matches.
const WHITESPACE_CHARS: &str = "\t\n\x0B\x0C\r\x1C\x1D\x1E\x1F ";

fn compiled(format: &str) -> Option<Rc<Regex>> {
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some(found) = cache.get(format) {
            return found.clone();
        }
        if cache.len() >= CACHE_LIMIT {
            cache.clear();
        }
        let made = compile(format).map(Rc::new);
        cache.insert(format.to_string(), made.clone());
        made
    })
}

/// `datetime.strptime(data, format)`'s fields, when the fast path can answer
/// exactly as Python would; `None` sends the caller to Python.
pub fn fast_strptime(data: &str, format: &str) -> Option<DatetimeFields> {
    if !data.is_ascii() {
        return None;
    }
    let found = compiled(format)?.captures(data)?;
    if found.get(0)?.end() != data.len() {
        return None;
    }
    let number = |name: &str| found.name(name).map(|m| m.as_str().trim_start().parse::<i64>());
    let year = match (number("Y"), number("y")) {
        (Some(year), _) => year.ok()?,
        (None, Some(short)) => {
            let short = short.ok()?;
            if short <= 68 { short + 2000 } else { short + 1900 }
        }
        (None, None) => return None,
    };
    let field = |name: &str, default: i64| number(name).map_or(Some(default), Result::ok);
    let (month, day) = (field("m", 1)?, field("d", 1)?);
    let (hour, minute, second) = (field("H", 0)?, field("M", 0)?, field("S", 0)?);
    let microsecond = match found.name("f") {
        Some(digits) => format!("{:0<6}", digits.as_str()).parse().ok()?,
        None => 0,
    };
    // Leave impossible values (a year 0, Feb 30, second 60) to Python's error.
    let valid_date =
        year >= 1 && chrono::NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month as u32, day as u32).is_some();
    (valid_date && second <= 59).then_some([year, month, day, hour, minute, second, microsecond])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_formats_parse() {
        assert_eq!(fast_strptime("21-01-2020 18:23", "%d-%m-%Y %H:%M"), Some([2020, 1, 21, 18, 23, 0, 0]));
        assert_eq!(fast_strptime("2020-1-5", "%Y-%m-%d"), Some([2020, 1, 5, 0, 0, 0, 0]));
        assert_eq!(
            fast_strptime("2020-01-05T07:08:09.5", "%Y-%m-%dT%H:%M:%S.%f"),
            Some([2020, 1, 5, 7, 8, 9, 500_000])
        );
        assert_eq!(
            fast_strptime("2020-01-05t07", "%Y-%m-%dT%H"),
            Some([2020, 1, 5, 7, 0, 0, 0]),
            "literals ignore case"
        );
        assert_eq!(fast_strptime("05/01/69", "%d/%m/%y"), Some([1969, 1, 5, 0, 0, 0, 0]));
        assert_eq!(fast_strptime("05/01/68", "%d/%m/%y"), Some([2068, 1, 5, 0, 0, 0, 0]));
        assert_eq!(fast_strptime("2020  \t1", "%Y %m"), Some([2020, 1, 1, 0, 0, 0, 0]), "whitespace runs");
        assert_eq!(fast_strptime("2020 % 3", "%Y %% %m"), Some([2020, 3, 1, 0, 0, 0, 0]));
        assert_eq!(fast_strptime("2020- 5", "%Y-%d"), Some([2020, 1, 5, 0, 0, 0, 0]), "a space-padded day");
    }

    #[test]
    fn everything_else_goes_to_python() {
        for (data, format) in [
            ("2020-02-30", "%Y-%m-%d"), // impossible date: Python's error
            ("0000-01-01", "%Y-%m-%d"), // year 0
            ("2020-01-01 00:00:60", "%Y-%m-%d %H:%M:%S"),
            ("2020-01-01x", "%Y-%m-%d"), // unconverted data remains
            ("20-01-01", "%Y-%m-%d"),    // no match
            ("Jan 2020", "%b %Y"),       // unsupported directive
            ("01-02", "%d-%m"),          // no year
            ("2020 2020", "%Y %Y"),      // repeated directive
            ("２０２０", "%Y"),          // non-ASCII digits
            ("2020", "%Y%"),             // stray %
            ("2020's", "%Y's"),          // apostrophes are special in _strptime
        ] {
            assert_eq!(fast_strptime(data, format), None, "{data:?} with {format:?}");
        }
    }

    #[test]
    fn the_preferred_alternative_wins_as_in_python() {
        // `%m%d` on "1212": month takes "12" first, as Python's regex does.
        assert_eq!(fast_strptime("20201212", "%Y%m%d"), Some([2020, 12, 12, 0, 0, 0, 0]));
        // "123": month "12", day "3".
        assert_eq!(fast_strptime("2020123", "%Y%m%d"), Some([2020, 12, 3, 0, 0, 0, 0]));
    }
}
