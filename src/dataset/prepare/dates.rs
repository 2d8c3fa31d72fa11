//! Datetime columns: the strptime formats a column may be written in, tried
//! with Python's own rules ([`crate::dataset::strptime`]), and epoch numbers
//! in columns whose name says they are times.

use std::collections::HashMap;
use std::sync::LazyLock;

use chrono::{DateTime, NaiveDate, NaiveDateTime};

use crate::dataset::strptime::{Strptime, strptime};

/// Dates, most preferred first: ISO order, then month-first before day-first
/// for `/`, day-first before month-first for `-` and `.`, then month names.
const DATES: &[&str] = &[
    "%Y-%m-%d",
    "%Y/%m/%d",
    "%Y.%m.%d",
    "%Y %m %d",
    "%m/%d/%Y",
    "%d/%m/%Y",
    "%m/%d/%y",
    "%d/%m/%y",
    "%d-%m-%Y",
    "%m-%d-%Y",
    "%d-%m-%y",
    "%m-%d-%y",
    "%d.%m.%Y",
    "%m.%d.%Y",
    "%d.%m.%y",
    "%d %b %Y",
    "%d %B %Y",
    "%b %d %Y",
    "%B %d %Y",
    "%b %d, %Y",
    "%B %d, %Y",
    "%d-%b-%Y",
    "%d-%b-%y",
    "%d/%b/%Y",
    "%Y-%b-%d",
    "%a, %d %b %Y",
    "%a %d %b %Y",
    "%a %b %d %Y",
    "%A, %B %d, %Y",
    "%A, %d %B %Y",
    "%b %Y",
    "%B %Y",
    "%Y-%m",
];

/// Times of day, after a date and a space (or `T` for ISO dates).
const TIMES: &[&str] =
    &["%H:%M", "%H:%M:%S", "%H:%M:%S.%f", "%I:%M %p", "%I:%M:%S %p", "%I:%M%p", "%I:%M:%S%p", "%I %p"];

/// Zones after a 24-hour time: a literal `Z` (read the same by every parser) before `%z`.
const ZONES: &[&str] = &["", "Z", "%z", " %z"];

/// The compact date of integer columns.
pub const COMPACT: &str = "%Y%m%d";

/// Every candidate format and an index by the shape of the values it reads.
struct Candidates {
    formats: Vec<String>,
    by_shape: HashMap<String, Vec<usize>>,
}

static CANDIDATES: LazyLock<Candidates> = LazyLock::new(|| {
    let mut formats: Vec<String> = Vec::new();
    for date in DATES {
        formats.push((*date).to_string());
        let month_only = !date.contains("%d");
        if month_only {
            continue;
        }
        let joins: &[&str] = if *date == "%Y-%m-%d" { &[" ", "T"] } else { &[" "] };
        for join in joins {
            for time in TIMES {
                let zones: &[&str] = if time.contains("%H") { ZONES } else { &[""] };
                for zone in zones {
                    formats.push(format!("{date}{join}{time}{zone}"));
                }
            }
        }
    }
    formats.push("%a %b %d %H:%M:%S %Y".into());
    let mut by_shape: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, format) in formats.iter().enumerate() {
        for shape in format_shapes(format) {
            by_shape.entry(shape).or_default().push(i);
        }
    }
    Candidates { formats, by_shape }
});

/// Appends a class to a shape, merging runs of digits (`D`) and of letters (`A`).
fn push_class(shape: &mut String, class: char) {
    let merges = matches!(class, 'D' | 'A' | ' ');
    if !(merges && shape.ends_with(class)) {
        shape.push(class);
    }
}

/// The shape of a value: runs of digits as `D`, of letters as `A`, of spaces as one space.
pub fn shape(value: &str) -> String {
    let mut out = String::new();
    for c in value.chars() {
        let class = if c.is_ascii_digit() {
            'D'
        } else if c.is_alphabetic() {
            'A'
        } else if c.is_whitespace() {
            ' '
        } else {
            c
        };
        push_class(&mut out, class);
    }
    out
}

/// The shapes of the values `format` reads (`%z` reads several).
fn format_shapes(format: &str) -> Vec<String> {
    let mut shapes = vec![String::new()];
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        let classes: Vec<&str> = if c == '%' {
            match chars.next() {
                Some('z') => vec!["A", "+D", "-D", "+D:D", "-D:D"],
                Some('b' | 'B' | 'a' | 'A' | 'p') => vec!["A"],
                Some(_) => vec!["D"],
                None => vec![],
            }
        } else if c.is_alphabetic() {
            vec!["A"]
        } else {
            vec![]
        };
        let literal = c.to_string();
        let classes = if classes.is_empty() && c != '%' { vec![literal.as_str()] } else { classes };
        shapes = shapes
            .iter()
            .flat_map(|shape| {
                classes.iter().map(move |class| {
                    let mut next = shape.clone();
                    class.chars().for_each(|k| push_class(&mut next, k));
                    next
                })
            })
            .collect();
    }
    shapes
}

/// Whether Python's `datetime.strptime(value, format)` returns a datetime.
pub fn parses(value: &str, format: &str) -> bool {
    matches!(strptime(value, format), Some(Strptime::Parsed(_)))
}

/// The candidate formats (by index) that read `value`, most preferred first.
pub fn candidates_for(value: &str) -> Vec<u16> {
    let c = &*CANDIDATES;
    c.by_shape
        .get(&shape(value))
        .into_iter()
        .flatten()
        .filter(|&&i| parses(value, &c.formats[i]))
        .map(|&i| i as u16)
        .collect()
}

/// The format of candidate `index`.
pub fn format_of(index: u16) -> &'static str {
    &CANDIDATES.formats[usize::from(index)]
}

/// `value` read with strptime `format` (any offset dropped: the local time).
pub fn parse(value: &str, format: &str) -> Option<NaiveDateTime> {
    let Some(Strptime::Parsed(p)) = strptime(value, format) else { return None };
    let [y, mo, d, h, mi, s, micro] = p.fields;
    let date = NaiveDate::from_ymd_opt(i32::try_from(y).ok()?, u32::try_from(mo).ok()?, u32::try_from(d).ok()?)?;
    date.and_hms_micro_opt(
        u32::try_from(h).ok()?,
        u32::try_from(mi).ok()?,
        u32::try_from(s).ok()?,
        u32::try_from(micro).ok()?,
    )
}

/// Whether a format reads a time of day.
pub fn has_time(format: &str) -> bool {
    format.contains("%H") || format.contains("%I")
}

/// A format made for people: `DD/MM/YYYY hh:MM AM/PM`.
pub fn human(format: &str) -> String {
    format
        .replace("%Y", "YYYY")
        .replace("%m", "MM")
        .replace("%d", "DD")
        .replace("%H", "HH")
        .replace("%M", "MM")
        .replace("%S", "SS")
        .replace("%y", "YY")
        .replace("%f", "ffffff")
        .replace("%I", "hh")
        .replace("%p", "AM/PM")
        .replace("%b", "Mon")
        .replace("%B", "Month")
        .replace("%a", "Day")
        .replace("%A", "Weekday")
        .replace("%z", "+HH:MM")
}

/// `format` with day and month swapped, when both are numeric fields.
pub fn swapped(format: &str) -> Option<String> {
    (format.contains("%d") && format.contains("%m"))
        .then(|| format.replace("%d", "%DAY").replace("%m", "%d").replace("%DAY", "%m"))
}

/// What an epoch number counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EpochUnit {
    /// Seconds since 1970-01-01 UTC.
    Seconds,
    /// Milliseconds since 1970-01-01 UTC.
    Milliseconds,
}

impl EpochUnit {
    /// The unit an integer in a time-named column counts, if it is a plausible
    /// time between 1973 and 2286.
    pub fn of(value: i64) -> Option<Self> {
        match value {
            100_000_000..10_000_000_000 => Some(Self::Seconds),
            100_000_000_000..10_000_000_000_000 => Some(Self::Milliseconds),
            _ => None,
        }
    }

    /// The UTC time of `value`.
    pub fn time(self, value: i64) -> Option<NaiveDateTime> {
        let t = match self {
            Self::Seconds => DateTime::from_timestamp(value, 0),
            Self::Milliseconds => DateTime::from_timestamp_millis(value),
        };
        Some(t?.naive_utc())
    }

    /// The strptime format of the text the times are written as.
    pub fn strptime(self) -> &'static str {
        match self {
            Self::Seconds => "%Y-%m-%d %H:%M:%S",
            Self::Milliseconds => "%Y-%m-%d %H:%M:%S.%f",
        }
    }

    /// The text of `time` in [`Self::strptime`].
    pub fn text(self, time: NaiveDateTime) -> String {
        match self {
            Self::Seconds => time.format("%Y-%m-%d %H:%M:%S").to_string(),
            Self::Milliseconds => time.format("%Y-%m-%d %H:%M:%S%.3f").to_string(),
        }
    }

    /// What the CSV held, for the column's note.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Seconds => "epoch seconds",
            Self::Milliseconds => "epoch milliseconds",
        }
    }
}

/// Whether a column name says its numbers are times (`*_ts`, `timestamp`, `epoch`, `*_at`).
pub fn time_like_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name == "ts"
        || name.ends_with("_ts")
        || name.contains("timestamp")
        || name.contains("epoch")
        || name.ends_with("_at")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(values: &[&str]) -> Option<&'static str> {
        let mut set = candidates_for(values[0]);
        for v in &values[1..] {
            set.retain(|&i| parses(v, format_of(i)));
        }
        set.first().map(|&i| format_of(i))
    }

    #[test]
    fn common_shapes_are_recognised() {
        assert_eq!(first(&["2012/01/01", "2013/12/31"]), Some("%Y/%m/%d"));
        assert_eq!(first(&["Jan 1 2000", "Dec 31 1999"]), Some("%b %d %Y"));
        assert_eq!(first(&["2024-01-05T10:00:00Z"]), Some("%Y-%m-%dT%H:%M:%SZ"));
        assert_eq!(first(&["2024-01-05T10:00:00.25+01:00"]), Some("%Y-%m-%dT%H:%M:%S.%f%z"));
        assert_eq!(first(&["Mar 03 2022 01:15 PM"]), Some("%b %d %Y %I:%M %p"));
        assert_eq!(first(&["01/02/2020", "03/04/2020"]), Some("%m/%d/%Y"));
        assert_eq!(first(&["01/02/2020", "25/04/2020"]), Some("%d/%m/%Y"));
        assert_eq!(first(&["01.02.2020 10:00"]), Some("%d.%m.%Y %H:%M"));
        assert_eq!(first(&["Tue, 05 Mar 2024 10:00:00 +0000"]), Some("%a, %d %b %Y %H:%M:%S %z"));
        assert_eq!(first(&["5 March 2021"]), Some("%d %B %Y"));
        assert_eq!(first(&["2024-01-05 10:00:00+0000"]), Some("%Y-%m-%d %H:%M:%S%z"));
        assert_eq!(first(&["2024-01-05T10:00:00.5"]), Some("%Y-%m-%dT%H:%M:%S.%f"));
        assert_eq!(first(&["05/03/24", "12/31/99"]), Some("%m/%d/%y"));
        assert_eq!(first(&["15-Mar-2024"]), Some("%d-%b-%Y"));
        assert_eq!(first(&["Tuesday, March 5, 2024"]), Some("%A, %B %d, %Y"));
        assert_eq!(first(&["2024-01", "2024-12"]), Some("%Y-%m"));
        assert_eq!(first(&["Sat Mar  2 10:00:00 2024"]), Some("%a %b %d %H:%M:%S %Y"));
        assert_eq!(first(&["2024-01-05T10:00:00", "2024-01-05T10:00:00.5"]), None, "no one format reads both");
        assert_eq!(first(&["hello"]), None);
        assert_eq!(first(&["12.5"]), None);
    }

    #[test]
    fn epochs_and_helpers() {
        assert_eq!(EpochUnit::of(1_700_000_000), Some(EpochUnit::Seconds));
        assert_eq!(EpochUnit::of(1_700_000_000_000), Some(EpochUnit::Milliseconds));
        assert_eq!(EpochUnit::of(42), None);
        let t = EpochUnit::Milliseconds.time(1_700_000_000_123).unwrap();
        assert_eq!(EpochUnit::Milliseconds.text(t), "2023-11-14 22:13:20.123");
        assert!(parses(&EpochUnit::Milliseconds.text(t), EpochUnit::Milliseconds.strptime()));
        assert_eq!(swapped("%d/%m/%Y").as_deref(), Some("%m/%d/%Y"));
        assert!(time_like_name("created_at") && time_like_name("event_ts") && !time_like_name("unix_time"));
        assert_eq!(human("%d/%m/%Y %I:%M %p"), "DD/MM/YYYY hh:MM AM/PM");
    }
}
