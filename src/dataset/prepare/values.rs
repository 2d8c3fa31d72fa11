//! Reading one field: missing values, booleans and numbers as people write
//! them (thousands separators, decimal commas, currency signs, percentages).

/// Field values treated as missing (after trimming surrounding whitespace).
pub const NULL_MARKERS: &[&str] = &["", "NA", "N/A", "na", "n/a", "null", "NULL", "None", "NaN", "nan", "-"];

/// Currency signs and codes recognised before or after a number.
const CURRENCIES: &[&str] = &["$", "€", "£", "¥", "₹", "₩", "₽", "CHF", "USD", "EUR", "GBP", "JPY"];

/// Whether `raw` is a missing value.
pub fn is_null(raw: &str) -> bool {
    NULL_MARKERS.contains(&raw.trim())
}

/// The spellings a boolean column uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoolWords {
    /// `0`/`1`: written to `data.json` as the integers 0 and 1.
    ZeroOne,
    /// `true`/`false`, `yes`/`no`, `y`/`n` (any case): written as JSON booleans.
    Words,
}

/// The truth value of a boolean spelling, with the family it belongs to.
pub fn boolean(raw: &str) -> Option<(bool, BoolWords)> {
    let raw = raw.trim();
    match raw {
        "0" => return Some((false, BoolWords::ZeroOne)),
        "1" => return Some((true, BoolWords::ZeroOne)),
        _ => {}
    }
    let lower = raw.to_ascii_lowercase();
    match lower.as_str() {
        "true" | "yes" | "y" => Some((true, BoolWords::Words)),
        "false" | "no" | "n" => Some((false, BoolWords::Words)),
        _ => None,
    }
}

/// Whether a label value counts as positive (`1`, `true`, `yes`, …).
pub fn positive(raw: &str) -> bool {
    boolean(raw).is_some_and(|(b, _)| b)
}

/// How a column writes its numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NumberStyle {
    /// The decimal mark: `.` or `,`.
    pub decimal: char,
    /// The thousands separator, if any: `,`, `.`, `'` or a space.
    pub group: Option<char>,
}

impl NumberStyle {
    /// Every style a column may use, in order of preference for a
    /// comma-separated file (a semicolon-separated one prefers decimal commas).
    pub const ALL: [NumberStyle; 7] = [
        NumberStyle { decimal: '.', group: None },
        NumberStyle { decimal: '.', group: Some(',') },
        NumberStyle { decimal: '.', group: Some(' ') },
        NumberStyle { decimal: '.', group: Some('\'') },
        NumberStyle { decimal: ',', group: None },
        NumberStyle { decimal: ',', group: Some('.') },
        NumberStyle { decimal: ',', group: Some(' ') },
    ];

    /// Whether this is the plain style `f64::from_str` reads.
    pub fn is_plain(self) -> bool {
        self.decimal == '.' && self.group.is_none()
    }

    /// The number `digits` (sign, digits and marks only) stands for in this style.
    pub fn read(self, digits: &str) -> Option<f64> {
        let marked = digits.contains(self.decimal) || self.group.is_some_and(|g| digits.contains(g));
        if self.is_plain() || !(marked || digits.contains(['.', ','])) {
            return digits.parse::<f64>().ok().filter(|x| x.is_finite());
        }
        let (int, fraction) = match digits.split_once(self.decimal) {
            Some((i, f)) => (i, Some(f)),
            None => (digits, None),
        };
        let (sign, int) = match int.strip_prefix('-') {
            Some(rest) => ("-", rest),
            None => ("", int.strip_prefix('+').unwrap_or(int)),
        };
        let mut plain = String::from(sign);
        match self.group {
            Some(g) if int.contains(g) => {
                let mut groups = int.split(g);
                let head = groups.next()?;
                if head.is_empty() || head.len() > 3 || !head.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                plain.push_str(head);
                for group in groups {
                    if group.len() != 3 || !group.bytes().all(|b| b.is_ascii_digit()) {
                        return None;
                    }
                    plain.push_str(group);
                }
            }
            _ if int.bytes().all(|b| b.is_ascii_digit()) && !int.is_empty() => plain.push_str(int),
            _ => return None,
        }
        if let Some(fraction) = fraction {
            if fraction.is_empty() || !fraction.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            plain.push('.');
            plain.push_str(fraction);
        }
        plain.parse::<f64>().ok().filter(|x| x.is_finite())
    }
}

/// What surrounds the digits of a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Unit {
    /// A currency sign or code.
    pub currency: Option<&'static str>,
    /// A trailing `%`.
    pub percent: bool,
}

/// A field taken apart into its unit and the text of its digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumberText<'a> {
    /// Sign, digits and marks (`-1,234.50`).
    pub digits: std::borrow::Cow<'a, str>,
    /// The unit around them.
    pub unit: Unit,
}

/// Split `raw` into a unit and digits: `$1,234.50`, `-€3`, `(45.00)`, `12,5 %`, `100 EUR`.
pub fn number_text(raw: &str) -> Option<NumberText<'_>> {
    let mut text = raw.trim();
    let mut negative = false;
    if let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        negative = true;
        text = inner.trim();
    }
    if let Some(rest) = text.strip_prefix('-') {
        negative = !negative;
        text = rest.trim_start();
    }
    let mut unit = Unit::default();
    if let Some(rest) = text.strip_suffix('%') {
        unit.percent = true;
        text = rest.trim_end();
    }
    for sign in CURRENCIES {
        if let Some(rest) = text.strip_prefix(sign) {
            unit.currency = Some(sign);
            text = rest.trim_start();
            break;
        }
        if let Some(rest) = text.strip_suffix(sign) {
            unit.currency = Some(sign);
            text = rest.trim_end();
            break;
        }
    }
    if unit.currency.is_some() && unit.percent {
        return None;
    }
    if unit.currency.is_some()
        && let Some(rest) = text.strip_prefix('-')
    {
        negative = !negative;
        text = rest;
    }
    let first = text.chars().next()?;
    if !(first.is_ascii_digit() || first == '+' || (first == '.' && text.len() > 1)) {
        return None;
    }
    let digits = match (negative, text.contains(['\u{a0}', '\u{202f}'])) {
        (false, false) => text.into(),
        (_, spaces) => {
            let text = if spaces { text.replace(['\u{a0}', '\u{202f}'], " ") } else { text.to_string() };
            (if negative { format!("-{text}") } else { text }).into()
        }
    };
    Some(NumberText { digits, unit })
}

/// The value of `raw` in `style`, with its unit.
pub fn number(raw: &str, style: NumberStyle) -> Option<(f64, Unit)> {
    let text = number_text(raw)?;
    Some((style.read(&text.digits)?, text.unit))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOT: NumberStyle = NumberStyle { decimal: '.', group: None };
    const DOT_COMMA: NumberStyle = NumberStyle { decimal: '.', group: Some(',') };
    const COMMA_DOT: NumberStyle = NumberStyle { decimal: ',', group: Some('.') };

    #[test]
    fn numbers_are_read_in_every_style() {
        assert_eq!(number("1234.5", DOT), Some((1234.5, Unit::default())));
        assert_eq!(number("1,234.5", DOT), None);
        assert_eq!(number("1,234.5", DOT_COMMA).map(|n| n.0), Some(1234.5));
        assert_eq!(number("1.234,5", COMMA_DOT).map(|n| n.0), Some(1234.5));
        assert_eq!(number("12,34", DOT_COMMA), None, "groups have three digits");
        let dollars = number("$1,234.50", DOT_COMMA).unwrap();
        assert_eq!((dollars.0, dollars.1.currency), (1234.5, Some("$")));
        assert_eq!(number("(45.00)", DOT).map(|n| n.0), Some(-45.0));
        assert_eq!(number("-$3", DOT).map(|n| n.0), Some(-3.0));
        assert_eq!(number("$-3", DOT).map(|n| n.0), Some(-3.0));
        let percent = number("12.5%", DOT).unwrap();
        assert_eq!((percent.0, percent.1.percent), (12.5, true));
        assert_eq!(number("1 234,5 €", NumberStyle { decimal: ',', group: Some(' ') }).map(|n| n.0), Some(1234.5));
        assert_eq!(number("abc", DOT), None);
        assert_eq!(number("$", DOT), None);
        assert_eq!(number("12%$", DOT), None);
    }

    #[test]
    fn nulls_and_booleans() {
        assert!(is_null(" - ") && is_null("NA") && is_null("") && !is_null("0"));
        assert_eq!(boolean("Yes"), Some((true, BoolWords::Words)));
        assert_eq!(boolean("N"), Some((false, BoolWords::Words)));
        assert_eq!(boolean("1"), Some((true, BoolWords::ZeroOne)));
        assert_eq!(boolean("maybe"), None);
        assert!(positive("TRUE") && !positive("no"));
    }
}
